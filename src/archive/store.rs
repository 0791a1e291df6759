//! Archive files on disk: `archives/<session>/compact-<YYYYMMDDTHHMMSSZ>-<seq>.json`, or
//! `….json.zst` when written with [`Compression::Zstd`]. Both kinds are read everywhere, by
//! their content (the zstd magic bytes), so a store may hold a mix.

use std::fs::{self, File};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::file::{
    ArchiveEnd, ArchiveFile, ArchiveRecord, Compression, Stored, Tokens, ZSTD_MAGIC,
};
use super::name::{parse_id, validate_name};
use super::pending::{create_private_dir, held, Feed, HeadOut, PendingArchive};
use super::{ArchiveError, Timestamp};

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
        PendingArchive::start(dir, path, seq, self.compression, made, &head, feed)
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
