//! Plain JSONL: one OpenAI- or Anthropic-shaped message per line.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use serde_json::Value;

use crate::formats::edit::{apply_edits, new_record};
use crate::formats::lines_out::{LineOut, LinePlan};
use crate::formats::message;
use crate::formats::raw::RawRecord;
use crate::formats::{lines_doc, Codec, CountedRead, Counting};
use crate::session::{
    Document, Format, Keep, LinesDoc, Message, Origin, ReadError, Resume, Session,
};
use crate::session::{Item, PartEdit, WriteError};

pub fn read(text: impl Into<String>) -> Result<Session, ReadError> {
    read_keeping(text.into(), Keep::Document)
}

/// Reads plain JSONL `text`, keeping what `keep` says of it.
pub fn read_keeping(text: String, keep: Keep) -> Result<Session, ReadError> {
    read_lines(text, keep, None).map(|(s, _)| s)
}

/// The session `text` holds, and when `count` is given each message's count from it,
/// taken on the thread that parsed the message (see [`crate::formats::Codec::read_counting`]).
fn read_lines(text: String, keep: Keep, count: Option<Counting>) -> Result<CountedRead, ReadError> {
    let mut doc = LinesDoc::new(text);
    let mut warnings = Vec::new();
    // Only the last line may be a truncated record (an agent still writing): it is checked
    // first, so that every other line can be parsed on its own, on any thread.
    let mut n = doc.lines.len();
    if n > 0 && !doc.line(n - 1).trim().is_empty() {
        if let Err(Tolerated(w)) = parse_line(&doc, n - 1) {
            warnings.push(w);
            doc.truncated_tail = Some(n - 1);
            n -= 1;
        }
    }
    let lines = &doc.lines[..n];
    let skip = keep.skippable(lines.len(), |i| (lines[i].start, lines[i].end));
    let first = skip.unwrap_or(0);
    let resume = (matches!(keep, Keep::After(_)) && doc.truncated_tail.is_none()).then(|| {
        let len = doc.lines.last().map_or(0, |l| l.end);
        Resume::of(&doc.text, len, doc.lines.len(), head_end(&doc))
    });
    let spans: Vec<_> = doc.lines[first..n].iter().map(|l| l.start..l.end).collect();
    let release = keep != Keep::Document;
    // Counts go to a slot per line (none for a blank one) and the first model named to a
    // shared place, so that the parsed messages are the session's own vector (no second
    // copy of a large session's messages).
    let slots: Vec<AtomicUsize> = match count {
        Some(_) => (0..spans.len()).map(|_| AtomicUsize::new(NONE)).collect(),
        None => Vec::new(),
    };
    let named: Mutex<Option<(usize, String)>> = Mutex::new(None);
    let (messages, notes) =
        crate::formats::par::parse_spans(doc.text.to_mut(), &spans, release, |text, k, notes| {
            let (line, i) = (&text[spans[k].clone()], first + k);
            if line.trim().is_empty() {
                return Ok(None);
            }
            let (mut m, model) = parse_record(line, i, notes)?;
            if let Some(model) = model {
                let mut first = named.lock().unwrap_or_else(|e| e.into_inner());
                if first.as_ref().is_none_or(|(j, _)| i < *j) {
                    *first = Some((i, model));
                }
            }
            if let Some(c) = count {
                slots[k].store(c(k, &mut m), Ordering::Relaxed);
            }
            Ok(Some(m))
        })?;
    let model = named
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .map(|(_, m)| m);
    warnings.extend(notes.into_warnings());
    let counts = count.map(|_| {
        (slots.into_iter().map(AtomicUsize::into_inner))
            .filter(|&n| n != NONE)
            .collect()
    });
    let session = Session {
        format: Format::Jsonl,
        doc: match keep {
            Keep::Document => Document::Lines(doc),
            Keep::Layout => Document::Detached(Box::new(Document::Lines(doc))),
            Keep::Messages | Keep::After(_) => Document::Released,
        },
        messages,
        model,
        warnings,
        reported_usage: None,
        agent_limits: Default::default(),
        request_extra: None,
        resume,
        skipped: skip.is_some(),
    };
    Ok((session, counts))
}

/// A line's count slot that no message filled (a blank line).
const NONE: usize = usize::MAX;

/// Where the first lines end, up to [`crate::formats::HEAD_LINES`] of them not blank (as
/// the streaming reader counts them): what tells a longer version's format.
fn head_end(doc: &LinesDoc) -> usize {
    let (mut end, mut seen) = (0, 0);
    for l in &doc.lines {
        if seen >= crate::formats::HEAD_LINES {
            break;
        }
        end = l.end;
        seen += usize::from(!crate::formats::stream::is_blank(
            &doc.text.as_bytes()[l.start..l.end],
        ));
    }
    end
}

/// The message on line `i` (not blank), and the model the line names.
pub fn parse_record(
    line: &str,
    i: usize,
    notes: &mut message::Notes,
) -> Result<(Message, Option<String>), ReadError> {
    if let Some(m) = crate::formats::chat::fast::simple_message(line, &Origin::Record(i)) {
        return Ok((m, None));
    }
    let v: Value = serde_json::from_str(line).map_err(|e| ReadError::json(&e, i))?;
    let model = v.get("model").and_then(Value::as_str).map(str::to_string);
    let m = message::parse(v, &format!("line {}", i + 1), Origin::Record(i), notes)?;
    Ok((m, model))
}

/// A record line of a JSONL document.
pub enum Record {
    /// Line `i`, parsed.
    Line(usize, Value),
    /// Line `i` is a truncated last line (an agent still writing), with the warning to
    /// give; it stays in the file untouched.
    Truncated(usize, String),
}

/// The record lines of `doc` in order, parsed one at a time; blank lines are skipped.
pub fn records(doc: &LinesDoc) -> impl Iterator<Item = Result<Record, ReadError>> + '_ {
    records_before(doc, doc.lines.len())
}

/// [`records`] of the lines before line `end` (at most all of them): what `records` gives
/// of a document holding only those lines (its last line is no last line here, so never
/// a tolerated truncated one), without copying them into one.
pub fn records_before(
    doc: &LinesDoc,
    end: usize,
) -> impl Iterator<Item = Result<Record, ReadError>> + '_ {
    (0..end.min(doc.lines.len()))
        .filter(|&i| !doc.line(i).trim().is_empty())
        .map(|i| match parse_line(doc, i) {
            Ok(v) => Ok(Record::Line(i, v)),
            Err(Tolerated(w)) => Ok(Record::Truncated(i, w)),
            Err(Fatal(e)) => Err(e),
        })
}

/// Why a line could not be parsed.
pub enum LineError {
    /// A truncated last line (an agent still writing): read the rest, keep it verbatim.
    Tolerated(String),
    Fatal(ReadError),
}
use LineError::{Fatal, Tolerated};

/// Parses line `i` of `doc` as JSON, tolerating an unterminated, unparseable last line.
pub fn parse_line(doc: &LinesDoc, i: usize) -> Result<Value, LineError> {
    let line = doc.line(i);
    match serde_json::from_str(line) {
        Ok(v) => Ok(v),
        Err(e) => {
            let span = doc.lines[i];
            let last = i + 1 == doc.lines.len();
            if last && span.end == span.end_with_eol && e.is_eof() {
                Err(Tolerated(format!(
                    "line {}: incomplete last line (still being written?); ignored and kept as is",
                    i + 1
                )))
            } else {
                Err(Fatal(ReadError::json(&e, i)))
            }
        }
    }
}

/// Plain JSONL: one OpenAI- or Anthropic-shaped message per line.
pub struct Jsonl;

impl Codec for Jsonl {
    fn format(&self) -> Format {
        Format::Jsonl
    }

    fn name(&self) -> &'static str {
        "jsonl"
    }

    fn read(&self, text: String, keep: Keep) -> Result<Session, ReadError> {
        read_keeping(text, keep)
    }

    fn read_counting(&self, text: String, count: Counting) -> Result<CountedRead, ReadError> {
        read_lines(text, Keep::Document, Some(count))
    }

    fn writes_only_items(&self) -> bool {
        true
    }

    fn write_to(
        &self,
        session: &Session,
        items: &[Item],
        out: &mut dyn std::io::Write,
    ) -> Result<(), WriteError> {
        Ok(line_plan(session, lines_doc(session)?, items)?.render_to(out)?)
    }

    fn write(&self, session: &Session, items: &[Item]) -> Result<Vec<u8>, WriteError> {
        write_lines(session, lines_doc(session)?, items)
    }

    fn model_in_first_records(&self) -> bool {
        true
    }
}

/// Plain JSONL: kept lines byte for byte, edited lines with only `content` re-serialized,
/// new records before the next kept message, or appended before a truncated last line (an
/// agent still writing), which stays last and untouched.
fn write_lines(session: &Session, doc: &LinesDoc, items: &[Item]) -> Result<Vec<u8>, WriteError> {
    Ok(line_plan(session, doc, items)?.render())
}

/// The lines of `doc` that `items` keep, drop, rewrite and add.
fn line_plan<'a>(
    session: &Session,
    doc: &'a LinesDoc,
    items: &[Item],
) -> Result<LinePlan<'a>, WriteError> {
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
            Item::InsertRecord(r) => pending.push(r.line()?.into_owned()),
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
    Ok(plan)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_lines_and_skips_blank_ones() {
        let s = read(
            "{\"role\":\"user\",\"content\":\"a\"}\n\n{\"role\":\"assistant\",\"content\":\"b\"}\n",
        )
        .unwrap();
        assert_eq!(s.messages.len(), 2);
        assert_eq!(s.messages[1].origin, Origin::Record(2));
    }

    #[test]
    fn truncated_last_line_is_tolerated() {
        let s = read("{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"assis").unwrap();
        assert_eq!(s.messages.len(), 1);
        assert_eq!(s.warnings.len(), 1);
        let Document::Lines(doc) = &s.doc else {
            panic!()
        };
        assert_eq!(doc.truncated_tail, Some(1));
    }

    #[test]
    fn numbers_beyond_f64_and_i64_survive_an_edited_line() {
        use crate::formats::write;
        use crate::session::{Item, PartEdit};
        let text = "{\"role\":\"tool\",\"tool_call_id\":\"c\",\"content\":\"long\",\"n\":123456789012345678901234567890,\"f\":1e999999}\n";
        let s = read(text).unwrap();
        let edit = Item::Edit {
            index: 0,
            edits: vec![PartEdit::ResultText {
                call_id: "c".into(),
                text: "short".into(),
            }],
        };
        let out = String::from_utf8(write(&s, std::slice::from_ref(&edit)).unwrap()).unwrap();
        assert_eq!(out, text.replace("long", "short"));
        // With `content` given twice, the edit replaces the one readers see (the last).
        let dup =
            "{\"role\":\"tool\",\"content\":\"old\",\"tool_call_id\":\"c\",\"content\":\"long\"}\n";
        let s = read(dup).unwrap();
        let out = String::from_utf8(write(&s, &[edit]).unwrap()).unwrap();
        assert_eq!(
            out,
            "{\"role\":\"tool\",\"tool_call_id\":\"c\",\"content\":\"short\"}\n"
        );
    }

    #[test]
    fn records_appended_to_a_truncated_file_go_before_its_tail() {
        // Found by the `rewrite` fuzz target: a summary appended after the half-written
        // last line made that line a broken middle line, and the rewrite unreadable.
        use crate::formats::write;
        use crate::session::{Item, NewMessage, Role};
        let text = "{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"assis";
        let s = read(text).unwrap();
        let summary = Item::Insert(NewMessage {
            role: Role::Assistant,
            text: "sum".into(),
            meta: serde_json::Map::new(),
        });
        let out = write(&s, &[Item::Keep(0), summary]).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(
            out,
            "{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"assistant\",\"content\":\"sum\"}\n{\"role\":\"assis"
        );
        let again = read(&out).unwrap();
        assert_eq!(again.messages.len(), 2);
        assert_eq!(again.warnings.len(), 1);
    }

    #[test]
    fn broken_middle_line_is_an_error_with_its_number() {
        let e = read("{\"role\":\"user\",\"content\":\"a\"}\n{oops}\n{\"role\":\"user\",\"content\":\"a\"}\n")
            .unwrap_err();
        assert!(matches!(e, ReadError::Json { line: 2, .. }), "{e}");
    }
}
