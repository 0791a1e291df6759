//! Writing a JSON document back: the text around the message list, every kept record and
//! every archived record put back (`archive restore`) are copied byte for byte; only new or
//! edited records are serialized, in the document's own indentation.

use std::borrow::Cow;
use std::io::Write;
use std::ops::Range;

use serde::Serialize;
use serde_json::Value;

use crate::formats::edit::{apply_edits, new_record};
use crate::session::{Format, JsonDoc, Origin, Session};
use crate::session::{Item, Record, WriteError};

pub fn write(session: &Session, doc: &JsonDoc, items: &[Item]) -> Result<Vec<u8>, WriteError> {
    let mut out = Vec::new();
    write_to(session, doc, items, &mut out)?;
    Ok(out)
}

/// [`write`] into `out`, piece by piece: a large output is never held whole when `out` is a
/// file or a pipe.
pub fn write_to(
    session: &Session,
    doc: &JsonDoc,
    items: &[Item],
    out: &mut dyn Write,
) -> Result<(), WriteError> {
    let indent = element_indent(doc);
    let render = |v: &Value| -> Result<String, WriteError> {
        Ok(match &doc.style.indent {
            Some(unit) => {
                let mut buf = Vec::new();
                let fmt = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
                v.serialize(&mut serde_json::Serializer::with_formatter(&mut buf, fmt))?;
                String::from_utf8_lossy(&buf).replace('\n', &format!("\n{indent}"))
            }
            None => serde_json::to_string(v)?,
        })
    };
    let mut keep_system = false;
    let mut pieces: Vec<Cow<str>> = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Item::Keep(i) => match &session.messages[*i].origin {
                Origin::SystemField => keep_system = true,
                origin => {
                    pieces.extend(origin.records().iter().map(|&r| Cow::Borrowed(doc.raw(r))))
                }
            },
            Item::Edit { index, edits } => {
                for &r in session.messages[*index].origin.records() {
                    let mut v = doc.record(r)?;
                    apply_edits(&mut v, *index, edits)?;
                    pieces.push(Cow::Owned(render(&v)?));
                }
            }
            Item::Insert(m) => pieces.push(Cow::Owned(render(&new_record(m))?)),
            // An archived record goes back as its original text, indentation and all.
            Item::InsertRecord(Record::Verbatim(raw)) => pieces.push(Cow::Borrowed(raw.get())),
            Item::InsertRecord(r @ (Record::Parsed(_) | Record::Line(_))) => {
                pieces.push(Cow::Owned(render(&*r.value()?)?))
            }
        }
    }
    // The list is written straight into the output (not built apart and copied in): a
    // trim of a large session keeps most of it.
    let list = List::new(doc, &indent, &pieces);
    let mut cuts: Vec<(Range<usize>, Option<String>)> = vec![(doc.list_span.clone(), None)];
    if session.format == Format::Anthropic && !keep_system {
        if let Some(span) = &doc.system_span {
            cuts.push((member_range(&doc.text, span.clone()), Some(String::new())));
        }
    }
    cuts.sort_by_key(|(r, _)| r.start);
    let mut at = 0;
    for (range, replacement) in cuts {
        out.write_all(&doc.text.as_bytes()[at..range.start])?;
        match replacement {
            Some(text) => out.write_all(text.as_bytes())?,
            None => list.write(out)?,
        }
        at = range.end;
    }
    out.write_all(&doc.text.as_bytes()[at..])?;
    Ok(())
}

/// The new message array, punctuated like the original one.
struct List<'a> {
    open: String,
    sep: String,
    close: String,
    pieces: &'a [Cow<'a, str>],
}

impl<'a> List<'a> {
    fn new(doc: &JsonDoc, indent: &str, pieces: &'a [Cow<'a, str>]) -> List<'a> {
        let text = &doc.text;
        let recs = &doc.records;
        let pretty = doc.style.indent.is_some();
        let (open, sep, close) = match (recs.first(), recs.last()) {
            _ if pieces.is_empty() => ("[".to_string(), String::new(), "]".to_string()),
            (Some(first), Some(last)) => {
                let open = text[doc.list_span.start..first.start].to_string();
                let close = text[last.end..doc.list_span.end].to_string();
                let sep = match recs.get(1) {
                    Some(second) => text[first.end..second.start].to_string(),
                    None if open.contains('\n') => format!(",\n{indent}"),
                    None => ",".to_string(),
                };
                (open, sep, close)
            }
            _ if pretty => {
                let base = line_indent(text, doc.list_span.start);
                (
                    format!("[\n{indent}"),
                    format!(",\n{indent}"),
                    format!("\n{base}]"),
                )
            }
            _ => ("[".to_string(), ",".to_string(), "]".to_string()),
        };
        List {
            open,
            sep,
            close,
            pieces,
        }
    }

    fn write(&self, out: &mut dyn Write) -> std::io::Result<()> {
        out.write_all(self.open.as_bytes())?;
        for (i, p) in self.pieces.iter().enumerate() {
            if i > 0 {
                out.write_all(self.sep.as_bytes())?;
            }
            out.write_all(p.as_bytes())?;
        }
        out.write_all(self.close.as_bytes())
    }
}

/// The indentation of the list's elements.
fn element_indent(doc: &JsonDoc) -> String {
    if let Some(first) = doc.records.first() {
        let open = &doc.text[doc.list_span.start..first.start];
        if let Some(nl) = open.rfind('\n') {
            return open[nl + 1..].to_string();
        }
        return String::new();
    }
    match &doc.style.indent {
        Some(unit) => format!("{}{unit}", line_indent(&doc.text, doc.list_span.start)),
        None => String::new(),
    }
}

/// The leading whitespace of the line holding byte `at`.
fn line_indent(text: &str, at: usize) -> String {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

/// The text to remove to drop an object member whose value is `value`: the key, the
/// value, and one adjoining comma, leaving the rest of the layout as it was.
fn member_range(text: &str, value: Range<usize>) -> Range<usize> {
    let bytes = text.as_bytes();
    let mut k = value.start;
    // Back over `"key"\s*:\s*`.
    while k > 0 && bytes[k - 1].is_ascii_whitespace() {
        k -= 1;
    }
    if k > 0 && bytes[k - 1] == b':' {
        k -= 1;
    }
    while k > 0 && bytes[k - 1].is_ascii_whitespace() {
        k -= 1;
    }
    if k > 0 && bytes[k - 1] == b'"' {
        k -= 1;
        while k > 0 && !(bytes[k - 1] == b'"' && (k < 2 || bytes[k - 2] != b'\\')) {
            k -= 1;
        }
        k = k.saturating_sub(1);
    }
    let key_start = k;
    let mut e = value.end;
    while e < bytes.len() && bytes[e].is_ascii_whitespace() {
        e += 1;
    }
    if e < bytes.len() && bytes[e] == b',' {
        e += 1;
        while e < bytes.len() && bytes[e].is_ascii_whitespace() {
            e += 1;
        }
        return key_start..e;
    }
    // The last member: take the comma before it instead.
    let mut b = key_start;
    while b > 0 && bytes[b - 1].is_ascii_whitespace() {
        b -= 1;
    }
    if b > 0 && bytes[b - 1] == b',' {
        return b - 1..value.end;
    }
    key_start..value.end
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{read, write};
    use crate::session::{NewMessage, Role};

    fn rewrite(text: &str, items: impl Fn(&Session) -> Vec<Item>) -> String {
        let s = read(text.as_bytes(), None).unwrap();
        String::from_utf8(write(&s, &items(&s)).unwrap()).unwrap()
    }

    #[test]
    fn keep_all_is_byte_identical() {
        for text in [
            "[{\"role\":\"user\",\"content\":\"caf\\u00e9 1.50\"}]",
            "{\n    \"model\": \"gpt-4o\",\n    \"messages\": [\n        {\"role\": \"user\", \"content\": \"x\"}\n    ],\n    \"n\": 1e400\n}\n",
            "\u{feff}{\"system\":\"s\",\"max_tokens\":5,\"messages\":[]}",
        ] {
            assert_eq!(rewrite(text, Session::keep_all), text);
        }
    }

    #[test]
    fn dropping_and_inserting_keep_the_layout() {
        let text = "{\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"a\"},\n    {\"role\": \"assistant\", \"content\": \"b\"},\n    {\"role\": \"user\", \"content\": \"c\"}\n  ],\n  \"model\": \"gpt-4o\"\n}\n";
        let out = rewrite(text, |_| {
            vec![
                Item::Insert(NewMessage {
                    role: Role::User,
                    text: "[1 message omitted]".into(),
                    meta: Default::default(),
                }),
                Item::Keep(2),
            ]
        });
        assert_eq!(
            out,
            "{\n  \"messages\": [\n    {\n      \"role\": \"user\",\n      \"content\": \"[1 message omitted]\"\n    },\n    {\"role\": \"user\", \"content\": \"c\"}\n  ],\n  \"model\": \"gpt-4o\"\n}\n"
        );
        assert_eq!(
            rewrite(text, |_| vec![]),
            "{\n  \"messages\": [],\n  \"model\": \"gpt-4o\"\n}\n"
        );
    }

    #[test]
    fn dropping_anthropic_system_removes_the_member() {
        let first = "{\"system\": \"s\", \"messages\": [{\"role\":\"user\",\"content\":\"a\"}]}";
        assert_eq!(
            rewrite(first, |_| vec![Item::Keep(1)]),
            "{\"messages\": [{\"role\":\"user\",\"content\":\"a\"}]}"
        );
        let last = "{\"messages\": [{\"role\":\"user\",\"content\":\"a\"}],\n \"system\": [{\"type\":\"text\",\"text\":\"s\"}]\n}";
        assert_eq!(
            rewrite(last, |_| vec![Item::Keep(1)]),
            "{\"messages\": [{\"role\":\"user\",\"content\":\"a\"}]\n}"
        );
    }

    #[test]
    fn big_numbers_survive_edits() {
        let text = "[{\"role\":\"tool\",\"tool_call_id\":\"c\",\"content\":\"x\",\"n\":123456789012345678901234567890}]";
        let out = rewrite(text, |_| {
            vec![Item::Edit {
                index: 0,
                edits: vec![crate::session::PartEdit::ResultText {
                    call_id: "c".into(),
                    text: "y".into(),
                }],
            }]
        });
        assert!(out.contains("123456789012345678901234567890"), "{out}");
        assert!(out.contains("\"content\":\"y\""), "{out}");
    }
}
