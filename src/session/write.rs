//! Writing a session back: kept records are copied unchanged (JSONL lines byte for byte,
//! JSON values with their key order), edited records change only the edited field, and new
//! records (markers, summaries) take the shape of the format.

use serde_json::{Map, Value};

use super::lines_out::{LineOut, LinePlan};
use super::raw::RawRecord;
use super::{claude_code_restore, claude_code_write, codex_write, goose_restore, goose_write};
use super::{Document, Format, LinesDoc, Role, Session};

/// One entry of a write plan, in output order.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// Keep message `i` exactly as it was.
    Keep(usize),
    /// Keep message `index` with some of its parts changed.
    Edit { index: usize, edits: Vec<PartEdit> },
    /// A message ctxctl adds (an omission marker, a summary).
    Insert(NewMessage),
    /// A record written as given (originals put back by `archive restore`); JSONL writes
    /// it as one compact line.
    InsertRecord(Value),
}

impl Item {
    /// The original message this item carries, if any.
    pub fn index(&self) -> Option<usize> {
        match self {
            Item::Keep(i) | Item::Edit { index: i, .. } => Some(*i),
            Item::Insert(_) | Item::InsertRecord(_) => None,
        }
    }
}

/// A change to one part of a kept message.
#[derive(Debug, Clone, PartialEq)]
pub enum PartEdit {
    /// Replace the content of the tool result answering `call_id` with `text`.
    ResultText { call_id: String, text: String },
}

/// A message written by ctxctl.
#[derive(Debug, Clone, PartialEq)]
pub struct NewMessage {
    pub role: Role,
    pub text: String,
    /// Extra top-level fields for the record (`compact_boundary`, `compact_id` …).
    pub meta: Map<String, Value>,
}

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("message {index}: no tool result for call {call_id:?} to edit")]
    NoSuchResult { index: usize, call_id: String },
    #[error("message {0} does not exist")]
    NoSuchMessage(usize),
    #[error("cannot serialize the session: {0}")]
    Serialize(#[from] serde_json::Error),
    #[error("writing {0} sessions is not supported")]
    Unsupported(Format),
    #[error("cannot rewrite the session from its document: {0}")]
    Document(String),
    #[error(
        "the session was read for counting only (its text was released); it cannot be written"
    )]
    Released,
    #[error(
        "archived records go back into {0} sessions only in place of one compaction summary, \
         every other message kept in order"
    )]
    InsertRecordUnsupported(Format),
}

/// A document that no longer reads as it did: the session cannot be written from it.
impl From<super::ReadError> for WriteError {
    fn from(e: super::ReadError) -> WriteError {
        WriteError::Document(e.to_string())
    }
}

/// Checks that reading the document again found the session's `found` messages (an agent
/// writer re-reads its transcript to place records; a different count means the session
/// did not come from this document).
pub(super) fn same_messages(found: usize, session: &Session) -> Result<(), WriteError> {
    if found == session.messages.len() {
        return Ok(());
    }
    Err(WriteError::Document(format!(
        "{found} messages read again, {} in the session",
        session.messages.len()
    )))
}

/// Renders `session` rewritten by `items` in its own format.
pub fn write(session: &Session, items: &[Item]) -> Result<Vec<u8>, WriteError> {
    if let Some(bad) = items
        .iter()
        .filter_map(Item::index)
        .find(|&i| i >= session.messages.len())
    {
        return Err(WriteError::NoSuchMessage(bad));
    }
    let raw = items.iter().any(|i| matches!(i, Item::InsertRecord(_)));
    if raw && matches!(session.format, Format::ClaudeCode | Format::Goose) {
        let plan = restore_plan(session, items)
            .ok_or(WriteError::InsertRecordUnsupported(session.format))?;
        return match (&session.doc, session.format) {
            (Document::Lines(doc), Format::ClaudeCode) => {
                claude_code_restore::restore(session, doc, &plan)
            }
            (Document::Lines(doc), _) => goose_restore::restore(session, doc, &plan),
            (Document::Released | Document::Detached(_), _) => Err(WriteError::Released),
            (_, f) => Err(WriteError::Unsupported(f)),
        };
    }
    match (&session.doc, session.format) {
        (Document::Json(doc), Format::OpenAi | Format::Anthropic) => {
            super::json_write::write(session, doc, items)
        }
        (Document::Lines(doc), Format::Jsonl) => write_lines(session, doc, items),
        (Document::Lines(doc), Format::ClaudeCode) => claude_code_write::write(session, doc, items),
        (Document::Lines(doc), Format::Codex) => codex_write::write(session, doc, items),
        (Document::Lines(doc), Format::Goose) => goose_write::write(session, doc, items),
        (Document::Released | Document::Detached(_), _) => Err(WriteError::Released),
        (_, f) => Err(WriteError::Unsupported(f)),
    }
}

/// A plan that undoes one compaction (what `archive restore` makes): every message kept in
/// order, except the summary at `at`, in whose place the archived `records` go.
#[derive(Debug)]
pub(super) struct RestorePlan<'a> {
    pub at: usize,
    pub records: Vec<&'a Value>,
}

/// The plan as a [`RestorePlan`], if it has that shape.
pub(super) fn restore_plan<'a>(session: &Session, items: &'a [Item]) -> Option<RestorePlan<'a>> {
    let start = items
        .iter()
        .position(|i| matches!(i, Item::InsertRecord(_)))?;
    let records: Vec<&Value> = items[start..]
        .iter()
        .map_while(|i| match i {
            Item::InsertRecord(v) => Some(v),
            _ => None,
        })
        .collect();
    let rest = &items[start + records.len()..];
    let head_kept = items[..start]
        .iter()
        .enumerate()
        .all(|(k, it)| *it == Item::Keep(k));
    let tail_kept = rest
        .iter()
        .enumerate()
        .all(|(k, it)| *it == Item::Keep(start + 1 + k));
    (head_kept && tail_kept && start + 1 + rest.len() == session.messages.len())
        .then_some(RestorePlan { at: start, records })
}

/// Plain JSONL: kept lines byte for byte, edited lines with only `content` re-serialized,
/// new records before the next kept message, or appended before a truncated last line (an
/// agent still writing), which stays last and untouched.
fn write_lines(session: &Session, doc: &LinesDoc, items: &[Item]) -> Result<Vec<u8>, WriteError> {
    let mut plan = LinePlan::new(doc);
    for m in &session.messages {
        for &r in m.origin.records() {
            plan.set(r, LineOut::Drop);
        }
    }
    let mut pending: Vec<String> = Vec::new();
    for item in items {
        match item {
            Item::Insert(m) => pending.push(serde_json::to_string(&new_record(m))?),
            Item::InsertRecord(v) => pending.push(serde_json::to_string(v)?),
            Item::Keep(i) | Item::Edit { index: i, .. } => {
                let records = session.messages[*i].origin.records();
                if let Some(&first) = records.first() {
                    for text in pending.drain(..) {
                        plan.insert_before(first, text);
                    }
                }
                for &r in records {
                    let action = match item {
                        Item::Edit { edits, .. } => {
                            LineOut::Rewrite(edit_line(doc.line(r), *i, edits)?)
                        }
                        _ => LineOut::Keep,
                    };
                    plan.set(r, action);
                }
            }
        }
    }
    for text in pending {
        plan.append(text);
    }
    Ok(plan.render())
}

/// Applies `edits` to the JSONL record `line`. Edits only change `content`, so only that
/// field is re-serialized: every other field keeps its bytes (numbers as written, escapes).
fn edit_line(line: &str, index: usize, edits: &[PartEdit]) -> Result<String, WriteError> {
    let mut v: Value = serde_json::from_str(line)?;
    apply_edits(&mut v, index, edits)?;
    let mut rec = RawRecord::parse(line)?;
    rec.set("content", v.get("content").unwrap_or(&Value::Null))?;
    Ok(rec.to_line()?)
}

/// The record for a message ctxctl adds: `{"role", "content", ...meta}`, a shape both
/// OpenAI and Anthropic accept.
pub fn new_record(m: &NewMessage) -> Value {
    let mut obj = Map::new();
    obj.insert("role".into(), Value::String(m.role.name().into()));
    obj.insert("content".into(), Value::String(m.text.clone()));
    for (k, v) in &m.meta {
        obj.insert(k.clone(), v.clone());
    }
    Value::Object(obj)
}

pub(super) fn apply_edits(
    record: &mut Value,
    index: usize,
    edits: &[PartEdit],
) -> Result<(), WriteError> {
    for edit in edits {
        match edit {
            PartEdit::ResultText { call_id, text } => {
                if !set_result_text(record, call_id, text) {
                    return Err(WriteError::NoSuchResult {
                        index,
                        call_id: call_id.clone(),
                    });
                }
            }
        }
    }
    Ok(())
}

/// Replaces the content of the tool result for `call_id` in an OpenAI `tool` message or an
/// Anthropic `tool_result` block. Returns whether one was found.
pub fn set_result_text(record: &mut Value, call_id: &str, text: &str) -> bool {
    let is_tool_role = matches!(
        record.get("role").and_then(Value::as_str),
        Some("tool" | "function")
    );
    if is_tool_role {
        if let Some(obj) = record.as_object_mut() {
            obj.insert("content".into(), Value::String(text.into()));
            return true;
        }
    }
    let Some(blocks) = record.get_mut("content").and_then(Value::as_array_mut) else {
        return false;
    };
    for b in blocks {
        let matches = b.get("type").and_then(Value::as_str) == Some("tool_result")
            && b.get("tool_use_id").and_then(Value::as_str) == Some(call_id);
        if matches {
            b["content"] = Value::String(text.into());
            return true;
        }
    }
    false
}
