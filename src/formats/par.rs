//! Parsing the records of a large document on every core: records are independent, so
//! contiguous runs of them are parsed on separate threads and the results joined in order.

use std::ops::Range;

use crate::formats::message::Notes;

/// Below this many bytes of records, one thread parses them all.
const PARALLEL_BYTES: usize = 1 << 20;

/// `parse(i, notes)` for every record `i` in `0..n`, in order, on up to every core when the
/// records (`bytes(i)` each) are large enough to be worth it. `None` results are skipped.
/// The error of the first failing record (in record order) is returned, as a sequential
/// reader would.
pub fn parse_records<T: Send, E: Send>(
    n: usize,
    bytes: impl Fn(usize) -> usize + Sync,
    parse: impl Fn(usize, &mut Notes) -> Result<Option<T>, E> + Sync,
) -> Result<(Vec<T>, Notes), E> {
    let total: usize = (0..n).map(&bytes).sum();
    let threads = crate::tokens::parallel::available();
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
    let ranges = split(n, total, threads, &bytes);
    let parts: Vec<Result<(Vec<T>, Notes), E>> = std::thread::scope(|s| {
        let handles: Vec<_> = ranges[1..]
            .iter()
            .map(|r| {
                let r = r.clone();
                s.spawn(|| run(r))
            })
            .collect();
        let mut parts = vec![run(ranges[0].clone())];
        for h in handles {
            parts.push(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        }
        parts
    });
    // The first run's results become the whole: only the later runs' are copied (a large
    // session's messages are never held twice over).
    let mut parts = parts.into_iter();
    let (mut out, mut notes) = match parts.next() {
        Some(first) => first?,
        None => (Vec::new(), Notes::default()),
    };
    out.reserve(n.saturating_sub(out.len()));
    for part in parts {
        let (v, part_notes) = part?;
        out.extend(v);
        notes.merge(part_notes);
    }
    Ok((out, notes))
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
