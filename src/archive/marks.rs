//! Marks beside archive files: `compact-…-N.json.restored` records that the archive was put
//! back into its session, when and where, so `archive ls` can show it and a second
//! `archive restore` can say so instead of failing obscurely.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::ArchiveError;
use crate::fsutil;

/// That an archive was restored in place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Restored {
    /// RFC 3339 UTC. Named `timestamp` like every time in ctxctl's JSON (marks written
    /// before that said `at`).
    #[serde(rename = "timestamp", alias = "at")]
    pub at: String,
    /// The session file the records went back into.
    pub into: String,
}

/// The mark file of the archive at `archive`.
pub fn mark_path(archive: &Path) -> PathBuf {
    let mut s = archive.as_os_str().to_os_string();
    s.push(".restored");
    PathBuf::from(s)
}

/// The archive's restore mark, if it has a readable one.
pub fn read(archive: &Path) -> Option<Restored> {
    let bytes = fs::read(mark_path(archive)).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Marks the archive at `archive` restored (0600, atomic; a newer mark replaces an older).
pub fn write(archive: &Path, mark: &Restored) -> Result<(), ArchiveError> {
    let path = mark_path(archive);
    let mut bytes =
        serde_json::to_vec_pretty(mark).map_err(|e| ArchiveError::io(&path, e.into()))?;
    bytes.push(b'\n');
    fsutil::write_atomic(&path, &bytes, true).map_err(|e| ArchiveError::io(&path, e))
}

/// Removes the archive at `archive` and its mark. The mark goes first: a mark without its
/// archive would be harmless, an archive shown as restored when it was not would not.
pub fn remove_archive(archive: &Path) -> Result<(), ArchiveError> {
    let mark = mark_path(archive);
    match fs::remove_file(&mark) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(ArchiveError::io(&mark, e)),
    }
    fs::remove_file(archive).map_err(|e| ArchiveError::io(archive, e))?;
    if let Some(dir) = archive.parent() {
        // The session's directory goes with its last archive.
        let _ = fs::remove_dir(dir);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_round_trips_and_goes_with_its_archive() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("s");
        fs::create_dir(&dir).unwrap();
        let a = dir.join("compact-20260101T000000Z-1.json");
        fs::write(&a, b"{}").unwrap();
        assert_eq!(read(&a), None);
        let m = Restored {
            at: "2026-01-02T00:00:00Z".into(),
            into: "/x/s.jsonl".into(),
        };
        write(&a, &m).unwrap();
        assert_eq!(read(&a), Some(m));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(mark_path(&a)).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        remove_archive(&a).unwrap();
        assert!(!a.exists() && !mark_path(&a).exists());
        assert!(!dir.exists(), "the empty session directory is removed");
    }
}
