//! Which files below a Claude Code data directory (`~/.claude`) are sessions.
//!
//! Beside its transcripts (`projects/<dir>/<session id>.jsonl`) Claude Code keeps JSON that
//! is not a session: subagent metadata (`<session id>/subagents/agent-<id>.meta.json`),
//! settings (`settings.json`, `settings.local.json`), todo lists (`todos/*.json`). Subagent
//! transcripts (`<session id>/subagents/agent-<id>.jsonl`) are sessions, but part of their
//! parent's: a recursive run reads them with it and does not check or compact them on their
//! own.

use std::path::Path;

use crate::formats::Found;

/// What `path` is, judged by its name and place.
pub fn classify(path: &Path) -> Found {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let dir = |p: Option<&Path>| {
        p.and_then(Path::file_name)
            .and_then(|n| n.to_str())
            .map(str::to_string)
    };
    let parent_dir = dir(path.parent());
    if name.ends_with(".meta.json") {
        return Found::Other("agent metadata, not a session");
    }
    if matches!(name, "settings.json" | "settings.local.json") {
        return Found::Other("agent settings, not a session");
    }
    if parent_dir.as_deref() == Some("todos") && name.ends_with(".json") {
        return Found::Other("a todo list, not a session");
    }
    if parent_dir.as_deref() == Some("subagents")
        && name.starts_with("agent-")
        && name.ends_with(".jsonl")
    {
        let session_dir = path.parent().and_then(Path::parent);
        if let (Some(sd), Some(id)) = (session_dir, dir(session_dir)) {
            if let Some(projects) = sd.parent() {
                return Found::Subagent {
                    parent: projects.join(format!("{id}.jsonl")),
                };
            }
        }
    }
    Found::Session
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn claude_code_files_are_told_apart() {
        let p = |s: &str| classify(Path::new(s));
        assert_eq!(p("/h/.claude/projects/-w/abc.jsonl"), Found::Session);
        assert_eq!(
            p("/h/.claude/projects/-w/abc/subagents/agent-a1.jsonl"),
            Found::Subagent {
                parent: PathBuf::from("/h/.claude/projects/-w/abc.jsonl")
            }
        );
        for other in [
            "/h/.claude/projects/-w/abc/subagents/agent-a1.meta.json",
            "/h/.claude/settings.json",
            "/h/.claude/settings.local.json",
            "/h/.claude/todos/abc-agent-abc.json",
        ] {
            assert!(matches!(p(other), Found::Other(_)), "{other}");
        }
        // A user's own session named like a todo list elsewhere is still a session.
        assert_eq!(p("/h/work/todo.json"), Found::Session);
    }
}
