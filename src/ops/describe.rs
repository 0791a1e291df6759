//! What a session file is at a glance, without reading it whole: its format (so its agent)
//! and its project, from its place and its first records. `sessions` lists these, and the
//! `--agent`/`--project` filters of every recursive run go by them.

use std::io::Read as _;
use std::path::Path;

use crate::formats;
use crate::session::Format;

/// Bytes read from the start of a file to tell its format and project.
const HEAD_BYTES: u64 = 32 << 10;

/// A session file's format and project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Described {
    /// `None` when the content could not be recognised (reading it says why).
    pub format: Option<Format>,
    pub project: Option<String>,
}

impl Described {
    /// The agent, as `--agent` names it (`unknown` when the format is).
    pub fn agent(&self) -> &'static str {
        self.format.map_or("unknown", |f| f.codec().agent())
    }
}

/// Describes the session file at `path` (for `--format`, `format` is taken as given).
pub fn describe(path: &Path, format: Option<Format>) -> Described {
    let head = head(path).unwrap_or_default();
    let whole = (head.len() as u64) < HEAD_BYTES;
    let text = String::from_utf8_lossy(&head);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    // The whole lines of the head (a cut last line is left out).
    let lines = match text.rfind('\n') {
        Some(end) if !whole => &text[..end],
        _ => text,
    };
    let (from_lines, records) = formats::detect_head(lines);
    let format = format
        .or(from_lines)
        .or_else(|| detect_whole(path, text, whole));
    let project = format.and_then(|f| f.codec().project(path, &records));
    Described { format, project }
}

/// The first [`HEAD_BYTES`] of `path`.
fn head(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    std::fs::File::open(path)?
        .take(HEAD_BYTES)
        .read_to_end(&mut out)?;
    Ok(out)
}

/// The format of a file that is not JSONL (a JSON document, or one record): from `text`
/// when it is the whole file, else from reading the whole file.
fn detect_whole(path: &Path, text: &str, whole: bool) -> Option<Format> {
    if whole {
        if text.trim().is_empty() {
            return None;
        }
        if let Ok(f) = formats::detect(text) {
            return Some(f);
        }
    }
    let bytes = if whole {
        text.as_bytes().to_vec()
    } else {
        std::fs::read(path).ok()?
    };
    formats::read_keeping(bytes, None, crate::session::Keep::Messages)
        .ok()
        .map(|s| s.format)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_projects_from_the_head() {
        let dir = tempfile::tempdir().unwrap();
        let goose = dir.path().join("g.jsonl");
        std::fs::write(
            &goose,
            "{\"working_dir\":\"/w/shop\",\"description\":\"d\",\"message_count\":1}\n\
             {\"id\":null,\"role\":\"user\",\"created\":1,\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}\n",
        )
        .unwrap();
        let d = describe(&goose, None);
        assert_eq!(d.format, Some(Format::Goose));
        assert_eq!(
            (d.agent(), d.project.as_deref()),
            ("goose", Some("/w/shop"))
        );

        // A large JSONL file: only its head is looked at.
        let codex = dir.path().join("rollout.jsonl");
        let meta = r#"{"timestamp":"t","type":"session_meta","payload":{"id":"x","cwd":"/w/app"}}"#;
        let msg = r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hello"}]}}"#;
        let mut text = format!("{meta}\n");
        while (text.len() as u64) < 2 * HEAD_BYTES {
            text.push_str(msg);
            text.push('\n');
        }
        std::fs::write(&codex, text).unwrap();
        let d = describe(&codex, None);
        assert_eq!(d.format, Some(Format::Codex));
        assert_eq!(d.project.as_deref(), Some("/w/app"));

        let chat = dir.path().join("c.json");
        std::fs::write(&chat, r#"{"messages":[{"role":"user","content":"hi"}]}"#).unwrap();
        assert_eq!(describe(&chat, None).format, Some(Format::OpenAi));
        let bad = dir.path().join("bad.json");
        std::fs::write(&bad, "not json").unwrap();
        assert_eq!(describe(&bad, None).agent(), "unknown");
    }
}
