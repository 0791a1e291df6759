//! One line of a goose JSONL session read on its own, and the usage its metadata line
//! reports: what [`super::read`] and the streamed read ([`crate::ops::goose_stream`])
//! share.

use serde_json::Value;

use super::{agent_visible, message};
use crate::formats::message::Notes;
use crate::session::{Message, Origin, ReportedUsage};

/// One line of a goose session as `GooseFile::parse` and `read` take it, for the
/// streamed read ([`crate::ops::goose_stream`]).
pub enum LineRead {
    /// No `role`: the metadata line if it is the first, with the token counts it reports.
    NoRole {
        input: Option<u64>,
        output: Option<u64>,
    },
    /// A message the agent sees, and what its parts noted.
    Visible(Message, Notes),
    /// A message the agent does not see.
    Hidden,
}

/// Line `line` (its `text`) as the whole reader takes it; `None` where that gives an error.
pub fn line_read(text: &str, line: usize) -> Option<LineRead> {
    let v: Value = serde_json::from_str(text).ok()?;
    if !v.is_object() {
        return None;
    }
    if v.get("role").is_none() {
        let n = |k: &str| v.get(k).and_then(Value::as_u64);
        return Some(LineRead::NoRole {
            input: n("input_tokens"),
            output: n("output_tokens"),
        });
    }
    if !agent_visible(&v) {
        return Some(LineRead::Hidden);
    }
    let mut notes = Notes::default();
    let place = format!("line {}", line + 1);
    let m = message(&v, &place, Origin::Record(line), &mut notes).ok()?;
    Some(LineRead::Visible(m, notes))
}

/// The usage goose's metadata line reports (its `input_tokens` and `output_tokens`), the
/// messages being as [`crate::formats::message::rewritten_by_ctxctl`] and the last assistant message's
/// index say.
pub fn reported(
    (input, output): (Option<u64>, Option<u64>),
    rewritten: bool,
    last_assistant: Option<usize>,
) -> Option<ReportedUsage> {
    // The metadata line has no place in the history: once ctxctl has rewritten the
    // history, the report describes what is gone, until goose writes a new one.
    input
        .filter(|&i| i > 0 && !rewritten)
        .map(|input_tokens| ReportedUsage {
            input_tokens,
            output_tokens: output.unwrap_or(0),
            after_message: last_assistant,
            request_end: None,
            earlier: Vec::new(),
            dropped: 0,
        })
}
