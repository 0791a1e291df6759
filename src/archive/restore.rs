//! Undoing a compaction: the archived originals go back in place of its summary.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;
use xxhash_rust::xxh3::xxh3_64;

use super::ArchiveFile;
use crate::session::{Item, LinesDoc, Record, Session};

/// Why an archive cannot be restored into a session.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RestoreError {
    #[error(
        "the session has no summary with compact_id {id}: it was edited away, or compacted \
         again (restore the newer archive first)"
    )]
    SummaryNotFound { id: String },
    #[error("the archive holds {archive} records but the session is {session}")]
    FormatMismatch { archive: String, session: String },
}

/// The write plan that puts `archive`'s records back in place of the summary message
/// carrying its `compact_id`, keeping everything else (also messages added or changed
/// after the compaction). The records move into the plan rather than being copied: an
/// archive may hold most of a large session, and a restore need not hold it twice. They
/// are taken only once the plan is known to fit (on an error `archive` is whole).
pub fn restore(session: &Session, archive: &mut ArchiveFile) -> Result<Vec<Item>, RestoreError> {
    let at = summary_at(session, archive)?;
    let records = std::mem::take(&mut archive.records);
    Ok(items(session, at, records.into_iter().map(archived_record)))
}

/// [`restore`] with the archive's records given apart from its facts (`archive`'s own are
/// not read), as they were read one by one.
pub fn restore_records(
    session: &Session,
    archive: &ArchiveFile,
    records: Vec<Record>,
) -> Result<Vec<Item>, RestoreError> {
    let at = summary_at(session, archive)?;
    Ok(items(session, at, records.into_iter()))
}

/// The lines of a JSONL session, found by their text: an archived record that is exactly
/// one of them goes back as [`Record::Line`] rather than as a second copy of its text.
pub struct SameLines<'d> {
    doc: &'d LinesDoc,
    /// Each distinct line's hash to its first line (a collision is told by the text; a
    /// fast hash, as every line of the file is hashed).
    by_hash: HashMap<u64, usize>,
}

impl<'d> SameLines<'d> {
    pub fn new(doc: &'d LinesDoc) -> SameLines<'d> {
        let mut by_hash = HashMap::with_capacity(doc.lines.len());
        for i in 0..doc.lines.len() {
            by_hash.entry(xxh3_64(doc.line(i).as_bytes())).or_insert(i);
        }
        SameLines { doc, by_hash }
    }

    /// The archived record `raw` as it goes back into the session: the line that is its
    /// text, else as [`archived_record`] has it.
    pub fn record(&self, raw: Box<RawValue>) -> Record {
        let text = raw.get();
        let line = (self.by_hash.get(&xxh3_64(text.as_bytes())))
            .filter(|&&i| self.doc.line(i) == text && !text.contains(['\n', '\r']));
        match line {
            Some(&i) => Record::Line(i),
            None => archived_record(raw),
        }
    }
}

/// The plan: the session's messages up to the summary at `at`, `records`, the rest.
fn items(session: &Session, at: usize, records: impl Iterator<Item = Record>) -> Vec<Item> {
    let mut items: Vec<Item> = (0..at).map(Item::Keep).collect();
    items.extend(records.map(Item::InsertRecord));
    items.extend((at + 1..session.messages.len()).map(Item::Keep));
    items
}

/// The index of the summary message `archive` replaced in `session`.
fn summary_at(session: &Session, archive: &ArchiveFile) -> Result<usize, RestoreError> {
    if archive.format != session.format.name() {
        return Err(RestoreError::FormatMismatch {
            archive: archive.format.clone(),
            session: session.format.name().to_string(),
        });
    }
    let at = session
        .messages
        .iter()
        .position(|m| {
            m.compact
                .as_ref()
                .is_some_and(|c| c.id.as_deref() == Some(archive.compact_id.as_str()))
        })
        .ok_or_else(|| RestoreError::SummaryNotFound {
            id: archive.compact_id.clone(),
        })?;
    Ok(at)
}

/// An archive's record as it goes back into a session: its original text, unless the
/// archive is one ctxctl wrote before it kept records' text. Those archives hold each record
/// as its value pretty-printed inside the archive (two-space indent, at depth two), which
/// writers re-serialize in the session's own style as they always did. A record's text in
/// exactly that form is taken as such a value either way: from a JSONL line it cannot be
/// (lines have no line breaks), and a JSON document's record in that form is what
/// re-serializing it in the document's style gives back.
pub fn archived_record(raw: Box<RawValue>) -> Record {
    let text = raw.get();
    if text.contains('\n') {
        if let Ok(v) = serde_json::from_str::<Value>(text) {
            if old_archive_form(&v).is_some_and(|old| old == text) {
                return Record::Parsed(v);
            }
        }
    }
    Record::Verbatim(raw)
}

/// `v` as an archive written before ctxctl kept records' text put it in its `records` list.
fn old_archive_form(v: &Value) -> Option<String> {
    let mut buf = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(b"  ");
    v.serialize(&mut serde_json::Serializer::with_formatter(&mut buf, fmt))
        .ok()?;
    Some(String::from_utf8(buf).ok()?.replace('\n', "\n    "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_string()).unwrap()
    }

    #[test]
    fn records_come_back_as_their_text() {
        for text in [
            r#"{"role": "user", "content": "caf\u00e9 a\/b", "n": 1.0, "m": 1e3}"#,
            r#"{"role":"user","content":"x"}"#,
            "{\n  \"role\": \"user\"\n}",
            "{\n      \"role\": \"user\",\n      \"content\": \"\\u00e9\"\n    }",
        ] {
            assert_eq!(
                archived_record(raw(text)),
                Record::Verbatim(raw(text)),
                "{text}"
            );
        }
    }

    #[test]
    fn a_record_that_is_a_line_of_the_session_is_that_line() {
        let doc = LinesDoc::new(
            "{\"a\":1}\n{\"b\":2}\r\n{\"a\":1}\n\n{\"c\": 3}\n {\"e\":5}".to_string(),
        );
        let same = SameLines::new(&doc);
        assert_eq!(same.record(raw("{\"a\":1}")), Record::Line(0));
        assert_eq!(same.record(raw("{\"b\":2}")), Record::Line(1));
        assert_eq!(same.record(raw("{\"c\": 3}")), Record::Line(4));
        // Not a line as the file has it (spacing, another value): held as it was archived.
        for text in ["{\"a\": 1}", "{\"e\":5}", "{\"d\":4}", "{\n\"a\":1}"] {
            assert_eq!(
                same.record(raw(text)),
                Record::Verbatim(raw(text)),
                "{text}"
            );
        }
    }

    #[test]
    fn records_of_old_archives_come_back_as_values() {
        // As `to_writer_pretty` put a record's value in an archive's `records` list.
        let text =
            "{\n      \"role\": \"user\",\n      \"content\": [\n        1.0\n      ]\n    }";
        assert_eq!(
            archived_record(raw(text)),
            Record::Parsed(serde_json::json!({"role": "user", "content": [1.0]}))
        );
    }
}
