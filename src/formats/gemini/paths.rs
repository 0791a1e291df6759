//! Which files below Gemini CLI's data directory (`~/.gemini/tmp`) are sessions.
//!
//! Per project (`tmp/<project>/`) Gemini CLI keeps its sessions in `chats/`
//! (`session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl`; subagents in `chats/<parent id>/<id>.jsonl`),
//! and beside them a prompt log (`logs.json`), `/chat save` checkpoints
//! (`checkpoint-<tag>.json`) and file-edit checkpoints (`checkpoints/`). A resume that
//! starts in a new minute leaves a stub session file holding only the session context:
//! Gemini CLI does not list it, and neither is it a session here.

use std::path::{Path, PathBuf};

use crate::formats::Found;

/// Stub files are a few hundred bytes; larger files are not read to be classified.
const STUB_MAX: u64 = 64 * 1024;

/// What `path` is, when it lies below a `.gemini/tmp` directory; `None` otherwise.
pub fn classify(path: &Path) -> Option<Found> {
    let names: Vec<&str> = path
        .components()
        .filter_map(|c| c.as_os_str().to_str())
        .collect();
    let tmp = names.windows(2).rposition(|w| w == [".gemini", "tmp"])? + 1;
    let below = &names[tmp + 1..];
    let name = *below.last()?;
    match below {
        [_, "logs.json"] => return Some(Found::Other("Gemini CLI's prompt log, not a session")),
        [_, n] if n.starts_with("checkpoint-") => {
            return Some(Found::Other(
                "a Gemini CLI /chat save checkpoint, not a session",
            ))
        }
        [_, "checkpoints", ..] => {
            return Some(Found::Other(
                "Gemini CLI's file-edit checkpoints, not a session",
            ))
        }
        [_, "chats", parent, _] => {
            if let Some(p) = parent_session(path, parent) {
                return Some(Found::Subagent { parent: p });
            }
        }
        [_, "chats", _] if name.ends_with(".jsonl") && is_stub(path) => {
            return Some(Found::Other(
                "a Gemini CLI resume stub (no conversation), not a session",
            ))
        }
        _ => {}
    }
    None
}

/// The project of a session below `.gemini/tmp/<project>/`: the directory Gemini CLI's
/// `projects.json` maps to that short name (`{"projects":{"/home/dev/proj":"proj"}}`), else
/// the name itself (older versions name the directory by a hash of the path).
pub fn project(path: &Path) -> Option<String> {
    let mut dirs = path.ancestors().skip(1);
    let below_tmp = dirs.find(|d| {
        let parent = d.parent();
        parent.and_then(Path::file_name).is_some_and(|n| n == "tmp")
            && parent
                .and_then(Path::parent)
                .and_then(Path::file_name)
                .is_some_and(|n| n == ".gemini")
    })?;
    let name = below_tmp.file_name()?.to_str()?;
    let gemini = below_tmp.parent()?.parent()?;
    let mapped = std::fs::read(gemini.join("projects.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|v| {
            v.get("projects")?
                .as_object()?
                .iter()
                .find(|(_, short)| short.as_str() == Some(name))
                .map(|(dir, _)| dir.clone())
        });
    Some(mapped.unwrap_or_else(|| name.to_string()))
}

/// The session file of parent session `id` beside the subagent directory of `path`.
fn parent_session(path: &Path, id: &str) -> Option<PathBuf> {
    let chats = path.parent()?.parent()?;
    let short: String = id.chars().take(8).collect();
    let mut found: Vec<PathBuf> = std::fs::read_dir(chats)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.starts_with("session-") && n.ends_with(&format!("-{short}.jsonl"))
            })
        })
        .filter(|p| !is_stub(p))
        .collect();
    found.sort();
    found.pop()
}

/// A small session file without a conversation to resume.
fn is_stub(path: &Path) -> bool {
    let small = std::fs::metadata(path).is_ok_and(|m| m.len() <= STUB_MAX);
    small && std::fs::read_to_string(path).is_ok_and(|t| holds_no_conversation(&t))
}

/// Whether a session file's text holds only the session context. A model response (a
/// `"type":"gemini"` record, in a line of its own or a checkpoint's list; inside a text it
/// would be escaped) answers at once, without reading the file as a session: listing a
/// home classifies every small session file.
fn holds_no_conversation(t: &str) -> bool {
    !t.trim().is_empty()
        && memchr::memmem::find(t.as_bytes(), br#""type":"gemini""#).is_none()
        && crate::formats::read(t.as_bytes(), Some(crate::session::Format::Gemini))
            .is_ok_and(|s| s.messages.iter().all(|m| m.injected))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_file_of_session_context_is_a_stub() {
        let stub = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/formats/gemini-cli/resume-stub/input.jsonl"),
        )
        .unwrap();
        assert!(holds_no_conversation(&stub));
        assert!(!holds_no_conversation(""));
        let head = stub.lines().next().unwrap();
        let asked = format!(
            "{head}\n{}\n",
            r#"{"id":"u1","timestamp":"2026-11-23T20:25:00.000Z","type":"user","content":[{"text":"what is \"type\":\"gemini\"?"}]}"#
        );
        assert!(
            !holds_no_conversation(&asked),
            "a user's question is a conversation"
        );
        let answered = format!(
            "{stub}{}\n",
            r#"{"id":"g1","timestamp":"2026-11-23T20:25:01.000Z","type":"gemini","content":"hello","model":"gemini-2.5-pro"}"#
        );
        assert!(!holds_no_conversation(&answered));
    }

    #[test]
    fn projects_are_mapped_back_through_projects_json() {
        let dir = tempfile::tempdir().unwrap();
        let g = dir.path().join(".gemini");
        let s = g.join("tmp/proj/chats/session-x.jsonl");
        assert_eq!(project(&s).as_deref(), Some("proj"));
        std::fs::create_dir_all(&g).unwrap();
        std::fs::write(
            g.join("projects.json"),
            r#"{"projects":{"/home/dev/proj":"proj","/home/dev/p2":"p2"}}"#,
        )
        .unwrap();
        assert_eq!(project(&s).as_deref(), Some("/home/dev/proj"));
        assert_eq!(
            project(&g.join("tmp/proj/chats/a/sub.jsonl")).as_deref(),
            Some("/home/dev/proj")
        );
        assert_eq!(project(Path::new("/x/y.jsonl")), None);
    }

    #[test]
    fn gemini_files_are_told_apart() {
        let p = |s: &str| classify(Path::new(s));
        assert_eq!(p("/h/.claude/projects/x.jsonl"), None);
        assert_eq!(
            p("/h/.gemini/tmp/proj/chats/session-x.jsonl"),
            None,
            "missing files are sessions"
        );
        assert!(matches!(
            p("/h/.gemini/tmp/proj/logs.json"),
            Some(Found::Other(_))
        ));
        assert!(matches!(
            p("/h/.gemini/tmp/proj/checkpoint-v1.json"),
            Some(Found::Other(_))
        ));
        assert!(matches!(
            p("/h/.gemini/tmp/proj/checkpoints/a/b.json"),
            Some(Found::Other(_))
        ));
    }

    #[test]
    fn stubs_are_not_sessions_and_subagents_belong_to_their_parent() {
        let dir = tempfile::tempdir().unwrap();
        let chats = dir.path().join(".gemini/tmp/proj/chats");
        std::fs::create_dir_all(chats.join("abcdef12-3456")).unwrap();
        let meta = r#"{"sessionId":"abcdef12-3456","projectHash":"h","startTime":"t","lastUpdated":"t","kind":"main"}"#;
        let ctx = r#"{"$set":{"messages":[{"id":"c","timestamp":"t","type":"user","content":[{"text":"<session_context>x</session_context>"}]}]}}"#;
        let stub = chats.join("session-2026-01-01T00-01-abcdef12.jsonl");
        std::fs::write(&stub, format!("{meta}\n{ctx}\n")).unwrap();
        assert!(matches!(classify(&stub), Some(Found::Other(_))));
        let full = chats.join("session-2026-01-01T00-00-abcdef12.jsonl");
        let user = r#"{"id":"u","timestamp":"t","type":"user","content":[{"text":"hi"}]}"#;
        std::fs::write(&full, format!("{meta}\n{ctx}\n{user}\n")).unwrap();
        assert_eq!(classify(&full), None);
        let sub = chats.join("abcdef12-3456/sub1.jsonl");
        assert_eq!(
            classify(&sub),
            Some(Found::Subagent {
                parent: full.clone()
            })
        );
    }
}
