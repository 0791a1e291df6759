//! Parsing the records of a large document on every core: records are independent, so
//! contiguous runs of them are parsed on separate threads and the results joined in order.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::formats::message::Notes;

/// Below this many bytes of records, one thread parses them all.
const PARALLEL_BYTES: usize = 1 << 20;

/// Records are handed to the threads in runs of about this many bytes, each thread taking
/// the next run when it is done with one: a record's cost is not its length (prose, code
/// and logs tokenize at different speeds, and a thread may be descheduled), so halves
/// fixed up front left one thread counting alone for up to 40 ms of a 44 MB trim.
const RUN_BYTES: usize = 128 << 10;

/// `parse(i, notes)` for every record `i` in `0..n`, in order, on up to every core when the
/// records (`bytes(i)` each) are large enough to be worth it. `None` results are skipped.
/// The error of the first failing record (in record order) is returned, as a sequential
/// reader would.
pub fn parse_records<T: Send, E: Send>(
    n: usize,
    bytes: impl Fn(usize) -> usize + Sync,
    parse: impl Fn(usize, &mut Notes) -> Result<Option<T>, E> + Sync,
) -> Result<(Vec<T>, Notes), E> {
    parse_in_runs(
        n,
        bytes,
        parse,
        crate::tokens::parallel::available(),
        RUN_BYTES,
    )
}

/// [`parse_records`] on up to `threads` threads taking runs of about `run_bytes` bytes.
fn parse_in_runs<T: Send, E: Send>(
    n: usize,
    bytes: impl Fn(usize) -> usize + Sync,
    parse: impl Fn(usize, &mut Notes) -> Result<Option<T>, E> + Sync,
    threads: usize,
    run_bytes: usize,
) -> Result<(Vec<T>, Notes), E> {
    let total: usize = (0..n).map(&bytes).sum();
    let run = |range: Range<usize>| {
        let mut notes = Notes::default();
        let mut out = Vec::with_capacity(range.len());
        for i in range {
            if let Some(v) = parse(i, &mut notes)? {
                out.push(v);
            }
        }
        Ok((out, notes))
    };
    if threads < 2 || total < PARALLEL_BYTES {
        return run(0..n);
    }
    let runs = split(n, total, total.div_ceil(run_bytes).max(threads), &bytes);
    // Every record's result has a slot, written by the thread that parsed it: once all are
    // in, they are in order, and a large session's messages are held once (no run's
    // results copied into another's vector).
    let mut slots: Vec<Option<T>> = std::iter::repeat_with(|| None).take(n).collect();
    let mut done = {
        let mut pieces = Vec::with_capacity(runs.len());
        let mut rest: &mut [Option<T>] = &mut slots;
        for (k, r) in runs.iter().enumerate() {
            let (piece, tail) = std::mem::take(&mut rest).split_at_mut(r.len());
            pieces.push((k, r.start, piece));
            rest = tail;
        }
        // Runs go out in order; the first that failed stops the later ones (an earlier
        // record's error is the one returned, and every earlier run was taken before).
        let queue = Mutex::new(pieces.into_iter());
        let failed = AtomicUsize::new(usize::MAX);
        let work = || {
            let mut done = Vec::new();
            loop {
                let next = queue.lock().unwrap_or_else(PoisonError::into_inner).next();
                let Some((k, start, piece)) = next else {
                    return done;
                };
                if k > failed.load(Ordering::Relaxed) {
                    return done;
                }
                let mut notes = Notes::default();
                let mut result = Ok(());
                for (j, slot) in piece.iter_mut().enumerate() {
                    match parse(start + j, &mut notes) {
                        Ok(v) => *slot = v,
                        Err(e) => {
                            failed.fetch_min(k, Ordering::Relaxed);
                            result = Err(e);
                            break;
                        }
                    }
                }
                done.push((k, result.map(|()| notes)));
            }
        };
        std::thread::scope(|s| {
            let helpers: Vec<_> = (1..threads).map(|_| s.spawn(work)).collect();
            let mut done = work();
            for h in helpers {
                done.extend(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
            }
            done
        })
    };
    done.sort_unstable_by_key(|(k, _)| *k);
    let mut notes = Notes::default();
    for (_, part) in done {
        notes.merge(part?);
    }
    Ok((unslot(slots), notes))
}

/// The results in `slots`, in order, in the slots' own allocation when `Option<T>` is
/// `T`'s size (when `T` has a niche, as a message does): `filter_map` is collected in
/// place where `flatten` allocates again.
#[allow(clippy::filter_map_identity)]
fn unslot<T>(slots: Vec<Option<T>>) -> Vec<T> {
    slots
        .into_iter()
        .filter_map(std::convert::identity)
        .collect()
}

/// Text released at a time by [`parse_spans`] when asked to release it.
const RELEASE_BYTES: usize = 16 << 20;

/// Parses the records at `spans` of `text` with [`parse_records`]; with `release`, with
/// [`parse_releasing`] instead, so that `text` is gone at the end (read-only loads).
pub fn parse_spans<T: Send, E: Send>(
    text: &mut String,
    spans: &[Range<usize>],
    release: bool,
    parse: impl Fn(&str, usize, &mut Notes) -> Result<Option<T>, E> + Sync,
) -> Result<(Vec<T>, Notes), E> {
    if release {
        return parse_releasing(text, spans, RELEASE_BYTES, parse);
    }
    let text: &str = text;
    parse_records(
        spans.len(),
        |i| spans[i].len(),
        |i, notes| parse(text, i, notes),
    )
}

/// Like [`parse_records`] for records at `spans` of `text`, but parsing from the last
/// record to the first, `release` bytes at a time, and cutting `text` short after each run
/// so that its memory goes back as the messages take their own: the text is gone at the end.
/// The error of the first failing record (in record order) is still the one returned.
pub fn parse_releasing<T: Send, E: Send>(
    text: &mut String,
    spans: &[Range<usize>],
    release: usize,
    parse: impl Fn(&str, usize, &mut Notes) -> Result<Option<T>, E> + Sync,
) -> Result<(Vec<T>, Notes), E> {
    let mut runs: Vec<Vec<T>> = Vec::new();
    let mut notes = Notes::default();
    let mut first_error = None;
    let mut end = spans.len();
    while end > 0 {
        let mut start = end;
        let mut bytes = 0;
        while start > 0 && bytes < release {
            start -= 1;
            bytes += spans[start].len();
        }
        let run = {
            let text: &str = text;
            parse_records(
                end - start,
                |i| spans[start + i].len(),
                |i, notes| parse(text, start + i, notes),
            )
        };
        match run {
            Ok((v, n)) => {
                runs.push(v);
                notes.merge(n);
            }
            // An earlier run's error replaces this one: record order decides.
            Err(e) => first_error = Some(e),
        }
        text.truncate(spans[start].start);
        text.shrink_to_fit();
        end = start;
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    *text = String::new();
    let mut out = Vec::with_capacity(runs.iter().map(Vec::len).sum());
    for run in runs.into_iter().rev() {
        out.extend(run);
    }
    Ok((out, notes))
}

/// `0..n` cut into `parts` contiguous ranges of about equal bytes.
fn split(
    n: usize,
    total: usize,
    parts: usize,
    bytes: impl Fn(usize) -> usize,
) -> Vec<Range<usize>> {
    let share = total.div_ceil(parts).max(1);
    let mut out = Vec::with_capacity(parts);
    let (mut start, mut acc) = (0, 0);
    for i in 0..n {
        acc += bytes(i);
        if acc >= share && out.len() + 1 < parts {
            out.push(start..i + 1);
            start = i + 1;
            acc = 0;
        }
    }
    out.push(start..n);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_order_and_skip_nones() {
        let n = 10_000;
        let (v, _) =
            parse_records(n, |_| 1000, |i, _| Ok::<_, ()>((i % 3 != 0).then_some(i))).unwrap();
        let want: Vec<usize> = (0..n).filter(|i| i % 3 != 0).collect();
        assert_eq!(v, want);
    }

    #[test]
    fn the_first_error_in_record_order_wins() {
        let r = parse_records(
            10_000,
            |_| 1000,
            |i, _| {
                if i == 7000 || i == 9000 {
                    Err(i)
                } else {
                    Ok(Some(()))
                }
            },
        );
        assert_eq!(r.unwrap_err(), 7000);
        let r = parse_records(
            10_000,
            |_| 1000,
            |i, _| {
                if i == 10 || i == 9000 {
                    Err(i)
                } else {
                    Ok(Some(()))
                }
            },
        );
        assert_eq!(r.unwrap_err(), 10);
    }

    #[test]
    fn notes_from_every_thread_are_kept() {
        let (_, notes) = parse_records(
            10_000,
            |_| 1000,
            |_, notes| {
                notes.unknown_part("widget");
                Ok::<_, ()>(Some(()))
            },
        )
        .unwrap();
        assert_eq!(
            notes.into_warnings(),
            vec![
                "skipped 10000 content part(s) of unknown type \"widget\" (not counted, kept on rewrite)"
                    .to_string()
            ]
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
        /// However the records are cut into runs and however many threads take them, the
        /// results are a sequential reader's: every record's in order, `None`s skipped, or
        /// the error of the first failing record.
        #[test]
        fn runs_taken_by_any_threads_give_what_a_sequential_reader_gives(
            n in 0usize..3000,
            size in 1usize..2000,
            run_bytes in 1usize..200_000,
            threads in 1usize..5,
            errors in proptest::collection::vec(0usize..3000, 0..3),
        ) {
            let bytes = |i: usize| size + i % 7 * 300;
            let parse = |i: usize, notes: &mut Notes| {
                notes.unknown_part("widget");
                if errors.contains(&i) {
                    Err(i)
                } else {
                    Ok((!i.is_multiple_of(5)).then_some(i))
                }
            };
            let got = parse_in_runs(n, bytes, parse, threads, run_bytes);
            match errors.iter().copied().filter(|&e| e < n).min() {
                Some(first) => proptest::prop_assert_eq!(got.unwrap_err(), first),
                None => {
                    let (v, notes) = got.unwrap();
                    let want: Vec<usize> = (0..n).filter(|i| !i.is_multiple_of(5)).collect();
                    proptest::prop_assert_eq!(v, want);
                    let warnings = notes.into_warnings();
                    if n > 0 {
                        proptest::prop_assert_eq!(warnings, vec![format!(
                            "skipped {n} content part(s) of unknown type \"widget\" \
                             (not counted, kept on rewrite)"
                        )]);
                    }
                }
            }
        }
    }

    /// The messages come out of their slots in place: a large session's are never held
    /// twice over, even for a moment.
    #[test]
    fn messages_leave_their_slots_in_place() {
        use crate::session::{Message, Origin, Part, Role};
        assert_eq!(
            std::mem::size_of::<Option<Message>>(),
            std::mem::size_of::<Message>()
        );
        let slots: Vec<Option<Message>> = (0..1000usize)
            .map(|i| {
                let text = vec![Part::Text(format!("m{i}"))];
                (!i.is_multiple_of(3)).then(|| Message::new(Role::User, text, Origin::Record(i)))
            })
            .collect();
        let before = slots.as_ptr() as usize;
        let messages = unslot(slots);
        assert_eq!(messages.as_ptr() as usize, before);
        assert_eq!(messages.len(), 666);
        assert_eq!(messages[0].text(), "m1");
    }

    #[test]
    fn ranges_cover_everything_once() {
        for (n, parts) in [(0, 2), (1, 2), (5, 3), (100, 2), (7, 8)] {
            let r = split(n, n * 10, parts, |_| 10);
            assert_eq!(r.first().map(|r| r.start), Some(0));
            assert_eq!(r.last().map(|r| r.end), Some(n));
            for w in r.windows(2) {
                assert_eq!(w[0].end, w[1].start);
            }
        }
    }

    #[test]
    fn releasing_reads_every_record_in_order_and_frees_the_text() {
        let records: Vec<String> = (0..1000).map(|i| format!("[{i}]")).collect();
        let mut text = String::new();
        let mut spans = Vec::new();
        for r in &records {
            spans.push(text.len()..text.len() + r.len());
            text.push_str(r);
            text.push(',');
        }
        let (v, _) = parse_releasing(&mut text, &spans, 100, |t, i, _| {
            Ok::<_, ()>(Some(t[spans[i].clone()].to_string()))
        })
        .unwrap();
        assert_eq!(v, records);
        assert!(text.is_empty());
    }

    #[test]
    fn releasing_returns_the_first_error_in_record_order() {
        let spans: Vec<Range<usize>> = (0..1000).map(|i| i..i + 1).collect();
        let mut text = "x".repeat(1001);
        let r = parse_releasing(&mut text, &spans, 10, |_, i, _| {
            if i == 5 || i == 900 {
                Err(i)
            } else {
                Ok(Some(i))
            }
        });
        assert_eq!(r.unwrap_err(), 5);
    }
}
