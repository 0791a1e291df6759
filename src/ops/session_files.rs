//! The session files below a directory, in a stable order: JSON and JSONL files and, when
//! asked, the agents' SQLite databases among them, each with its size and time. The leaf
//! that [`crate::ops::walk`] (a command's inputs) and [`crate::ops::sessions`] (every
//! agent's sessions) both walk with. Each file is stat'ed once, by the walk: its identity
//! (for the caches that vouch for unchanged files, [`Seen`]) and its canonical path (the
//! walked directory resolved once, the names below it joined: a walk follows no symlink)
//! come with it, so that no later step stats or resolves it again.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::Context as _;

use crate::cache::digest::{Seen, Stat};

/// A file found below a directory.
#[derive(Debug, Clone)]
pub struct Entry {
    pub path: PathBuf,
    pub len: u64,
    pub modified: Option<SystemTime>,
    /// The file's stat identity as the walk saw it, and a time taken before.
    pub seen: Option<Seen>,
    /// Its path with every symlink resolved, when the walk knows it.
    pub canonical: Option<PathBuf>,
}

impl Entry {
    /// Seconds between the file's last change and `now` (Unix seconds); 0 if unknown.
    pub fn age(&self, now: i64) -> i64 {
        now - self.modified_unix().unwrap_or(now)
    }

    /// The file at `path` (not walked to), stat'ed now.
    pub fn of(path: &Path) -> std::io::Result<Entry> {
        let at = Seen::clock();
        let meta = std::fs::metadata(path)?;
        Ok(Entry {
            path: path.to_path_buf(),
            len: meta.len(),
            modified: meta.modified().ok(),
            seen: seen(at, &meta),
            canonical: None,
        })
    }

    /// When the file last changed, in Unix seconds.
    pub fn modified_unix(&self) -> Option<i64> {
        self.modified
            .map(|t| crate::archive::Timestamp::from_system(t).unix())
    }
}

/// The session files below `dir` (and the SQLite databases among its files, if
/// `databases`), sorted by path, without going into the directories of `pruned`
/// (canonical paths: ctxctl's own cache and archives, which a walk of a home passes).
pub fn walk_dir(dir: &Path, databases: bool, pruned: &[PathBuf]) -> anyhow::Result<Vec<Entry>> {
    let mut found = Vec::new();
    let real = std::fs::canonicalize(dir).ok();
    let at = Seen::clock();
    let walk = Walk {
        databases,
        at,
        pruned,
    };
    walk.dir(dir, real.as_deref(), &mut found)
        .with_context(|| format!("{}", dir.display()))?;
    found.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(found)
}

/// One walk: whether it takes databases, a time taken before any file was stat'ed, and
/// the directories it does not go into.
struct Walk<'p> {
    databases: bool,
    at: Option<i128>,
    pruned: &'p [PathBuf],
}

impl Walk<'_> {
    /// The files below `dir`, whose canonical path is `real`.
    fn dir(&self, dir: &Path, real: Option<&Path>, out: &mut Vec<Entry>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let path = entry.path();
            let ty = entry.file_type()?;
            // Neither a symlink nor `..`: the name joined to a canonical directory is canonical.
            let real = real.map(|r| r.join(entry.file_name()));
            if ty.is_dir() {
                if self.is_pruned(&path, real.as_deref()) {
                    continue;
                }
                self.dir(&path, real.as_deref(), out)?;
            } else if ty.is_file()
                && (is_session_file(&path) || self.databases && is_db_file(&path))
            {
                let meta = entry.metadata()?;
                out.push(Entry {
                    path,
                    len: meta.len(),
                    modified: meta.modified().ok(),
                    seen: seen(self.at, &meta),
                    canonical: real,
                });
            }
        }
        Ok(())
    }

    /// Whether the directory `dir` (canonical path `real`, when known) is one not gone into.
    fn is_pruned(&self, dir: &Path, real: Option<&Path>) -> bool {
        if self.pruned.is_empty() {
            return false;
        }
        match real {
            Some(real) => self.pruned.iter().any(|p| p == real),
            None => std::fs::canonicalize(dir).is_ok_and(|r| self.pruned.contains(&r)),
        }
    }
}

/// The identity `meta` gives, taken after the time `at`.
fn seen(at: Option<i128>, meta: &std::fs::Metadata) -> Option<Seen> {
    Some(Seen {
        stat: Stat::of(meta)?,
        at: at?,
    })
}

/// A JSON or JSONL file, or an agent's database that walks read
/// ([`DbAgent::in_walks`](crate::formats::dbagent::DbAgent::in_walks): OpenCode's
/// `opencode.db`, each of its sessions read, or the one `--session` names).
pub(crate) fn is_session_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if let Some(agent) = crate::formats::dbagent::of_file_name(name) {
        return agent.in_walks && crate::ops::load::is_database(path);
    }
    !name.starts_with(crate::fsutil::TEMP_PREFIX)
        && matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("json" | "jsonl")
        )
}

pub(crate) fn is_db_file(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "db") && crate::ops::load::is_database(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_walk_does_not_go_into_the_pruned_directories() {
        let home = tempfile::tempdir().unwrap();
        let (kept, own) = (home.path().join("a/b"), home.path().join("cache/ctxctl"));
        for d in [&kept, &own.join("digests")] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(kept.join("s.jsonl"), "{}\n").unwrap();
        std::fs::write(own.join("digests/d.json"), "{}").unwrap();
        let names = |pruned: &[PathBuf]| -> Vec<String> {
            let found = walk_dir(home.path(), false, pruned).unwrap();
            let names = found.iter().map(|e| e.path.strip_prefix(home.path()));
            names.map(|p| p.unwrap().display().to_string()).collect()
        };
        assert_eq!(names(&[]), ["a/b/s.jsonl", "cache/ctxctl/digests/d.json"]);
        let own = std::fs::canonicalize(&own).unwrap();
        assert_eq!(names(&[own]), ["a/b/s.jsonl"]);
    }

    #[test]
    fn ctxctl_s_temp_files_beside_a_session_are_not_sessions() {
        let dir = tempfile::tempdir().unwrap();
        let tmp = crate::fsutil::temp_beside(&dir.path().join("s.jsonl")).unwrap();
        assert!(!is_session_file(tmp.path()));
        assert!(is_session_file(&dir.path().join("s.jsonl")));
    }
}
