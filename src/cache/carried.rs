//! The hidden part of a session's next request, carried over a rewrite. A rewrite (`trim`,
//! `compact`) learns the agent's hidden part (system prompt, tools) from the provider usage
//! the session recorded; the file it writes no longer holds usage that describes it (the
//! history changed under it). So that `check` of the written file gives the figure the
//! rewrite reported rather than a fixed prior, the rewrite leaves that hidden part here,
//! keyed by the length and xxh3-128 hash of the bytes it wrote: `check` of any file with
//! exactly those bytes (the output, wherever it is moved or copied) finds it. Nothing is
//! added to the session file itself, so the agent resumes it as before.
//!
//! Kept beside the session digests (same directory, same eviction), one small JSON file
//! each, written atomically; `--no-cache` neither writes nor reads it. Like every cache
//! here, a missing or unreadable entry is a miss: the prior hidden part is used then.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Bumped whenever an entry's meaning or layout changes.
const VERSION: u32 = 1;

/// What a rewrite carries to the next check of the file it wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Carried {
    pub version: u32,
    /// The bytes it describes.
    pub len: usize,
    pub hash: u128,
    /// What the next request holds besides ctxctl's count of the messages, as the rewrite
    /// measured it before rewriting.
    pub overhead: usize,
}

impl Carried {
    pub fn new(len: usize, hash: u128, overhead: usize) -> Carried {
        Carried {
            version: VERSION,
            len,
            hash,
            overhead,
        }
    }
}

/// The entry file of the bytes `len`/`hash` in `dir`.
fn file(dir: &Path, len: usize, hash: u128) -> PathBuf {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(b"carried");
    h.update(&VERSION.to_le_bytes());
    h.update(&(len as u64).to_le_bytes());
    h.update(&hash.to_le_bytes());
    dir.join(format!("carried-{:032x}.json", h.digest128()))
}

/// Stores `c` in `dir` (a private file, replaced atomically).
pub fn put(dir: &Path, c: &Carried) -> io::Result<()> {
    crate::fsutil::create_private_dir(dir)?;
    let bytes = serde_json::to_vec(c).map_err(io::Error::other)?;
    crate::fsutil::write_atomic(&file(dir, c.len, c.hash), &bytes, true)
}

/// The entry for exactly the bytes `len`/`hash`, if `dir` holds a readable one.
pub fn get(dir: &Path, len: usize, hash: u128) -> Option<Carried> {
    let bytes = fs::read(file(dir, len, hash)).ok()?;
    let c: Carried = serde_json::from_slice(&bytes).ok()?;
    (c.version == VERSION && c.len == len && c.hash == hash).then_some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_found_only_for_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let c = Carried::new(10, 42, 1234);
        put(dir.path(), &c).unwrap();
        assert_eq!(get(dir.path(), 10, 42), Some(c));
        assert_eq!(get(dir.path(), 11, 42), None);
        assert_eq!(get(dir.path(), 10, 43), None);
        // A damaged entry is a miss.
        fs::write(file(dir.path(), 10, 42), b"{").unwrap();
        assert_eq!(get(dir.path(), 10, 42), None);
    }
}
