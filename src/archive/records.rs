//! The original records behind a range of messages, as JSON values for the archive.

use std::borrow::Cow;
use std::ops::Range;

use serde::Serialize;
use serde_json::value::RawValue;

use super::ArchiveError;
use crate::session::{Document, Session};

/// The records messages `range` of `session` were read from, in order (see [`records_of`]).
pub fn original_records(
    session: &Session,
    range: Range<usize>,
) -> Result<Vec<RecordText<'_>>, ArchiveError> {
    records_of(session, &range.collect::<Vec<_>>())
}

/// One archived record's JSON text, as the session holds it: one JSON value, without the
/// whitespace around it. Made only from text its reader parsed as such, so it is written
/// as it is, not parsed again (a large compaction's records are most of the file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordText<'a>(Cow<'a, str>);

impl<'a> RecordText<'a> {
    /// The text of `value`, written compactly.
    pub fn of_value(value: &impl Serialize) -> Result<RecordText<'static>, serde_json::Error> {
        serde_json::to_string(value).map(|t| RecordText(Cow::Owned(t)))
    }

    /// A record a session was read from (its line or its element of the list, which its
    /// reader parsed): `None` when it is not one JSON value after all.
    pub(crate) fn read(text: &'a str) -> Option<RecordText<'a>> {
        let t = text.trim_matches(JSON_SPACE);
        if !shaped(t.as_bytes()) {
            let raw = serde_json::from_str::<&RawValue>(t).ok()?;
            return Some(RecordText(Cow::Borrowed(raw.get())));
        }
        debug_assert!(
            serde_json::from_str::<&RawValue>(t).is_ok(),
            "a record read is one JSON value: {t}"
        );
        Some(RecordText(Cow::Borrowed(t)))
    }

    /// [`RecordText::read`] of a record's bytes as a file holds them now, when the caller
    /// checks afterwards that the file is what its reader parsed (by its hash): its ends
    /// tell an object or a list, anything else is checked whole.
    pub(crate) fn read_bytes(bytes: &[u8]) -> Option<&[u8]> {
        let start = bytes
            .iter()
            .position(|b| !JSON_SPACE.contains(&char::from(*b)))?;
        let end = bytes
            .iter()
            .rposition(|b| !JSON_SPACE.contains(&char::from(*b)))?;
        let t = &bytes[start..=end];
        (shaped(t) || serde_json::from_slice::<&RawValue>(t).is_ok()).then_some(t)
    }

    pub fn get(&self) -> &str {
        &self.0
    }
}

/// The whitespace JSON allows around a value.
const JSON_SPACE: [char; 4] = [' ', '\t', '\n', '\r'];

/// Whether a record's text, whitespace trimmed, has an object's or a list's ends: what
/// every record its reader parsed is, told without parsing it again.
fn shaped(t: &[u8]) -> bool {
    matches!(
        (t.first(), t.last()),
        (Some(b'{'), Some(b'}')) | (Some(b'['), Some(b']'))
    )
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
) -> Result<Vec<RecordText<'a>>, ArchiveError> {
    if let Some(&bad) = indices.iter().find(|&&i| i >= session.messages.len()) {
        return Err(ArchiveError::NoSuchMessages(bad..bad + 1));
    }
    // A message read from inside a record (a Codex `compacted` record's history) is
    // archived as its item, not as the whole record its origin names.
    let embedded = session.format.codec().embedded_items(session);
    let mut out = Vec::new();
    for &i in indices {
        if let Some(item) = embedded.as_ref().and_then(|e| e[i].as_ref()) {
            out.push(RecordText::of_value(item).map_err(|_| ArchiveError::Record(i))?);
            continue;
        }
        for &r in session.messages[i].origin.records() {
            let text = match &session.doc {
                Document::Json(doc) => doc.records.get(r).map(|_| doc.raw(r)),
                Document::Lines(doc) => doc.lines.get(r).map(|_| doc.line(r)),
                Document::Released | Document::Detached(_) => None,
            };
            out.push(
                text.and_then(RecordText::read)
                    .ok_or(ArchiveError::Record(r))?,
            );
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_its_value_without_the_space_around_it() {
        let read = |t| RecordText::read(t).map(|r| r.get().to_string());
        assert_eq!(
            read(" {\"a\": [1, 2]}\r\n").as_deref(),
            Some("{\"a\": [1, 2]}")
        );
        assert_eq!(read("\t[1]").as_deref(), Some("[1]"));
        // Not an object or a list: checked whole.
        assert_eq!(read(" \"text\" ").as_deref(), Some("\"text\""));
        assert_eq!(read("12").as_deref(), Some("12"));
        assert_eq!(read("nul"), None);
        assert_eq!(read(""), None);
        assert_eq!(read("{\"a\": 1} x"), None);
    }

    #[test]
    fn a_record_read_again_as_bytes_is_the_record_read() {
        for t in [
            " {\"a\": [1, 2]}\r\n",
            "\t[1]",
            " \"text\" ",
            "12",
            "nul",
            "",
            " \n ",
            "{\"a\": 1} x",
            "{\"é\": \"ü\"}",
        ] {
            let read = RecordText::read(t).map(|r| r.get().as_bytes().to_vec());
            let again = RecordText::read_bytes(t.as_bytes()).map(<[u8]>::to_vec);
            assert_eq!(again, read, "{t:?}");
        }
    }
}
