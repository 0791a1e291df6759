//! A large Claude Code transcript mapped from its file for a rewrite, rather than read
//! into memory (see [`crate::mapped`]): its text is passed over several times, in order,
//! and its pages are let go of behind each pass, so the rewrite no longer holds the whole
//! file beside its own figures.
//!
//! Only a file that the whole read would take as a Claude Code transcript is mapped: one
//! whose first line is a whole JSON object followed by more lines (never a JSON document,
//! which the chat formats' reader would take first) and that the format's detection (or
//! `--format`) names Claude Code. Anything else is read as before.

use std::path::Path;

use serde_json::value::RawValue;

use crate::mapped::Text;
use crate::session::Format;

/// Files from this size on are mapped; below it, the text is small beside the tokenizer.
pub const MAP_BYTES: u64 = 32 << 20;

/// The text of the Claude Code transcript at `path`, mapped when it is `map_from` bytes or
/// more, and the xxh3-128 hash of its bytes; `None` when it is not one to map (see the
/// module's documentation).
pub fn transcript(path: &Path, format: Option<Format>, map_from: u64) -> Option<(Text, u128)> {
    if path == Path::new("-") || !matches!(format, None | Some(Format::ClaudeCode)) {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() < map_from.max(1) {
        return None;
    }
    let (text, hash) = Text::map(&file, usize::try_from(meta.len()).ok()?)?;
    // A mapping is read-only: a transcript whose lone surrogates must be read as U+FFFD
    // (`crate::formats::surrogates`) is read into memory, where they are mended.
    (is_transcript(&text, format) && !has_lone(&text)).then_some((text, hash))
}

/// Whether mapped `text` holds a lone surrogate escape, looked for a stretch at a time and
/// its pages let go of behind the search. Each stretch starts [`OVERLAP`] bytes before the
/// last one ended, so an escape across the edge is seen whole with the backslashes before
/// it; one taken for lone at an edge (half of a pair cut there) only reads the file whole.
fn has_lone(text: &Text) -> bool {
    const STRETCH: usize = 8 << 20;
    const OVERLAP: usize = 64;
    let b = text.as_bytes();
    let mut at = 0;
    while at < b.len() {
        let from = at.saturating_sub(OVERLAP);
        let end = (at + STRETCH).min(b.len());
        if crate::formats::surrogates::has_lone(&b[from..end]) {
            return true;
        }
        text.let_go(from..end);
        at = end;
    }
    false
}

/// Whether the whole read takes `text` as a Claude Code transcript, from its first lines.
fn is_transcript(text: &str, format: Option<Format>) -> bool {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text).trim_start();
    if !body.starts_with('{') {
        return false;
    }
    let Some(first_end) = body.find('\n') else {
        return false;
    };
    let first = body[..first_end]
        .strip_suffix('\r')
        .unwrap_or(&body[..first_end]);
    if serde_json::from_str::<&RawValue>(first).is_err() {
        return false;
    }
    // More than one line: a JSON document is one value, so the chat formats' reader, which
    // the whole read tries first, turns down this text.
    if body[first_end..].trim_start().is_empty() {
        return false;
    }
    match format {
        Some(f) => f == Format::ClaudeCode,
        None => crate::formats::detect(body).ok() == Some(Format::ClaudeCode),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_transcript_of_several_lines_is_taken() {
        let line = r#"{"type":"user","sessionId":"s","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}"#;
        let two = format!("{line}\n{}\n", line.replace("u1", "u2"));
        assert!(is_transcript(&two, None));
        assert!(is_transcript(&format!("\u{feff}{two}"), None));
        assert!(is_transcript(
            &two.replace('\n', "\r\n"),
            Some(Format::ClaudeCode)
        ));
        assert!(!is_transcript(&two, Some(Format::Jsonl)));
        assert!(
            !is_transcript(&format!("{line}\n\n  \n"), None),
            "one record"
        );
        assert!(
            !is_transcript("{\n  \"messages\": []\n}\n", None),
            "a document"
        );
        assert!(!is_transcript("[{\"role\":\"user\"}]\n[]\n", None));
        let chat =
            "{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"assistant\",\"content\":\"b\"}\n";
        assert!(!is_transcript(chat, None), "another JSONL format");
    }

    #[test]
    fn a_small_file_or_stdin_is_not_mapped() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        let line = r#"{"type":"user","sessionId":"s","uuid":"u1","parentUuid":null}"#;
        std::fs::write(&p, format!("{line}\n{line}\n")).unwrap();
        assert!(transcript(&p, None, MAP_BYTES).is_none());
        assert!(transcript(Path::new("-"), None, 0).is_none());
        let (text, hash) = transcript(&p, None, 0).expect("mapped from 0 bytes");
        assert_eq!(&*text, std::fs::read_to_string(&p).unwrap());
        assert_eq!(hash, xxhash_rust::xxh3::xxh3_128(text.as_bytes()));
    }

    #[test]
    fn a_transcript_with_a_lone_surrogate_is_read_not_mapped() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        let line = r#"{"type":"user","sessionId":"s","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"a \ud83d\ude00 b"}}"#;
        std::fs::write(&p, format!("{line}\n{line}\n")).unwrap();
        assert!(transcript(&p, None, 0).is_some(), "a pair is mapped");
        // Far into the file, past a stretch's edge: still seen.
        let pad = "x".repeat((8 << 20) - 40);
        let far = line.replace("a \\ud83d\\ude00 b", &format!("{pad}\\udc00"));
        std::fs::write(&p, format!("{line}\n{far}\n")).unwrap();
        assert!(transcript(&p, None, 0).is_none());
    }
}
