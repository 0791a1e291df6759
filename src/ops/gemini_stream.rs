//! Counting a Gemini CLI JSONL log as it is read, in memory independent of its size.
//!
//! Two passes over the file. The first reads it a block of lines at a time, the counting
//! threads reducing each line to its skeleton ([`stream::rec`]: content, thoughts and tool
//! calls skipped unparsed), and replays the log over them in file order into the
//! [`Index`] of the live messages' places (a repeated id replaces a message in place, a
//! `$set.messages` checkpoint rebuilds the list, `$rewindTo` cuts it). The second pass
//! reads the live records at their offsets, a window at a time (parsed on the counting
//! threads), makes the history as the whole-file reader does ([`Maker`]), counts it a
//! batch at a time and folds each batch into the [`Tally`](crate::ops::figures::Tally).
//!
//! A live message read from the last checkpoint is read from that checkpoint's line: the
//! line is held (not parsed as a whole) while its messages are made, one at a time. A
//! checkpoint holds the whole history of its time, as Gemini CLI writes it, so this part
//! of the memory follows the largest checkpoint line, not the file.
//!
//! The figures are the whole-file reader's, held equal on every fixture by
//! `tests/agent_stream.rs`. Whatever this path does not take as that reader would gives
//! `None`: the caller reads the file whole, and words any error.

use std::fs::File;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::Path;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::context::Context;
use crate::formats::gemini::stream::{self, Index, Maker, Place};
use crate::formats::gemini::DEFAULT_MODEL;
use crate::formats::stream::LineReader;
use crate::ops::counted::Counted;
use crate::ops::figures::Wants;
use crate::ops::ordered::parse_json;
use crate::ops::stream_count::{first_pass, read_at, resolved, Counting};
use crate::render::progress::Reading;
use crate::session::Format;

/// Bytes of live records read and parsed at a time (on the counting threads).
const WINDOW_BYTES: u64 = 256 << 10;

/// `file` (at `path`, its head read by `reader`: a Gemini CLI log) streamed and counted;
/// `None` when it is read whole instead.
pub fn tally(
    ctx: &Context,
    path: &Path,
    wants: Wants,
    bar: &indicatif::ProgressBar,
    file: &File,
    reader: LineReader<Reading<File>>,
) -> Option<Counted> {
    let mut index = Index::default();
    let make = |text: &str, line: usize, at: u64| {
        Some((
            stream::rec(text)?,
            line,
            at,
            u32::try_from(text.len()).ok()?,
        ))
    };
    let mut placed = true;
    let fold = |(rec, line, at, len)| placed &= index.record(rec, line, at, len).is_some();
    let (fingerprint, truncated, mended) = first_pass(ctx, reader, &make, fold)?;
    if !placed {
        return None;
    }
    index.replayed();
    let session_model = Some(index.model.clone().unwrap_or_else(|| DEFAULT_MODEL.into()));
    let counting = Counting::for_model(ctx, session_model.as_deref());
    let threads = counting.threads;
    let mut batches = counting.batches(ctx, wants).paired_as_read(Format::Gemini);
    bar.set_position(0);
    let mut emit = |s: crate::formats::gemini::Sent| batches.push(s.message);
    let mut maker = Maker::default();
    let mut checkpoint = Checkpoint::new(&index);
    let cp_line = index.checkpoint.map_or(0, |(line, _, _)| line);
    let mut k = 0;
    while let Some((id, place)) = index.get(k) {
        if let Place::Checkpoint { index: i } = place {
            let value = checkpoint.take(file, &index, i as usize)?;
            maker.take((id, place), value, cp_line, &mut emit)?;
            k += 1;
            continue;
        }
        // The records on lines of their own from `k` on, a window of them.
        let (mut window, mut bytes) = (Vec::new(), 0);
        while let Some((id, place @ Place::Line { len, .. })) = index.get(k + window.len()) {
            if bytes >= WINDOW_BYTES {
                break;
            }
            bytes += u64::from(len);
            window.push((id, place));
        }
        let places = window.iter().filter_map(|(_, p)| match *p {
            Place::Line { at, len, .. } => Some((at, len)),
            Place::Checkpoint { .. } => None,
        });
        let values = parse_json(&read_at(file, bar, places)?, threads)?;
        k += window.len();
        for (entry, value) in window.into_iter().zip(values) {
            maker.take(entry, value, cp_line, &mut emit)?;
        }
    }
    drop(checkpoint);
    let made = maker.finish(&mut emit);
    let tally = batches.finish();
    // Cut short between the passes: what the first pass saw is gone.
    let now = file.metadata().ok()?.len();
    if now < fingerprint.len as u64 {
        return None;
    }
    // As a whole read gives them: the file's warning, then the history's.
    let mut warnings: Vec<String> = mended.warning().into_iter().chain(truncated).collect();
    warnings.extend(made.warnings);
    let model = resolved(
        ctx,
        path,
        &warnings,
        session_model.as_deref(),
        (fingerprint.len, Format::Gemini, tally.len()),
    );
    let keeps = counting.counter.keeps_counts();
    let mut agent_limits = crate::session::AgentLimits::default();
    mended.note(&mut agent_limits);
    Some(Counted {
        session_model,
        usage: made.usage,
        agent_limits,
        warnings,
        ..Counted::streamed(path, fingerprint, Format::Gemini, model, keeps, tally)
    })
}

/// The last checkpoint's line, read when its first live message is made and dropped once
/// its last one is: its text and where each of its messages is in it.
struct Checkpoint {
    held: Option<(String, Vec<Range<usize>>)>,
    /// Live messages still to be made from it.
    left: usize,
}

#[derive(Deserialize)]
struct SetLine<'a> {
    #[serde(rename = "$set", borrow)]
    set: SetMessages<'a>,
}

#[derive(Deserialize)]
struct SetMessages<'a> {
    #[serde(borrow)]
    messages: Vec<&'a RawValue>,
}

impl Checkpoint {
    fn new(index: &Index) -> Checkpoint {
        Checkpoint {
            held: None,
            left: index.checkpointed(),
        }
    }

    /// Element `i` of the checkpoint's messages, parsed.
    fn take(&mut self, file: &File, index: &Index, i: usize) -> Option<serde_json::Value> {
        if self.held.is_none() {
            let (_, at, len) = index.checkpoint?;
            let mut text = vec![0; len as usize];
            file.read_exact_at(&mut text, at).ok()?;
            let text = String::from_utf8(text).ok()?;
            let base = text.as_ptr() as usize;
            let line: SetLine = serde_json::from_str(&text).ok()?;
            let places = (line.set.messages.iter())
                .map(|m| {
                    let start = m.get().as_ptr() as usize - base;
                    start..start + m.get().len()
                })
                .collect();
            self.held = Some((text, places));
        }
        let (text, places) = self.held.as_ref()?;
        let value = serde_json::from_str(&text[places.get(i)?.clone()]).ok()?;
        self.left = self.left.saturating_sub(1);
        if self.left == 0 {
            self.held = None;
        }
        Some(value)
    }
}
