//! A large agent transcript (a Claude Code transcript, a Codex rollout) mapped from its
//! file for a rewrite, rather than read into memory (see [`crate::mapped`]): its text is
//! passed over several times, in order, and its pages are let go of behind each pass, so
//! the rewrite no longer holds the whole file beside its own figures.
//!
//! Only a file that the whole read would take as one of those [`MAPPED`] formats is
//! mapped: one whose first line is a whole JSON object followed by more lines (never a
//! JSON document, which the chat formats' reader would take first) and that the format's
//! detection (or `--format`) names as such. Anything else is read as before. Both agents
//! only append to their files, which leaves the mapped bytes as they were (see
//! [`crate::mapped`] for a file changed otherwise).

use std::path::Path;

use serde_json::value::RawValue;

use crate::formats::{CountedRead, Counting};
use crate::mapped::Text;
use crate::session::{Format, ReadError};

/// Files from this size on are mapped; below it, the text is small beside the tokenizer.
pub const MAP_BYTES: u64 = 32 << 20;

/// The formats whose large files are mapped: their readers and writers go over the text
/// through its lines ([`crate::session::LinesDoc`]), in order.
pub const MAPPED: [Format; 2] = [Format::ClaudeCode, Format::Codex];

/// A transcript mapped from its file: its text, the xxh3-128 hash of its bytes, and its
/// format.
pub struct Mapped {
    pub text: Text,
    pub hash: u128,
    pub format: Format,
}

impl Mapped {
    /// The transcript read by its format's counting read ([`crate::formats::Codec::read_counting`]).
    pub fn read_counting(self, count: Counting) -> Result<CountedRead, ReadError> {
        match self.format {
            Format::Codex => crate::formats::codex::read_counting_text(self.text, count),
            // The only other format mapped (`MAPPED`).
            _ => crate::formats::claude_code::read_counting_text(self.text, count),
        }
    }
}

/// The text of the agent transcript at `path` (one of the [`MAPPED`] formats), mapped when
/// it is `map_from` bytes or more; `None` when it is not one to map (see the module's
/// documentation).
pub fn transcript(path: &Path, format: Option<Format>, map_from: u64) -> Option<Mapped> {
    if path == Path::new("-") || format.is_some_and(|f| !MAPPED.contains(&f)) {
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
    let format = format_of(&text, format)?;
    (!has_lone(&text)).then_some(Mapped { text, hash, format })
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

/// The format the whole read takes `text` as, from its first lines, when it is one of the
/// [`MAPPED`] ones.
fn format_of(text: &str, format: Option<Format>) -> Option<Format> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text).trim_start();
    if !body.starts_with('{') {
        return None;
    }
    let first_end = body.find('\n')?;
    let first = body[..first_end]
        .strip_suffix('\r')
        .unwrap_or(&body[..first_end]);
    serde_json::from_str::<&RawValue>(first).ok()?;
    // More than one line: a JSON document is one value, so the chat formats' reader, which
    // the whole read tries first, turns down this text.
    if body[first_end..].trim_start().is_empty() {
        return None;
    }
    let format = match format {
        Some(f) => f,
        None => crate::formats::detect(body).ok()?,
    };
    MAPPED.contains(&format).then_some(format)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_transcript_of_several_lines_is_taken() {
        let cc = Some(Format::ClaudeCode);
        let line = r#"{"type":"user","sessionId":"s","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}"#;
        let two = format!("{line}\n{}\n", line.replace("u1", "u2"));
        assert_eq!(format_of(&two, None), cc);
        assert_eq!(format_of(&format!("\u{feff}{two}"), None), cc);
        assert_eq!(format_of(&two.replace('\n', "\r\n"), cc), cc);
        assert_eq!(format_of(&two, Some(Format::Jsonl)), None);
        assert_eq!(
            format_of(&format!("{line}\n\n  \n"), None),
            None,
            "one record"
        );
        assert_eq!(
            format_of("{\n  \"messages\": []\n}\n", None),
            None,
            "a document"
        );
        assert_eq!(format_of("[{\"role\":\"user\"}]\n[]\n", None), None);
        let chat =
            "{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"assistant\",\"content\":\"b\"}\n";
        assert_eq!(format_of(chat, None), None, "another JSONL format");
    }

    #[test]
    fn a_codex_rollout_is_taken_as_one() {
        let codex = Some(Format::Codex);
        let rollout = concat!(
            "{\"timestamp\":\"t\",\"type\":\"session_meta\",\"payload\":{\"id\":\"s\",\"instructions\":\"sys\"}}\n",
            "{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"a\"}]}}\n",
        );
        assert_eq!(format_of(rollout, None), codex);
        assert_eq!(format_of(rollout, codex), codex);
        assert_eq!(format_of(rollout, Some(Format::Jsonl)), None);
    }

    #[test]
    fn a_small_file_or_stdin_is_not_mapped() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        let line = r#"{"type":"user","sessionId":"s","uuid":"u1","parentUuid":null}"#;
        std::fs::write(&p, format!("{line}\n{line}\n")).unwrap();
        assert!(transcript(&p, None, MAP_BYTES).is_none());
        assert!(transcript(Path::new("-"), None, 0).is_none());
        assert!(transcript(&p, Some(Format::Jsonl), 0).is_none());
        // The format given is the one read, as the whole read takes it.
        let as_codex = transcript(&p, Some(Format::Codex), 0).map(|m| m.format);
        assert_eq!(as_codex, Some(Format::Codex));
        let m = transcript(&p, None, 0).expect("mapped from 0 bytes");
        assert_eq!(&*m.text, std::fs::read_to_string(&p).unwrap());
        assert_eq!(m.hash, xxhash_rust::xxh3::xxh3_128(m.text.as_bytes()));
        assert_eq!(m.format, Format::ClaudeCode);
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
