//! A document's layout found by the structural scan ([`Scanner`]) instead of a serde pass
//! over the whole document: the message list's elements are found at memchr speed, and
//! serde reads only what is around the list (the document with the list emptied). The
//! elements are not validated here: the reader parses every one of them anyway, and a
//! document it then fails on is read again with the full pass, whose errors name the
//! document's line and column (see [`super::read_document`]). On a 44 MB session the full
//! pass took ~30 ms, all of it before the parallel parse could start.

use std::ops::Range;

use crate::formats::stream::{Event, Scanner};
use crate::session::{JsonStyle, ListKey};

use super::{layout, Layout};

/// The layout of `text` (its content starting at `start`, past a BOM), as [`layout`] would
/// give it for a valid document, with the document's style, and whether its content is one
/// line (what the scan saw on the way, which spares a one-line document two more passes
/// over all of it); `None` when the scan cannot tell it so (the punctuation of the list is
/// wrong, there is no list, or the list the scan found is not the one the document's
/// members name): the caller takes the full pass.
pub(super) fn scanned_layout(text: &str, start: usize) -> Option<(Layout, bool)> {
    let mut scanner = Scanner::new();
    let mut events = Vec::new();
    scanner.feed(text.as_bytes(), &mut events);
    if scanner.is_invalid() {
        return None;
    }
    let (mut list_at, mut list_end, mut key) = (None, None, None);
    let mut records = Vec::with_capacity(events.len().saturating_sub(2));
    for e in events {
        match e {
            Event::ListStart { at, key: k } => {
                list_at = Some(at);
                key = k;
            }
            Event::Record(r) => records.push(r),
            Event::ListEnd { at } => list_end = Some(at),
        }
    }
    let (list_at, list_end) = (list_at?, list_end?);
    // The document with its list emptied: what serde checks and reads the members of.
    let mut outline = String::with_capacity(text.len() - (list_end - list_at) + 1);
    outline.push_str(&text[..list_at]);
    outline.push_str("[]");
    outline.push_str(&text[list_end + 1..]);
    let mut l = layout(&outline, start).ok()?;
    let same_list = match (&l.list, key) {
        (ListKey::Root, None) => true,
        (ListKey::Key(k), Some(name)) => k == name.key(),
        _ => false,
    };
    let emptied = list_at..list_at + 2;
    if !same_list || l.list_span != emptied || !l.records.is_empty() {
        return None;
    }
    let list_span = list_at..list_end + 1;
    // Spans in the outline, back in the document: those after the list move by its length.
    let shift = list_span.len() - emptied.len();
    let back = |r: Range<usize>| -> Range<usize> {
        if r == emptied {
            list_span.clone()
        } else if r.start >= emptied.end {
            r.start + shift..r.end + shift
        } else {
            r
        }
    };
    l.system = l.system.map(back);
    l.model = l.model.map(back);
    for (_, span) in &mut l.members {
        *span = back(span.clone());
    }
    l.list_span = list_span;
    l.records = records;
    l.style = Some(JsonStyle::with_break(text, scanner.first_break()));
    Some((l, scanner.is_one_line()))
}

#[cfg(test)]
mod tests {
    use super::super::bom;
    use super::*;

    /// The shared fixtures: above the checkout, or above the checkout it was cloned from
    /// (as `tests/support` finds them for the integration tests).
    fn fixtures() -> std::path::PathBuf {
        let above = |dir: &std::path::Path| {
            dir.ancestors()
                .map(|a| a.join("shared/fixtures"))
                .find(|p| p.is_dir())
        };
        let crate_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let origin = || {
            let out = std::process::Command::new("git")
                .args([
                    "-C",
                    env!("CARGO_MANIFEST_DIR"),
                    "remote",
                    "get-url",
                    "origin",
                ])
                .output()
                .ok()?;
            let url = String::from_utf8(out.stdout).ok()?;
            above(std::path::Path::new(
                url.trim().trim_start_matches("file://"),
            ))
        };
        above(crate_dir)
            .or_else(origin)
            .expect("shared/fixtures beside the checkout or its origin")
    }

    /// The scanned layout (its style and one-line flag checked against the full ways of
    /// telling them, then set aside), and the full pass's.
    fn both(text: &str) -> (Option<Layout>, Option<Layout>) {
        let start = bom(text);
        let scanned = scanned_layout(text, start).map(|(mut l, one_line)| {
            assert_eq!(l.style.take(), Some(JsonStyle::of(text)), "{text}");
            let body = text[start..].trim_start();
            assert_eq!(one_line, body.trim_end().lines().nth(1).is_none(), "{text}");
            l
        });
        (scanned, layout(text, start).ok())
    }

    #[test]
    fn the_scan_finds_the_layout_the_full_pass_finds() {
        let docs = [
            r#"[{"role":"user","content":"hi"},{"role":"assistant","content":"a \"quoted\" ] } , [ {"}]"#,
            "[\n  {\"role\": \"user\", \"content\": \"x\"} ,\n  {\"role\": \"assistant\", \"content\": [\"a\", {\"b\": [1, 2]}]}\n]\n",
            "\u{feff}{\"model\": \"gpt-4o\", \"messages\": [{\"role\": \"user\", \"content\": \"\\\\\"}], \"tools\": [{\"x\": 1}]}",
            r#"{"system": "be brief", "messages": [], "model": "claude-sonnet-4-5", "max_tokens": 10}"#,
            r#"{"messages": [{"role":"user","content":"s"}], "system": [{"type":"text","text":"after"}], "model": "m"}"#,
            "{\n  \"history\": [\n    {\"role\": \"user\", \"content\": \"messages\"}\n  ],\n  \"info\": {\"messages\": 3}\n}",
            r#"{"messages": [{"role":"user","content":"é ✓ 🙂"}], "model": "x"}   "#,
            // Styles: tabs, CRLF, blank lines before and inside, a trailing newline.
            "{\n\t\"messages\": [\n\t\t{\"role\": \"user\", \"content\": \"t\"}\n\t]\n}\n",
            "\r\n\r\n{\r\n\r\n    \"messages\": [{\"role\": \"user\", \"content\": \"c\"}]\r\n}",
            "[{\"role\": \"user\", \"content\": \"one line\"}]\n",
        ];
        for d in docs {
            let (scanned, full) = both(d);
            assert!(full.is_some(), "{d}");
            assert_eq!(scanned, full, "{d}");
        }
        // Every JSON document among the real sessions (the shared fixtures, found as the
        // integration tests find them: beside the checkout, or beside the one it was cloned
        // from).
        let mut compared = 0;
        let mut dirs = vec![fixtures()];
        while let Some(dir) = dirs.pop() {
            for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = e.path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                let Ok(text) = std::fs::read_to_string(&path) else {
                    continue;
                };
                let (scanned, full) = both(&text);
                if let Some(s) = scanned {
                    assert_eq!(Some(s), full, "{}", path.display());
                    compared += 1;
                }
            }
        }
        assert!(compared >= 5, "only {compared} fixture documents compared");
    }

    #[test]
    fn what_the_scan_cannot_tell_is_left_to_the_full_pass() {
        let docs = [
            // Two lists of messages: the full pass takes the last.
            r#"{"messages": [{"role":"user","content":"a"}], "messages": [{"role":"user","content":"b"}]}"#,
            // "history" before "messages": the full pass prefers "messages".
            r#"{"history": [{"role":"user","content":"a"}], "messages": [{"role":"user","content":"b"}]}"#,
            // Broken punctuation in the list, around it, or after the document.
            r#"[{"role":"user","content":"a"},]"#,
            r#"{"messages": [{"role":"user","content":"a"}] "model": "x"}"#,
            r#"{"messages": [{"role":"user","content":"a"}]} trailing"#,
            r#"{"model": "x"}"#,
        ];
        for d in docs {
            assert!(scanned_layout(d, 0).is_none(), "{d}");
        }
    }
}
