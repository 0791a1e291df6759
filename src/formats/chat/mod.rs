//! JSON documents: OpenAI Chat Completions (`[...]`, `{"messages": [...]}`, SWE-agent
//! `{"history": [...]}`) and Anthropic Messages request bodies (`system` + `messages`).
//!
//! The document is kept as its text plus the byte spans of its message records, so that a
//! rewrite copies untouched records (and everything around the list) byte for byte, and no
//! JSON tree of the whole file is ever held in memory: each record is parsed on its own.

mod at_end;
pub(crate) mod fast;
mod scanned;
mod split;
mod write;

pub use at_end::{early_model, early_system, outline, Streamed};

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::formats::message::{self, Notes};
use crate::formats::{json_doc, Codec, CountedRead, Counting};
use crate::session::{
    Document, Format, JsonDoc, JsonStyle, Keep, ListKey, Message, Origin, ReadError, Resume, Role,
    Session,
};
use crate::session::{Item, WriteError};

#[cfg(test)]
pub fn read(text: impl Into<String>, format: Format) -> Result<Session, ReadError> {
    read_keeping(text.into(), format, Keep::Document)
}

/// Reads the document `text` as `format`, keeping what `keep` says of it.
pub fn read_keeping(text: String, format: Format, keep: Keep) -> Result<Session, ReadError> {
    read_document(text, format, keep, None).map(|(s, _)| s)
}

/// Like [`read_keeping`] keeping the document, each message given to `count` on the
/// thread that parsed it: its count, in message order, comes back with the session.
pub fn read_counting(
    text: String,
    format: Format,
    count: Counting,
) -> Result<CountedRead, ReadError> {
    read_document(text, format, Keep::Document, Some(count))
}

/// Reads the document `text` as `format`: laid out by the structural scan when it can be
/// ([`read_scanned`]), else by the full pass.
fn read_document(
    mut text: String,
    format: Format,
    keep: Keep,
    count: Option<Counting>,
) -> Result<CountedRead, ReadError> {
    if let Some(read) = read_scanned(&mut text, Some(format), keep, count) {
        return Ok(read);
    }
    let layout = layout(&text, bom(&text))?;
    read_layout(&mut text, format, layout, keep, count)
}

/// Reads `text` as a JSON document if it is one whose format the layout tells (OpenAI or
/// Anthropic), scanning the document once instead of once to detect it and once to read
/// it. Gives the text back when it is something else (JSONL, an agent transcript, not a
/// session, broken JSON): full detection then decides, and words the error. With `count`,
/// each message is counted as it is parsed ([`read_counting`]).
pub fn read_detected(
    text: String,
    keep: Keep,
    count: Option<Counting>,
) -> Result<Result<CountedRead, ReadError>, String> {
    let mut text = text;
    if let Some(read) = read_scanned(&mut text, None, keep, count) {
        return Ok(Ok(read));
    }
    let body = text[bom(&text)..].trim_start();
    let one_line = body.trim_end().lines().nth(1).is_none();
    let document = match body.as_bytes().first() {
        Some(b'[') => true,
        // A pretty-printed object; a first line that is a whole value starts JSONL.
        Some(b'{') if !one_line => body
            .lines()
            .next()
            .is_some_and(|l| serde_json::from_str::<&RawValue>(l).is_err()),
        Some(b'{') => true,
        _ => false,
    };
    if !document {
        return Err(text);
    }
    let Ok(layout) = layout(&text, bom(&text)) else {
        return Err(text);
    };
    match detected(&text, &layout, one_line) {
        Some(format) => Ok(read_layout(&mut text, format, layout, keep, count)),
        None => Err(text),
    }
}

/// `text` read with the layout the structural scan finds ([`scanned::scanned_layout`]), as
/// `format` or, when `None`, as the format its layout tells; `None` when it cannot be read
/// so (not a document kept whole, the scan cannot tell the layout, no format, a record
/// that does not parse): the caller reads it with the full pass, whose errors are the
/// ones a user sees. A document read otherwise is released as it is parsed: it could not
/// be read a second time.
fn read_scanned(
    text: &mut String,
    format: Option<Format>,
    keep: Keep,
    count: Option<Counting>,
) -> Option<CountedRead> {
    if keep != Keep::Document {
        return None;
    }
    let (layout, one_line) = scanned::scanned_layout(text, bom(text))?;
    let format = match format {
        Some(f) => f,
        None => detected(text, &layout, one_line)?,
    };
    read_layout(text, format, layout, keep, count).ok()
}

/// The format a document laid out as `layout` is, if its layout tells.
fn detected(text: &str, layout: &Layout, one_line: bool) -> Option<Format> {
    let facts = crate::formats::detect::LayoutFacts {
        root_array: layout.list == ListKey::Root,
        members: layout
            .members
            .iter()
            .map(|(k, r)| (k.as_str(), &text[r.clone()]))
            .collect(),
        list_key: match &layout.list {
            ListKey::Root => "",
            ListKey::Key(k) => k,
        },
        records: layout.records.iter().map(|r| &text[r.clone()]).collect(),
        one_line,
    };
    crate::formats::detect::detect_layout(&facts)
}

/// The members of a request body sent with every request besides its messages (tool
/// definitions, tool choice), one per line; `None` when there are none.
fn request_extra(layout: &Layout, text: &str) -> Option<String> {
    let extra: Vec<&str> = layout
        .members
        .iter()
        .filter(|(k, _)| REQUEST_EXTRA.contains(&k.as_str()))
        .map(|(_, r)| &text[r.clone()])
        .filter(|t| !matches!(t.trim(), "null" | "[]"))
        .collect();
    (!extra.is_empty()).then(|| extra.join("\n"))
}

fn bom(text: &str) -> usize {
    if text.starts_with('\u{feff}') {
        3
    } else {
        0
    }
}

/// The session `text` holds (laid out as `layout`), and when `count` is given each
/// message's count from it, taken on the thread that parsed the message.
fn read_layout(
    text: &mut String,
    format: Format,
    mut layout: Layout,
    keep: Keep,
    count: Option<Counting>,
) -> Result<CountedRead, ReadError> {
    let key = match &layout.list {
        ListKey::Root => String::new(),
        ListKey::Key(k) => k.clone(),
    };
    let mut notes = Notes::default();
    let skip = skippable(&layout, keep);
    let mut system = None;
    if format == Format::Anthropic && skip.is_none() {
        if let Some(span) = &layout.system {
            let v: Value = parse_span(text, span)?;
            system = system_message(&v, &mut notes)?;
        }
    }
    let request_extra = request_extra(&layout, text);
    let model = match &layout.model {
        Some(span) => parse_span::<Value>(text, span)?
            .as_str()
            .map(str::to_string),
        None => None,
    };
    let resume = matches!(keep, Keep::After(_))
        .then(|| resume_point(&layout))
        .flatten()
        .map(|(len, records)| Resume::of(text, len, records, head_end(&layout)));
    let first = skip.unwrap_or(0);
    let records = &layout.records[first..];
    let release = keep != Keep::Document;
    // Read before the text goes (released from the end, so the start stays till last).
    let style = match layout.style.take() {
        Some(style) => style,
        None => JsonStyle::of(text),
    };
    // Counts go to a slot per record, so that the parsed messages are the session's own
    // vector (no second copy of a large session's messages).
    let slots: Vec<AtomicUsize> = match count {
        Some(_) => (0..records.len()).map(|_| AtomicUsize::new(0)).collect(),
        None => Vec::new(),
    };
    let (mut messages, record_notes) =
        crate::formats::par::parse_spans(text, records, release, |text, k, notes| {
            let (span, i) = (&records[k], first + k);
            let mut m = parse_record(&text[span.clone()], &key, i, notes)?;
            if let Some(c) = count {
                // Places after the system prompt's (0), which is counted last.
                slots[k].store(c(k + 1, &mut m), Ordering::Relaxed);
            }
            Ok(Some(m))
        })?;
    notes.merge(record_notes);
    let mut counts: Option<Vec<usize>> = count.map(|_| Vec::with_capacity(slots.len() + 1));
    // The system prompt, parsed first, is message 0.
    if let Some(mut sys) = system {
        if let (Some(c), Some(counts)) = (count, &mut counts) {
            counts.push(c(0, &mut sys));
        }
        messages.insert(0, sys);
    }
    if let Some(counts) = &mut counts {
        counts.extend(slots.into_iter().map(AtomicUsize::into_inner));
    }
    let json = || {
        Document::Json(JsonDoc {
            list: layout.list,
            list_span: layout.list_span,
            style,
            records: layout.records,
            system_span: layout.system,
            text: std::mem::take(text),
        })
    };
    let doc = match keep {
        Keep::Document => json(),
        Keep::Layout => Document::Detached(Box::new(json())),
        Keep::Messages | Keep::After(_) => Document::Released,
    };
    let session = Session {
        format,
        doc,
        messages,
        model,
        warnings: notes.into_warnings(),
        reported_usage: None,
        agent_limits: Default::default(),
        request_extra,
        resume,
        skipped: skip.is_some(),
    };
    Ok((session, counts))
}

/// Record `i` of the message list under `key` (empty for a document that is the list).
pub(crate) fn parse_record(
    raw: &str,
    key: &str,
    i: usize,
    notes: &mut Notes,
) -> Result<Message, ReadError> {
    let origin = Origin::Record(i);
    if let Some(m) = fast::simple_message(raw, &origin) {
        return Ok(m);
    }
    let place = if key.is_empty() {
        format!("[{i}]")
    } else {
        format!("{key}[{i}]")
    };
    let v: Value = serde_json::from_str(raw).map_err(|e| ReadError::json(&e, 0))?;
    message::parse(v, &place, origin, notes)
}

/// Where the records of `layout` end: after the last one (or the list's `[`), unless
/// Anthropic's system prompt comes after them (an appended version could not be read from
/// there without reading it).
fn resume_point(layout: &Layout) -> Option<(usize, usize)> {
    let len = layout
        .records
        .last()
        .map_or(layout.list_span.start + 1, |r| r.end);
    if layout.system.as_ref().is_some_and(|s| s.end > len) {
        return None;
    }
    Some((len, layout.records.len()))
}

/// Where the records a format's detection looks at end (past the list's `[` when there are
/// none).
fn head_end(layout: &Layout) -> usize {
    let n = layout.records.len().min(crate::formats::sniff::MAX_ITEMS);
    n.checked_sub(1)
        .map_or(layout.list_span.start + 1, |i| layout.records[i].end)
}

/// How many records reading may skip for [`Keep::After`]: all those the point names, when
/// they still end within its bytes and nothing after them starts there (so they are the
/// records read before, in the same list, with the system prompt before them).
fn skippable(layout: &Layout, keep: Keep) -> Option<usize> {
    let Keep::After(Some(point)) = keep else {
        return None;
    };
    let records = &layout.records;
    let around = layout.list_span.start < point.len
        && layout.system.as_ref().is_none_or(|s| s.end <= point.len);
    keep.skippable(records.len(), |i| (records[i].start, records[i].end))
        .filter(|_| around)
}

/// Top-level members of a request body sent besides the messages.
const REQUEST_EXTRA: &[&str] = &["tools", "functions", "tool_choice", "function_call"];

/// Where things are in the document text.
#[derive(Debug, PartialEq)]
struct Layout {
    list: ListKey,
    list_span: Range<usize>,
    records: Vec<Range<usize>>,
    system: Option<Range<usize>>,
    model: Option<Range<usize>>,
    /// The top-level object's members in order (none when the document is the array).
    members: Vec<(String, Range<usize>)>,
    /// The document's style, when the scan that found the layout told it.
    style: Option<JsonStyle>,
}

fn layout(text: &str, start: usize) -> Result<Layout, ReadError> {
    let body = &text[start..];
    let first = body.trim_start().chars().next();
    let (list, list_raw, system, model, members) = match first {
        Some('[') => {
            let raw: &RawValue = serde_json::from_str(body).map_err(|e| ReadError::json(&e, 0))?;
            (ListKey::Root, raw, None, None, Vec::new())
        }
        Some('{') => {
            let entries: Entries =
                serde_json::from_str(body).map_err(|e| ReadError::json(&e, 0))?;
            let find = |k: &str| {
                entries
                    .0
                    .iter()
                    .rev()
                    .find(|(key, _)| key == k)
                    .map(|(_, v)| *v)
            };
            let (key, raw) =
                match (find("messages"), find("history")) {
                    (Some(r), _) => ("messages", r),
                    (None, Some(r)) => ("history", r),
                    (None, None) => return Err(ReadError::shape(
                        "top level",
                        "a list of messages, or an object with a \"messages\" or \"history\" list",
                    )),
                };
            let span = |r: Option<&RawValue>| r.map(|r| span_of(text, r.get()));
            (
                ListKey::Key(key.to_string()),
                raw,
                span(find("system")),
                span(find("model")),
                entries
                    .0
                    .iter()
                    .map(|(k, v)| (k.to_string(), span_of(text, v.get())))
                    .collect(),
            )
        }
        _ => return Err(ReadError::shape("top level", "a JSON array or object")),
    };
    let place = match &list {
        ListKey::Root => "top level".to_string(),
        ListKey::Key(k) => k.clone(),
    };
    if !list_raw.get().starts_with('[') {
        return Err(ReadError::shape(place, "a list of messages"));
    }
    // The list was validated by the pass above: its elements are found by a byte scan,
    // not a second serde pass over the whole list.
    let list_span = span_of(text, list_raw.get());
    let records = split::array_items(list_raw.get())
        .into_iter()
        .map(|r| list_span.start + r.start..list_span.start + r.end)
        .collect();
    Ok(Layout {
        list,
        list_span,
        records,
        system,
        model,
        members,
        style: None,
    })
}

/// The byte range of `part`, a slice borrowed from `text`.
fn span_of(text: &str, part: &str) -> Range<usize> {
    let start = part.as_ptr() as usize - text.as_ptr() as usize;
    start..start + part.len()
}

fn parse_span<'a, T: Deserialize<'a>>(text: &'a str, span: &Range<usize>) -> Result<T, ReadError> {
    // The whole document was validated already; a failure here can only be a shape error.
    serde_json::from_str(&text[span.clone()]).map_err(|e| ReadError::json(&e, 0))
}

/// A JSON object's members in document order, values left unparsed.
pub(super) struct Entries<'a>(pub Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Entries<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Entries<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Entries<'a>, M::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<Cow<'de, str>, &'de RawValue>()? {
                    out.push((k, v));
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
            .map_err(de::Error::custom)
    }
}

/// Anthropic's top-level `system`: a string or a list of text blocks.
fn system_message(v: &Value, notes: &mut Notes) -> Result<Option<Message>, ReadError> {
    match v {
        Value::Null => Ok(None),
        Value::String(_) | Value::Array(_) => {
            let parts = message::content_parts(Some(v), "system", notes)?;
            Ok(Some(Message::new(Role::System, parts, Origin::SystemField)))
        }
        _ => Err(ReadError::shape(
            "system",
            "a string or a list of text blocks",
        )),
    }
}

/// A JSON document codec: OpenAI Chat Completions or Anthropic Messages.
pub struct Chat {
    format: Format,
    name: &'static str,
    user_first: bool,
}

/// OpenAI Chat Completions messages: a JSON array, or an object holding it under
/// `messages` (or `history`, as SWE-agent trajectories do).
pub static OPENAI: Chat = Chat {
    format: Format::OpenAi,
    name: "openai",
    user_first: false,
};

/// An Anthropic Messages API request body (`system` + `messages`); the API wants the
/// conversation to open with a user turn.
pub static ANTHROPIC: Chat = Chat {
    format: Format::Anthropic,
    name: "anthropic",
    user_first: true,
};

impl Codec for Chat {
    fn format(&self) -> Format {
        self.format
    }

    fn name(&self) -> &'static str {
        self.name
    }

    fn is_lines(&self) -> bool {
        false
    }

    fn read(&self, text: String, keep: Keep) -> Result<Session, ReadError> {
        read_keeping(text, self.format, keep)
    }

    fn read_counting(&self, text: String, count: Counting) -> Result<CountedRead, ReadError> {
        read_counting(text, self.format, count)
    }

    fn writes_only_items(&self) -> bool {
        true
    }

    fn write(&self, session: &Session, items: &[Item]) -> Result<Vec<u8>, WriteError> {
        write::write(session, json_doc(session)?, items)
    }

    fn write_to(
        &self,
        session: &Session,
        items: &[Item],
        out: &mut dyn std::io::Write,
    ) -> Result<(), WriteError> {
        write::write_to(session, json_doc(session)?, items, out)
    }

    fn user_first(&self) -> bool {
        self.user_first
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anthropic_system_field_is_a_message() {
        let s = read(
            r#"{"model":"claude-3-opus","system":[{"type":"text","text":"be brief"}],"messages":[{"role":"user","content":"hi"}]}"#,
            Format::Anthropic,
        )
        .unwrap();
        assert_eq!(s.messages.len(), 2);
        assert_eq!(s.messages[0].origin, Origin::SystemField);
        assert_eq!(s.model.as_deref(), Some("claude-3-opus"));
    }

    #[test]
    fn numbers_beyond_f64_and_i64_keep_every_digit_on_rewrite() {
        let compact = r#"{"seed":123456789012345678901234567890,"t":1e999999,"messages":[{"role":"user","content":"hi","n":-0.100000000000000000000000000001e-400,"m":18446744073709551616}]}"#;
        let pretty = "[\n  {\n    \"role\": \"user\",\n    \"content\": \"hi\",\n    \"n\": 1.000000000000000000001,\n    \"i\": -9223372036854775809\n  }\n]\n";
        for (text, format) in [(compact, Format::OpenAi), (pretty, Format::OpenAi)] {
            let s = read(text, format).unwrap();
            let out = crate::formats::write(&s, &s.keep_all()).unwrap();
            // Kept records are copied verbatim: every digit, exponent and sign as written.
            assert_eq!(String::from_utf8(out).unwrap(), text);
        }
    }

    #[test]
    fn duplicate_keys_read_the_last_value_and_are_kept_verbatim() {
        let s = read(
            r#"[{"role":"user","content":"a","role":"assistant"}]"#,
            Format::OpenAi,
        )
        .unwrap();
        assert_eq!(s.messages[0].role, Role::Assistant);
        let out = crate::formats::write(&s, &s.keep_all()).unwrap();
        assert_eq!(
            out,
            br#"[{"role":"user","content":"a","role":"assistant"}]"#
        );
    }

    #[test]
    fn errors_name_the_message() {
        let e = read(
            r#"{"messages":[{"role":"user","content":"a"},{"content":"b"}]}"#,
            Format::OpenAi,
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("messages[1]:"), "{e}");
        let e = read("[1]", Format::OpenAi).unwrap_err();
        assert_eq!(e.to_string(), "[0]: expected a message object");
        let e = read("{\"messages\":[", Format::OpenAi).unwrap_err();
        assert!(matches!(e, ReadError::Json { line: 1, .. }), "{e}");
        let e = read("{\n \"messages\": {\"a\": 1}\n}", Format::OpenAi).unwrap_err();
        assert_eq!(e.to_string(), "messages: expected a list of messages");
    }

    #[test]
    fn spans_point_at_the_records() {
        let text = "\u{feff}{\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"a\"},\n    {\"role\": \"assistant\", \"content\": \"b\"}\n  ]\n}\n";
        let s = read(text, Format::OpenAi).unwrap();
        let Document::Json(doc) = &s.doc else {
            panic!()
        };
        assert_eq!(doc.raw(1), "{\"role\": \"assistant\", \"content\": \"b\"}");
        assert!(doc.text[doc.list_span.clone()].starts_with('['));
        assert_eq!(doc.record(0).unwrap()["content"], "a");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!(
            "[{{\"role\":\"user\",\"content\":{}1{}}}]",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        assert!(read(deep, Format::OpenAi).is_err());
    }
}
