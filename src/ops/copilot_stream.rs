//! Counting a GitHub Copilot CLI event log as it is read, in memory independent of its
//! size (a 35 MB `events.jsonl` read whole held some 59 MiB).
//!
//! Two passes over the file. The first reads it a block of lines at a time, the counting
//! threads reducing each line to its skeleton ([`stream::rec`]: message text and tool
//! output skipped unparsed), folded in file order into the [`Plan`]: where the system
//! prompt, the last compaction and each message after it are, the model, the window and
//! the reported usage. The second pass reads those lines at their offsets (the messages
//! a window at a time, parsed on the counting threads), makes the messages with the
//! whole reader's own functions ([`events`]), counts them a batch at a time and folds
//! each batch into the [`Tally`](crate::ops::figures::Tally), their text gone.
//!
//! The figures are the whole-file reader's, held equal on every fixture by
//! `tests/agent_stream.rs`. Whatever this path does not take as that reader would gives
//! `None`: the caller reads the file whole, and words any error.

use std::fs::File;
use std::path::Path;

use serde_json::Value;

use crate::context::Context;
use crate::formats::copilot::events::{self, str_at};
use crate::formats::copilot::stream::{self, Kind, Live, Place, Plan};
use crate::formats::copilot::DEFAULT_MODEL;
use crate::formats::stream::LineReader;
use crate::ops::counted::Counted;
use crate::ops::figures::Wants;
use crate::ops::ordered::parse_json;
use crate::ops::stream_count::{first_pass, read_at, resolved, Counting};
use crate::render::progress::Reading;
use crate::session::{AgentLimits, Format, Message};

/// Bytes of message lines read and parsed at a time (on the counting threads).
const WINDOW_BYTES: u64 = 256 << 10;

/// `file` (at `path`, its head read by `reader`: a Copilot CLI log) streamed and counted;
/// `None` when it is read whole instead.
pub fn tally(
    ctx: &Context,
    path: &Path,
    wants: Wants,
    bar: &indicatif::ProgressBar,
    file: &File,
    reader: LineReader<Reading<File>>,
) -> Option<Counted> {
    let mut plan = Plan::default();
    let make = |text: &str, line: usize, at: u64| {
        let len = u32::try_from(text.len()).ok()?;
        Some((stream::rec(text)?, Place { line, at, len }))
    };
    let fold = |(rec, place)| plan.record(place, rec);
    let (fingerprint, truncated, mended) = first_pass(ctx, reader, &make, fold)?;
    let (total, usage) = plan.finish();
    let session_model = Some(plan.model.clone().unwrap_or_else(|| DEFAULT_MODEL.into()));
    let counting = Counting::for_model(ctx, session_model.as_deref());
    let threads = counting.threads;
    let mut batches = counting.batches(ctx, wants).paired_as_read(Format::Copilot);
    bar.set_position(0);
    let one = |place: Place, kind: Kind| -> Option<Value> {
        let texts = read_at(file, bar, std::iter::once((place.at, place.len)))?;
        let v: Value = serde_json::from_slice(&texts[0]).ok()?;
        // Rewritten in place between the passes: a whole read words what it holds now.
        (v.get("type").and_then(Value::as_str) == Some(kind.ty())).then_some(v)
    };
    // The system prompt goes first, as Copilot sends it.
    if let Some(place) = plan.system {
        batches.push(events::system_prompt(
            &one(place, Kind::System)?,
            place.line,
        ));
    }
    if let Some((place, before)) = plan.compaction {
        // What the user said before it, one message at a time.
        let said = (plan.users[..before].iter())
            .map(|&p| Some(events::said_by_user(&one(p, Kind::User)?["data"]).to_string()))
            .collect::<Option<Vec<String>>>()?;
        let v = one(place, Kind::Compaction)?;
        let summary = str_at(&v["data"], "/summaryContent")?;
        batches.push(events::compaction(&v, &said, summary, place.line));
    }
    let mut k = 0;
    while k < plan.live.len() {
        let (mut end, mut bytes) = (k, 0);
        while end < plan.live.len() && (end == k || bytes < WINDOW_BYTES) {
            bytes += u64::from(plan.live[end].place.len);
            end += 1;
        }
        let window = &plan.live[k..end];
        let places = window.iter().map(|l| (l.place.at, l.place.len));
        let values = parse_json(&read_at(file, bar, places)?, threads)?;
        for (live, v) in window.iter().zip(&values) {
            batches.push(message(live, v)?);
        }
        k = end;
    }
    let tally = batches.finish();
    // Cut short between the passes: what the first pass saw is gone.
    let now = file.metadata().ok()?.len();
    if tally.len() != total || now < fingerprint.len as u64 {
        return None;
    }
    let warnings: Vec<String> = mended.warning().into_iter().chain(truncated).collect();
    let model = resolved(
        ctx,
        path,
        &warnings,
        session_model.as_deref(),
        (fingerprint.len, Format::Copilot, tally.len()),
    );
    let keeps = counting.counter.keeps_counts();
    Some(Counted {
        session_model,
        usage,
        agent_limits: {
            let mut limits = AgentLimits {
                window: plan.window,
                ..Default::default()
            };
            mended.note(&mut limits);
            limits
        },
        warnings,
        ..Counted::streamed(path, fingerprint, Format::Copilot, model, keeps, tally)
    })
}

/// The message the event `v` at `live` makes, as the whole reader makes it; `None` when
/// the line is not the event the first pass found there.
fn message(live: &Live, v: &Value) -> Option<Message> {
    if v.get("type").and_then(Value::as_str) != Some(live.kind.ty()) {
        return None;
    }
    let (data, line) = (&v["data"], live.place.line);
    let m = match live.kind {
        Kind::User => events::user(data, line),
        Kind::Assistant => events::assistant(data, line),
        Kind::ToolDone => events::tool_done(data, line, live.start),
        _ => return None,
    };
    Some(events::stamped(v, m))
}
