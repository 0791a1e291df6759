//! Session digests: what `check` needs to know of a session file (its model, reading
//! warnings, provider-reported usage, structural problems and per-message counts), kept in
//! the cache directory, one per file, with the length and hash of the bytes it describes.
//! An unchanged session is then checked without reading it, or by reading and hashing it:
//! no record parsed, no message key computed, no tokenizer built. A session that only grew
//! (an agent appended messages to a JSON document or a JSONL file) is read once from the
//! start, its bytes before the digest's resume point hashed as they go by and dropped (but
//! for the first records, which tell its format): only the new records are parsed
//! (`crate::ops::grown`).
//!
//! An unchanged file need not even be read: like git's index ("racy git"), a digest keeps
//! the file's stat identity ([`Seen`]: device, inode, length, modification and change times
//! to the nanosecond) and when it was taken. When the file's identity is still exactly that,
//! and its times are older than the digest by [`SAFE_AGE`] or more, the digest answers
//! without a byte read: the change time cannot be set by users and moves on every write,
//! and the margin rules out a write landing in the same timestamp granule as the one the
//! digest saw. Anything else (another identity, recent times, another platform) is hashed,
//! and the hash stays the authority.
//!
//! Like the count cache it is an optimisation only: a missing, unreadable or foreign digest
//! is a miss, and a digest that cannot be written is skipped. Each digest is a small JSON
//! file written atomically (temp file, then rename), so concurrent runs never see half of
//! one; the directory is kept to [`MAX_DIGESTS`] files and [`MAX_BYTES`], least recently
//! used first out.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::session::pairs::{Shape, Shapes, Turn};
use crate::session::AgentLimits;
use crate::session::{Format, ReportedUsage, Resume};
use crate::tokens::Encoding;

/// Bumped whenever a digest's meaning or layout changes.
pub const DIGEST_VERSION: u32 = 12;
/// At most this many digests are kept.
pub const MAX_DIGESTS: usize = 20_000;
/// At most this many bytes of digests are kept.
pub const MAX_BYTES: u64 = 256 << 20;
/// A digest used again is re-stamped (for eviction) once it is this old.
const REFRESH_AFTER: Duration = Duration::from_secs(3600);
/// How much older than its digest a file's modification and change times must be for the
/// digest to vouch for it unread: more than any file system's timestamp granule (FAT's is
/// 2 s; the kernel's coarse clock lags by a tick), so that a write just after the digest was
/// taken cannot leave the times as the digest saw them.
pub const SAFE_AGE: Duration = Duration::from_secs(2);

/// A file's stat identity, as `check` saw it before reading the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stat {
    pub dev: u64,
    pub ino: u64,
    pub len: u64,
    /// Modification and change times, in nanoseconds since the epoch.
    pub mtime: i128,
    pub ctime: i128,
}

impl Stat {
    /// The identity of the file `meta` describes; `None` off Unix (no change time nor inode
    /// to trust there: such files are always hashed).
    #[cfg(unix)]
    pub fn of(meta: &fs::Metadata) -> Option<Stat> {
        use std::os::unix::fs::MetadataExt;
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        Some(Stat {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            mtime: ns(meta.mtime(), meta.mtime_nsec()),
            ctime: ns(meta.ctime(), meta.ctime_nsec()),
        })
    }

    #[cfg(not(unix))]
    pub fn of(_meta: &fs::Metadata) -> Option<Stat> {
        None
    }
}

/// A file's stat identity and when it was taken (the clock read before the stat, which
/// was before the file was read).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seen {
    pub stat: Stat,
    /// Nanoseconds since the epoch.
    pub at: i128,
}

impl Seen {
    /// The time to take before a stat that a [`Seen`] is made of.
    pub fn clock() -> Option<i128> {
        nanos(SystemTime::now())
    }

    /// The regular file at `path` as it is now; `None` for anything else, or off Unix.
    pub fn now(path: &Path) -> Option<Seen> {
        let at = nanos(SystemTime::now())?;
        let meta = fs::metadata(path).ok()?;
        meta.is_file().then_some(())?;
        Some(Seen {
            stat: Stat::of(&meta)?,
            at,
        })
    }

    /// Whether a file seen as `now` is, unread, the file this was taken of: the same
    /// identity, with times at least [`SAFE_AGE`] older than this was taken. A write after
    /// it was taken gives the file a change time past `at - SAFE_AGE`, so not this one.
    pub fn vouches_for(&self, now: &Stat) -> bool {
        let before = self.at - SAFE_AGE.as_nanos() as i128;
        self.stat == *now && now.mtime <= before && now.ctime <= before
    }

    /// Whether a digest taken with this could ever vouch for the file unread: its times are
    /// already old enough.
    pub fn can_vouch(&self) -> bool {
        self.vouches_for(&self.stat)
    }
}

/// `t` in nanoseconds since the epoch.
fn nanos(t: SystemTime) -> Option<i128> {
    let d = t.duration_since(SystemTime::UNIX_EPOCH).ok()?;
    i128::try_from(d.as_nanos()).ok()
}

/// What a read-only check needs of one session file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Digest {
    pub version: u32,
    /// Length and xxh3-128 hash of the bytes described.
    pub len: usize,
    pub hash: u128,
    pub format: String,
    /// The model the file names, if any.
    pub model: Option<String>,
    pub messages: usize,
    /// Warnings reading the file gave.
    pub warnings: Vec<String>,
    /// Provider-reported usage that still describes the session.
    pub usage: Option<Usage>,
    /// Structural problems (tool calls without results and the like), as printed.
    pub problems: Vec<String>,
    /// The tokenizer `counts` were made with.
    pub encoding: String,
    /// The factor they were scaled by (estimates for other vendors' models).
    pub factor: f64,
    /// Tokens of each message.
    pub counts: Vec<u32>,
    /// Where the records end, for reading a longer version of the file from there.
    pub resume: Option<Resumable>,
    /// The window and refusals the agent recorded.
    #[serde(default)]
    pub agent_limits: AgentLimits,
    /// Tokens a request body sends besides its messages (tools), scaled like `counts`.
    #[serde(default)]
    pub extra_tokens: usize,
    /// The file's stat identity before it was read, and when: what lets a later check
    /// trust the file unchanged without reading it (see the module's notes).
    #[serde(default)]
    pub seen: Option<Seen>,
}

/// What reading a grown file from where its digest ends needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resumable {
    /// Where the records end, and the hash of the bytes before.
    pub point: Resume,
    /// Each message's shape for pairing (structural problems span old and new messages):
    /// the indices of user turns, and the tool calls made and answered by index.
    pub user_turns: Vec<u32>,
    /// The indices of system messages (the Anthropic ordering rules skip them).
    #[serde(default)]
    pub systems: Vec<u32>,
    pub calls: Vec<(u32, String)>,
    pub results: Vec<(u32, String)>,
}

impl Resumable {
    /// `point`, and the `shapes` of the messages before it.
    pub fn new<T: Turn>(point: Resume, shapes: &[T]) -> Option<Resumable> {
        let none = Resumable {
            point,
            user_turns: Vec::new(),
            systems: Vec::new(),
            calls: Vec::new(),
            results: Vec::new(),
        };
        none.extend(point, shapes, 0)
    }

    /// [`Resumable::new`] of `point` and `shapes`, the first `known` of which are the
    /// messages this one was made of: only the later ones' ids are copied (a grown
    /// session's check extends its digest instead of copying every id again).
    pub fn extend<T: Turn>(
        mut self,
        point: Resume,
        shapes: &[T],
        known: usize,
    ) -> Option<Resumable> {
        // More known than there are shapes: not this session's start; all made anew.
        let known = if known > shapes.len() { 0 } else { known };
        let before = |i: &u32| (*i as usize) < known;
        self.user_turns.retain(before);
        self.systems.retain(before);
        self.calls.retain(|c| before(&c.0));
        self.results.retain(|r| before(&r.0));
        self.point = point;
        for (i, s) in shapes.iter().enumerate().skip(known) {
            let i = u32::try_from(i).ok()?;
            if s.is_user_turn() {
                self.user_turns.push(i);
            }
            if s.is_system() {
                self.systems.push(i);
            }
            self.calls.extend(s.calls().map(|c| (i, c.to_string())));
            self.results.extend(s.results().map(|c| (i, c.to_string())));
        }
        Some(self)
    }

    /// Adds the shapes of the `n` messages before the point to `out`, as [`Resumable::shapes`]
    /// gives them but without a string per id: a grown session's check rebuilds these for
    /// every earlier message (7K messages took ~1 ms that way at 2M tokens).
    pub fn push_shapes(&self, n: usize, out: &mut Shapes) {
        let sorted = self.user_turns.windows(2).all(|w| w[0] < w[1])
            && self.systems.windows(2).all(|w| w[0] < w[1])
            && self.calls.is_sorted_by_key(|c| c.0)
            && self.results.is_sorted_by_key(|r| r.0);
        if !sorted {
            // Not as `new` writes them: the slow way, which takes them in any order.
            self.shapes(n).into_iter().for_each(|s| out.push(s));
            return;
        }
        let mut systems = self.systems.iter().peekable();
        let (mut turns, mut calls, mut results) = (
            self.user_turns.iter().peekable(),
            self.calls.iter().peekable(),
            self.results.iter().peekable(),
        );
        let (mut made, mut answered) = (Vec::new(), Vec::new());
        for i in 0..n {
            let i = u32::try_from(i).unwrap_or(u32::MAX);
            let user_turn = turns.next_if(|&&t| t == i).is_some();
            let system = systems.next_if(|&&t| t == i).is_some();
            made.clear();
            while let Some((_, id)) = calls.next_if(|c| c.0 == i) {
                made.push(id.as_str());
            }
            answered.clear();
            while let Some((_, id)) = results.next_if(|r| r.0 == i) {
                answered.push(id.as_str());
            }
            out.push_turn(user_turn, system, &made, &answered);
        }
    }

    /// The shapes of the `n` messages before the point.
    pub fn shapes(&self, n: usize) -> Vec<Shape> {
        let mut out = vec![Shape::default(); n];
        for &i in &self.user_turns {
            if let Some(s) = out.get_mut(i as usize) {
                s.user_turn = true;
            }
        }
        for &i in &self.systems {
            if let Some(s) = out.get_mut(i as usize) {
                s.system = true;
            }
        }
        for (i, id) in &self.calls {
            if let Some(s) = out.get_mut(*i as usize) {
                s.calls.push(id.clone());
            }
        }
        for (i, id) in &self.results {
            if let Some(s) = out.get_mut(*i as usize) {
                s.results.push(id.clone());
            }
        }
        // As [`Shapes::push_turn`] takes them.
        for s in &mut out {
            s.assistant = !s.user_turn && !s.system && s.results.is_empty();
        }
        out
    }
}

/// [`ReportedUsage`] as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub after_message: Option<usize>,
    #[serde(default)]
    pub request_end: Option<usize>,
    #[serde(default)]
    pub earlier: Vec<(usize, u64)>,
    #[serde(default)]
    pub dropped: u64,
}

impl From<&ReportedUsage> for Usage {
    fn from(u: &ReportedUsage) -> Usage {
        Usage {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            after_message: u.after_message,
            request_end: u.request_end,
            earlier: u.earlier.clone(),
            dropped: u.dropped,
        }
    }
}

impl From<&Usage> for ReportedUsage {
    fn from(u: &Usage) -> ReportedUsage {
        ReportedUsage {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            after_message: u.after_message,
            request_end: u.request_end,
            earlier: u.earlier.clone(),
            dropped: u.dropped,
        }
    }
}

impl Digest {
    /// Whether it describes exactly `len` bytes hashing to `hash`.
    pub fn describes(&self, len: usize, hash: u128) -> bool {
        self.len == len && self.hash == hash
    }

    /// The counts, if they were made with `encoding` and scaled by `factor`.
    pub fn counts_for(&self, encoding: Encoding, factor: f64) -> Option<Vec<usize>> {
        (self.encoding == encoding.name() && self.factor == factor)
            .then(|| self.counts.iter().map(|&n| n as usize).collect())
    }
}

/// The key of a session file's digest: the file (its absolute path), the format it is
/// read as (`None`: detected), and the program reading it — a different build may read or
/// count differently, so it never reuses another build's digests.
fn key(file: &Path, format: Option<Format>, build: &str) -> u128 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&DIGEST_VERSION.to_le_bytes());
    for part in [build, format.map_or("auto", Format::name)] {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    h.update(file.as_os_str().as_encoded_bytes());
    h.digest128()
}

/// What identifies this build of ctxctl: its version and its executable's size and
/// modification time (a rebuilt or upgraded binary starts with no digests).
pub fn build_id() -> String {
    let exe = std::env::current_exe()
        .and_then(fs::metadata)
        .map(|m| {
            let modified = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{}:{modified}", m.len())
        })
        .unwrap_or_default();
    format!("{} {exe}", env!("CARGO_PKG_VERSION"))
}

/// The digests directory, for one build of ctxctl.
#[derive(Debug, Clone)]
pub struct DigestStore {
    dir: PathBuf,
    build: String,
}

impl DigestStore {
    /// The store in `dir` for this build ([`build_id`]).
    pub fn new(dir: PathBuf) -> DigestStore {
        DigestStore::for_build(dir, build_id())
    }

    fn for_build(dir: PathBuf, build: String) -> DigestStore {
        DigestStore { dir, build }
    }

    /// The key of the digest of `file` read as `format`; `None` for standard input or a
    /// file that cannot be resolved.
    pub fn key(&self, file: &Path, format: Option<Format>) -> Option<u128> {
        if file == Path::new("-") {
            return None;
        }
        let file = fs::canonicalize(file).ok()?;
        Some(key(&file, format, &self.build))
    }

    fn file(&self, key: u128) -> PathBuf {
        self.dir.join(format!("{key:032x}.json"))
    }

    /// The digest stored under `key`, if there is a readable one of this version.
    pub fn get(&self, key: u128) -> Option<Digest> {
        let path = self.file(key);
        let bytes = fs::read(&path).ok()?;
        let digest: Digest = serde_json::from_slice(&bytes).ok()?;
        if digest.version != DIGEST_VERSION {
            return None;
        }
        touch_if_old(&path);
        Some(digest)
    }

    /// Stores `digest` under `key` (a private file, replaced atomically).
    pub fn put(&self, key: u128, digest: &Digest) -> io::Result<()> {
        crate::fsutil::create_private_dir(&self.dir)?;
        let bytes = serde_json::to_vec(digest).map_err(io::Error::other)?;
        crate::fsutil::write_replace_cache(&self.file(key), &bytes)
    }

    /// After a run that stored `added` digests: removes the least recently used beyond
    /// [`MAX_DIGESTS`] files or [`MAX_BYTES`], and temp files interrupted runs left. The
    /// directory is listed at most once an hour (a run storing many digests lists it
    /// anyway): a cron job checking thousands of files does not list it on every run.
    /// Returns how many digests were removed.
    pub fn evict(&self, added: usize) -> io::Result<usize> {
        let marker = self.dir.join(".trimmed");
        let recent = fs::metadata(&marker)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t.elapsed().is_ok_and(|age| age < REFRESH_AFTER));
        if recent && added < 1000 {
            return Ok(0);
        }
        crate::fsutil::clean_stale_temps(&self.dir);
        let removed = self.evict_to(MAX_DIGESTS, MAX_BYTES)?;
        fs::write(&marker, b"")?;
        Ok(removed)
    }

    fn evict_to(&self, max_files: usize, max_bytes: u64) -> io::Result<usize> {
        let mut files = Vec::new();
        for entry in fs::read_dir(&self.dir)? {
            let entry = entry?;
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let Ok(meta) = entry.metadata() else { continue };
            let used = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            files.push((used, meta.len(), path));
        }
        // Newest first: keep while within both limits.
        files.sort_by_key(|f| std::cmp::Reverse(f.0));
        let (mut kept, mut bytes, mut removed) = (0, 0, 0);
        for (_, len, path) in files {
            if kept < max_files && bytes + len <= max_bytes {
                kept += 1;
                bytes += len;
            } else if fs::remove_file(&path).is_ok() {
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// Deletes every digest; returns whether there were any.
    pub fn clear(&self) -> io::Result<bool> {
        match fs::remove_dir_all(&self.dir) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// Marks a digest as used now, at most once per [`REFRESH_AFTER`] (eviction goes by it).
fn touch_if_old(path: &Path) {
    let now = SystemTime::now();
    let old = fs::metadata(path)
        .and_then(|m| m.modified())
        .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age > REFRESH_AFTER));
    if old {
        if let Ok(f) = fs::File::options().write(true).open(path) {
            let _ = f.set_modified(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(counts: Vec<u32>) -> Digest {
        Digest {
            version: DIGEST_VERSION,
            len: 10,
            hash: 42,
            format: "openai".into(),
            model: Some("gpt-4o".into()),
            messages: counts.len(),
            warnings: vec!["a warning".into()],
            usage: Some(Usage {
                input_tokens: 10,
                output_tokens: 2,
                after_message: Some(1),
                request_end: Some(1),
                earlier: vec![(0, 10)],
                dropped: 0,
            }),
            problems: vec!["message 2: a problem".into()],
            encoding: "o200k_base".into(),
            factor: 1.0,
            counts,
            resume: None,
            agent_limits: AgentLimits::default(),
            extra_tokens: 0,
            seen: None,
        }
    }

    #[test]
    fn a_stored_digest_comes_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let store = DigestStore::new(dir.path().join("digests"));
        let d = digest(vec![5, 7, 9]);
        assert_eq!(store.get(1), None);
        store.put(1, &d).unwrap();
        assert_eq!(store.get(1), Some(d.clone()));
        assert_eq!(d.counts_for(Encoding::O200kBase, 1.0), Some(vec![5, 7, 9]));
        assert_eq!(d.counts_for(Encoding::Cl100kBase, 1.0), None);
        assert_eq!(d.counts_for(Encoding::O200kBase, 1.2), None);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(store.file(1)).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn broken_or_foreign_digests_are_misses() {
        let dir = tempfile::tempdir().unwrap();
        let store = DigestStore::new(dir.path().to_path_buf());
        fs::write(store.file(1), b"{not json").unwrap();
        assert_eq!(store.get(1), None);
        let mut old = digest(vec![1]);
        old.version = DIGEST_VERSION + 1;
        store.put(2, &old).unwrap();
        assert_eq!(store.get(2), None);
    }

    #[test]
    fn keys_depend_on_file_format_and_build() {
        let (a, b) = (Path::new("/s/a.json"), Path::new("/s/b.json"));
        let base = key(a, None, "b1");
        assert_ne!(base, key(b, None, "b1"));
        assert_ne!(base, key(a, Some(Format::Jsonl), "b1"));
        assert_ne!(base, key(a, None, "b2"));
        assert_eq!(base, key(a, None, "b1"));
        let store = DigestStore::for_build(PathBuf::from("/d"), "b1".into());
        assert_eq!(store.key(Path::new("-"), None), None);
    }

    #[test]
    fn a_resume_point_keeps_the_shapes() {
        let shapes = vec![
            Shape {
                user_turn: true,
                ..Shape::default()
            },
            Shape {
                calls: vec!["c1".into(), "c2".into()],
                assistant: true,
                ..Shape::default()
            },
            Shape {
                results: vec!["c1".into()],
                ..Shape::default()
            },
        ];
        let bytes = b"[{...},{...},{...}] and more";
        // The records end before the `]`.
        let point = Resume {
            len: 18,
            records: 3,
            hash: xxhash_rust::xxh3::xxh3_128(&bytes[..18]),
            head: 1,
        };
        let r = Resumable::new(point, &shapes).unwrap();
        assert_eq!(r.shapes(3), shapes);
        assert_eq!(r.point, point);
    }

    #[test]
    fn shapes_pushed_from_a_resume_point_are_its_shapes() {
        let slow = |r: &Resumable, n| {
            let mut s = Shapes::default();
            r.shapes(n).into_iter().for_each(|x| s.push(x));
            s
        };
        let fast = |r: &Resumable, n| {
            let mut s = Shapes::default();
            r.push_shapes(n, &mut s);
            s
        };
        let point = Resume {
            len: 0,
            records: 0,
            hash: 0,
            head: 0,
        };
        let r = Resumable {
            point,
            user_turns: vec![0, 3, 5],
            systems: vec![6],
            calls: vec![(1, "a".into()), (1, "b".into()), (4, "c".into())],
            results: vec![
                (2, "a".into()),
                (2, "b".into()),
                (5, "c".into()),
                (9, "x".into()),
            ],
        };
        for n in [0, 3, 6, 10] {
            assert_eq!(fast(&r, n), slow(&r, n), "{n}");
        }
        // Extended by the shapes of later messages: as made from all of them.
        let mut all = r.shapes(6);
        all.push(Shape {
            user_turn: true,
            calls: vec!["d".into()],
            ..Shape::default()
        });
        all.push(Shape {
            results: vec!["d".into()],
            ..Shape::default()
        });
        let made = Resumable::new(point, &all).unwrap();
        assert_eq!(r.clone().extend(point, &all, 6), Some(made.clone()));
        assert_ne!(
            r.clone().extend(point, &all, 6),
            Resumable::new(point, &all[..6])
        );
        assert_ne!(fast(&r, 6), Shapes::default());
        // Out of order (not as `new` writes them): as the slow way reads them.
        let mut shuffled = r.clone();
        shuffled.user_turns = vec![5, 0, 3];
        shuffled.calls.swap(0, 2);
        assert_eq!(fast(&shuffled, 6), slow(&shuffled, 6));
    }

    #[test]
    fn a_stat_identity_vouches_only_for_itself_and_old_times() {
        let stat = Stat {
            dev: 1,
            ino: 2,
            len: 3,
            mtime: 10_000_000_000,
            ctime: 11_000_000_000,
        };
        let margin = SAFE_AGE.as_nanos() as i128;
        let seen = Seen {
            stat,
            at: stat.ctime + margin,
        };
        assert!(seen.vouches_for(&stat) && seen.can_vouch());
        // Taken within the margin of the last write: hashed.
        let recent = Seen {
            at: seen.at - 1,
            ..seen
        };
        assert!(!recent.vouches_for(&stat) && !recent.can_vouch());
        let others = [
            Stat { dev: 9, ..stat },
            Stat { ino: 9, ..stat },
            Stat { len: 9, ..stat },
            Stat {
                mtime: stat.mtime - 1,
                ..stat
            },
            Stat {
                ctime: stat.ctime + 1,
                ..stat
            },
        ];
        for other in others {
            assert!(!seen.vouches_for(&other), "{other:?}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_rewrite_of_the_same_length_and_mtime_moves_the_change_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        fs::write(&path, b"aaaa").unwrap();
        let old = SystemTime::now() - Duration::from_secs(3600);
        let set = |t| {
            fs::File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(t)
                .unwrap()
        };
        set(old);
        let before = Seen::now(&path).unwrap();
        // Past the kernel's coarse clock tick, so that the change time can move.
        std::thread::sleep(Duration::from_millis(20));
        fs::write(&path, b"bbbb").unwrap();
        set(old);
        let after = Seen::now(&path).unwrap();
        assert_eq!(
            (after.stat.len, after.stat.mtime),
            (before.stat.len, before.stat.mtime)
        );
        assert_ne!(after.stat.ctime, before.stat.ctime);
        assert!(!before.vouches_for(&after.stat));
        assert_eq!(Seen::now(dir.path()), None, "not a regular file");
    }

    #[test]
    fn old_digests_without_an_identity_still_read() {
        let mut json = serde_json::to_value(digest(vec![1])).unwrap();
        json.as_object_mut().unwrap().remove("seen");
        let d: Digest = serde_json::from_value(json).unwrap();
        assert_eq!(d.seen, None);
    }

    #[test]
    fn eviction_keeps_the_most_recently_used() {
        let dir = tempfile::tempdir().unwrap();
        let store = DigestStore::new(dir.path().to_path_buf());
        let base = SystemTime::now() - Duration::from_secs(10_000);
        for k in 0..5u128 {
            store.put(k, &digest(vec![1])).unwrap();
            let f = fs::File::options().write(true).open(store.file(k)).unwrap();
            f.set_modified(base + Duration::from_secs(k as u64 * 10))
                .unwrap();
        }
        assert_eq!(store.evict_to(3, u64::MAX).unwrap(), 2);
        let left: Vec<bool> = (0..5).map(|k| store.file(k).exists()).collect();
        assert_eq!(left, [false, false, true, true, true]);
        let one = fs::metadata(store.file(4)).unwrap().len();
        assert_eq!(store.evict_to(10, one).unwrap(), 2);
        assert!(store.file(4).exists());
        assert!(store.clear().unwrap());
        assert!(!store.clear().unwrap());
    }
}
