//! The original records behind a range of messages, as JSON values for the archive.

use std::borrow::Cow;
use std::ops::Range;

use serde_json::value::RawValue;

use super::ArchiveError;
use crate::session::{Document, Session};

/// The records messages `range` of `session` were read from, in order (see [`records_of`]).
pub fn original_records(
    session: &Session,
    range: Range<usize>,
) -> Result<Vec<Cow<'_, RawValue>>, ArchiveError> {
    records_of(session, &range.collect::<Vec<_>>())
}

/// The records messages `indices` (in order) of `session` were read from, each as its
/// original text: the JSON values of a JSON document's message list, or the lines of a
/// JSONL file (lines that are not messages stay in the file and are not archived); for a
/// Codex message that came from a `compacted` record's `replacement_history`, its item
/// alone. Borrowed from the session's text, not parsed into JSON trees nor copied: an
/// archive can be as large as the session.
pub fn records_of<'a>(
    session: &'a Session,
    indices: &[usize],
) -> Result<Vec<Cow<'a, RawValue>>, ArchiveError> {
    if let Some(&bad) = indices.iter().find(|&&i| i >= session.messages.len()) {
        return Err(ArchiveError::NoSuchMessages(bad..bad + 1));
    }
    // A message read from inside a record (a Codex `compacted` record's history) is
    // archived as its item, not as the whole record its origin names.
    let embedded = session.format.codec().embedded_items(session);
    let mut out = Vec::new();
    for &i in indices {
        if let Some(item) = embedded.as_ref().and_then(|e| e[i].as_ref()) {
            let raw = serde_json::value::to_raw_value(item).map_err(|_| ArchiveError::Record(i))?;
            out.push(Cow::Owned(raw));
            continue;
        }
        for &r in session.messages[i].origin.records() {
            let text = match &session.doc {
                Document::Json(doc) => doc.records.get(r).map(|_| doc.raw(r)),
                Document::Lines(doc) => doc.lines.get(r).map(|_| doc.line(r)),
                Document::Released | Document::Detached(_) => None,
            };
            let raw = text.and_then(|t| serde_json::from_str::<&RawValue>(t).ok());
            out.push(Cow::Borrowed(raw.ok_or(ArchiveError::Record(r))?));
        }
    }
    Ok(out)
}
