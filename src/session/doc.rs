//! The document a session was read from, kept so that a rewrite changes only what it means to.

use std::ops::Range;

use serde_json::Value;

pub use crate::mapped::Text;

/// The container of a session's records.
#[derive(Debug, Clone)]
pub enum Document {
    /// A single JSON document (OpenAI / Anthropic request bodies, trajectories).
    Json(JsonDoc),
    /// A JSON Lines file; each record is one line, kept byte for byte.
    Lines(LinesDoc),
    /// The text was released while the records were read (read-only commands, see
    /// [`super::Keep::Messages`]): the session can be counted but not written back.
    Released,
    /// The text was released while the records were read, the layout kept (see
    /// [`super::Keep::Layout`]): the session is written once the same text is back
    /// ([`Document::reattach`]).
    Detached(Box<Document>),
}

impl Document {
    /// Puts back the text a [`Document::Detached`] document was read from (the caller
    /// makes sure it is the same text); any other document is left as it is.
    pub fn reattach(&mut self, text: String) {
        if let Document::Detached(inner) = self {
            let mut doc = std::mem::replace(&mut **inner, Document::Released);
            match &mut doc {
                Document::Json(d) => d.text = text,
                Document::Lines(d) => d.text = text.into(),
                Document::Released | Document::Detached(_) => {}
            }
            *self = doc;
        }
    }

    /// The whole text the session was read from, while the document holds it.
    pub fn text(&self) -> Option<&str> {
        match self {
            Document::Json(d) => Some(&d.text),
            Document::Lines(d) => Some(&d.text),
            Document::Released | Document::Detached(_) => None,
        }
    }

    pub fn is_detached(&self) -> bool {
        matches!(self, Document::Detached(_))
    }
}

/// Where the message list sits in a JSON document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListKey {
    /// The document is the array.
    Root,
    /// The array is under this top-level key (`messages`, `history`).
    Key(String),
}

/// How the original JSON document was laid out, so a rewrite looks like it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonStyle {
    /// `None` for compact output, else the indentation unit (e.g. two spaces, a tab).
    pub indent: Option<String>,
    pub trailing_newline: bool,
    pub bom: bool,
}

impl JsonStyle {
    /// Guesses the style of `text` (which may start with a BOM).
    pub fn of(text: &str) -> JsonStyle {
        let body = text.trim_start_matches('\u{feff}');
        let trimmed = body.trim_start();
        let first_break =
            memchr::memchr(b'\n', trimmed.as_bytes()).map(|i| text.len() - trimmed.len() + i);
        JsonStyle::with_break(text, first_break)
    }

    /// [`JsonStyle::of`] `text`, whose first line break after its first byte of content is
    /// at `first_break` (as a scan of the document found it): the text is not searched for
    /// it again (a one-line document would be searched to its end).
    pub fn with_break(text: &str, first_break: Option<usize>) -> JsonStyle {
        let bom = text.starts_with('\u{feff}');
        let trailing_newline = text.ends_with('\n');
        let indent = first_break.and_then(|b| {
            let rest = &text[b + 1..];
            let line = rest.lines().find(|l| !l.trim().is_empty())?;
            let ws: String = line
                .chars()
                .take_while(|c| *c == ' ' || *c == '\t')
                .collect();
            (!ws.is_empty()).then_some(ws)
        });
        JsonStyle {
            indent,
            trailing_newline,
            bom,
        }
    }
}

/// A JSON document kept as its text and the byte spans of its message records.
#[derive(Debug, Clone)]
pub struct JsonDoc {
    /// The whole file, BOM included.
    pub text: String,
    pub list: ListKey,
    /// The message array, `[` to `]`.
    pub list_span: Range<usize>,
    /// Each message record, in order.
    pub records: Vec<Range<usize>>,
    /// The value of Anthropic's top-level `system` member, if there is one.
    pub system_span: Option<Range<usize>>,
    pub style: JsonStyle,
}

impl JsonDoc {
    /// The text of record `i`, exactly as in the file.
    pub fn raw(&self, i: usize) -> &str {
        &self.text[self.records[i].clone()]
    }

    /// Record `i` parsed (records are parsed on demand, never all at once).
    pub fn record(&self, i: usize) -> Result<Value, serde_json::Error> {
        serde_json::from_str(self.raw(i))
    }
}

/// One line of a JSONL document, as byte offsets into [`LinesDoc::text`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineSpan {
    pub start: usize,
    /// End of the content, before the line terminator.
    pub end: usize,
    /// End including the terminator (`\n` or `\r\n`), equal to `end` on an unterminated
    /// last line.
    pub end_with_eol: usize,
}

#[derive(Debug, Clone)]
pub struct LinesDoc {
    /// The whole file, BOM included (mapped from a large file, see [`Text`]).
    pub text: Text,
    pub lines: Vec<LineSpan>,
    /// Line index of a truncated last line that could not be parsed, kept verbatim.
    pub truncated_tail: Option<usize>,
    /// What the format's reader parsed of `text` for its writer: a rewrite of a large
    /// file reuses it rather than parsing the text again beside the session.
    pub parsed: Parsed,
}

/// A format's own parse of a document's text, kept by its reader for its writer (see
/// [`LinesDoc::parsed`]); shared, so that threads working on the same session (the
/// archive's, the writer's) read one copy.
#[derive(Clone, Default)]
pub struct Parsed(Option<std::sync::Arc<dyn std::any::Any + Send + Sync>>);

impl Parsed {
    pub fn new<T: std::any::Any + Send + Sync>(value: T) -> Parsed {
        Parsed(Some(std::sync::Arc::new(value)))
    }

    /// The parse, if one of type `T` was kept.
    pub fn get<T: std::any::Any>(&self) -> Option<&T> {
        self.0.as_deref()?.downcast_ref()
    }
}

impl std::fmt::Debug for Parsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Parsed(kept)"
        } else {
            "Parsed(none)"
        })
    }
}

impl LinesDoc {
    pub fn new(text: impl Into<Text>) -> LinesDoc {
        let text = text.into();
        let bytes = text.as_bytes();
        // Sized once by the line breaks (a fast scan), not grown by doubling: a large
        // file's spans (24 bytes a line) left up to half their room spare.
        // A mapped text's pages are let go of as the scan goes by (see [`Text::passing`]).
        const SCAN: usize = 8 << 20;
        let breaks: usize = (bytes.chunks(SCAN).enumerate())
            .map(|(k, c)| {
                let n = memchr::memchr_iter(b'\n', c).count();
                text.let_go(k * SCAN..(k + 1) * SCAN);
                n
            })
            .sum();
        let mut lines = Vec::with_capacity(breaks + 1);
        let mut start = if text.starts_with('\u{feff}') { 3 } else { 0 };
        while start < bytes.len() {
            text.passing(start);
            let (end, next) = match memchr::memchr(b'\n', &bytes[start..]) {
                Some(off) => {
                    let nl = start + off;
                    let end = if nl > start && bytes[nl - 1] == b'\r' {
                        nl - 1
                    } else {
                        nl
                    };
                    (end, nl + 1)
                }
                None => (bytes.len(), bytes.len()),
            };
            lines.push(LineSpan {
                start,
                end,
                end_with_eol: next,
            });
            start = next;
        }
        LinesDoc {
            text,
            lines,
            truncated_tail: None,
            parsed: Parsed::default(),
        }
    }

    /// The content of line `i`, without its terminator.
    pub fn line(&self, i: usize) -> &str {
        let s = self.lines[i];
        self.text.passing(s.start);
        &self.text[s.start..s.end]
    }

    /// The line terminator used by the file (`\r\n` if its first line has one).
    pub fn eol(&self) -> &'static str {
        match self.lines.first() {
            Some(s) if self.text[s.end..s.end_with_eol].starts_with('\r') => "\r\n",
            _ => "\n",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_terminators() {
        let doc = LinesDoc::new("a\r\nb\n\nc".to_string());
        assert_eq!(doc.lines.len(), 4);
        assert_eq!(doc.line(0), "a");
        assert_eq!(doc.line(1), "b");
        assert_eq!(doc.line(2), "");
        assert_eq!(doc.line(3), "c");
        assert_eq!(doc.lines[3].end, doc.lines[3].end_with_eol);
        assert_eq!(doc.eol(), "\r\n");
        assert_eq!(doc.lines.capacity(), 4, "sized by the line breaks, once");
        let doc = LinesDoc::new("a\nb\n".to_string());
        assert_eq!((doc.lines.len(), doc.lines.capacity()), (2, 3));
    }

    #[test]
    fn bom_is_not_part_of_the_first_line() {
        let doc = LinesDoc::new("\u{feff}{}\n".to_string());
        assert_eq!(doc.line(0), "{}");
    }

    #[test]
    fn style_detects_indent() {
        assert_eq!(
            JsonStyle::of("{\n  \"a\": 1\n}\n").indent.as_deref(),
            Some("  ")
        );
        assert_eq!(JsonStyle::of("{\"a\":1}").indent, None);
        assert!(!JsonStyle::of("{\"a\":1}").trailing_newline);
    }
}
