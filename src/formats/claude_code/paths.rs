//! Which files below a Claude Code data directory (`~/.claude`) are sessions.
//!
//! Beside its transcripts (`projects/<dir>/<session id>.jsonl`) Claude Code keeps JSON that
//! is not a session: subagent metadata (`<session id>/subagents/agent-<id>.meta.json`),
//! settings (`settings.json`, `settings.local.json`), todo lists (`todos/*.json`). Subagent
//! transcripts (`<session id>/subagents/agent-<id>.jsonl`) are sessions, but part of their
//! parent's: a recursive run reads them with it and does not check or compact them on their
//! own.

use std::path::Path;

use serde_json::Value;

use crate::formats::Found;

/// The project of a transcript: the `cwd` its first records name, else its directory's
/// name decoded (`projects/-home-dev-calc` → `/home/dev/calc`; Claude Code writes every
/// `/`, `.` and `_` of the path as `-`, so the decoding is a guess where a record does not
/// say). A subagent transcript's directory is its session's, two levels up.
pub fn project(path: &Path, head: &[Value]) -> Option<String> {
    if let Some(cwd) = head
        .iter()
        .find_map(|r| r.get("cwd").and_then(Value::as_str))
    {
        return Some(cwd.to_string());
    }
    let dirs: Vec<&str> = path
        .ancestors()
        .skip(1)
        .filter_map(|p| p.file_name()?.to_str())
        .collect();
    let at = dirs.iter().position(|d| *d == "projects")?;
    let encoded = dirs.get(at.checked_sub(1)?)?;
    Some(encoded.replace('-', "/"))
}

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
    fn projects_come_from_the_records_else_the_directory_name() {
        let p = Path::new("/h/.claude/projects/-home-dev-calc/abc.jsonl");
        assert_eq!(project(p, &[]).as_deref(), Some("/home/dev/calc"));
        let sub = Path::new("/h/.claude/projects/-w-x/abc/subagents/agent-1.jsonl");
        assert_eq!(project(sub, &[]).as_deref(), Some("/w/x"));
        let head = [
            serde_json::json!({"type":"summary"}),
            serde_json::json!({"type":"user","cwd":"/home/dev/my_calc"}),
        ];
        assert_eq!(project(p, &head).as_deref(), Some("/home/dev/my_calc"));
        assert_eq!(project(Path::new("/tmp/a.jsonl"), &[]), None);
    }

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
