//! What the heads of session files said: each file's format and project as
//! [`crate::ops::describe`] read them from its first 32 KiB, kept with the file's stat
//! identity ([`Seen`]), so that `sessions` over thousands of unchanged files opens none of
//! them to list them. An entry answers only while the file's identity is exactly the one
//! seen before its head was read, with times old enough to vouch for it (the rule of the
//! session digests, see [`crate::cache::digest`]); anything else reads the head again.
//!
//! One small file (`heads` in the digests directory, so that `cache clear` removes it) for
//! every session described, read once per run and written back (temp file, then rename)
//! only when something was described anew; at most [`MAX_ENTRIES`], those of this run
//! first. It belongs to one build of ctxctl ([`build_id`]): another build may tell formats
//! apart differently. Like every cache here, a missing, damaged or foreign file is a miss.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::digest::{build_id, Seen};
use crate::ops::describe::Described;
use crate::session::Format;

/// Bumped whenever an entry's meaning or layout changes.
const VERSION: u32 = 1;
/// At most this many files' heads are kept.
pub const MAX_ENTRIES: usize = 50_000;

/// What one file's head said, and the file as it was before the head was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Head {
    seen: Seen,
    format: Option<String>,
    project: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct Stored {
    version: u32,
    build: String,
    heads: Vec<(PathBuf, Head)>,
}

/// The heads known to one run, and those it learned.
#[derive(Debug)]
pub struct HeadStore {
    file: PathBuf,
    build: String,
    known: HashMap<PathBuf, Head>,
    /// Described or confirmed by this run (kept first when the store is full), and
    /// whether any was described anew (the store is then written back).
    used: Mutex<(HashMap<PathBuf, Head>, bool)>,
}

impl HeadStore {
    /// The heads kept in the digests directory `dir`, for this build.
    pub fn open(dir: &Path) -> HeadStore {
        HeadStore::for_build(dir, build_id())
    }

    fn for_build(dir: &Path, build: String) -> HeadStore {
        let file = dir.join("heads");
        let known = fs::read(&file)
            .ok()
            .and_then(|b| serde_json::from_slice::<Stored>(&b).ok())
            .filter(|s| s.version == VERSION && s.build == build)
            .map(|s| s.heads.into_iter().collect())
            .unwrap_or_default();
        HeadStore {
            file,
            build,
            known,
            used: Mutex::new((HashMap::new(), false)),
        }
    }

    /// What the head of `path` says: from the store while the file is as it was seen,
    /// else from `describe` (reading it), remembered with the file's identity taken before;
    /// and whether it came from the store.
    pub fn describe(&self, path: &Path, describe: impl FnOnce() -> Described) -> (Described, bool) {
        self.describe_seen(path, Seen::now(path), describe)
    }

    /// [`HeadStore::describe`] of the file `seen` is the identity of, taken by the caller
    /// (a walk that stat'ed it) before its head is read.
    pub fn describe_seen(
        &self,
        path: &Path,
        seen: Option<Seen>,
        describe: impl FnOnce() -> Described,
    ) -> (Described, bool) {
        if let (Some(now), Some(head)) = (seen, self.known.get(path)) {
            if head.seen.vouches_for(&now.stat) {
                if let Some(d) = head.described() {
                    self.used().0.insert(path.to_path_buf(), head.clone());
                    return (d, true);
                }
            }
        }
        let described = describe();
        if let Some(seen) = seen.filter(Seen::can_vouch) {
            let head = Head {
                seen,
                format: described.format.map(|f| f.name().to_string()),
                project: described.project.clone(),
            };
            let mut used = self.used();
            used.0.insert(path.to_path_buf(), head);
            used.1 = true;
        }
        (described, false)
    }

    /// Whether the head kept of `path` vouches for the file seen as `seen` unread (it was
    /// described, so it is a session file, not a database).
    pub fn vouches(&self, path: &Path, seen: Option<Seen>) -> bool {
        match (seen, self.known.get(path)) {
            (Some(now), Some(head)) => head.seen.vouches_for(&now.stat),
            _ => false,
        }
    }

    fn used(&self) -> std::sync::MutexGuard<'_, (HashMap<PathBuf, Head>, bool)> {
        self.used.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes the store back when this run described a file anew: this run's heads, then
    /// the others known, up to [`MAX_ENTRIES`].
    pub fn save(self) -> io::Result<()> {
        let (used, changed) = self.used.into_inner().unwrap_or_else(|e| e.into_inner());
        if !changed {
            return Ok(());
        }
        let mut heads: Vec<(PathBuf, Head)> = used.into_iter().collect();
        let room = MAX_ENTRIES.saturating_sub(heads.len());
        let others: Vec<(PathBuf, Head)> = self
            .known
            .into_iter()
            .filter(|(p, _)| !heads.iter().any(|(q, _)| q == p))
            .take(room)
            .collect();
        heads.truncate(MAX_ENTRIES);
        heads.extend(others);
        let stored = Stored {
            version: VERSION,
            build: self.build,
            heads,
        };
        let bytes = serde_json::to_vec(&stored).map_err(io::Error::other)?;
        let dir = self.file.parent().unwrap_or(Path::new("."));
        crate::fsutil::create_private_dir(dir)?;
        crate::fsutil::write_replace_cache(&self.file, &bytes)
    }
}

impl Head {
    /// The description kept; `None` when its format is one this build does not know.
    fn described(&self) -> Option<Described> {
        let format = match &self.format {
            Some(name) => Some(Format::from_name(name)?),
            None => None,
        };
        Some(Described {
            format,
            project: self.project.clone(),
        })
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn described(project: &str) -> Described {
        Described {
            format: Some(Format::Codex),
            project: Some(project.to_string()),
        }
    }

    /// A file written now, once its times are old enough for a head taken of it to
    /// vouch for it (its change time cannot be set back: waited out).
    fn old_file(path: &Path, text: &str) {
        fs::write(path, text).unwrap();
        while !Seen::now(path).unwrap().can_vouch() {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }

    #[test]
    fn an_unchanged_file_is_described_from_the_store_and_a_changed_one_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.jsonl");
        old_file(&file, "one\n");
        let store = HeadStore::for_build(dir.path(), "b".into());
        assert_eq!(
            store.describe(&file, || described("/a")),
            (described("/a"), false)
        );
        store.save().unwrap();

        let store = HeadStore::for_build(dir.path(), "b".into());
        assert_eq!(
            store.describe(&file, || described("/b")),
            (described("/a"), true),
            "an unchanged file is not read again"
        );

        fs::write(&file, "one and more\n").unwrap();
        let store = HeadStore::for_build(dir.path(), "b".into());
        assert_eq!(
            store.describe(&file, || described("/c")),
            (described("/c"), false),
            "a file written since is read again"
        );
    }

    #[test]
    fn another_build_or_a_damaged_store_knows_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.jsonl");
        old_file(&file, "one\n");
        let store = HeadStore::for_build(dir.path(), "b".into());
        store.describe(&file, || described("/a"));
        store.save().unwrap();
        assert_eq!(HeadStore::for_build(dir.path(), "b".into()).known.len(), 1);
        assert!(HeadStore::for_build(dir.path(), "other".into())
            .known
            .is_empty());
        fs::write(dir.path().join("heads"), "{not json").unwrap();
        assert!(HeadStore::for_build(dir.path(), "b".into())
            .known
            .is_empty());
    }
}
