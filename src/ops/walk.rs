//! The files a command works on: `FILE...` as given, then every session file below each
//! `-r DIR`, in a stable order, leaving out what the agents keep there that is not a
//! session (each format says which of its agent's files those are:
//! [`crate::formats::classify_path`]).

use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::context::Context;
use crate::formats::{classify_path, Found};

/// `files`, then the session files below each of `dirs` (sorted per directory). Below a
/// directory, files that are not sessions (agent metadata and settings, todo lists, empty
/// files) are skipped with a note under `-v`; so are subagent transcripts unless
/// `subagents` (they belong to their parent session: counting reads them, checks and
/// rewrites leave them to it). Files named on the command line are always taken. No input
/// at all is a usage error.
pub fn collect(
    ctx: &Context,
    files: &[PathBuf],
    dirs: &[PathBuf],
    subagents: bool,
) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = files.to_vec();
    for dir in dirs {
        let mut found = Vec::new();
        walk(dir, &mut found).with_context(|| format!("{}", dir.display()))?;
        found.sort();
        for (path, len) in found {
            let skip = match classify_path(&path) {
                _ if len == 0 => Some("empty file".to_string()),
                Found::Other(why) => Some(why.to_string()),
                Found::Subagent { parent } if !subagents => {
                    Some(format!("subagent transcript, part of {}", parent.display()))
                }
                _ => None,
            };
            match skip {
                Some(why) => ctx
                    .printer
                    .debug(&format!("{}: skipped ({why})", path.display())),
                None => out.push(path),
            }
        }
    }
    if out.is_empty() {
        anyhow::bail!("no input: give session FILEs, - for standard input, or -r DIR");
    }
    Ok(out)
}

/// The session files below `dir`, with their sizes.
fn walk(dir: &Path, out: &mut Vec<(PathBuf, u64)>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let ty = entry.file_type()?;
        if ty.is_dir() {
            walk(&path, out)?;
        } else if ty.is_file() && is_session_file(&path) {
            let len = entry.metadata()?.len();
            out.push((path, len));
        }
    }
    Ok(())
}

/// A JSON or JSONL file, or OpenCode's database (`opencode.db`; one session of it is read,
/// the one `--session` names or its only one). goose's `sessions.db` is not taken: it sits
/// among the JSONL sessions of goose ≤ 1.9, which `-r` over that directory means.
fn is_session_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name == "opencode.db" {
        return crate::ops::load::is_database(path);
    }
    !name.starts_with(crate::fsutil::TEMP_PREFIX)
        && matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("json" | "jsonl")
        )
}
