//! Counting a Codex rollout as it is read, in memory independent of its size.
//!
//! Two passes over the file. The first reads it a block of lines at a time
//! ([`LineReader`]), the counting threads reducing each line to its skeleton
//! ([`skel::rec`]: item text, tool output and encrypted reasoning skipped unparsed), which
//! is folded in file order into the [`Plan`] of the active history (a `compacted` record
//! replaces it). The second pass fetches the items the last compaction left by their
//! offsets, reads the lines after it again (their items parsed a window at a time on the
//! counting threads),
//! makes the messages as the whole-file reader does ([`Maker`]), counts them a batch at a
//! time and folds each batch into the [`Tally`](crate::ops::figures::Tally), its text gone.
//!
//! The figures are the whole-file reader's, held equal on every fixture by
//! `tests/agent_stream.rs`. Whatever this path does not take as that reader would (a line
//! it cannot parse, an item the reader would refuse) gives `None`: the caller reads the
//! file whole, and words any error.

use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::path::Path;

use crate::context::Context;
use crate::formats::codex::fetch::Maker;
use crate::formats::codex::skel;
use crate::formats::codex::stream::{At, Plan};
use crate::formats::stream::LineReader;
use crate::ops::counted::Counted;
use crate::ops::figures::Wants;
use crate::ops::load::{scale, Fingerprint};
use crate::ops::ordered::parse_json;
use crate::ops::stream_count::{first_pass, read_at, resolved, Counting};
use crate::render::progress::Reading;
use crate::session::{Format, Message, Part};

/// Bytes of the tail's items parsed at a time (on the counting threads).
const WINDOW_BYTES: usize = 256 << 10;

/// `file` (at `path`, its head read by `reader`: a Codex rollout) streamed and counted;
/// `None` when it is read whole instead.
pub fn tally(
    ctx: &Context,
    path: &Path,
    wants: Wants,
    bar: &indicatif::ProgressBar,
    file: &File,
    reader: LineReader<Reading<File>>,
) -> Option<Counted> {
    let src = FileBytes { file, bar };
    let read = count(ctx, &src, reader, wants, bar)?;
    // Cut short between the passes: what the first pass saw is gone.
    let now = file.metadata().ok()?.len();
    if now < read.fingerprint.len as u64 {
        return None;
    }
    // As a whole read gives them: the file's warnings, then the model's.
    let model = resolved(
        ctx,
        path,
        &read.warnings,
        read.model.as_deref(),
        (read.fingerprint.len, Format::Codex, read.tally.len()),
    );
    // The tools the rollout records, counted as the whole read counts them.
    let extra_tokens = read.tools.map_or(0, |t| {
        let n = ctx.count_parts(&read.counting.counter, &[&Part::Text(t)]);
        scale(n.first().copied().unwrap_or(0), model.factor)
    });
    let keeps = read.counting.counter.keeps_counts();
    Some(Counted {
        session_model: read.model,
        usage: read.usage,
        agent_limits: read.limits,
        extra_tokens,
        warnings: read.warnings,
        ..Counted::streamed(
            path,
            read.fingerprint,
            Format::Codex,
            model,
            keeps,
            read.tally,
        )
    })
}

/// The messages' total of the rollout `text` followed by `suffix` (what a rewrite that
/// only appends makes of it), counted as [`tally`] counts a file, without the two being
/// put together, and saying nothing (the rollout's warnings were given when it was read).
/// `None` when it is to be read whole instead, or is counted with another tokenizer or
/// scale than `model`'s.
pub fn total_appended(
    ctx: &Context,
    text: &[u8],
    suffix: &[u8],
    model: &crate::context::ResolvedModel,
) -> Option<usize> {
    let bar = indicatif::ProgressBar::hidden();
    let src = Joined(text, suffix);
    let mut reader = LineReader::new(src.from(0)?);
    reader.head().ok()?;
    let read = count(ctx, &src, reader, Wants::default(), &bar)?;
    let guess = &read.counting.guess;
    (guess.encoding == model.encoding && guess.factor == model.factor)
        .then(|| crate::tokens::Counter::total(&read.tally.counts))
}

/// A rollout read by [`count`]: its messages' tally and what the whole reader says of it.
struct Read {
    tally: crate::ops::figures::Tally,
    fingerprint: Fingerprint,
    counting: Counting,
    warnings: Vec<String>,
    model: Option<String>,
    usage: Option<crate::session::ReportedUsage>,
    limits: crate::session::AgentLimits,
    tools: Option<String>,
}

/// Where the bytes of a rollout [`count`] reads come from.
trait Bytes: Sync {
    /// The texts at `places` (offset, length).
    fn at(&self, places: &[(u64, u32)]) -> Option<Vec<Vec<u8>>>;
    /// A reader of the bytes from offset `at` on.
    fn from(&self, at: u64) -> Option<Box<dyn std::io::Read + Send + '_>>;
}

/// A rollout's file, read with a bar over its bytes.
struct FileBytes<'a> {
    file: &'a File,
    bar: &'a indicatif::ProgressBar,
}

impl Bytes for FileBytes<'_> {
    fn at(&self, places: &[(u64, u32)]) -> Option<Vec<Vec<u8>>> {
        read_at(self.file, self.bar, places.iter().copied())
    }

    fn from(&self, at: u64) -> Option<Box<dyn std::io::Read + Send + '_>> {
        let mut from = self.file.try_clone().ok()?;
        from.seek(SeekFrom::Start(at)).ok()?;
        Some(Box::new(Reading::new(from, self.bar.clone())))
    }
}

/// Bytes in memory: one slice, then another.
struct Joined<'a>(&'a [u8], &'a [u8]);

impl Joined<'_> {
    /// The two slices from offset `at` on.
    fn split(&self, at: usize) -> (&[u8], &[u8]) {
        let (a, b) = (self.0, self.1);
        match at.checked_sub(a.len()) {
            None => (&a[at..], b),
            Some(k) => (&[][..], b.get(k..).unwrap_or_default()),
        }
    }
}

impl Bytes for Joined<'_> {
    fn at(&self, places: &[(u64, u32)]) -> Option<Vec<Vec<u8>>> {
        let mut texts = Vec::with_capacity(places.len());
        // A mapped rollout's pages are let go of behind the places (see `crate::mapped`).
        let behind = crate::mapped::Behind::of_bytes(self.0);
        for &(at, len) in places {
            let (a, b) = self.split(usize::try_from(at).ok()?);
            behind.at_bytes(a);
            let len = len as usize;
            let mut text = Vec::with_capacity(len);
            text.extend_from_slice(&a[..len.min(a.len())]);
            text.extend_from_slice(b.get(..len - text.len())?);
            texts.push(text);
        }
        Some(texts)
    }

    fn from(&self, at: u64) -> Option<Box<dyn std::io::Read + Send + '_>> {
        let (a, b) = self.split(usize::try_from(at).ok()?);
        let a = crate::mapped::Reading::new(a);
        Some(Box::new(std::io::Read::chain(a, b)))
    }
}

/// The two passes over the rollout `src` (its head read by `reader`): its messages made
/// and counted.
fn count<R: std::io::Read + Send>(
    ctx: &Context,
    src: &impl Bytes,
    reader: LineReader<R>,
    wants: Wants,
    bar: &indicatif::ProgressBar,
) -> Option<Read> {
    let (plan, fingerprint) = plan(ctx, reader)?;
    let planned = plan.finish()?;
    let counting = Counting::for_model(ctx, planned.model.as_deref());
    let threads = counting.threads;
    let mut batches = counting.batches(ctx, wants).paired_as_read(Format::Codex);
    bar.set_position(0);
    let mut fetch = |places: &[(u64, u32)]| -> Option<Vec<serde_json::Value>> {
        parse_json(&src.at(places)?, threads)
    };
    let mut emit = |m: Message| batches.push(m);
    let mut maker = Maker::new(&planned);
    maker.head(&mut fetch, &mut emit)?;
    // The tail's lines, read again from where it starts.
    bar.set_position(planned.tail.at);
    let mut reader = LineReader::new(src.from(planned.tail.at)?);
    let tail = &planned.tail;
    let mut made = true;
    // The tail's items a window at a time: their lines and texts, parsed at once.
    let mut window: (Vec<usize>, Vec<Vec<u8>>, usize) = (Vec::new(), Vec::new(), 0);
    let mut parse = |window: &mut (Vec<usize>, Vec<Vec<u8>>, usize)| -> Option<()> {
        let texts = std::mem::take(&mut window.1);
        window.2 = 0;
        let values = parse_json(&texts, threads)?;
        drop(texts);
        for (line, v) in window.0.drain(..).zip(values) {
            emit(maker.tail(line, &v)?);
        }
        Some(())
    };
    while let Some(block) = reader.next_block().ok()? {
        for (span, &line) in block.spans.iter().zip(&block.records) {
            let line = tail.line + line;
            if tail.holds(line) {
                let text = block.text[span.clone()].as_bytes();
                window.0.push(line);
                window.1.push(text.to_vec());
                window.2 += text.len();
            }
        }
        if window.2 >= WINDOW_BYTES {
            made &= parse(&mut window).is_some();
        }
    }
    made &= parse(&mut window).is_some();
    let made = maker.finish().filter(|_| made)?;
    let tally = batches.finish();
    if tally.len() != planned.len {
        return None;
    }
    let mut warnings = planned.warnings;
    warnings.extend(made.warnings);
    Some(Read {
        tally,
        fingerprint,
        counting,
        warnings,
        model: planned.model,
        usage: made.usage,
        limits: planned.limits,
        tools: planned.tools,
    })
}

/// The first pass: every line's skeleton folded into the plan, and the file's fingerprint.
fn plan<R: std::io::Read + Send>(
    ctx: &Context,
    reader: LineReader<R>,
) -> Option<(Plan, Fingerprint)> {
    let mut plan = Plan::default();
    let make = |text: &str, line: usize, at: u64| {
        let len = u32::try_from(text.len()).ok()?;
        Some((At { line, at, len }, skel::rec(text)?))
    };
    let (fingerprint, truncated, mended) = first_pass(ctx, reader, &make, |(at, rec)| {
        plan.record(at, rec);
    })?;
    if let Some(w) = truncated {
        plan.truncated(w);
    }
    plan.mended(mended);
    Some((plan, fingerprint))
}

#[cfg(test)]
mod tests {
    use std::io::Read as _;

    use super::*;

    #[test]
    fn joined_bytes_read_across_their_seam() {
        let src = Joined(b"abc\nde", b"f\ngh\n");
        assert_eq!(
            src.at(&[(0, 3), (4, 3), (8, 2), (10, 1)]).unwrap(),
            [&b"abc"[..], b"def", b"gh", b"\n"]
        );
        assert_eq!(src.at(&[(9, 3)]), None, "past the end");
        for (at, rest) in [
            (0, "abc\ndef\ngh\n"),
            (5, "ef\ngh\n"),
            (6, "f\ngh\n"),
            (11, ""),
        ] {
            let mut text = String::new();
            src.from(at).unwrap().read_to_string(&mut text).unwrap();
            assert_eq!(text, rest, "{at}");
        }
    }
}
