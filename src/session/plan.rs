//! The write plan: which messages a rewrite keeps, which it edits and what it inserts, in
//! output order. Each format's writer (`crate::formats`) renders a plan in its own shape.

use std::borrow::Cow;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{Format, LinesDoc, Role, Session};

/// One entry of a write plan, in output order.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// Keep message `i` exactly as it was.
    Keep(usize),
    /// Keep message `index` with some of its parts changed.
    Edit { index: usize, edits: Vec<PartEdit> },
    /// A message ctxctl adds (an omission marker, a summary).
    Insert(NewMessage),
    /// An archived record put back by `archive restore`: formats that write records whole
    /// (JSONL lines, a chat document's messages) write its original text.
    InsertRecord(Record),
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

/// A record an archive gives back.
#[derive(Debug, Clone)]
pub enum Record {
    /// The record's original text, written back byte for byte wherever a whole record is
    /// written (whitespace, escapes like `\u00e9` and `\/`, numbers like `1e3` as they were).
    Verbatim(Box<RawValue>),
    /// Only the record's value (archives ctxctl wrote before it kept records' text): writers
    /// serialize it in their own style.
    Parsed(Value),
    /// A record whose text is exactly line `n` of the JSONL session it goes back into, so
    /// it is not held twice (a compaction leaves its records in a Claude Code transcript:
    /// an archive can be most of the file; a Codex compaction appends, leaving them too).
    /// Only a writer that has the session's document can read it (the `*_in` methods);
    /// the others refuse it.
    Line(usize),
}

impl Record {
    /// A verbatim record; `text` must be one JSON value.
    pub fn verbatim(text: &str) -> Result<Record, serde_json::Error> {
        Ok(Record::Verbatim(RawValue::from_string(
            text.trim().to_string(),
        )?))
    }

    /// The record's value, parsed from its text when it is verbatim.
    pub fn value(&self) -> Result<Cow<'_, Value>, serde_json::Error> {
        match self {
            Record::Verbatim(raw) => serde_json::from_str(raw.get()).map(Cow::Owned),
            Record::Parsed(v) => Ok(Cow::Borrowed(v)),
            Record::Line(n) => Err(serde::de::Error::custom(format!(
                "an archived record that is line {} of the session, read without it",
                n + 1
            ))),
        }
    }

    /// The record's original text, if the archive has it and it is one line.
    pub fn original_line(&self) -> Option<&str> {
        match self {
            Record::Verbatim(raw) if !raw.get().contains(['\n', '\r']) => Some(raw.get()),
            _ => None,
        }
    }

    /// The record as one JSONL line (no terminator): its original text when that is one
    /// line, else its value as compact JSON.
    pub fn line(&self) -> Result<Cow<'_, str>, serde_json::Error> {
        match self.original_line() {
            Some(text) => Ok(Cow::Borrowed(text)),
            None => serde_json::to_string(&*self.value()?).map(Cow::Owned),
        }
    }

    /// [`Record::value`] of a record going back into `doc`: one that is a line of it
    /// parsed from there.
    pub fn value_in<'a>(&'a self, doc: &LinesDoc) -> Result<Cow<'a, Value>, serde_json::Error> {
        match self {
            Record::Line(n) => serde_json::from_str(doc.line(*n)).map(Cow::Owned),
            _ => self.value(),
        }
    }

    /// [`Record::original_line`] of a record going back into `doc`: one that is a line of
    /// it read there.
    pub fn original_line_in<'a>(&'a self, doc: &'a LinesDoc) -> Option<&'a str> {
        match self {
            Record::Line(n) => Some(doc.line(*n)),
            _ => self.original_line(),
        }
    }

    /// [`Record::line`] of a record going back into `doc`: one that is a line of it read
    /// there.
    pub fn line_in<'a>(&'a self, doc: &'a LinesDoc) -> Result<Cow<'a, str>, serde_json::Error> {
        match self {
            Record::Line(n) => Ok(Cow::Borrowed(doc.line(*n))),
            _ => self.line(),
        }
    }
}

impl From<Value> for Record {
    fn from(v: Value) -> Record {
        Record::Parsed(v)
    }
}

/// Verbatim records are equal when their texts are; parsed ones when their values are.
impl PartialEq for Record {
    fn eq(&self, other: &Record) -> bool {
        match (self, other) {
            (Record::Verbatim(a), Record::Verbatim(b)) => a.get() == b.get(),
            (Record::Parsed(a), Record::Parsed(b)) => a == b,
            (Record::Line(a), Record::Line(b)) => a == b,
            _ => false,
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
    /// The output could not be written (a closed pipe, a full disk).
    #[error("{0}")]
    Io(#[from] std::io::Error),
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
    pub records: Vec<&'a Record>,
}

/// The plan as a [`RestorePlan`], if it has that shape.
pub fn restore_plan<'a>(session: &Session, items: &'a [Item]) -> Option<RestorePlan<'a>> {
    let start = items
        .iter()
        .position(|i| matches!(i, Item::InsertRecord(_)))?;
    let records: Vec<&Record> = items[start..]
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_verbatim_record_is_its_text_and_parses_on_demand() {
        let text = r#"{"role": "user", "content": "caf\u00e9 a\/b", "n": 1.0, "m": 1e3}"#;
        let r = Record::verbatim(&format!("  {text}\r")).unwrap();
        assert_eq!(r.original_line(), Some(text));
        assert_eq!(r.line().unwrap(), text);
        let v = r.value().unwrap();
        assert_eq!(v["content"], "café a/b");
        // Parsed, `1e3` is a number serde_json writes as `1e+3`: only the text keeps it.
        assert_eq!(v["m"].as_f64(), Some(1000.0));
        assert_eq!(v["m"].to_string(), "1e+3");
    }

    #[test]
    fn records_not_on_one_line_are_written_as_compact_lines() {
        let r = Record::verbatim("{\n  \"role\": \"user\"\n}").unwrap();
        assert_eq!(r.original_line(), None);
        assert_eq!(r.line().unwrap(), r#"{"role":"user"}"#);
        let p = Record::from(json!({"role": "user"}));
        assert_eq!(p.original_line(), None);
        assert_eq!(p.line().unwrap(), r#"{"role":"user"}"#);
        assert_ne!(p, r, "a parsed record is not a verbatim one");
        assert_eq!(r, r.clone());
    }
}
