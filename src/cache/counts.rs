//! The persistent token-count cache: message key → token count, kept under the cache
//! directory. It is an optimisation only: a missing, broken or locked cache is ignored,
//! never an error.
//!
//! Two files. `token-counts.bin` holds the entries sorted by key after a 16-byte header
//! (`MAGIC`, then the highest generation in the file); an entry is a 16-byte key, a 4-byte
//! count and a 4-byte generation, all little-endian. `token-counts.log` holds entries added
//! since, unsorted, appended by each run that learned something. The generation of an entry
//! is the run that last used it.
//!
//! A run that needs only a few counts (a grown session checked again: its new messages)
//! searches the sorted file where it lies, a few reads per key, finds them in the log with
//! one pass over it (`log.rs`), and adds what it learned to the log: its cost follows what
//! it looks up, not how large the cache has grown (but for the pass over the log, ≤ 1.5
//! MB). A run that needs many loads the file once, and sorts the log. When the log is full
//! the two are merged into a new sorted file, keeping the `MAX_ENTRIES` most recently used
//! entries.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

use super::entry::{decode_entry, merge, put_entry, Entry, Packed, ENTRY, SEARCH_MAX};
use super::log::{self, Log};

const MAGIC: &[u8; 8] = b"ctxtok02";
const HEADER: usize = 16;
/// At most this many counts are kept (24 MB on disk).
pub const MAX_ENTRIES: usize = 1_000_000;
/// At most this many counts are recorded by one run (the first it learns; 5 MB in
/// memory, 20 bytes each): a run over a session of millions of messages would otherwise
/// hold 20 bytes for each until it saves, for a cache that keeps only [`MAX_ENTRIES`]. What is not
/// recorded is counted again next time; an unchanged file is answered by its digest.
const TOUCHED_MAX: usize = if cfg!(test) { 2_000 } else { 1 << 18 };
/// Entries the log holds before it is merged into the sorted file (1.5 MB).
const LOG_MAX: usize = if cfg!(test) { 64 } else { 1 << 16 };

#[derive(Debug, Default)]
pub struct CountStore {
    path: Option<PathBuf>,
    /// The sorted file, open for searching while it is not loaded.
    file: Option<File>,
    /// Entries in the sorted file.
    file_entries: usize,
    /// The sorted file's entries, once loaded (`loaded_all`).
    entries: Vec<Entry>,
    loaded_all: bool,
    /// The log's entries.
    log: Log,
    /// The highest generation in the sorted file's header.
    file_generation: u32,
    /// The generation of this run (one more than any in the files), once asked for.
    generation: Option<u32>,
    /// Keys looked up or added in this run, with their counts.
    touched: Vec<Packed>,
    /// Whether saving would change the cache (new keys, or known keys not used for a while).
    dirty: bool,
    /// The sorted file as it was when opened, to tell at merging time whether another run
    /// has replaced it since (and it must be read again).
    opened: Option<FileId>,
}

/// What tells one version of the sorted file from another: it is only ever replaced whole
/// (a new file renamed over it), never written in place.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileId {
    len: u64,
    modified: Option<std::time::SystemTime>,
    #[cfg(unix)]
    inode: u64,
}

impl FileId {
    fn of(file: &File) -> Option<FileId> {
        let m = file.metadata().ok()?;
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

    /// Opens the cache at `path` (the sorted file; the log sits beside it): reads the log
    /// and the sorted file's header, not its entries. A missing or broken cache gives an
    /// empty store.
    pub fn open(path: PathBuf) -> CountStore {
        let (file, file_entries, file_generation) = match open_sorted(&path) {
            Some((f, n, g)) => (Some(f), n, g),
            None => (None, 0, 0),
        };
        let opened = file.as_ref().and_then(FileId::of);
        let log = Log::open(log_path(&path));
        CountStore {
            path: Some(path),
            file,
            file_entries,
            entries: Vec::new(),
            loaded_all: false,
            log,
            file_generation,
            generation: None,
            touched: Vec::new(),
            dirty: false,
            opened,
        }
    }

    pub fn is_enabled(&self) -> bool {
        self.path.is_some()
    }

    /// About how many counts are kept (a key in both files, or logged twice, is counted
    /// more than once).
    pub fn len(&self) -> usize {
        self.file_entries + self.log.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The generation of this run: one more than any in the files (the log's found by the
    /// first pass over it, or read now).
    fn generation(&mut self) -> u32 {
        if let Some(g) = self.generation {
            return g;
        }
        let g = self
            .log
            .generation()
            .max(self.file_generation)
            .wrapping_add(1);
        self.generation = Some(g);
        g
    }

    /// The remembered count for `key`.
    pub fn get(&mut self, key: u128) -> Option<u32> {
        self.find(key).map(|e| e.count)
    }

    /// Records that this run used `key` with `count`: kept when it is new, or known but
    /// not used for a while (re-stamped, so that it is not evicted as unused).
    pub fn record(&mut self, key: u128, count: u32) {
        let stale = match self.find(key) {
            None => true,
            Some(e) => {
                e.count != count || self.generation().wrapping_sub(e.generation) > REFRESH_AFTER
            }
        };
        if stale && self.touched.len() < TOUCHED_MAX {
            self.dirty = true;
            self.touched.push(Packed::new(key, count));
        }
    }

    /// The remembered count of each key, in order.
    pub fn lookup(&mut self, keys: &[u128]) -> Vec<Option<usize>> {
        self.prepare(keys);
        keys.iter()
            .map(|k| self.get(*k).map(|n| n as usize))
            .collect()
    }

    /// Records that this run used every key with its count (`keys[i]` with `counts[i]`).
    pub fn record_all(&mut self, keys: &[u128], counts: &[usize]) {
        self.prepare(keys);
        for (&k, &n) in keys.iter().zip(counts) {
            self.record(k, u32::try_from(n).unwrap_or(u32::MAX));
        }
    }

    /// Makes `keys` quick to find: many at once load the sorted file whole (a few are
    /// searched where they lie), and the log is passed over or sorted ([`Log::prepare`]).
    fn prepare(&mut self, keys: &[u128]) {
        if keys.len() > SEARCH_MAX {
            self.load_all();
        }
        self.log.prepare(keys);
    }

    /// Saves what this run learned, if anything: appended to the log, or, when the log is
    /// full, merged with it and the sorted file into a new sorted file (replaced
    /// atomically, trimmed to `MAX_ENTRIES`). A held lock means another run is saving:
    /// this run's additions are skipped.
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
        let generation = self.generation();
        // Taken, not drained: the recorded keys' memory goes once they are entries.
        let touched: Vec<Entry> = std::mem::take(&mut self.touched)
            .into_iter()
            .map(|t| Entry {
                key: t.key(),
                count: t.count(),
                generation,
            })
            .collect();
        let log = log_path(&path);
        let logged = fs::metadata(&log).map_or(0, |m| m.len() as usize / ENTRY);
        if logged + touched.len() <= LOG_MAX {
            log::append(&log, &touched)?;
            // What this run knows now (and what `len` reports).
            self.log.extend(touched);
        } else {
            self.merge_files(&path, touched)?;
        }
        self.dirty = false;
        Ok(true)
    }

    /// Writes a new sorted file from the sorted file and the log as they are now, plus
    /// `touched`, and empties the log.
    fn merge_files(&mut self, path: &Path, touched: Vec<Entry>) -> io::Result<()> {
        let current = File::open(path).ok().as_ref().and_then(FileId::of);
        let unchanged = self.loaded_all && current.is_some() && current == self.opened;
        let sorted = if unchanged {
            std::mem::take(&mut self.entries)
        } else {
            fs::read(path).map(|b| decode(&b)).unwrap_or_default()
        };
        let log = log_path(path);
        let mut added = log::read_entries(&log);
        added.extend(touched);
        let mut merged = merge(sorted, log::newest_by_key(added));
        if merged.len() > MAX_ENTRIES {
            let mut gens: Vec<u32> = merged.iter().map(|e| e.generation).collect();
            gens.sort_unstable_by(|a, b| b.cmp(a));
            let cutoff = gens[MAX_ENTRIES - 1];
            merged.retain(|e| e.generation >= cutoff);
        }
        crate::fsutil::write_atomic(path, &encode(&merged), true)?;
        // The log's entries are in the new file: a run that reads both meanwhile sees
        // them twice, which changes nothing.
        match fs::remove_file(&log) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        self.file_entries = merged.len();
        self.entries = merged;
        self.loaded_all = true;
        self.log.clear();
        self.file = File::open(path).ok();
        self.opened = self.file.as_ref().and_then(FileId::of);
        Ok(())
    }

    /// Deletes the cache at `path` (the sorted file and its log); a missing cache is fine.
    pub fn clear(path: &Path) -> io::Result<bool> {
        let mut removed = false;
        for p in [path.to_path_buf(), log_path(path)] {
            match fs::remove_file(&p) {
                Ok(()) => removed = true,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        Ok(removed)
    }

    /// Reads the whole sorted file (for a run that looks up many keys).
    fn load_all(&mut self) {
        if self.loaded_all {
            return;
        }
        if let Some(path) = &self.path {
            self.entries = fs::read(path).map(|b| decode(&b)).unwrap_or_default();
            self.file_entries = self.entries.len();
        }
        self.loaded_all = true;
    }

    /// The entry of `key`: in the log, else in the sorted file (in memory once loaded,
    /// else searched on disk).
    fn find(&mut self, key: u128) -> Option<Entry> {
        if let Some(e) = self.log.find(key) {
            return Some(e);
        }
        if self.loaded_all {
            return find_sorted(&self.entries, key).copied();
        }
        let file = self.file.as_ref()?;
        search_file(file, self.file_entries, key)
    }
}

/// The log beside the sorted file at `path`.
fn log_path(path: &Path) -> PathBuf {
    path.with_extension("log")
}

/// The sorted file at `path`, its number of entries and its generation, if it is one.
fn open_sorted(path: &Path) -> Option<(File, usize, u32)> {
    use std::io::Read;
    let mut file = File::open(path).ok()?;
    let len = file.metadata().ok()?.len() as usize;
    let mut header = [0u8; HEADER];
    file.read_exact(&mut header).ok()?;
    if &header[..8] != MAGIC || !(len - HEADER).is_multiple_of(ENTRY) {
        return None;
    }
    let generation = u32::from_le_bytes(header[8..12].try_into().ok()?);
    Some((file, (len - HEADER) / ENTRY, generation))
}

/// Binary search of the sorted file for `key`, one small read per step.
fn search_file(file: &File, n: usize, key: u128) -> Option<Entry> {
    let (mut lo, mut hi) = (0, n);
    let mut buf = [0u8; ENTRY];
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        read_at(file, &mut buf, (HEADER + mid * ENTRY) as u64).ok()?;
        let e = decode_entry(&buf);
        match e.key.cmp(&key) {
            std::cmp::Ordering::Equal => return Some(e),
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
        }
    }
    None
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(not(unix))]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = file;
    f.seek(SeekFrom::Start(offset))?;
    f.read_exact(buf)
}

/// The entry of `key` in `e` (sorted). Keys are uniform hashes, so a key's place in the
/// sorted list is close to `key / 2^128 * len`: the search starts there and widens until it
/// brackets the key, touching a few neighbouring cache lines instead of ~20 scattered ones
/// (a million-entry cache and a million-message session made plain binary search the
/// slowest step of a warm check).
fn find_sorted(e: &[Entry], key: u128) -> Option<&Entry> {
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

/// The entries of a cache file, sorted by key (a file from elsewhere that is not sorted is
/// sorted here); a file that is not a cache gives none.
fn decode(bytes: &[u8]) -> Vec<Entry> {
    if bytes.len() < HEADER || &bytes[..8] != MAGIC || !(bytes.len() - HEADER).is_multiple_of(ENTRY)
    {
        return Vec::new();
    }
    let mut entries: Vec<Entry> = bytes[HEADER..]
        .chunks_exact(ENTRY)
        .map(decode_entry)
        .collect();
    if !entries.windows(2).all(|w| w[0].key < w[1].key) {
        entries.sort_by_key(|e| e.key);
        entries.dedup_by_key(|e| e.key);
    }
    entries
}

fn encode(entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + entries.len() * ENTRY);
    out.extend_from_slice(MAGIC);
    let generation = entries.iter().map(|e| e.generation).max().unwrap_or(0);
    out.extend_from_slice(&generation.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    for e in entries {
        put_entry(&mut out, e);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

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
        let mut d = CountStore::open(path);
        assert_eq!(
            (d.get(1), d.get(2), d.get(3), d.get(4), d.get(5)),
            (Some(10), Some(20), Some(30), Some(40), Some(50))
        );
    }

    #[test]
    fn few_keys_are_searched_on_disk_and_new_ones_logged_until_the_log_is_merged() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("counts.bin");
        let key = |i: u128| xxhash_rust::xxh3::xxh3_128(&i.to_le_bytes());
        // Many keys at once: the sorted file is written (the log would overflow).
        let keys: Vec<u128> = (0..1000).map(key).collect();
        let counts: Vec<usize> = (0..1000).collect();
        let mut a = CountStore::open(path.clone());
        a.record_all(&keys, &counts);
        assert!(a.save().unwrap());
        assert!(!log_path(&path).exists());
        // A few keys: searched in the file, not loaded.
        let mut b = CountStore::open(path.clone());
        let few = [keys[0], keys[500], keys[999], key(5000)];
        assert_eq!(b.lookup(&few), [Some(0), Some(500), Some(999), None]);
        assert!(!b.loaded_all);
        b.record_all(&few[3..], &[77]);
        assert!(b.save().unwrap());
        assert!(
            !b.loaded_all,
            "a few new counts are logged, the file left alone"
        );
        let logged = fs::metadata(log_path(&path)).unwrap().len();
        assert_eq!(logged, ENTRY as u64);
        // A torn entry at the end of the log (a killed run) is ignored, and cut off before
        // the next run appends.
        let mut f = fs::OpenOptions::new()
            .append(true)
            .open(log_path(&path))
            .unwrap();
        f.write_all(&[1, 2, 3]).unwrap();
        let mut c = CountStore::open(path.clone());
        assert_eq!(c.get(key(5000)), Some(77));
        assert_eq!(c.len(), 1001);
        c.record(key(5001), 78);
        assert!(c.save().unwrap());
        assert_eq!(
            c.len(),
            1002,
            "the logged count is known to the run that logged it"
        );
        let mut c = CountStore::open(path.clone());
        assert_eq!((c.get(key(5000)), c.get(key(5001))), (Some(77), Some(78)));
        assert_eq!(c.len(), 1002);
        // Known keys used again are not logged again.
        c.record(key(5000), 77);
        assert!(!c.save().unwrap());
        // A log past LOG_MAX is merged into the file and emptied.
        let more: Vec<u128> = (6000..6000 + LOG_MAX as u128).map(key).collect();
        for (i, k) in more.iter().enumerate() {
            c.record(*k, i as u32);
        }
        assert!(c.save().unwrap());
        assert!(!log_path(&path).exists());
        let mut d = CountStore::open(path.clone());
        assert_eq!(d.len(), 1002 + LOG_MAX);
        assert_eq!(d.get(key(5000)), Some(77));
        assert_eq!(d.get(more[LOG_MAX - 1]), Some(LOG_MAX as u32 - 1));
        assert_eq!(d.get(keys[123]), Some(123));
        assert!(d.generation() > c.generation(), "generations carry over");
        assert!(CountStore::clear(&path).unwrap());
        assert!(CountStore::open(path).is_empty());
    }

    #[test]
    fn a_run_records_at_most_touched_max_counts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token-counts.bin");
        let mut store = CountStore::open(path.clone());
        let keys: Vec<u128> = (1..=(TOUCHED_MAX as u128 + 50)).collect();
        let counts: Vec<usize> = keys.iter().map(|&k| k as usize * 2).collect();
        store.record_all(&keys, &counts);
        assert!(store.save().unwrap());
        let mut again = CountStore::open(path);
        let found = again.lookup(&keys);
        let known = found.iter().filter(|f| f.is_some()).count();
        assert_eq!(known, TOUCHED_MAX);
        // The first ones learned, with their counts.
        assert_eq!(found[0], Some(2));
        assert_eq!(found[TOUCHED_MAX - 1], Some(TOUCHED_MAX * 2));
        assert_eq!(found[TOUCHED_MAX], None);
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
        bytes.extend_from_slice(&[0; 8]);
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
        let mut store = CountStore {
            loaded_all: true,
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
