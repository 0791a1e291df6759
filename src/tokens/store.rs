//! The persistent token-count cache: message key → token count, kept in one small binary
//! file under the cache directory. It is an optimisation only: a missing, broken or locked
//! cache is ignored, never an error.
//!
//! File layout: `MAGIC` (8 bytes), then entries of 16-byte key, 4-byte count, 4-byte
//! generation, all little-endian. The generation of an entry is the run that last used it;
//! when the file would exceed `MAX_ENTRIES`, the least recently used entries are dropped.

use std::collections::HashMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"ctxtok01";
const ENTRY: usize = 24;
/// At most this many counts are kept (24 MB on disk).
pub const MAX_ENTRIES: usize = 1_000_000;

#[derive(Debug, Default)]
pub struct CountStore {
    path: Option<PathBuf>,
    map: HashMap<u128, (u32, u32)>,
    /// The generation of this run (one more than any in the file).
    generation: u32,
    /// Keys looked up or added in this run.
    touched: Vec<(u128, u32)>,
    /// Whether saving would change the file (new keys, or known keys not used for a while).
    dirty: bool,
}

/// A known key is re-stamped with the current generation once it is this many runs old.
const REFRESH_AFTER: u32 = 64;

impl CountStore {
    /// A store that remembers nothing (`--no-cache`).
    pub fn disabled() -> CountStore {
        CountStore::default()
    }

    /// Loads the cache file at `path`; an absent or unreadable file gives an empty store.
    pub fn open(path: PathBuf) -> CountStore {
        let map = fs::read(&path).map(|b| decode(&b)).unwrap_or_default();
        let generation = map
            .values()
            .map(|&(_, g)| g)
            .max()
            .unwrap_or(0)
            .wrapping_add(1);
        CountStore {
            path: Some(path),
            map,
            generation,
            touched: Vec::new(),
            dirty: false,
        }
    }

    pub fn is_enabled(&self) -> bool {
        self.path.is_some()
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The remembered count for `key`.
    pub fn get(&self, key: u128) -> Option<u32> {
        self.map.get(&key).map(|&(n, _)| n)
    }

    /// Records that this run used `key` with `count` (new or already known).
    pub fn record(&mut self, key: u128, count: u32) {
        let stale = match self.map.get(&key) {
            None => true,
            Some(&(_, g)) => self.generation.wrapping_sub(g) > REFRESH_AFTER,
        };
        self.dirty |= stale;
        self.touched.push((key, count));
    }

    /// The remembered count of each key, in order.
    pub fn lookup(&self, keys: &[u128]) -> Vec<Option<usize>> {
        keys.iter()
            .map(|k| self.get(*k).map(|n| n as usize))
            .collect()
    }

    /// Records that this run used every key with its count (`keys[i]` with `counts[i]`).
    pub fn record_all(&mut self, keys: &[u128], counts: &[usize]) {
        for (&k, &n) in keys.iter().zip(counts) {
            self.record(k, u32::try_from(n).unwrap_or(u32::MAX));
        }
    }

    /// Writes the store back if this run used it: the file is re-read and merged (another
    /// run may have saved meanwhile), trimmed to `MAX_ENTRIES`, and replaced atomically. A
    /// held lock means another run is saving: this run's additions are skipped.
    pub fn save(&mut self) -> io::Result<bool> {
        let Some(path) = self.path.clone() else {
            return Ok(false);
        };
        if !self.dirty {
            return Ok(false);
        }
        let dir = path.parent().unwrap_or(Path::new("."));
        crate::fsutil::create_private_dir(dir)?;
        let lock = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path.with_extension("lock"))?;
        if lock.try_lock().is_err() {
            return Ok(false);
        }
        let mut merged = fs::read(&path).map(|b| decode(&b)).unwrap_or_default();
        for (key, count) in self.touched.drain(..) {
            merged.insert(key, (count, self.generation));
        }
        if merged.len() > MAX_ENTRIES {
            let mut gens: Vec<u32> = merged.values().map(|&(_, g)| g).collect();
            gens.sort_unstable_by(|a, b| b.cmp(a));
            let cutoff = gens[MAX_ENTRIES - 1];
            merged.retain(|_, &mut (_, g)| g >= cutoff);
        }
        let bytes = encode(&merged);
        crate::fsutil::write_atomic(&path, &bytes, true)?;
        self.map = merged;
        self.dirty = false;
        Ok(true)
    }

    /// Deletes the cache file at `path`; a missing file is fine.
    pub fn clear(path: &Path) -> io::Result<bool> {
        match fs::remove_file(path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }
}

fn decode(bytes: &[u8]) -> HashMap<u128, (u32, u32)> {
    let Some(body) = bytes.strip_prefix(MAGIC.as_slice()) else {
        return HashMap::new();
    };
    if body.len() % ENTRY != 0 {
        return HashMap::new();
    }
    let mut map = HashMap::with_capacity(body.len() / ENTRY);
    for e in body.chunks_exact(ENTRY) {
        let key = u128::from_le_bytes(e[..16].try_into().unwrap_or_default());
        let count = u32::from_le_bytes(e[16..20].try_into().unwrap_or_default());
        let generation = u32::from_le_bytes(e[20..24].try_into().unwrap_or_default());
        map.insert(key, (count, generation));
    }
    map
}

fn encode(map: &HashMap<u128, (u32, u32)>) -> Vec<u8> {
    let mut entries: Vec<_> = map.iter().collect();
    entries.sort_unstable_by_key(|(k, _)| **k);
    let mut out = Vec::with_capacity(MAGIC.len() + entries.len() * ENTRY);
    out.extend_from_slice(MAGIC);
    for (key, (count, generation)) in entries {
        let _ = out.write_all(&key.to_le_bytes());
        let _ = out.write_all(&count.to_le_bytes());
        let _ = out.write_all(&generation.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saves_merges_and_reloads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c/counts.bin");
        let mut a = CountStore::open(path.clone());
        assert!(a.is_empty());
        a.record(1, 10);
        assert!(a.save().unwrap());
        let mut b = CountStore::open(path.clone());
        assert_eq!(b.get(1), Some(10));
        b.record(2, 20);
        // A run that started before b saved still merges b's entries in.
        let mut c = CountStore::open(path.clone());
        b.save().unwrap();
        c.record(3, 30);
        c.save().unwrap();
        let d = CountStore::open(path);
        assert_eq!(
            (d.get(1), d.get(2), d.get(3)),
            (Some(10), Some(20), Some(30))
        );
    }

    #[test]
    fn broken_files_are_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("counts.bin");
        fs::write(&path, b"ctxtok01garbage").unwrap();
        assert!(CountStore::open(path.clone()).is_empty());
        fs::write(&path, b"not a cache").unwrap();
        let mut s = CountStore::open(path.clone());
        s.record(5, 1);
        s.save().unwrap();
        assert_eq!(CountStore::open(path).get(5), Some(1));
    }

    #[test]
    fn disabled_store_never_writes() {
        let mut s = CountStore::disabled();
        s.record(1, 1);
        assert!(!s.save().unwrap());
        assert!(!s.is_enabled());
    }
}
