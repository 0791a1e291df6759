//! Counting a goose JSONL session as it is read, in memory independent of its size.
//!
//! A goose session is a metadata line and one message per line, each read on its own
//! (no later line changes an earlier one): one pass, the counting threads making each
//! line's message as the whole-file reader does ([`goose::line_read`]), the messages
//! counted a batch at a time in file order and folded into the
//! [`Tally`](crate::ops::figures::Tally), their text gone. What the usage report depends
//! on (whether ctxctl rewrote the history, the last assistant message) is kept as the
//! messages go by.
//!
//! The figures are the whole-file reader's, held equal by `tests/agent_stream.rs`. A line
//! the whole reader would refuse gives `None`: the caller reads the file whole, and words
//! the error.

use std::fs::File;
use std::path::Path;

use crate::context::Context;
use crate::formats::goose::{self, LineRead};
use crate::formats::message::{self, Notes};
use crate::formats::stream::LineReader;
use crate::ops::counted::Counted;
use crate::ops::figures::Wants;
use crate::ops::stream_count::{first_pass, resolved, Counting};
use crate::render::progress::Reading;
use crate::session::{Format, Role};

/// `path` (its head read by `reader`: a goose JSONL session) streamed and counted; `None`
/// when it is read whole instead.
pub fn tally(
    ctx: &Context,
    path: &Path,
    wants: Wants,
    reader: LineReader<Reading<File>>,
) -> Option<Counted> {
    let counting = Counting::for_model(ctx, None);
    let mut batches = counting.batches(ctx, wants);
    let mut notes = Notes::default();
    let mut warnings = Vec::new();
    let (mut first, mut meta) = (true, (None, None));
    let (mut messages, mut rewritten, mut last_assistant) = (0, false, None);
    let make = |text: &str, line: usize, _at: u64| Some((line, goose::line_read(text, line)?));
    let fold = |(line, read): (usize, LineRead)| {
        let was_first = std::mem::replace(&mut first, false);
        match read {
            LineRead::NoRole { input, output } if was_first => meta = (input, output),
            LineRead::NoRole { .. } => warnings.push(format!(
                "line {}: not a message (no \"role\"); kept as is",
                line + 1
            )),
            LineRead::Hidden => {}
            LineRead::Visible(m, n) => {
                notes.merge(n);
                rewritten |= message::rewritten_by_ctxctl(std::slice::from_ref(&m));
                if m.role == Role::Assistant {
                    last_assistant = Some(messages);
                }
                messages += 1;
                batches.push(m);
            }
        }
    };
    let (fingerprint, truncated, mended) = first_pass(ctx, reader, &make, fold)?;
    let tally = batches.finish();
    // As a whole read gives them: the file's warnings, then the messages'.
    if let Some(w) = mended.warning() {
        warnings.insert(0, w);
    }
    warnings.extend(truncated);
    warnings.extend(notes.into_warnings());
    let model = resolved(
        ctx,
        path,
        &warnings,
        None,
        (fingerprint.len, Format::Goose, tally.len()),
    );
    let keeps = counting.counter.keeps_counts();
    let mut agent_limits = crate::session::AgentLimits::default();
    mended.note(&mut agent_limits);
    Some(Counted {
        usage: goose::reported(meta, rewritten, last_assistant),
        agent_limits,
        warnings,
        ..Counted::streamed(path, fingerprint, Format::Goose, model, keeps, tally)
    })
}
