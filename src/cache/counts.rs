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
use super::spill::Spill;

const MAGIC: &[u8; 8] = b"ctxtok02";
const HEADER: usize = 16;
/// At most this many counts are kept (24 MB on disk).
pub const MAX_ENTRIES: usize = 1_000_000;
/// At most this many counts are recorded by one run (the first it learns; 5 MB in
/// memory, 20 bytes each): a run over a session of millions of messages would otherwise
/// hold 20 bytes for each until it saves, for a cache that keeps only [`MAX_ENTRIES`]. What is not
/// recorded is counted again next time; an unchanged file is answered by its digest.
const TOUCHED_MAX: usize = if cfg!(test) { 2_000 } else { 1 << 18 };
/// Recorded counts held in memory before they are written to the run's spill (80 KB):
/// a cold listing recorded 5 MB of them, held beside the largest file it measured.
const HELD_MAX: usize = if cfg!(test) { 64 } else { 4096 };
/// Bytes of one recorded count in the spill: its key and count.
const SPILLED: usize = 20;
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
    /// Keys looked up or added in this run, with their counts: the latest ones (up to
    /// [`HELD_MAX`]); the ones before, in `spilled`.
    touched: Vec<Packed>,
    /// Counts this run recorded before `touched`'s, [`SPILLED`] bytes each.
    spilled: Spill,
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
            spilled: Spill::default(),
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
        if stale && self.recorded() < TOUCHED_MAX {
            self.dirty = true;
            self.touched.push(Packed::new(key, count));
            if self.touched.len() >= HELD_MAX {
                self.spill();
            }
        }
    }

    /// How many counts this run recorded.
    fn recorded(&self) -> usize {
        self.spilled.len() as usize / SPILLED + self.touched.len()
    }

    /// Moves the recorded counts held in memory to the spill beside the cache (kept in
    /// memory when they cannot be written).
    fn spill(&mut self) {
        let Some(dir) = self.path.as_deref().and_then(Path::parent) else {
            return;
        };
        let mut bytes = Vec::with_capacity(self.touched.len() * SPILLED);
        for t in &self.touched {
            bytes.extend_from_slice(&t.key().to_le_bytes());
            bytes.extend_from_slice(&t.count().to_le_bytes());
        }
        if self.spilled.push(dir, &bytes).is_ok() {
            self.touched.clear();
        }
    }

    /// Every count this run recorded, in the order recorded, as entries of `generation`
    /// (the spill's read back; what cannot be read back is left out: it is counted again
    /// next time).
    fn take_recorded(&mut self, generation: u32) -> Vec<Entry> {
        let spilled = std::mem::take(&mut self.spilled);
        let touched = std::mem::take(&mut self.touched);
        let entry = |key, count| Entry {
            key,
            count,
            generation,
        };
        let mut out = Vec::with_capacity(spilled.len() as usize / SPILLED + touched.len());
        let block = (HELD_MAX * SPILLED) as u64;
        let mut bytes = Vec::new();
        for start in (0..spilled.len()).step_by(block as usize) {
            bytes.clear();
            let at = start..(start + block).min(spilled.len());
            if spilled.copy(&at, &mut bytes).is_err() {
                break;
            }
            out.extend(bytes.chunks_exact(SPILLED).map(|b| {
                let (key, count) = b.split_at(16);
                let key = u128::from_le_bytes(key.try_into().unwrap_or_default());
                entry(
                    key,
                    u32::from_le_bytes(count.try_into().unwrap_or_default()),
                )
            }));
        }
        out.extend(touched.iter().map(|t| entry(t.key(), t.count())));
        out
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
        let touched = self.take_recorded(generation);
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
        crate::fsutil::write_atomic_by(path, true, &mut |w| write_sorted(w, &merged))?;
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

/// Writes the sorted file of `entries` to `w`, a block of entries at a time: a cold run's
/// 2^18 entries were 6 MB more, whole, at its end.
fn write_sorted(w: &mut dyn io::Write, entries: &[Entry]) -> io::Result<()> {
    let mut out = Vec::with_capacity(HEADER.max(4096 * ENTRY));
    out.extend_from_slice(MAGIC);
    let generation = entries.iter().map(|e| e.generation).max().unwrap_or(0);
    out.extend_from_slice(&generation.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    for block in entries.chunks(4096) {
        for e in block {
            put_entry(&mut out, e);
        }
        w.write_all(&out)?;
        out.clear();
    }
    w.write_all(&out)
}

#[cfg(test)]
#[path = "counts_tests.rs"]
mod tests;
