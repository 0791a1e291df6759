//! Archive files on disk: `archives/<session>/compact-<YYYYMMDDTHHMMSSZ>-<seq>.json`, or
//! `….json.zst` when written with [`Compression::Zstd`]. Both kinds are read everywhere, by
//! their content (the zstd magic bytes), so a store may hold a mix.

use super::undo::Undo;
use std::borrow::Cow;
use std::fs::{self, File};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::name::{parse_id, validate_name};
use super::{ArchiveError, Timestamp};
use crate::fsutil::{self, FailAt};

/// What a compaction archives: the removed records and the facts around them.
#[derive(Debug, Clone)]
pub struct ArchiveRecord<'a> {
    /// The sequence number to use; `None` takes the next free one.
    pub seq: Option<u64>,
    pub compact_id: String,
    pub created: Timestamp,
    /// The session file the records came from.
    pub source: Option<String>,
    /// Where the compacted session was written (what `archive restore` rewrites).
    pub output: Option<String>,
    /// The session format's name (`openai`, `jsonl` …).
    pub format: String,
    pub model: Option<String>,
    pub summarizer: String,
    pub tokens: Tokens,
    /// Index of the first archived message in the session it came from.
    pub first_message: usize,
    /// Number of archived messages.
    pub messages: usize,
    pub summary: String,
    /// The removed records verbatim (their original text, usually borrowed from the
    /// session), in order.
    pub records: Vec<Cow<'a, RawValue>>,
    /// For a trim: how to rebuild the original file from what the trim wrote.
    pub undo: Option<Undo>,
    /// The session inside the agent's database `source` names (goose's `sessions.db`).
    pub agent_session: Option<String>,
}

/// Token counts recorded with an archive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    /// The session before compaction.
    pub original: usize,
    /// The session after compaction.
    pub compacted: usize,
    /// The archived messages.
    pub archived: usize,
}

/// An archive file's content.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ArchiveFile {
    pub ctxctl_version: String,
    pub session: String,
    pub seq: u64,
    pub compact_id: String,
    /// RFC 3339 UTC.
    pub created: String,
    pub source: Option<String>,
    #[serde(default)]
    pub output: Option<String>,
    pub format: String,
    pub model: Option<String>,
    pub summarizer: String,
    pub tokens: Tokens,
    pub first_message: usize,
    pub messages: usize,
    pub summary: String,
    /// The removed records as the archive holds them: each one's original text (archives
    /// written before ctxctl kept that hold them pretty-printed; see
    /// [`super::archived_record`]).
    pub records: Vec<Box<RawValue>>,
    /// For a trim: how to rebuild the original file from what the trim wrote (archives of
    /// compactions, and of trims by ctxctl before 0.1, have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo: Option<Undo>,
    /// The session inside the agent's database `output` names (goose's `sessions.db`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_session: Option<String>,
}

/// Archives are equal when their facts are and their records have the same text.
impl PartialEq for ArchiveFile {
    fn eq(&self, other: &ArchiveFile) -> bool {
        // Every field named, so a new one cannot be left out of the comparison.
        let ArchiveFile {
            ctxctl_version,
            session,
            seq,
            compact_id,
            created,
            source,
            output,
            format,
            model,
            summarizer,
            tokens,
            first_message,
            messages,
            summary,
            records,
            undo,
            agent_session,
        } = self;
        *ctxctl_version == other.ctxctl_version
            && *session == other.session
            && *seq == other.seq
            && *compact_id == other.compact_id
            && *created == other.created
            && *source == other.source
            && *output == other.output
            && *format == other.format
            && *model == other.model
            && *summarizer == other.summarizer
            && *tokens == other.tokens
            && *first_message == other.first_message
            && *messages == other.messages
            && *summary == other.summary
            && records.len() == other.records.len()
            && records
                .iter()
                .zip(&other.records)
                .all(|(a, b)| a.get() == b.get())
            && *undo == other.undo
            && *agent_session == other.agent_session
    }
}

/// An [`ArchiveFile`] as written: the same fields in the same order, borrowed from the
/// [`ArchiveRecord`] (a test checks that it reads back as an `ArchiveFile`).
#[derive(Serialize)]
struct ArchiveOut<'a> {
    ctxctl_version: &'a str,
    session: &'a str,
    seq: u64,
    compact_id: &'a str,
    created: String,
    source: Option<&'a str>,
    output: Option<&'a str>,
    format: &'a str,
    model: Option<&'a str>,
    summarizer: &'a str,
    tokens: &'a Tokens,
    first_message: usize,
    messages: usize,
    summary: &'a str,
    records: &'a [Cow<'a, RawValue>],
    #[serde(skip_serializing_if = "Option::is_none")]
    undo: Option<&'a Undo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent_session: Option<&'a str>,
}

/// The fields `list` reads (the records are skipped).
#[derive(Deserialize)]
struct Header {
    tokens: Tokens,
    messages: usize,
}

/// One archive as listed by `archive ls`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArchiveEntry {
    /// `NAME/SEQ`.
    pub id: String,
    pub session: String,
    pub seq: u64,
    /// RFC 3339 UTC, from the file name.
    pub timestamp: String,
    pub path: PathBuf,
    pub messages: usize,
    /// Tokens of the archived messages.
    pub tokens: usize,
    /// Size of the archive file.
    pub bytes: u64,
    /// When and where the archive was put back in place, if it was.
    pub restored: Option<super::Restored>,
}

/// Where an archive was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    pub seq: u64,
    pub path: PathBuf,
}

/// How new archive files are written (existing ones are read whatever they are).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compression {
    /// Plain pretty JSON (`.json`).
    #[default]
    None,
    /// zstd level 3 (`.json.zst`): JSON sessions shrink several times over.
    Zstd,
}

impl Compression {
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Zstd => "zstd",
        }
    }

    pub fn from_name(s: &str) -> Option<Compression> {
        match s {
            "none" => Some(Compression::None),
            "zstd" => Some(Compression::Zstd),
            _ => None,
        }
    }

    fn extension(self) -> &'static str {
        match self {
            Compression::None => "json",
            Compression::Zstd => "json.zst",
        }
    }
}

/// The first bytes of every zstd frame.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// The zstd level archives are written at: fast, and most of what higher levels gain on JSON.
const ZSTD_LEVEL: i32 = 3;

/// The archives under a data directory.
#[derive(Debug, Clone)]
pub struct ArchiveStore {
    /// `<data>/archives`.
    root: PathBuf,
    /// `<data>/locks`.
    locks: PathBuf,
    /// How [`ArchiveStore::put`] writes.
    compression: Compression,
}

impl ArchiveStore {
    /// The store in `data_dir` (its `archives/` subdirectory).
    pub fn new(data_dir: impl Into<PathBuf>) -> ArchiveStore {
        let data = data_dir.into();
        ArchiveStore {
            root: data.join("archives"),
            locks: data.join("locks"),
            compression: Compression::None,
        }
    }

    /// The same store, writing new archives with `compression`.
    pub fn with_compression(mut self, compression: Compression) -> ArchiveStore {
        self.compression = compression;
        self
    }

    /// The lock file guarding changes to `session` (kept apart from the archives, so a
    /// broken archive directory does not stop the lock).
    pub fn lock_path(&self, session: &str) -> Result<PathBuf, ArchiveError> {
        validate_name(session)?;
        Ok(self.locks.join(format!("{session}.lock")))
    }

    /// The directory of one session's archives.
    pub fn dir(&self, session: &str) -> Result<PathBuf, ArchiveError> {
        validate_name(session)?;
        Ok(self.root.join(session))
    }

    /// The file name of archive `seq` made at `created`, as this store writes it.
    pub fn path_for(
        &self,
        session: &str,
        seq: u64,
        created: Timestamp,
    ) -> Result<PathBuf, ArchiveError> {
        Ok(self.dir(session)?.join(format!(
            "compact-{}-{seq}.{}",
            created.compact(),
            self.compression.extension()
        )))
    }

    /// The next sequence number of `session`: one more than the highest existing, from 1.
    pub fn next_seq(&self, session: &str) -> Result<u64, ArchiveError> {
        let max = self
            .files(session)?
            .into_iter()
            .map(|(seq, _, _)| seq)
            .max();
        Ok(max.map_or(1, |m| m + 1))
    }

    /// Writes `record` as a new archive of `session` and returns where. Atomic (a temp
    /// file in the same directory, synced, then linked into place) and never overwriting:
    /// an existing file with the chosen name is an error when `record.seq` was given, and
    /// makes the store try the next number otherwise.
    pub fn put(&self, session: &str, record: &ArchiveRecord<'_>) -> Result<Stored, ArchiveError> {
        let dir = self.dir(session)?;
        create_private_dir(&dir)?;
        let mut seq = match record.seq {
            Some(s) => s,
            None => self.next_seq(session)?,
        };
        loop {
            let path = self.path_for(session, seq, record.created)?;
            // Borrowed, not cloned: the records can be as large as the session.
            let file = ArchiveOut {
                ctxctl_version: env!("CARGO_PKG_VERSION"),
                session,
                seq,
                compact_id: &record.compact_id,
                created: record.created.rfc3339(),
                source: record.source.as_deref(),
                output: record.output.as_deref(),
                format: &record.format,
                model: record.model.as_deref(),
                summarizer: &record.summarizer,
                tokens: &record.tokens,
                first_message: record.first_message,
                messages: record.messages,
                summary: &record.summary,
                records: &record.records,
                undo: record.undo.as_ref(),
                agent_session: record.agent_session.as_deref(),
            };
            // Another number's file (plain or compressed) makes this one taken too.
            if record.seq.is_none() && self.files(session)?.iter().any(|(s, _, _)| *s == seq) {
                seq += 1;
                continue;
            }
            match write_new(&dir, &path, &file, self.compression) {
                Err(ArchiveError::Exists(_)) if record.seq.is_none() => seq += 1,
                Err(e) => return Err(e),
                Ok(()) => return Ok(Stored { seq, path }),
            }
        }
    }

    /// The archives of `session`, or of every session, ordered by session and number.
    pub fn list(&self, session: Option<&str>) -> Result<Vec<ArchiveEntry>, ArchiveError> {
        let sessions = match session {
            Some(s) => vec![s.to_string()],
            None => self.sessions()?,
        };
        let mut out = Vec::new();
        for s in sessions {
            for (seq, stamp, path) in self.files(&s)? {
                out.push(entry(&s, seq, stamp, path)?);
            }
        }
        Ok(out)
    }

    /// How many archives `session` has (from the file names; none are read).
    pub fn count(&self, session: &str) -> Result<usize, ArchiveError> {
        Ok(self.files(session)?.len())
    }

    /// Reads archive `NAME/SEQ`.
    pub fn get(&self, id: &str) -> Result<(ArchiveEntry, ArchiveFile), ArchiveError> {
        let (session, seq) = parse_id(id)?;
        let (_, stamp, path) = self
            .files(session)?
            .into_iter()
            .find(|(s, _, _)| *s == seq)
            .ok_or_else(|| ArchiveError::NotFound(id.to_string()))?;
        let file: ArchiveFile = read_json(&path)?;
        let entry = entry(session, seq, stamp, path)?;
        Ok((entry, file))
    }

    /// Session names that have an archive directory, sorted.
    fn sessions(&self) -> Result<Vec<String>, ArchiveError> {
        let mut out = Vec::new();
        let rd = match fs::read_dir(&self.root) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
            Err(e) => return Err(ArchiveError::io(&self.root, e)),
        };
        for e in rd {
            let e = e.map_err(|err| ArchiveError::io(&self.root, err))?;
            let name = e.file_name().to_string_lossy().into_owned();
            if validate_name(&name).is_ok() && e.path().is_dir() {
                out.push(name);
            }
        }
        out.sort();
        Ok(out)
    }

    /// `(seq, timestamp, path)` of every archive file of `session`, by number.
    fn files(&self, session: &str) -> Result<Vec<(u64, Timestamp, PathBuf)>, ArchiveError> {
        let dir = self.dir(session)?;
        let mut out = Vec::new();
        let rd = match fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
            Err(e) => return Err(ArchiveError::io(&dir, e)),
        };
        for e in rd {
            let e = e.map_err(|err| ArchiveError::io(&dir, err))?;
            if let Some((stamp, seq)) = parse_file_name(&e.file_name().to_string_lossy()) {
                out.push((seq, stamp, e.path()));
            }
        }
        out.sort_by_key(|(seq, _, _)| *seq);
        Ok(out)
    }
}

/// `compact-20240501T120000Z-3.json` (or `….json.zst`) → (timestamp, 3).
pub fn parse_file_name(name: &str) -> Option<(Timestamp, u64)> {
    let rest = name.strip_prefix("compact-")?;
    let rest = rest
        .strip_suffix(".json")
        .or_else(|| rest.strip_suffix(".json.zst"))?;
    let (stamp, seq) = rest.rsplit_once('-')?;
    let seq: u64 = seq.parse().ok().filter(|s| *s > 0)?;
    Some((Timestamp::parse(stamp).ok()?, seq))
}

fn entry(
    session: &str,
    seq: u64,
    stamp: Timestamp,
    path: PathBuf,
) -> Result<ArchiveEntry, ArchiveError> {
    let header: Header = read_json(&path)?;
    let bytes = fs::metadata(&path)
        .map_err(|e| ArchiveError::io(&path, e))?
        .len();
    Ok(ArchiveEntry {
        id: format!("{session}/{seq}"),
        session: session.to_string(),
        seq,
        timestamp: stamp.rfc3339(),
        messages: header.messages,
        tokens: header.tokens.archived,
        bytes,
        restored: super::marks::read(&path),
        path,
    })
}

/// Reads an archive file as JSON, decompressing it first if it is zstd (known by its
/// magic bytes, not its name).
fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, ArchiveError> {
    let f = File::open(path).map_err(|e| ArchiveError::io(path, e))?;
    let mut r = BufReader::new(f);
    let zstd = r
        .fill_buf()
        .map_err(|e| ArchiveError::io(path, e))?
        .starts_with(&ZSTD_MAGIC);
    let parse = |err| ArchiveError::Parse {
        path: path.to_path_buf(),
        err,
    };
    if zstd {
        let d = zstd::Decoder::with_buffer(r).map_err(|e| ArchiveError::io(path, e))?;
        serde_json::from_reader(BufReader::new(d)).map_err(|err| match err.io_error_kind() {
            // A corrupt or truncated frame: say so as the io error it is.
            Some(_) => ArchiveError::io(path, std::io::Error::other(err.to_string())),
            None => parse(err),
        })
    } else {
        serde_json::from_reader(r).map_err(parse)
    }
}

/// Writes the archive's JSON to `w`, then its final newline.
fn write_json(w: &mut impl Write, value: &ArchiveOut) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, value)?;
    w.write_all(b"\n")
}

/// Creates `dir` (and missing parents) readable by the owner only.
pub fn create_private_dir(dir: &Path) -> Result<(), ArchiveError> {
    let mut b = fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(dir).map_err(|e| ArchiveError::io(dir, e))
}

/// Bytes an archive is written in at a time. The pretty printer hands over a few bytes
/// at a time (brackets, indentation, each record): with the default 8 KiB buffer a 40 MB
/// archive took ~5,000 write calls, and the file system's per-call work made writing and
/// syncing it ~80 ms; in 1 MiB pieces ~40 ms (10M-token session).
pub(super) const WRITE_BUFFER: usize = 1 << 20;

/// Writes `value` as pretty JSON to a new file at `path`: temp file (0600) in `dir`,
/// synced, then linked into place without replacing anything, then the directory synced.
/// Temp files an interrupted run left in `dir` are removed first.
fn write_new(
    dir: &Path,
    path: &Path,
    value: &ArchiveOut,
    compression: Compression,
) -> Result<(), ArchiveError> {
    fsutil::clean_stale_temps(dir);
    let tmp = tempfile::Builder::new()
        .prefix(fsutil::TEMP_PREFIX)
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| ArchiveError::io(dir, e))?;
    match fsutil::injected_fault() {
        // Test hook (`CTXCTL_TEST_FAIL_AT=archive-write`): half the archive, then "disk full".
        Some(f) if f.at == FailAt::ArchiveWrite => {
            let mut bytes = Vec::new();
            write_json(&mut bytes, value).map_err(|e| ArchiveError::io(tmp.path(), e))?;
            if compression == Compression::Zstd {
                bytes = zstd::encode_all(&bytes[..], ZSTD_LEVEL)
                    .map_err(|e| ArchiveError::io(tmp.path(), e))?;
            }
            fsutil::write_checked(&mut tmp.as_file(), &bytes, Some(f), FailAt::ArchiveWrite)
                .map_err(|e| ArchiveError::io(tmp.path(), e))?;
        }
        _ => {
            let w = BufWriter::with_capacity(WRITE_BUFFER, tmp.as_file());
            let done = match compression {
                Compression::None => {
                    let mut w = w;
                    write_json(&mut w, value).and_then(|()| w.flush())
                }
                Compression::Zstd => zstd::Encoder::new(w, ZSTD_LEVEL).and_then(|mut z| {
                    write_json(&mut z, value)?;
                    z.finish()?.flush()
                }),
            };
            done.map_err(|e| ArchiveError::io(tmp.path(), e))?;
        }
    }
    tmp.as_file()
        .sync_all()
        .map_err(|e| ArchiveError::io(tmp.path(), e))?;
    tmp.persist_noclobber(path).map_err(|e| {
        if e.error.kind() == std::io::ErrorKind::AlreadyExists {
            ArchiveError::Exists(path.to_path_buf())
        } else {
            ArchiveError::io(path, e.error)
        }
    })?;
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}
