//! Session digests: what `check` needs to know of a session file (its model, reading
//! warnings, provider-reported usage, structural problems and per-message counts), kept in
//! the cache directory under a hash of the file's exact bytes. An unchanged session is then
//! checked by reading and hashing it: no record parsed, no message key computed, no
//! tokenizer built.
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

use super::Encoding;
use crate::session::{Format, ReportedUsage};

/// Bumped whenever a digest's meaning or layout changes.
pub const DIGEST_VERSION: u32 = 1;
/// At most this many digests are kept.
pub const MAX_DIGESTS: usize = 20_000;
/// At most this many bytes of digests are kept.
pub const MAX_BYTES: u64 = 256 << 20;
/// A digest used again is re-stamped (for eviction) once it is this old.
const REFRESH_AFTER: Duration = Duration::from_secs(3600);

/// What a read-only check needs of one session file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Digest {
    pub version: u32,
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
}

/// [`ReportedUsage`] as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub after_message: Option<usize>,
}

impl From<&ReportedUsage> for Usage {
    fn from(u: &ReportedUsage) -> Usage {
        Usage {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            after_message: u.after_message,
        }
    }
}

impl From<&Usage> for ReportedUsage {
    fn from(u: &Usage) -> ReportedUsage {
        ReportedUsage {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            after_message: u.after_message,
        }
    }
}

impl Digest {
    /// The counts, if they were made with `encoding` and scaled by `factor`.
    pub fn counts_for(&self, encoding: Encoding, factor: f64) -> Option<Vec<usize>> {
        (self.encoding == encoding.name() && self.factor == factor)
            .then(|| self.counts.iter().map(|&n| n as usize).collect())
    }
}

/// The key of a session file's digest: its exact bytes (length and 128-bit hash), the
/// format it was read as (`None`: detected), and the program reading it — a different
/// build may read or count differently, so it never reuses another build's digests.
fn key(len: usize, hash: u128, format: Option<Format>, build: &str) -> u128 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&DIGEST_VERSION.to_le_bytes());
    h.update(&(build.len() as u64).to_le_bytes());
    h.update(build.as_bytes());
    h.update(format.map_or("auto", Format::name).as_bytes());
    h.update(&[0]);
    h.update(&(len as u64).to_le_bytes());
    h.update(&hash.to_le_bytes());
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

    /// The key of the digest of a file of `len` bytes hashing to `hash`, read as `format`.
    pub fn key(&self, len: usize, hash: u128, format: Option<Format>) -> u128 {
        key(len, hash, format, &self.build)
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
        crate::fsutil::write_atomic(&self.file(key), &bytes, true)
    }

    /// Removes the least recently used digests beyond [`MAX_DIGESTS`] files or
    /// [`MAX_BYTES`]; returns how many were removed.
    pub fn evict(&self) -> io::Result<usize> {
        self.evict_to(MAX_DIGESTS, MAX_BYTES)
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
            format: "openai".into(),
            model: Some("gpt-4o".into()),
            messages: counts.len(),
            warnings: vec!["a warning".into()],
            usage: Some(Usage {
                input_tokens: 10,
                output_tokens: 2,
                after_message: Some(1),
            }),
            problems: vec!["message 2: a problem".into()],
            encoding: "o200k_base".into(),
            factor: 1.0,
            counts,
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
    fn keys_depend_on_bytes_format_and_build() {
        let base = key(10, 42, None, "b1");
        assert_ne!(base, key(11, 42, None, "b1"));
        assert_ne!(base, key(10, 43, None, "b1"));
        assert_ne!(base, key(10, 42, Some(Format::Jsonl), "b1"));
        assert_ne!(base, key(10, 42, None, "b2"));
        assert_eq!(base, key(10, 42, None, "b1"));
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
