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
    let (plan, fingerprint) = plan(ctx, reader)?;
    let planned = plan.finish()?;
    let counting = Counting::for_model(ctx, planned.model.as_deref());
    let threads = counting.threads;
    let mut batches = counting.batches(ctx, wants).paired_as_read(Format::Codex);
    bar.set_position(0);
    let mut fetch = |places: &[(u64, u32)]| -> Option<Vec<serde_json::Value>> {
        parse_json(&read_at(file, bar, places.iter().copied())?, threads)
    };
    let mut emit = |m: Message| batches.push(m);
    let mut maker = Maker::new(&planned);
    maker.head(&mut fetch, &mut emit)?;
    // The tail's lines, read again from where it starts.
    let mut from = file.try_clone().ok()?;
    from.seek(SeekFrom::Start(planned.tail.at)).ok()?;
    bar.set_position(planned.tail.at);
    let mut reader = LineReader::new(Reading::new(from, bar.clone()));
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
    // Cut short between the passes: what the first pass saw is gone.
    let now = file.metadata().ok()?.len();
    if tally.len() != planned.len || now < fingerprint.len as u64 {
        return None;
    }
    // As a whole read gives them: the file's warnings, then the model's.
    let mut warnings = planned.warnings;
    warnings.extend(made.warnings);
    let model = resolved(
        ctx,
        path,
        &warnings,
        planned.model.as_deref(),
        (fingerprint.len, Format::Codex, tally.len()),
    );
    // The tools the rollout records, counted as the whole read counts them.
    let extra_tokens = planned.tools.map_or(0, |t| {
        let n = ctx.count_parts(&counting.counter, &[&Part::Text(t)]);
        scale(n.first().copied().unwrap_or(0), model.factor)
    });
    let keeps = counting.counter.keeps_counts();
    Some(Counted {
        session_model: planned.model,
        usage: made.usage,
        agent_limits: planned.limits,
        extra_tokens,
        warnings,
        ..Counted::streamed(path, fingerprint, Format::Codex, model, keeps, tally)
    })
}

/// The first pass: every line's skeleton folded into the plan, and the file's fingerprint.
fn plan(ctx: &Context, reader: LineReader<Reading<File>>) -> Option<(Plan, Fingerprint)> {
    let mut plan = Plan::default();
    let make = |text: &str, line: usize, at: u64| {
        let len = u32::try_from(text.len()).ok()?;
        Some((At { line, at, len }, skel::rec(text)?))
    };
    let (fingerprint, truncated) = first_pass(ctx, reader, &make, |(at, rec)| {
        plan.record(at, rec);
    })?;
    if let Some(w) = truncated {
        plan.truncated(w);
    }
    Some((plan, fingerprint))
}
