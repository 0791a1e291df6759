//! The listing index: what `ctxctl sessions` needs of every session it listed, in one
//! file, so that a warm listing of thousands of unchanged sessions reads one file instead
//! of one JSON digest per session (3,000 of them took most of a warm run's time).
//!
//! Each entry is a session file's digest ([`Digest`], without the resume point's shapes,
//! which only a grown file's check reads), keyed by the file's canonical path and kept with
//! the file's stat identity ([`Seen`](crate::cache::digest::Seen)) before it was read. An entry answers only while the
//! file's identity is exactly that one, with times old enough to vouch for it (the rule of
//! the session digests, see [`crate::cache::digest`]): a file grown, rewritten or replaced
//! since is checked again through its own digest, and its entry replaced.
//!
//! The file (`listing` in the digests directory, so that `cache clear` removes it) is
//! binary: a magic, this build's id ([`build_id`]: another build may count differently),
//! the entries (path, the digest's small fields as JSON, its counts as little-endian
//! `u32`s, the earlier usage reports as pairs of `u64`s), then an xxh3 checksum of all
//! before it. The counts and the earlier reports, most of an entry, are decoded only for
//! the entries asked for, and from binary: as JSON, the reports of 3,000 sessions took
//! a third of a warm listing's time to parse. It is read once per run and written
//! back (temp file, then rename, private) only when the run learned or dropped an entry:
//! at most [`MAX_ENTRIES`], this run's first. A missing, damaged or foreign file is empty.
//!
//! The entries a run makes are encoded as it makes them and kept in an unnamed temp file
//! beside the index ([`Spill`]), not in memory: a cold listing of 3,000 sessions (3 GB)
//! made 11 MB of them, held to the end of the run and then encoded again whole, beside
//! the largest file being measured. The index is written back piece by piece from there.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::{self, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::digest::{build_id, Digest, Stat, DIGEST_VERSION};
use super::spill::Spill;

const MAGIC: &[u8; 8] = b"ctxlst02";
/// At most this many sessions are kept.
pub const MAX_ENTRIES: usize = 50_000;

/// The listing index of one run: the entries read, and what this run changed.
#[derive(Debug)]
pub struct ListingStore {
    file: PathBuf,
    build: String,
    /// The index's bytes, where the known entries' counts are read from when asked for.
    raw: Vec<u8>,
    /// Each entry's digest without its counts and earlier usage reports, and where they
    /// are in `raw`.
    known: HashMap<PathBuf, (Digest, std::ops::Range<usize>)>,
    changes: Mutex<Changes>,
}

#[derive(Debug, Default)]
struct Changes {
    /// Known entries this run used as they were.
    kept: HashSet<PathBuf>,
    /// Entries this run made anew: where each is in `spill` (an entry made again
    /// replaces the place of the one before).
    added: HashMap<PathBuf, Range<u64>>,
    /// The entries made, encoded.
    spill: Spill,
    /// Known entries found stale (dropped when the file is written back).
    stale: HashSet<PathBuf>,
    /// Whether the file must be written back (an entry added or found stale).
    dirty: bool,
}

impl ListingStore {
    /// The index kept in the digests directory `dir`, for this build.
    pub fn open(dir: &Path) -> ListingStore {
        ListingStore::for_build(dir, build_id())
    }

    fn for_build(dir: &Path, build: String) -> ListingStore {
        let file = dir.join("listing");
        let raw = fs::read(&file).unwrap_or_default();
        let known = decode(&raw, &build).unwrap_or_default();
        ListingStore {
            file,
            build,
            raw,
            known,
            changes: Mutex::new(Changes::default()),
        }
    }

    /// The digest of the file at the canonical path `path`, whose stat identity is now
    /// `now`, if the entry kept vouches for it unread.
    pub fn get(&self, path: &Path, now: &Stat) -> Option<Digest> {
        let (d, counts) = self.known.get(path)?;
        match d.seen {
            Some(seen) if seen.vouches_for(now) => {
                self.changes().kept.insert(path.to_path_buf());
                Some(self.whole(d, counts.clone()))
            }
            _ => {
                let mut c = self.changes();
                c.stale.insert(path.to_path_buf());
                c.dirty = true;
                None
            }
        }
    }

    /// Remembers `digest` of the file at the canonical path `path`, if its stat identity
    /// can vouch for the file unread (else it would never answer).
    pub fn put(&self, path: &Path, digest: &Digest) {
        if !digest.seen.is_some_and(|s| s.can_vouch()) {
            return;
        }
        let light = Digest {
            resume: None,
            ..digest.clone()
        };
        let same = self
            .known
            .get(path)
            .is_some_and(|(d, counts)| self.whole(d, counts.clone()) == light);
        if same {
            self.changes().kept.insert(path.to_path_buf());
            return;
        }
        let mut entry = Vec::new();
        encode_entry(&mut entry, path, light);
        let mut c = self.changes();
        let dir = self.file.parent().unwrap_or(Path::new("."));
        match c.spill.push(dir, &entry) {
            Ok(at) => {
                c.added.insert(path.to_path_buf(), at);
            }
            // Not kept (the index is only an optimisation): the entry before, if this run
            // made one, no longer describes the file either.
            Err(_) => {
                c.added.remove(path);
            }
        }
        c.dirty = true;
    }

    /// `d` with its counts and earlier usage reports, read from `raw[tail]` (checked
    /// when the index was read).
    fn whole(&self, d: &Digest, tail: std::ops::Range<usize>) -> Digest {
        let (counts, earlier) = self.raw[tail].split_at(d.messages * 4);
        let mut whole = Digest {
            counts: counts
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
            ..d.clone()
        };
        if let Some(u) = &mut whole.usage {
            let word = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or_default());
            u.earlier = earlier[8..]
                .chunks_exact(16)
                .map(|p| (word(&p[..8]) as usize, word(&p[8..])))
                .collect();
        }
        whole
    }

    fn changes(&self) -> std::sync::MutexGuard<'_, Changes> {
        self.changes.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes the index back when this run changed it: this run's entries (in the order
    /// they were made), then the others known that are not stale, up to [`MAX_ENTRIES`];
    /// piece by piece, one entry in memory at a time.
    pub fn save(mut self) -> io::Result<()> {
        let c = std::mem::take(&mut *self.changes());
        if !c.dirty {
            return Ok(());
        }
        let known = std::mem::take(&mut self.known);
        let mut added: Vec<&Range<u64>> = c.added.values().collect();
        added.sort_by_key(|r| r.start);
        let old = |p: &PathBuf| !c.added.contains_key(p);
        // The known entries used as they were, then the others not found stale.
        let kept = known.iter().filter(|(p, _)| c.kept.contains(*p) && old(p));
        let others = known
            .iter()
            .filter(|(p, _)| !c.kept.contains(*p) && old(p) && !c.stale.contains(*p));
        let n = (added.len() + kept.clone().count() + others.clone().count()).min(MAX_ENTRIES);
        let dir = self.file.parent().unwrap_or(Path::new("."));
        crate::fsutil::create_private_dir(dir)?;
        crate::fsutil::write_replace_cache_by(&self.file, &mut |w| {
            let mut out = Summed::new(w);
            out.write_all(&header(&self.build, n))?;
            for at in added.iter().take(n) {
                c.spill.copy(at, &mut out)?;
            }
            let mut entry = Vec::new();
            for (p, (d, counts)) in kept
                .clone()
                .chain(others.clone())
                .take(n.saturating_sub(added.len()))
            {
                entry.clear();
                encode_entry(&mut entry, p, self.whole(d, counts.clone()));
                out.write_all(&entry)?;
            }
            let sum = out.sum.digest();
            out.inner.write_all(&sum.to_le_bytes())
        })
    }
}

/// A writer that hashes what passes through it (the index ends with the xxh3 of all
/// before).
struct Summed<'a> {
    inner: &'a mut dyn Write,
    sum: xxhash_rust::xxh3::Xxh3Default,
}

impl<'a> Summed<'a> {
    fn new(inner: &'a mut dyn Write) -> Summed<'a> {
        Summed {
            inner,
            sum: xxhash_rust::xxh3::Xxh3Default::new(),
        }
    }
}

impl Write for Summed<'_> {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(b)?;
        self.sum.update(&b[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u64).to_le_bytes());
    out.extend_from_slice(b);
}

/// The index's start, for `n` entries of `build`.
fn header(build: &str, n: usize) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&DIGEST_VERSION.to_le_bytes());
    put_bytes(&mut out, build.as_bytes());
    out.extend_from_slice(&(n as u64).to_le_bytes());
    out
}

/// Appends the entry of `d` (the file at `path`) to `out`: the path, the digest's small
/// fields as JSON, its counts, its earlier usage reports.
fn encode_entry(out: &mut Vec<u8>, path: &Path, mut d: Digest) {
    put_bytes(out, path.as_os_str().as_encoded_bytes());
    let counts = std::mem::take(&mut d.counts);
    let earlier = d
        .usage
        .as_mut()
        .map_or_else(Vec::new, |u| std::mem::take(&mut u.earlier));
    put_bytes(out, &serde_json::to_vec(&d).unwrap_or_default());
    out.extend_from_slice(&(counts.len() as u64).to_le_bytes());
    for n in &counts {
        out.extend_from_slice(&n.to_le_bytes());
    }
    out.extend_from_slice(&(earlier.len() as u64).to_le_bytes());
    for &(at, tokens) in &earlier {
        out.extend_from_slice(&(at as u64).to_le_bytes());
        out.extend_from_slice(&tokens.to_le_bytes());
    }
}

/// The whole index of `entries` for `build`, as one buffer (what [`ListingStore::save`]
/// writes piece by piece).
#[cfg(test)]
fn encode(build: &str, entries: &[(PathBuf, Digest)]) -> Vec<u8> {
    let mut out = header(build, entries.len());
    for (path, d) in entries {
        encode_entry(&mut out, path, d.clone());
    }
    let sum = xxhash_rust::xxh3::xxh3_64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// Reads the index `b` for `build`: each entry's digest without its counts and earlier
/// usage reports, and where they are in `b`; `None` for anything else (damaged, foreign,
/// another version or build).
fn decode(b: &[u8], build: &str) -> Option<HashMap<PathBuf, (Digest, std::ops::Range<usize>)>> {
    let (body, sum) = b.split_at_checked(b.len().checked_sub(8)?)?;
    if xxhash_rust::xxh3::xxh3_64(body) != u64::from_le_bytes(sum.try_into().ok()?) {
        return None;
    }
    let mut r = Reader(body);
    if r.take(8)? != MAGIC
        || u32::from_le_bytes(r.take(4)?.try_into().ok()?) != DIGEST_VERSION
        || r.bytes()? != build.as_bytes()
    {
        return None;
    }
    let n = r.u64()?;
    let mut out = HashMap::with_capacity(n.min(MAX_ENTRIES as u64) as usize);
    for _ in 0..n {
        let path = PathBuf::from(path_of(r.bytes()?)?);
        let d: Digest = serde_json::from_slice(r.bytes()?).ok()?;
        let counts = usize::try_from(r.u64()?).ok()?;
        let start = body.len() - r.0.len();
        r.take(counts.checked_mul(4)?)?;
        let earlier = usize::try_from(r.u64()?).ok()?;
        r.take(earlier.checked_mul(16)?)?;
        let kept = d.usage.as_ref().map_or(0, |u| u.earlier.len());
        if d.version != DIGEST_VERSION
            || counts != d.messages
            || kept != 0
            || (earlier != 0 && d.usage.is_none())
        {
            return None;
        }
        out.insert(path, (d, start..body.len() - r.0.len()));
    }
    r.0.is_empty().then_some(out)
}

#[cfg(unix)]
fn path_of(b: &[u8]) -> Option<std::ffi::OsString> {
    use std::os::unix::ffi::OsStrExt;
    Some(std::ffi::OsStr::from_bytes(b).to_os_string())
}

#[cfg(not(unix))]
fn path_of(b: &[u8]) -> Option<std::ffi::OsString> {
    Some(std::str::from_utf8(b).ok()?.into())
}

/// The bytes of an index not read yet.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.u64()?).ok()?;
        self.take(n)
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::cache::digest::{Seen, Usage};
    use crate::session::AgentLimits;

    /// The digest of a file seen as `seen`.
    fn digest(seen: Seen, counts: Vec<u32>) -> Digest {
        Digest {
            version: DIGEST_VERSION,
            len: seen.stat.len as usize,
            hash: 7,
            format: "claude-code".into(),
            model: Some("claude-sonnet-4-5".into()),
            messages: counts.len(),
            warnings: vec!["a warning".into()],
            usage: None,
            problems: Vec::new(),
            encoding: "o200k_base".into(),
            factor: 1.1,
            counts,
            resume: None,
            agent_limits: AgentLimits::default(),
            extra_tokens: 3,
            seen: Some(seen),
        }
    }

    /// A file seen long after its last write (its entry can vouch for it).
    fn seen(ino: u64, len: u64) -> Seen {
        Seen {
            stat: Stat {
                dev: 1,
                ino,
                len,
                mtime: 1_000_000_000,
                ctime: 1_000_000_000,
            },
            at: 100_000_000_000,
        }
    }

    #[test]
    fn an_entry_answers_only_for_the_identity_it_was_taken_of() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (Path::new("/s/a.jsonl"), Path::new("/s/b.jsonl"));
        let store = ListingStore::for_build(dir.path(), "b1".into());
        store.put(a, &digest(seen(1, 10), vec![4, 5]));
        store.put(b, &digest(seen(2, 20), vec![6]));
        store.save().unwrap();

        let store = ListingStore::for_build(dir.path(), "b1".into());
        assert_eq!(
            store.get(a, &seen(1, 10).stat),
            Some(digest(seen(1, 10), vec![4, 5]))
        );
        // Grown, replaced (another inode), rewritten (a later change time): not answered.
        assert_eq!(store.get(b, &seen(2, 21).stat), None);
        assert_eq!(store.get(b, &seen(3, 20).stat), None);
        let later = Stat {
            ctime: 2_000_000_000,
            ..seen(2, 20).stat
        };
        assert_eq!(store.get(b, &later), None);
        assert_eq!(store.get(Path::new("/s/c.jsonl"), &seen(1, 10).stat), None);
        store.save().unwrap();
        let store = ListingStore::for_build(dir.path(), "b1".into());
        assert_eq!(store.known.len(), 1, "the stale entry is dropped");
    }

    #[test]
    fn usage_reports_come_back_as_they_were_kept() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (Path::new("/s/a.jsonl"), Path::new("/s/b.jsonl"));
        let reported = Digest {
            usage: Some(Usage {
                input_tokens: 25_108,
                output_tokens: 121,
                after_message: Some(2),
                request_end: Some(2),
                earlier: vec![(0, 19_226), (1, u64::MAX)],
                dropped: 4,
            }),
            ..digest(seen(1, 10), vec![4, 5, 6])
        };
        let none_earlier = Digest {
            usage: Some(Usage {
                earlier: Vec::new(),
                ..reported.usage.clone().unwrap()
            }),
            ..digest(seen(2, 20), vec![7])
        };
        let store = ListingStore::for_build(dir.path(), "b1".into());
        store.put(a, &reported);
        store.put(b, &none_earlier);
        store.save().unwrap();
        let store = ListingStore::for_build(dir.path(), "b1".into());
        assert_eq!(store.get(a, &seen(1, 10).stat), Some(reported));
        assert_eq!(store.get(b, &seen(2, 20).stat), Some(none_earlier));
    }

    #[test]
    fn an_identity_too_recent_to_vouch_is_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = ListingStore::for_build(dir.path(), "b1".into());
        let mut recent = seen(1, 10);
        recent.at = recent.stat.ctime;
        store.put(Path::new("/s/a.jsonl"), &digest(recent, vec![1]));
        store.save().unwrap();
        assert!(!dir.path().join("listing").exists());
    }

    #[test]
    fn a_damaged_or_foreign_index_is_empty_and_written_private() {
        let dir = tempfile::tempdir().unwrap();
        let a = Path::new("/s/a.jsonl");
        let store = ListingStore::for_build(dir.path(), "b1".into());
        store.put(a, &digest(seen(1, 10), vec![4, 5]));
        store.save().unwrap();
        let file = dir.path().join("listing");
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let good = fs::read(&file).unwrap();
        assert_eq!(decode(&good, "b1").unwrap().len(), 1);
        assert_eq!(decode(&good, "b2"), None, "another build");
        for at in [0, 9, good.len() / 2, good.len() - 12, good.len() - 1] {
            let mut bad = good.clone();
            bad[at] ^= 0x20;
            assert_eq!(decode(&bad, "b1"), None, "a byte flipped at {at}");
        }
        assert_eq!(decode(&good[..good.len() - 3], "b1"), None, "cut short");
        assert_eq!(decode(b"", "b1"), None);
        fs::write(&file, b"not an index").unwrap();
        let store = ListingStore::for_build(dir.path(), "b1".into());
        assert!(store.known.is_empty());
    }

    #[test]
    fn the_index_written_piece_by_piece_is_the_one_encoded_whole() {
        // This run's entries come first, in the order they were made; one made twice is
        // written once, as made last.
        let dir = tempfile::tempdir().unwrap();
        let (a, b, c) = (
            Path::new("/s/a.jsonl"),
            Path::new("/s/b.jsonl"),
            Path::new("/s/c.jsonl"),
        );
        let store = ListingStore::for_build(dir.path(), "b1".into());
        store.put(b, &digest(seen(2, 20), vec![6]));
        store.put(a, &digest(seen(1, 10), vec![4, 5]));
        store.put(c, &digest(seen(3, 30), vec![1, 2, 3]));
        store.put(b, &digest(seen(2, 21), vec![6, 7]));
        store.save().unwrap();
        let want = encode(
            "b1",
            &[
                (a.to_path_buf(), digest(seen(1, 10), vec![4, 5])),
                (c.to_path_buf(), digest(seen(3, 30), vec![1, 2, 3])),
                (b.to_path_buf(), digest(seen(2, 21), vec![6, 7])),
            ],
        );
        assert_eq!(fs::read(dir.path().join("listing")).unwrap(), want);
        assert_eq!(decode(&want, "b1").unwrap().len(), 3);
    }
}
