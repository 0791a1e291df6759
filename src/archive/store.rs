//! Archive files on disk: `archives/<session>/compact-<YYYYMMDDTHHMMSSZ>-<seq>.json`, or
//! `….json.zst` when written with [`Compression::Zstd`]. Both kinds are read everywhere, by
//! their content (the zstd magic bytes), so a store may hold a mix.

use super::undo::Undo;
use std::fs::{self, File};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::name::{parse_id, validate_name};
use super::records::RecordText;
use super::{ArchiveError, Timestamp};
use crate::fsutil::{self, FailAt};

/// What a compaction archives: the removed records and the facts around them. What the
/// rewrite made of them ([`ArchiveEnd`]) is written after them, so that a large archive's
/// records can be written while the summary is made ([`ArchiveStore::begin`]).
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
    /// Index of the first archived message in the session it came from.
    pub first_message: usize,
    /// Number of archived messages.
    pub messages: usize,
    /// The removed records verbatim (their original text, usually borrowed from the
    /// session), in order.
    pub records: Vec<RecordText<'a>>,
    /// The session inside the agent's database `source` names (goose's `sessions.db`).
    pub agent_session: Option<String>,
}

/// What a rewrite made of the records it archives: known once its summary is made.
#[derive(Debug, Clone, Default)]
pub struct ArchiveEnd<'a> {
    pub summarizer: String,
    pub tokens: Tokens,
    pub summary: String,
    /// For a trim: how to rebuild the original file from what the trim wrote (its text
    /// borrowed from the original while it is filed).
    pub undo: Option<Undo<'a>>,
}

impl ArchiveEnd<'_> {
    /// The end holding its own text (an undo script's, borrowed until now), to be handed
    /// on past what it borrowed from.
    pub fn into_owned(self) -> ArchiveEnd<'static> {
        ArchiveEnd {
            summarizer: self.summarizer,
            tokens: self.tokens,
            summary: self.summary,
            undo: self.undo.map(Undo::into_owned),
        }
    }
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
    pub undo: Option<Undo<'static>>,
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

/// The part of an [`ArchiveFile`] written before its records, borrowed from the
/// [`ArchiveRecord`] (a test checks that an archive reads back as an `ArchiveFile`).
#[derive(Serialize)]
struct HeadOut<'a> {
    ctxctl_version: &'a str,
    session: &'a str,
    seq: u64,
    compact_id: &'a str,
    created: String,
    source: Option<&'a str>,
    output: Option<&'a str>,
    format: &'a str,
    model: Option<&'a str>,
    first_message: usize,
    messages: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent_session: Option<&'a str>,
}

/// The part of an [`ArchiveFile`] written after its records.
#[derive(Serialize)]
struct EndOut<'a> {
    summarizer: &'a str,
    tokens: &'a Tokens,
    summary: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    undo: Option<&'a Undo<'a>>,
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
    None,
    /// zstd level 3 (`.json.zst`): JSON sessions shrink several times over. The default.
    #[default]
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

    /// Writes `record` and `end` as a new archive of `session` and returns where. Atomic (a
    /// temp file in the same directory, synced, then linked into place) and never
    /// overwriting: an existing file with the chosen name is an error when `record.seq` was
    /// given, and makes the store try the next number otherwise.
    pub fn put(
        &self,
        session: &str,
        record: &ArchiveRecord<'_>,
        end: &ArchiveEnd,
    ) -> Result<Stored, ArchiveError> {
        let mut seq = match record.seq {
            Some(s) => s,
            None => self.next_seq(session)?,
        };
        loop {
            // Another number's file (plain or compressed) makes this one taken too.
            if record.seq.is_none() && self.files(session)?.iter().any(|(s, _, _)| *s == seq) {
                seq += 1;
                continue;
            }
            match (self.begin_feeding(session, seq, record, &mut held(&record.records))?)
                .finish(end)
            {
                Err(ArchiveError::Exists(_)) if record.seq.is_none() => seq += 1,
                done => return done,
            }
        }
    }

    /// Starts archive `record.seq` (the next free number when `None`) of `session`: its
    /// facts and records are written to a temp file in the session's archive directory,
    /// and [`PendingArchive::finish`] adds what the rewrite made of them and files it (as
    /// [`ArchiveStore::put`] does). Dropped unfinished, nothing is left.
    pub fn begin(
        &self,
        session: &str,
        record: &ArchiveRecord<'_>,
    ) -> Result<PendingArchive, ArchiveError> {
        let seq = match record.seq {
            Some(s) => s,
            None => self.next_seq(session)?,
        };
        self.begin_feeding(session, seq, record, &mut held(&record.records))
    }

    /// [`ArchiveStore::begin`] of archive number `seq`, its records handed to the writer by
    /// `feed` one by one rather than held (`record.records` is left out): a compaction
    /// reading them from its file again. An error of `feed` leaves nothing behind.
    pub fn begin_feeding(
        &self,
        session: &str,
        seq: u64,
        record: &ArchiveRecord<'_>,
        feed: Feed,
    ) -> Result<PendingArchive, ArchiveError> {
        let dir = self.dir(session)?;
        // Made here: taken away again should the archive not be filed.
        let made: Vec<PathBuf> = [dir.clone(), self.root.clone()]
            .into_iter()
            .filter(|d| !d.exists())
            .collect();
        create_private_dir(&dir)?;
        let path = self.path_for(session, seq, record.created)?;
        let head = HeadOut {
            ctxctl_version: env!("CARGO_PKG_VERSION"),
            session,
            seq,
            compact_id: &record.compact_id,
            created: record.created.rfc3339(),
            source: record.source.as_deref(),
            output: record.output.as_deref(),
            format: &record.format,
            model: record.model.as_deref(),
            first_message: record.first_message,
            messages: record.messages,
            agent_session: record.agent_session.as_deref(),
        };
        let mut pending = PendingArchive::create(dir, path, seq, self.compression)?;
        pending.made = MadeDirs(made);
        let written = write_head(&mut pending.out, &head, feed).and_then(|()| {
            // The records go to disk while the summary is made, and no one waits for them:
            // the sync that files the archive finds them there (or nearly).
            pending.out.flush()?;
            pending.out.start_writeback();
            Ok(())
        });
        written.map_err(|e| ArchiveError::io(&pending.path, e))?;
        Ok(pending)
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

    /// Every archive as retention sees it (from file names and sizes; none is read), with
    /// its file.
    pub fn filed(&self) -> Result<Vec<(super::prune::Filed, PathBuf)>, ArchiveError> {
        let mut out = Vec::new();
        for session in self.sessions()? {
            for (seq, stamp, path) in self.files(&session)? {
                let bytes = fs::metadata(&path).map_or(0, |m| m.len());
                let filed = super::prune::Filed {
                    session: session.clone(),
                    seq,
                    unix: stamp.unix(),
                    bytes,
                };
                out.push((filed, path));
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
        self.get_with(id, read_json)
    }

    /// [`ArchiveStore::get`], the file read by `read`.
    pub(super) fn get_with(
        &self,
        id: &str,
        read: impl FnOnce(&Path) -> Result<ArchiveFile, ArchiveError>,
    ) -> Result<(ArchiveEntry, ArchiveFile), ArchiveError> {
        let (session, seq) = parse_id(id)?;
        let (_, stamp, path) = self
            .files(session)?
            .into_iter()
            .find(|(s, _, _)| *s == seq)
            .ok_or_else(|| ArchiveError::NotFound(id.to_string()))?;
        let file = read(&path)?;
        let entry = entry(session, seq, stamp, path)?;
        Ok((entry, file))
    }

    /// Session names that have an archive directory, sorted.
    pub fn sessions(&self) -> Result<Vec<String>, ArchiveError> {
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
    read_json_with(path, |r| serde_json::from_reader(r))
}

/// An archive file read by `de` (decompressed first if it is zstd, known by its magic
/// bytes, not its name); a corrupt or truncated frame is said as the io error it is.
pub(super) fn read_json_with<T>(
    path: &Path,
    de: impl FnOnce(&mut dyn std::io::Read) -> Result<T, serde_json::Error>,
) -> Result<T, ArchiveError> {
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
        de(&mut BufReader::new(d)).map_err(|err| match err.io_error_kind() {
            Some(_) => ArchiveError::io(path, std::io::Error::other(err.to_string())),
            None => parse(err),
        })
    } else {
        de(&mut r).map_err(parse)
    }
}

/// A [`Feed`] of records held in memory.
fn held<'r>(records: &'r [RecordText<'_>]) -> impl FnMut(Push) -> std::io::Result<()> + 'r {
    move |push| {
        // A mapped text's pages are let go of behind the records (see `crate::mapped`).
        let behind = records.first().map(|r| crate::mapped::Behind::of(r.get()));
        records.iter().try_for_each(|r| {
            behind.as_ref().inspect(|b| b.at(r.get()));
            push(r.get().as_bytes())
        })
    }
}

/// Writes one record of an archive (its text as its session holds it).
pub type Push<'p> = &'p mut dyn FnMut(&[u8]) -> std::io::Result<()>;

/// Hands an archive's records, in order, to the writer it is given.
pub type Feed<'f> = &'f mut dyn FnMut(Push) -> std::io::Result<()>;

/// Writes the start of an archive's JSON to `w`, as the pretty printer would: the
/// object's first fields (`head`), then the records `feed` gives, each as it is (records
/// are never re-indented), ending after the records' list.
fn write_head(w: &mut impl Write, head: &HeadOut, feed: Feed) -> std::io::Result<()> {
    let text = serde_json::to_vec_pretty(head)?;
    // `{\n  "ctxctl_version": …\n}` without its closing line.
    w.write_all(text.strip_suffix(b"\n}").unwrap_or(&text))?;
    w.write_all(b",\n  \"records\": [")?;
    let mut first = true;
    feed(&mut |r| {
        w.write_all(if first { b"\n    " } else { b",\n    " })?;
        first = false;
        w.write_all(r)
    })?;
    w.write_all(if first { b"]" } else { b"\n  ]" })
}

/// Writes the rest of an archive's JSON after [`write_head`]: the fields of `end`, the
/// closing brace and the final newline.
///
/// Serialized straight into `w`, not made whole first: an undo script's kept text (what a
/// trim removed, as large as the file) would be held once more as JSON.
fn write_end(w: &mut impl Write, end: &EndOut) -> std::io::Result<()> {
    // `{\n  "summarizer": …\n}`: its fields go on inside the open object.
    w.write_all(b",\n")?;
    let mut fields = SkipOpening::new(&mut *w, b"{\n");
    // An undo script's text is a mapped original's: let go behind it (`crate::mapped`).
    serde_json::to_writer_pretty(crate::mapped::LettingGo::new(&mut fields), end)?;
    w.write_all(b"\n")
}

/// A writer that drops `skip` from the start of what is written through it (the opening
/// of an object whose fields go on inside another); a start that turns out otherwise is
/// written whole, as `strip_prefix` would leave it.
struct SkipOpening<'a, W: Write> {
    w: &'a mut W,
    skip: &'static [u8],
    /// How much of `skip` was seen and held back so far (`None`: done, all passes).
    seen: Option<usize>,
}

impl<'a, W: Write> SkipOpening<'a, W> {
    fn new(w: &'a mut W, skip: &'static [u8]) -> Self {
        SkipOpening {
            w,
            skip,
            seen: Some(0),
        }
    }
}

impl<W: Write> Write for SkipOpening<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let Some(seen) = self.seen else {
            return self.w.write(buf);
        };
        let rest = &self.skip[seen..];
        let n = rest.len().min(buf.len());
        if buf[..n] == rest[..n] {
            let seen = seen + n;
            self.seen = (seen < self.skip.len()).then_some(seen);
            return Ok(n);
        }
        // Not the opening after all: what was held back goes first.
        self.seen = None;
        self.w.write_all(&self.skip[..seen])?;
        self.w.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.w.flush()
    }
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
/// syncing it ~80 ms; in 1 MiB pieces ~40 ms (10M-token session). 256 KiB costs no more,
/// and a small session's archive (under a MiB) then reaches the file, and the disk, while
/// its records are still being read rather than all at their end: the sync that files it
/// waited 0.41 ms instead of 0.60 (200K-token session, medians of 30). 128 KiB: its
/// pages count in a small compaction's peak (at 200K tokens, with the pass's reads at 64
/// KiB, 0.16 MiB less), and 10M-token compactions take as long.
pub(super) const WRITE_BUFFER: usize = 1 << 17;

/// An archive being written ([`ArchiveStore::begin`]): a temp file (0600) in its
/// directory holding its facts and records so far.
pub struct PendingArchive {
    // Dropped in this order: the writer, the temp file, then the directories made for it.
    out: Sink,
    tmp: tempfile::NamedTempFile,
    made: MadeDirs,
    dir: PathBuf,
    path: PathBuf,
    seq: u64,
}

/// An archive whose end is written and synced ([`PendingArchive::seal`]), waiting to be
/// linked into place ([`SealedArchive::file`]). Dropped unfiled, its temp file goes, then
/// the directories made for it.
pub struct SealedArchive {
    tmp: tempfile::NamedTempFile,
    made: MadeDirs,
    dir: PathBuf,
    path: PathBuf,
    seq: u64,
}

impl SealedArchive {
    /// Links the archive into place without replacing anything ([`ArchiveError::Exists`]),
    /// then syncs the directory.
    pub fn file(self) -> Result<Stored, ArchiveError> {
        let SealedArchive {
            tmp,
            mut made,
            dir,
            path,
            seq,
        } = self;
        tmp.persist_noclobber(&path).map_err(|e| {
            if e.error.kind() == std::io::ErrorKind::AlreadyExists {
                ArchiveError::Exists(path.to_path_buf())
            } else {
                ArchiveError::io(&path, e.error)
            }
        })?;
        // Filed: the directories stay.
        made.0.clear();
        #[cfg(unix)]
        if let Ok(d) = File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(Stored { seq, path })
    }
}

/// Directories made for an archive, innermost first: removed (when still empty) on drop,
/// unless the archive was filed.
#[derive(Default)]
struct MadeDirs(Vec<PathBuf>);

impl Drop for MadeDirs {
    fn drop(&mut self) {
        for d in &self.0 {
            let _ = fs::remove_dir(d);
        }
    }
}

/// Where a pending archive's bytes go.
enum Sink {
    Plain(BufWriter<fsutil::Writeback>),
    Zstd(zstd::Encoder<'static, BufWriter<fsutil::Writeback>>),
    /// Test hook (`CTXCTL_TEST_FAIL_AT=archive-write`): kept, to be written as half an
    /// archive and then "disk full".
    Faulty(Vec<u8>, fsutil::Fault, Compression),
}

impl Sink {
    /// Starts writing to disk what was written to the file so far, without waiting.
    fn start_writeback(&mut self) {
        match self {
            Sink::Plain(w) => w.get_mut().start_rest(),
            Sink::Zstd(w) => w.get_mut().get_mut().start_rest(),
            Sink::Faulty(..) => {}
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::Plain(w) => w.write(buf),
            Sink::Zstd(w) => w.write(buf),
            Sink::Faulty(v, ..) => v.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Plain(w) => w.flush(),
            Sink::Zstd(w) => w.flush(),
            Sink::Faulty(..) => Ok(()),
        }
    }
}

impl PendingArchive {
    /// A new temp file in `dir` for archive `seq` at `path`. Temp files an interrupted run
    /// left in `dir` are removed first.
    fn create(
        dir: PathBuf,
        path: PathBuf,
        seq: u64,
        compression: Compression,
    ) -> Result<PendingArchive, ArchiveError> {
        fsutil::clean_stale_temps(&dir);
        let tmp = tempfile::Builder::new()
            .prefix(fsutil::TEMP_PREFIX)
            .suffix(".tmp")
            .tempfile_in(&dir)
            .map_err(|e| ArchiveError::io(&path, fsutil::unnamed(e)))?;
        let file = tmp.as_file().try_clone();
        let file = file.map_err(|e| ArchiveError::io(&path, e))?;
        let w = BufWriter::with_capacity(WRITE_BUFFER, fsutil::Writeback::new(file));
        let out = match (fsutil::injected_fault(), compression) {
            (Some(f), c) if f.at == FailAt::ArchiveWrite => Sink::Faulty(Vec::new(), f, c),
            (_, Compression::None) => Sink::Plain(w),
            (_, Compression::Zstd) => Sink::Zstd(
                zstd::Encoder::new(w, ZSTD_LEVEL).map_err(|e| ArchiveError::io(&path, e))?,
            ),
        };
        Ok(PendingArchive {
            out,
            tmp,
            made: MadeDirs::default(),
            dir,
            path,
            seq,
        })
    }

    /// Adds `end` and files the archive: synced, then linked into place without replacing
    /// anything ([`ArchiveError::Exists`]), then the directory synced.
    pub fn finish(self, end: &ArchiveEnd) -> Result<Stored, ArchiveError> {
        self.seal(end)?.file()
    }

    /// Adds `end` and syncs the archive, to be filed later ([`SealedArchive::file`]). On an
    /// error the temp file is gone.
    pub fn seal(self, end: &ArchiveEnd) -> Result<SealedArchive, ArchiveError> {
        let PendingArchive {
            mut out,
            tmp,
            made,
            dir,
            path,
            seq,
        } = self;
        // Errors name the archive, not its temp file.
        let io = |e| ArchiveError::io(&path, e);
        let end = EndOut {
            summarizer: &end.summarizer,
            tokens: &end.tokens,
            summary: &end.summary,
            undo: end.undo.as_ref(),
        };
        write_end(&mut out, &end).map_err(io)?;
        match out {
            Sink::Plain(w) => {
                w.into_inner().map_err(|e| io(e.into_error()))?;
            }
            Sink::Zstd(z) => {
                let w = z.finish().map_err(io)?;
                w.into_inner().map_err(|e| io(e.into_error()))?;
            }
            Sink::Faulty(bytes, f, compression) => {
                let bytes = match compression {
                    Compression::Zstd => zstd::encode_all(&bytes[..], ZSTD_LEVEL).map_err(io)?,
                    Compression::None => bytes,
                };
                fsutil::write_checked(&mut tmp.as_file(), &bytes, Some(f), FailAt::ArchiveWrite)
                    .map_err(io)?;
            }
        }
        tmp.as_file().sync_all().map_err(io)?;
        Ok(SealedArchive {
            tmp,
            made,
            dir,
            path,
            seq,
        })
    }
}

#[cfg(test)]
mod skip_tests {
    use std::io::Write;

    use super::SkipOpening;

    fn through(pieces: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut w = SkipOpening::new(&mut out, b"{\n");
        for p in pieces {
            w.write_all(p).unwrap();
        }
        out
    }

    #[test]
    fn drops_the_opening_however_it_is_written() {
        assert_eq!(through(&[b"{\n  \"a\": 1\n}"]), b"  \"a\": 1\n}");
        assert_eq!(through(&[b"{", b"\n", b"  \"a\"", b"{\n"]), b"  \"a\"{\n");
    }

    #[test]
    fn keeps_a_start_that_is_not_the_opening() {
        assert_eq!(through(&[b"{", b"}"]), b"{}");
        assert_eq!(through(&[b"[1]"]), b"[1]");
    }

    #[test]
    fn writes_what_serde_writes_without_its_opening() {
        let v = serde_json::json!({"summarizer": "offline", "undo": {"steps": ["a\nb"]}});
        let whole = serde_json::to_vec_pretty(&v).unwrap();
        let mut out = Vec::new();
        serde_json::to_writer_pretty(SkipOpening::new(&mut out, b"{\n"), &v).unwrap();
        assert_eq!(out, whole.strip_prefix(b"{\n").unwrap());
    }
}
