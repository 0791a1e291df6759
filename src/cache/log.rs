//! The count cache's log (`token-counts.log`): entries added since the sorted file was
//! last written, unsorted, appended by each run that learned something; the later of
//! equal keys is the newer. It holds up to `LOG_MAX` entries before it is merged, so a
//! run that wants a few counts (a grown session's check: its new messages) finds them in
//! one pass over the file, a small buffer at a time, and holds none of it: sorting a
//! nearly full log (60,000 entries) on opening and again on saving, as it was, made a
//! grown 200K-token check 17 ms instead of 5, and holding it whole (1.4 MB, ~350 page
//! faults) cost 0.2 ms more than the pass.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use super::entry::{decode_entry, merge, put_entry, Entry, ENTRY, SEARCH_MAX};
use crate::fasthash::FastMap;

/// Bytes read at a time in a pass: whole entries.
const PASS_BYTES: usize = ENTRY * 2730;

/// Words of the filter a pass tests each entry's key against (4,096 bits, for at most
/// `SEARCH_MAX` keys).
const FILTER_WORDS: usize = 64;

/// The log as this run knows it, and how its entries are looked up.
#[derive(Debug, Default)]
pub(super) struct Log {
    /// The file; `None`: no log (a store that keeps nothing).
    path: Option<PathBuf>,
    /// Whole entries in the file when it was opened.
    at_open: usize,
    /// What this run appended to the file since, after them.
    added: Vec<Entry>,
    /// Every entry sorted by key, the newest of equal keys kept: made (from the whole
    /// file) once a run wants more than one pass's worth of keys.
    sorted: Option<Vec<Entry>>,
    /// The keys a pass looked for, each with the newest entry it found.
    scanned: FastMap<u128, Option<Entry>>,
    /// The highest generation in the file, once a pass or a read has seen it all.
    generation: Option<u32>,
}

impl Log {
    /// The log at `path` (a missing one is empty). Nothing is read yet.
    pub(super) fn open(path: PathBuf) -> Log {
        let at_open = fs::metadata(&path).map_or(0, |m| m.len() as usize / ENTRY);
        Log {
            path: Some(path),
            at_open,
            ..Log::default()
        }
    }

    /// How many entries it holds (a key logged twice counts twice).
    pub(super) fn len(&self) -> usize {
        self.at_open + self.added.len()
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The highest generation of its entries (0 with none): from the pass or read that
    /// saw them, else from one made now.
    pub(super) fn generation(&mut self) -> u32 {
        if self.generation.is_none() {
            self.pass(&mut |_| {});
        }
        let file = self.generation.unwrap_or(0);
        (self.added.iter().map(|e| e.generation)).fold(file, u32::max)
    }

    /// Makes `keys` quick to find: the first time a run wants a few, one pass over the
    /// file finds them; past that, the entries are read whole and sorted.
    pub(super) fn prepare(&mut self, keys: &[u128]) {
        if self.sorted.is_some() || self.is_empty() {
            return;
        }
        let new: Vec<u128> = (keys.iter())
            .filter(|k| !self.scanned.contains_key(k))
            .copied()
            .collect();
        if new.is_empty() {
            return;
        }
        if !self.scanned.is_empty() || new.len() > SEARCH_MAX {
            self.sort();
            return;
        }
        // A key's low bits, one bit each in a small filter: nearly every entry is passed
        // over on one test, without decoding its key.
        let mut filter = [0u64; FILTER_WORDS];
        let slot = |low: u64| (low as usize) % (FILTER_WORDS * 64);
        for &k in &new {
            let s = slot(k as u64);
            filter[s / 64] |= 1 << (s % 64);
        }
        let mut scanned: FastMap<u128, Option<Entry>> =
            new.into_iter().map(|k| (k, None)).collect();
        let mut look = |b: &[u8]| {
            let s = slot(u64::from_le_bytes([
                b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
            ]));
            if filter[s / 64] & (1 << (s % 64)) != 0 {
                let e = decode_entry(b);
                if let Some(found) = scanned.get_mut(&e.key) {
                    *found = Some(e);
                }
            }
        };
        self.pass(&mut look);
        for e in &self.added {
            if let Some(found) = scanned.get_mut(&e.key) {
                *found = Some(*e);
            }
        }
        self.scanned = scanned;
    }

    /// The newest entry of `key`.
    pub(super) fn find(&mut self, key: u128) -> Option<Entry> {
        if self.is_empty() {
            return None;
        }
        if self.sorted.is_none() {
            if let Some(&found) = self.scanned.get(&key) {
                return found;
            }
            self.sort();
        }
        let sorted = self.sorted.as_deref().unwrap_or_default();
        let i = sorted.binary_search_by_key(&key, |e| e.key).ok()?;
        Some(sorted[i])
    }

    /// Adds entries this run appended to the file.
    pub(super) fn extend(&mut self, added: Vec<Entry>) {
        for e in &added {
            if let Some(found) = self.scanned.get_mut(&e.key) {
                *found = Some(*e);
            }
        }
        self.added.extend_from_slice(&added);
        if let Some(sorted) = self.sorted.take() {
            self.sorted = Some(merge(sorted, newest_by_key(added)));
        }
    }

    /// Forgets every entry (they were merged into the sorted file).
    pub(super) fn clear(&mut self) {
        *self = Log {
            path: self.path.take(),
            ..Log::default()
        };
    }

    /// Sorts every entry: the file's whole entries as they were at opening (and no more:
    /// the ones other runs appended since belong to no pass of this run), then this run's.
    fn sort(&mut self) {
        if self.sorted.is_some() {
            return;
        }
        let mut all = Vec::with_capacity(self.len());
        self.pass(&mut |b| all.push(decode_entry(b)));
        all.extend_from_slice(&self.added);
        self.sorted = Some(newest_by_key(all));
        self.scanned = FastMap::default();
    }

    /// Hands each whole entry of the file, up to the number there were at opening, to
    /// `each`, a buffer at a time; the highest generation among them is kept. A log that
    /// cannot be read is passed over as empty.
    fn pass(&mut self, each: &mut dyn FnMut(&[u8])) {
        let Some(path) = &self.path else { return };
        let Ok(file) = fs::File::open(path) else {
            self.generation = Some(0);
            return;
        };
        let mut rest = (self.at_open * ENTRY) as u64;
        let mut file = file.take(rest);
        let mut buf = vec![0u8; PASS_BYTES.min(rest as usize)];
        let mut generation = 0;
        while rest > 0 {
            let n = match read_full(&mut file, &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            for b in buf[..n - n % ENTRY].chunks_exact(ENTRY) {
                generation = generation.max(u32::from_le_bytes([b[20], b[21], b[22], b[23]]));
                each(b);
            }
            rest -= n as u64;
            if n % ENTRY != 0 {
                // The file ended inside an entry (it was cut short since it was opened).
                break;
            }
        }
        self.generation = Some(generation);
    }
}

/// Reads into `buf` until it is full or the file ends.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// The entries of the log at `path`, in file order.
pub(super) fn read_entries(path: &Path) -> Vec<Entry> {
    let bytes = fs::read(path).unwrap_or_default();
    bytes.chunks_exact(ENTRY).map(decode_entry).collect()
}

/// Appends `entries` to the log at `path` (created private), after cutting off a torn
/// last entry a killed run left, so that every entry stays at a multiple of its size.
pub(super) fn append(path: &Path, entries: &[Entry]) -> io::Result<()> {
    let mut options = fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path)?;
    let len = file.metadata()?.len();
    let torn = len % ENTRY as u64;
    if torn != 0 {
        file.set_len(len - torn)?;
    }
    let mut bytes = Vec::with_capacity(entries.len() * ENTRY);
    for e in entries {
        put_entry(&mut bytes, e);
    }
    file.write_all(&bytes)
}

/// `entries` sorted by key, keeping the last of equal keys (the newest).
pub(super) fn newest_by_key(mut entries: Vec<Entry>) -> Vec<Entry> {
    // A stable sort keeps equal keys in file order; keep the last of each run.
    // In place: a cold run saves up to 2^18 entries (8 MiB), which a second list would
    // double.
    entries.sort_by_key(|e| e.key);
    entries.dedup_by(|later, kept| {
        let same = later.key == kept.key;
        if same {
            *kept = *later;
        }
        same
    });
    entries
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn e(key: u128, count: u32) -> Entry {
        Entry {
            key,
            count,
            generation: 1,
        }
    }

    /// A log file holding `entries` in `dir`, opened.
    fn log(dir: &tempfile::TempDir, entries: &[(u128, u32)]) -> Log {
        let path = dir.path().join("counts.log");
        let mut bytes = Vec::new();
        for &(k, n) in entries {
            put_entry(&mut bytes, &e(k, n));
        }
        fs::write(&path, bytes).unwrap();
        Log::open(path)
    }

    #[test]
    fn a_few_keys_are_found_by_one_pass_without_sorting() {
        let dir = tempfile::tempdir().unwrap();
        let mut l = log(&dir, &[(5, 50), (1, 10), (5, 51), (9, 90)]);
        l.prepare(&[5, 7]);
        assert!(l.sorted.is_none());
        assert_eq!(l.find(5).map(|e| e.count), Some(51), "the newer of two");
        assert_eq!(l.find(7), None);
        assert!(l.sorted.is_none(), "keys the pass looked for need no sort");
        // A key no pass looked for: the log is sorted then.
        assert_eq!(l.find(1).map(|e| e.count), Some(10));
        assert!(l.sorted.is_some());
    }

    #[test]
    fn a_second_pass_or_many_keys_sort_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let mut l = log(&dir, &[(1, 10), (2, 20)]);
        l.prepare(&[1]);
        assert!(l.sorted.is_none());
        l.prepare(&[1]);
        assert!(l.sorted.is_none(), "keys already looked for");
        l.prepare(&[2]);
        assert!(
            l.sorted.is_some(),
            "a second pass costs more than sorting once"
        );
        let many: Vec<u128> = (0..=SEARCH_MAX as u128).collect();
        let mut l = log(&dir, &[(1, 10)]);
        l.prepare(&many);
        assert!(l.sorted.is_some());
        assert_eq!(l.find(1).map(|e| e.count), Some(10));
    }

    #[test]
    fn entries_appended_by_others_or_torn_after_opening_are_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let mut l = log(&dir, &[(1, 10), (2, 20)]);
        let path = dir.path().join("counts.log");
        append(&path, &[e(3, 30)]).unwrap();
        let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(&[7; 5]).unwrap();
        l.prepare(&[2, 3]);
        assert_eq!(l.find(2).map(|e| e.count), Some(20));
        assert_eq!(l.find(3), None, "appended after opening");
        assert_eq!(l.len(), 2);
        // A log cut short since: what is left is read, and nothing breaks.
        let mut l = log(&dir, &[(1, 10), (2, 20), (4, 40)]);
        fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(ENTRY as u64 + 3)
            .unwrap();
        assert_eq!(l.find(1).map(|e| e.count), Some(10));
        assert_eq!(l.find(4), None);
        assert_eq!(l.generation(), 1);
    }

    #[test]
    fn the_generation_is_the_highest_in_the_file_and_this_runs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("counts.log");
        let mut bytes = Vec::new();
        for g in [3, 9, 4] {
            put_entry(
                &mut bytes,
                &Entry {
                    key: u128::from(g),
                    count: 1,
                    generation: g,
                },
            );
        }
        fs::write(&path, bytes).unwrap();
        assert_eq!(Log::open(path.clone()).generation(), 9);
        let mut l = Log::open(path);
        l.prepare(&[3]);
        l.extend(vec![Entry {
            key: 1,
            count: 1,
            generation: 12,
        }]);
        assert_eq!(l.generation(), 12);
        assert_eq!(Log::open(dir.path().join("none")).generation(), 0);
        assert_eq!(Log::default().generation(), 0);
    }

    proptest! {
        /// Whatever is looked for, in whatever order, each find gives what sorting the
        /// whole log gives: the newest entry of the key. Keys are spread by `stride`, so
        /// that many share their filter bit (4,096 apart) or differ only in high bits;
        /// logs run over one pass's buffer.
        #[test]
        fn finds_what_a_sorted_log_finds(
            entries in prop::collection::vec((0u128..40, 0u32..1000), 0..200),
            padding in prop::sample::select(vec![0usize, PASS_BYTES / ENTRY - 3]),
            lookups in prop::collection::vec(prop::collection::vec(0u128..50, 0..12), 0..4),
            added in prop::collection::vec((0u128..50, 0u32..1000), 0..10),
            later in prop::collection::vec(0u128..50, 0..12),
            stride in prop::sample::select(vec![1u128, 2048, 4096, 1 << 64, 3 << 100]),
        ) {
            let key = |k: u128| k.wrapping_mul(stride);
            // Keys no lookup asks for (odd multiples of 2^120) first, when padded.
            let mut spread: Vec<(u128, u32)> =
                (0..padding).map(|i| ((2 * i as u128 + 1) << 120 | 1 << 127, 1)).collect();
            spread.extend(entries.iter().map(|&(k, n)| (key(k), n)));
            let dir = tempfile::tempdir().unwrap();
            let mut l = log(&dir, &spread);
            let mut all: Vec<Entry> = spread.iter().map(|&(k, n)| e(k, n)).collect();
            let newest = |all: &[Entry], k: u128| {
                let sorted = newest_by_key(all.to_vec());
                sorted.binary_search_by_key(&k, |e| e.key).ok().map(|i| sorted[i])
            };
            for keys in &lookups {
                let keys: Vec<u128> = keys.iter().map(|&k| key(k)).collect();
                l.prepare(&keys);
                for &k in &keys {
                    prop_assert_eq!(l.find(k), newest(&all, k));
                }
            }
            let added: Vec<Entry> = added.iter().map(|&(k, n)| e(key(k), n)).collect();
            l.extend(added.clone());
            all.extend(added);
            // Looked for after this run's entries were added (the first pass, when no
            // lookup came before).
            let later: Vec<u128> = later.iter().map(|&k| key(k)).collect();
            l.prepare(&later);
            for &k in &later {
                prop_assert_eq!(l.find(k), newest(&all, k));
            }
            for k in 0..50u128 {
                prop_assert_eq!(l.find(key(k)), newest(&all, key(k)));
            }
            prop_assert_eq!(l.len(), all.len());
        }
    }
}
