//! The write plan: which messages a rewrite keeps, which it edits and what it inserts, in
//! output order. Each format's writer (`crate::formats`) renders a plan in its own shape.

use serde_json::{Map, Value};

use super::{Format, Role, Session};

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

/// A plan that undoes one compaction (what `archive restore` makes): every message kept in
/// order, except the summary at `at`, in whose place the archived `records` go.
#[derive(Debug)]
pub struct RestorePlan<'a> {
    pub at: usize,
    pub records: Vec<&'a Value>,
}

/// The plan as a [`RestorePlan`], if it has that shape.
pub fn restore_plan<'a>(session: &Session, items: &'a [Item]) -> Option<RestorePlan<'a>> {
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
