//! The original records behind a range of messages, as JSON values for the archive.

use std::ops::Range;

use serde_json::Value;

use super::ArchiveError;
use crate::session::{codex_embedded_items, Document, Format, Session};

/// The records messages `range` of `session` were read from, in order: the JSON values
/// of a JSON document's message list, or the parsed lines of a JSONL file (lines that are
/// not messages stay in the file and are not archived); for a Codex message that came from
/// a `compacted` record's `replacement_history`, its item alone.
pub fn original_records(
    session: &Session,
    range: Range<usize>,
) -> Result<Vec<Value>, ArchiveError> {
    let messages = session
        .messages
        .get(range.clone())
        .ok_or_else(|| ArchiveError::NoSuchMessages(range.clone()))?;
    // A Codex message read from a `compacted` record's history is archived as its item,
    // not as the whole record its origin names.
    let embedded = match (&session.doc, session.format) {
        (Document::Lines(doc), Format::Codex) => codex_embedded_items(doc)
            .ok()
            .filter(|e| e.len() == session.messages.len()),
        _ => None,
    };
    let mut out = Vec::new();
    for (k, m) in messages.iter().enumerate() {
        if let Some(item) = embedded.as_ref().and_then(|e| e[range.start + k].clone()) {
            out.push(item);
            continue;
        }
        for &r in m.origin.records() {
            let v = match &session.doc {
                Document::Json(doc) => doc.records.get(r).and_then(|_| doc.record(r).ok()),
                Document::Lines(doc) => doc
                    .lines
                    .get(r)
                    .and_then(|_| serde_json::from_str(doc.line(r)).ok()),
                Document::Released => None,
            };
            out.push(v.ok_or(ArchiveError::Record(r))?);
        }
    }
    Ok(out)
}
