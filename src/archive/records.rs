//! The original records behind a range of messages, as JSON values for the archive.

use std::ops::Range;

use serde_json::Value;

use super::ArchiveError;
use crate::session::{Document, Session};

/// The records messages `range` of `session` were read from, in order: the JSON values
/// of a JSON document's message list, or the parsed lines of a JSONL file (lines that are
/// not messages stay in the file and are not archived).
pub fn original_records(
    session: &Session,
    range: Range<usize>,
) -> Result<Vec<Value>, ArchiveError> {
    let messages = session
        .messages
        .get(range.clone())
        .ok_or(ArchiveError::NoSuchMessages(range))?;
    let mut out = Vec::new();
    for m in messages {
        for &r in m.origin.records() {
            let v = match &session.doc {
                Document::Json(doc) => doc.records.get(r).and_then(|_| doc.record(r).ok()),
                Document::Lines(doc) => doc
                    .lines
                    .get(r)
                    .and_then(|_| serde_json::from_str(doc.line(r)).ok()),
            };
            out.push(v.ok_or(ArchiveError::Record(r))?);
        }
    }
    Ok(out)
}
