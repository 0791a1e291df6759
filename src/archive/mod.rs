//! The archive store: the original records each compaction removed, one pretty JSON file
//! per compaction under `archives/<session>/compact-<YYYYMMDDTHHMMSSZ>-<seq>.json`
//! (directories 0700, files 0600, written atomically and never overwritten), listing,
//! reading, and putting originals back with [`restore()`].
//!
//! The clock is a parameter ([`Timestamp`]); nothing here reads the environment.

mod file;
mod lock;
pub mod marks;
mod name;
mod pending;
pub mod prune;
mod records;
mod restore;
mod store;
mod stream;
mod time;
mod undo;

pub use file::{ArchiveEnd, ArchiveFile, ArchiveRecord, Compression, Stored, Tokens};
pub use lock::{acquire as acquire_lock, LockGuard};
pub use marks::Restored;
pub use name::{parse_id, validate_name};
pub use pending::{Feed, PendingArchive, Push, SealedArchive};
pub use records::{original_records, records_of, RecordText};
pub use restore::{archived_record, restore, restore_records, RestoreError, SameLines};
pub use store::{parse_file_name, ArchiveEntry, ArchiveStore};
pub use stream::read_each_record;
pub use time::{Timestamp, TimestampError};
pub use undo::{Undo, UndoError};

use std::ops::Range;
use std::path::{Path, PathBuf};

/// Why the archive store failed.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error(
        "invalid session name {0:?}: use letters, digits, '.', '_' and '-', not starting with '.'"
    )]
    BadName(String),
    #[error("invalid archive id {0:?}: expected NAME/SEQ, e.g. my-session/1")]
    BadId(String),
    #[error("no archive {0}")]
    NotFound(String),
    // The causes are part of the message, not `source`s, so an error chain prints them once.
    #[error("{}: {err}", path.display())]
    Io { path: PathBuf, err: std::io::Error },
    #[error("{}: not a readable ctxctl archive: {err}", path.display())]
    Parse {
        path: PathBuf,
        err: serde_json::Error,
    },
    #[error("{} already exists; archives are never overwritten", .0.display())]
    Exists(PathBuf),
    #[error("messages {}..{} are not in the session", .0.start, .0.end)]
    NoSuchMessages(Range<usize>),
    #[error("record {0} of the session cannot be read back as JSON")]
    Record(usize),
    #[error("timed out after {secs}s waiting for the lock on {}", path.display())]
    LockTimeout { path: PathBuf, secs: u64 },
}

impl ArchiveError {
    pub(crate) fn io(path: &Path, err: std::io::Error) -> ArchiveError {
        ArchiveError::Io {
            path: path.to_path_buf(),
            err,
        }
    }
}

#[cfg(test)]
mod tests;
