//! An archive as it is written: its facts, then its records as a [`Feed`] hands them
//! over, to a temp file (0600) in its directory; then what the rewrite made of them, a
//! sync, and a link into place that never overwrites ([`PendingArchive`],
//! [`SealedArchive`]).

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::file::{ArchiveEnd, Compression, Stored, Tokens, ZSTD_LEVEL};
use super::records::RecordText;
use super::undo::Undo;
use super::ArchiveError;
use crate::fsutil::{self, FailAt};

/// The part of an [`ArchiveFile`] written before its records, borrowed from the
/// [`ArchiveRecord`] (a test checks that an archive reads back as an `ArchiveFile`).
#[derive(Serialize)]
pub(super) struct HeadOut<'a> {
    pub(super) ctxctl_version: &'a str,
    pub(super) session: &'a str,
    pub(super) seq: u64,
    pub(super) compact_id: &'a str,
    pub(super) created: String,
    pub(super) source: Option<&'a str>,
    pub(super) output: Option<&'a str>,
    pub(super) format: &'a str,
    pub(super) model: Option<&'a str>,
    pub(super) first_message: usize,
    pub(super) messages: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) agent_session: Option<&'a str>,
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

/// A [`Feed`] of records held in memory.
pub(super) fn held<'r>(
    records: &'r [RecordText<'_>],
) -> impl FnMut(Push) -> std::io::Result<()> + 'r {
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
pub(super) fn create_private_dir(dir: &Path) -> Result<(), ArchiveError> {
    fsutil::create_private_dir(dir).map_err(|e| ArchiveError::io(dir, e))
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

/// An archive being written ([`super::ArchiveStore::begin`]): a temp file (0600) in its
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
    /// Starts archive `seq` at `path` in `dir` (the directories in `made` were made for
    /// it): `head` and the records `feed` hands over are written and sent on to the disk.
    /// An error of `feed` leaves nothing behind.
    pub(super) fn start(
        dir: PathBuf,
        path: PathBuf,
        seq: u64,
        compression: Compression,
        made: Vec<PathBuf>,
        head: &HeadOut,
        feed: Feed,
    ) -> Result<PendingArchive, ArchiveError> {
        let mut pending = PendingArchive::create(dir, path, seq, compression)?;
        pending.made = MadeDirs(made);
        let written = write_head(&mut pending.out, head, feed).and_then(|()| {
            // The records go to disk while the summary is made, and no one waits for them:
            // the sync that files the archive finds them there (or nearly).
            pending.out.flush()?;
            pending.out.start_writeback();
            Ok(())
        });
        written.map_err(|e| ArchiveError::io(&pending.path, e))?;
        Ok(pending)
    }

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
