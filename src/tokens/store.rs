//! The persistent token-count cache: message key → token count, kept in one small binary
//! file under the cache directory. It is an optimisation only: a missing, broken or locked
//! cache is ignored, never an error.
//!
//! File layout: `MAGIC` (8 bytes), then entries of 16-byte key, 4-byte count, 4-byte
//! generation, all little-endian. The generation of an entry is the run that last used it;
//! when the file would exceed `MAX_ENTRIES`, the least recently used entries are dropped.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"ctxtok01";
const ENTRY: usize = 24;
/// At most this many counts are kept (24 MB on disk).
pub const MAX_ENTRIES: usize = 1_000_000;

/// One cached count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    key: u128,
    count: u32,
    generation: u32,
}

#[derive(Debug, Default)]
pub struct CountStore {
    path: Option<PathBuf>,
    /// The file's entries, sorted by key (the file keeps them sorted, so loading is a copy
    /// and a lookup a binary search: no hash map to build on every run).
    entries: Vec<Entry>,
    /// The generation of this run (one more than any in the file).
    generation: u32,
    /// Keys looked up or added in this run.
    touched: Vec<(u128, u32)>,
    /// Whether saving would change the file (new keys, or known keys not used for a while).
    dirty: bool,
    /// The file as it was when loaded, to tell at saving time whether another run has
    /// replaced it since (and its entries must be read again to be merged).
    loaded: Option<FileId>,
}

/// What tells one version of the cache file from another: it is only ever replaced whole
/// (a new file renamed over it), never written in place.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileId {
    len: u64,
    modified: Option<std::time::SystemTime>,
    #[cfg(unix)]
    inode: u64,
}

impl FileId {
    fn of(path: &Path) -> Option<FileId> {
        let m = fs::metadata(path).ok()?;
        Some(FileId {
            len: m.len(),
            modified: m.modified().ok(),
            #[cfg(unix)]
            inode: std::os::unix::fs::MetadataExt::ino(&m),
        })
    }
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
        // Noted before reading: a file replaced in between is then read again at saving.
        let loaded = FileId::of(&path);
        let entries = fs::read(&path).map(|b| decode(&b)).unwrap_or_default();
        let generation = entries
            .iter()
            .map(|e| e.generation)
            .max()
            .unwrap_or(0)
            .wrapping_add(1);
        CountStore {
            path: Some(path),
            entries,
            generation,
            touched: Vec::new(),
            dirty: false,
            loaded,
        }
    }

    pub fn is_enabled(&self) -> bool {
        self.path.is_some()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The remembered count for `key`.
    pub fn get(&self, key: u128) -> Option<u32> {
        self.find(key).map(|e| e.count)
    }

    /// Records that this run used `key` with `count` (new or already known).
    pub fn record(&mut self, key: u128, count: u32) {
        let stale = match self.find(key) {
            None => true,
            Some(e) => self.generation.wrapping_sub(e.generation) > REFRESH_AFTER,
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
        // Merge with the file as it is now: other runs may have saved since this one read it
        // (when none has, the entries loaded are the file's).
        let on_disk = match FileId::of(&path) {
            Some(now) if self.loaded.as_ref() == Some(&now) => std::mem::take(&mut self.entries),
            _ => fs::read(&path).map(|b| decode(&b)).unwrap_or_default(),
        };
        let mut touched: Vec<Entry> = self
            .touched
            .drain(..)
            .map(|(key, count)| Entry {
                key,
                count,
                generation: self.generation,
            })
            .collect();
        touched.sort_by_key(|e| e.key);
        let mut merged = merge(on_disk, touched);
        if merged.len() > MAX_ENTRIES {
            let mut gens: Vec<u32> = merged.iter().map(|e| e.generation).collect();
            gens.sort_unstable_by(|a, b| b.cmp(a));
            let cutoff = gens[MAX_ENTRIES - 1];
            merged.retain(|e| e.generation >= cutoff);
        }
        let bytes = encode(&merged);
        crate::fsutil::write_atomic(&path, &bytes, true)?;
        self.entries = merged;
        self.dirty = false;
        self.loaded = FileId::of(&path);
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

impl CountStore {
    /// The entry of `key`. Keys are uniform hashes, so a key's place in the sorted list is
    /// close to `key / 2^128 * len`: the search starts there and widens until it brackets
    /// the key, touching a few neighbouring cache lines instead of ~20 scattered ones (a
    /// million-entry cache and a million-message session made plain binary search the
    /// slowest step of a warm check).
    fn find(&self, key: u128) -> Option<&Entry> {
        let e = &self.entries;
        if e.is_empty() {
            return None;
        }
        let guess = (((key >> 64) * e.len() as u128) >> 64) as usize;
        let (mut lo, mut hi) = (guess, guess + 1);
        let mut step = 1;
        while lo > 0 && e[lo].key > key {
            lo = lo.saturating_sub(step);
            step *= 2;
        }
        step = 1;
        while hi < e.len() && e[hi - 1].key < key {
            hi = (hi + step).min(e.len());
            step *= 2;
        }
        e[lo..hi]
            .binary_search_by_key(&key, |x| x.key)
            .ok()
            .map(|i| &e[lo + i])
    }
}

/// The entries of a cache file, sorted by key (a file from elsewhere that is not sorted is
/// sorted here); a file that is not a cache gives none.
fn decode(bytes: &[u8]) -> Vec<Entry> {
    let Some(body) = bytes.strip_prefix(MAGIC.as_slice()) else {
        return Vec::new();
    };
    if body.len() % ENTRY != 0 {
        return Vec::new();
    }
    let mut entries: Vec<Entry> = body
        .chunks_exact(ENTRY)
        .map(|e| Entry {
            key: u128::from_le_bytes(e[..16].try_into().unwrap_or_default()),
            count: u32::from_le_bytes(e[16..20].try_into().unwrap_or_default()),
            generation: u32::from_le_bytes(e[20..24].try_into().unwrap_or_default()),
        })
        .collect();
    if !entries.windows(2).all(|w| w[0].key < w[1].key) {
        entries.sort_by_key(|e| e.key);
        entries.dedup_by_key(|e| e.key);
    }
    entries
}

/// `old` and `new` (both sorted by key) as one sorted list; `new` wins on equal keys, and
/// the last of equal keys in `new` wins.
fn merge(old: Vec<Entry>, new: Vec<Entry>) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::with_capacity(old.len() + new.len());
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        let e = if j == new.len() || (i < old.len() && old[i].key < new[j].key) {
            i += 1;
            old[i - 1]
        } else {
            if i < old.len() && old[i].key == new[j].key {
                i += 1;
            }
            j += 1;
            new[j - 1]
        };
        match out.last_mut() {
            Some(last) if last.key == e.key => *last = e,
            _ => out.push(e),
        }
    }
    out
}

fn encode(entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(MAGIC.len() + entries.len() * ENTRY);
    out.extend_from_slice(MAGIC);
    for e in entries {
        let _ = out.write_all(&e.key.to_le_bytes());
        let _ = out.write_all(&e.count.to_le_bytes());
        let _ = out.write_all(&e.generation.to_le_bytes());
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
        // b saving again after c replaced the file reads it again too.
        b.record(4, 40);
        b.save().unwrap();
        // A file nobody replaced since it was loaded is not read again: what this run
        // loaded is merged (here, the entries of the file just saved, plus 5).
        let mut e = CountStore::open(path.clone());
        e.record(5, 50);
        e.save().unwrap();
        let d = CountStore::open(path);
        assert_eq!(
            (d.get(1), d.get(2), d.get(3), d.get(4), d.get(5)),
            (Some(10), Some(20), Some(30), Some(40), Some(50))
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

    #[test]
    fn merging_keeps_keys_sorted_and_unique_with_the_newest_count() {
        let e = |key, count| Entry {
            key,
            count,
            generation: 0,
        };
        let merged = merge(
            vec![e(1, 1), e(3, 3), e(5, 5)],
            vec![e(0, 0), e(3, 30), e(3, 31), e(6, 6)],
        );
        let got: Vec<(u128, u32)> = merged.iter().map(|e| (e.key, e.count)).collect();
        assert_eq!(got, vec![(0, 0), (1, 1), (3, 31), (5, 5), (6, 6)]);
    }

    #[test]
    fn an_unsorted_file_is_still_read() {
        let mut bytes = MAGIC.to_vec();
        for (key, count) in [(9u128, 90u32), (2, 20), (9, 91)] {
            bytes.extend_from_slice(&key.to_le_bytes());
            bytes.extend_from_slice(&count.to_le_bytes());
            bytes.extend_from_slice(&1u32.to_le_bytes());
        }
        let entries = decode(&bytes);
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].key, 2);
        assert_eq!(entries[1].key, 9);
    }

    #[test]
    fn every_key_is_found_wherever_it_sits() {
        // Uniform keys, clustered keys and the extremes: the guessed start may be far off.
        let mut keys: Vec<u128> = (0..5000u128)
            .map(|i| xxhash_rust::xxh3::xxh3_128(&i.to_le_bytes()))
            .collect();
        keys.extend((0..100u128).map(|i| i * 7));
        keys.extend([u128::MAX, u128::MAX - 1, 1 << 127]);
        keys.sort_unstable();
        keys.dedup();
        let store = CountStore {
            entries: keys
                .iter()
                .map(|&key| Entry {
                    key,
                    count: (key % 1000) as u32,
                    generation: 0,
                })
                .collect(),
            ..CountStore::default()
        };
        for &k in &keys {
            assert_eq!(store.get(k), Some((k % 1000) as u32), "{k}");
        }
        for absent in [3u128, 8, u128::MAX - 2, 12345678901234567890] {
            assert_eq!(store.get(absent), None);
        }
    }
}
