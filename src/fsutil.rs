//! File system helpers: reading inputs (`-` is stdin) and atomic, private writes.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// Reads a whole input; `-` is standard input. Errors say what the path is when it cannot
/// be read as a file (a directory, missing, not permitted).
pub fn read_input(path: &Path) -> io::Result<Vec<u8>> {
    if path == Path::new("-") {
        let mut buf = Vec::new();
        io::stdin().lock().read_to_end(&mut buf)?;
        return Ok(buf);
    }
    let meta = fs::metadata(path)?;
    if meta.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory (use -r DIR to read the sessions inside)",
        ));
    }
    if meta.is_file() && meta.len() >= SPLIT_READ_BYTES {
        return read_split(path);
    }
    fs::read(path)
}

/// Files from this size on are read on two threads (see `read_split`).
const SPLIT_READ_BYTES: u64 = 8 << 20;

/// Reads a large regular file whole, its two halves on two threads: most of a read's time
/// is the kernel copying into pages the buffer touches for the first time, and both halves
/// of that go at once. Reads on to the end like [`fs::read`] should the file have grown;
/// one that shrank meanwhile is read again in one go.
#[cfg(unix)]
fn read_split(path: &Path) -> io::Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let mut file = fs::File::open(path)?;
    let len = usize::try_from(file.metadata()?.len()).map_err(io::Error::other)?;
    let mut buf = vec![0u8; len];
    let (a, b) = buf.split_at_mut(len / 2);
    let mid = a.len() as u64;
    let halves = std::thread::scope(|s| {
        let second = s.spawn(|| file.read_exact_at(b, mid));
        let first = file.read_exact_at(a, 0);
        let second = second
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        first.and(second)
    });
    match halves {
        Ok(()) => {
            use std::io::Seek;
            file.seek(io::SeekFrom::Start(len as u64))?;
            file.read_to_end(&mut buf)?;
            Ok(buf)
        }
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => fs::read(path),
        Err(e) => Err(e),
    }
}

#[cfg(not(unix))]
fn read_split(path: &Path) -> io::Result<Vec<u8>> {
    fs::read(path)
}

/// Creates `dir` and its parents with mode 0700 (private), leaving existing ones alone.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// Prefix of temporary files, so leftovers of an interrupted run can be found and removed.
pub const TEMP_PREFIX: &str = ".ctxctl-tmp-";

/// A temp file beside `path` (same directory, so a rename can replace it), named with
/// [`TEMP_PREFIX`] and `path`'s extension (a format may be told by it): walks never take it
/// for a session (`ops::session_files` leaves the prefix out), and one a killed run
/// left is removed by the next write there ([`clean_stale_temps`]). Removed when dropped.
pub fn temp_beside(path: &Path) -> io::Result<tempfile::NamedTempFile> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let suffix = match path.extension() {
        Some(e) => format!(".{}", e.to_string_lossy()),
        None => String::new(),
    };
    tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .suffix(&suffix)
        .tempfile_in(dir)
}

/// Writes `bytes` to `path` atomically: a temp file in the same directory, synced, then
/// renamed over `path`. With `private`, the file is created 0600; otherwise an existing
/// file's permissions are kept. Temp files an interrupted run left in the directory are
/// removed first ([`clean_stale_temps`]). A killed run leaves at most its temp file behind,
/// never a partly written `path`.
pub fn write_atomic(path: &Path, bytes: &[u8], private: bool) -> io::Result<()> {
    write_atomic_by(path, private, &mut |f| f.write_all(bytes))
}

/// [`write_atomic`] of what `produce` writes, piece by piece (a large output is never held
/// whole). A failure of `produce` leaves `path` as it was.
pub fn write_atomic_by(
    path: &Path,
    private: bool,
    produce: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    if is_device(path) {
        let f = fs::OpenOptions::new().write(true).open(path)?;
        let mut w = io::BufWriter::with_capacity(WRITE_BUFFER, f);
        produce(&mut w)?;
        return w.flush();
    }
    write_atomic_with(path, private, FAULT.get().copied(), produce)
}

/// A device or pipe (`-o /dev/null`, a FIFO), or a name for an open descriptor
/// (`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`: links to the file a shell redirected
/// it to): written to, never replaced (renaming over it would swap the device, or the
/// system's link, for a regular file).
pub fn is_device(path: &Path) -> bool {
    let descriptor = |p: &Path| p.starts_with("/proc") || p.starts_with("/dev/fd");
    descriptor(path)
        || fs::read_link(path).is_ok_and(|to| descriptor(&to))
        || fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Where a write to `path` lands: a symbolic link's target, so that the rename replaces
/// the file the link names and the link stays a link. A dangling link names its target
/// (made there); a name that is no link is itself.
fn landing(path: &Path) -> PathBuf {
    if !fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return path.to_path_buf();
    }
    if let Ok(real) = fs::canonicalize(path) {
        return real;
    }
    match fs::read_link(path) {
        Ok(to) => path.parent().map_or(to.clone(), |d| d.join(&to)),
        Err(_) => path.to_path_buf(),
    }
}

fn write_atomic_with(
    path: &Path,
    private: bool,
    fault: Option<Fault>,
    produce: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    stage_with(path, private, fault, WRITE_BUFFER, produce)?.commit()
}

/// The buffer a produced file is written through (a large session's pieces are small).
const WRITE_BUFFER: usize = 1 << 20;

/// The first half of [`write_atomic`]: the temp file beside `path` written and synced,
/// `path` itself untouched until [`Staged::commit`]. Dropped uncommitted, the temp file
/// goes. `None` for a device or pipe, which is written to, not replaced ([`write_atomic`]).
pub fn stage(path: &Path, private: bool, bytes: &[u8]) -> io::Result<Option<Staged>> {
    if is_device(path) {
        return Ok(None);
    }
    let fault = FAULT.get().copied();
    // Bytes at hand go to the file as they are: a buffer would only copy them.
    stage_with(path, private, fault, 0, &mut |f| f.write_all(bytes)).map(Some)
}

/// [`stage`] of what `produce` writes, piece by piece (a large output is never held
/// whole).
pub fn stage_by(
    path: &Path,
    private: bool,
    produce: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> io::Result<Option<Staged>> {
    if is_device(path) {
        return Ok(None);
    }
    stage_with(path, private, FAULT.get().copied(), WRITE_BUFFER, produce).map(Some)
}

/// A file written beside its target and synced, waiting to be renamed over it
/// ([`stage`]).
#[derive(Debug)]
pub struct Staged {
    tmp: tempfile::NamedTempFile,
    path: PathBuf,
    dir: PathBuf,
    fault: Option<Fault>,
}

impl Staged {
    /// The staged file, beside its target, to be read back before it is committed.
    pub fn staged_path(&self) -> &Path {
        self.tmp.path()
    }

    /// Renames the staged file over its target, then syncs the directory.
    pub fn commit(self) -> io::Result<()> {
        fire(self.fault, FailAt::BeforeRename)?;
        self.tmp.persist(&self.path).map_err(|e| e.error)?;
        if let Ok(d) = fs::File::open(&self.dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

fn stage_with(
    path: &Path,
    private: bool,
    fault: Option<Fault>,
    buffer: usize,
    produce: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> io::Result<Staged> {
    let path = &landing(path);
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    clean_stale_temps(&dir);
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(&dir)
        .map_err(unnamed)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = if private {
            0o600
        } else {
            fs::metadata(path).map_or(0o644, |m| m.permissions().mode() & 0o7777)
        };
        tmp.as_file()
            .set_permissions(fs::Permissions::from_mode(mode))?;
    }
    match fault {
        // An injected full disk strikes halfway through the whole output, as it does for
        // bytes given at once.
        Some(f) if f.at == FailAt::Write => {
            let mut whole = Vec::new();
            produce(&mut whole)?;
            write_checked(tmp.as_file_mut(), &whole, fault, FailAt::Write)?;
        }
        _ => {
            let file = Writeback::new(tmp.as_file().try_clone()?);
            let mut w = io::BufWriter::with_capacity(buffer, file);
            produce(&mut w)?;
            w.flush()?;
        }
    }
    tmp.as_file().sync_all()?;
    Ok(Staged {
        tmp,
        path: path.to_path_buf(),
        dir,
        fault,
    })
}

/// Writes `bytes` to `path` through a temp file renamed over it, so readers see the old
/// file or the new one, never a part: for cache files, which are only an optimisation. No
/// sync (a crash may leave an empty or old file, which a cache reader ignores) and no scan
/// for stale temp files (the cache's owner removes them now and then).
pub fn write_replace_cache(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_replace_cache_by(path, &mut |w| w.write_all(bytes))
}

/// [`write_replace_cache`] of what `produce` writes, piece by piece (a large cache file is
/// never held whole). A failure of `produce` leaves `path` as it was.
pub fn write_replace_cache_by(
    path: &Path,
    produce: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // Temp files are created private (0600 on Unix) and keep that mode when renamed.
    let tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(dir)
        .map_err(unnamed)?;
    let mut w = io::BufWriter::with_capacity(64 << 10, tmp);
    produce(&mut w)?;
    let tmp = w.into_inner().map_err(io::IntoInnerError::into_error)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// `err` from creating a temp file without the temp file's name, which tempfile adds to
/// it (`… at path "dir/.ctxctl-tmp-3xYz"`): the caller names the file being written.
pub fn unnamed(err: io::Error) -> io::Error {
    if let Some(code) = err.raw_os_error() {
        return io::Error::from_raw_os_error(code);
    }
    // tempfile's own error keeps the OS error private and shows it before the path.
    let text = err.to_string();
    match text.split_once(" at path ") {
        Some((why, _)) => io::Error::new(err.kind(), why.to_string()),
        None => err,
    }
}

/// Test hook (`CTXCTL_TEST_FAIL_AT`): a step of a rewrite at which a failure is injected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailAt {
    /// While writing an archive's temp file: half of it is written, then "disk full".
    ArchiveWrite,
    /// After the archive is in place, before the session is replaced (checked by commands).
    AfterArchive,
    /// While writing a session's temp file: half of it is written, then "disk full".
    Write,
    /// After a session's temp file is written and synced, before it is renamed into place.
    BeforeRename,
}

/// Test hook: where to fail, and whether to exit at once (as `kill -9` would: no cleanup,
/// temp files stay) instead of returning an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    pub at: FailAt,
    pub kill: bool,
}

/// The exit status of a run stopped by a `kill` fault (128 + SIGKILL, as a shell shows it).
pub const KILLED: i32 = 137;

static FAULT: std::sync::OnceLock<Fault> = std::sync::OnceLock::new();

/// Test hook: makes every later write of this process fail at `fault.at`. Only the first
/// call counts. Set by the CLI from `CTXCTL_TEST_FAIL_AT`, never in normal runs.
pub fn inject_fault(fault: Fault) {
    let _ = FAULT.set(fault);
}

/// Test hook: fails here if the injected fault is at `at` (see [`inject_fault`]).
pub fn fail_point(at: FailAt) -> io::Result<()> {
    fire(FAULT.get().copied(), at)
}

fn fire(fault: Option<Fault>, at: FailAt) -> io::Result<()> {
    match fault {
        Some(f) if f.at == at && f.kill => std::process::exit(KILLED),
        Some(f) if f.at == at => Err(io::Error::other(format!(
            "injected failure at {at:?} (CTXCTL_TEST_FAIL_AT)"
        ))),
        _ => Ok(()),
    }
}

/// Writes `bytes` to `w`; when the fault is at `at`, only the first half, then fails as a
/// full disk does (or exits, for a kill).
pub fn write_checked(
    w: &mut (impl Write + ?Sized),
    bytes: &[u8],
    fault: Option<Fault>,
    at: FailAt,
) -> io::Result<()> {
    match fault {
        Some(f) if f.at == at => {
            w.write_all(&bytes[..bytes.len() / 2])?;
            w.flush()?;
            if f.kill {
                std::process::exit(KILLED);
            }
            Err(io::Error::new(
                io::ErrorKind::StorageFull,
                "No space left on device (injected by CTXCTL_TEST_FAIL_AT)",
            ))
        }
        _ => w.write_all(bytes),
    }
}

/// The injected fault, if any (see [`inject_fault`]).
pub fn injected_fault() -> Option<Fault> {
    FAULT.get().copied()
}

/// Removes temp files left in `dir` by an interrupted run (older than a minute, so a
/// concurrent run's live temp file is left alone). Returns how many were removed.
pub fn clean_stale_temps(dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name();
        if !name.to_string_lossy().starts_with(TEMP_PREFIX) {
            continue;
        }
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age.as_secs() > 60);
        if old && fs::remove_file(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// Bytes after which [`Writeback`] starts writing a file's new pages to disk. Every 4 MiB,
/// the sync that ends an archive still waited 3-5 ms for the last of them; every MiB it
/// waits 1-2 ms, and the writes cost no more (512 KiB: no better). Every 256 KiB, as the
/// archive's buffer hands them over: a file under a MiB starts before its end too.
const WRITEBACK_BYTES: u64 = 1 << 18;

/// A file being written in large pieces, its pages sent to disk every 256 KiB as they are
/// written (Linux: `sync_file_range`, which does not wait) rather than all at the sync that
/// ends the write: that sync then waits for the last piece only, and the disk works while
/// the writer goes on. Elsewhere, a plain file.
pub struct Writeback {
    file: fs::File,
    written: u64,
    started: u64,
}

impl Writeback {
    pub fn new(file: fs::File) -> Writeback {
        Writeback {
            file,
            written: 0,
            started: 0,
        }
    }

    /// Starts writing to disk what was written since the last start, without waiting.
    pub fn start_rest(&mut self) {
        if self.written > self.started {
            start_writeback(&self.file, self.started, self.written - self.started);
            self.started = self.written;
        }
    }
}

impl Write for Writeback {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(buf)?;
        self.written += n as u64;
        if self.written - self.started >= WRITEBACK_BYTES {
            start_writeback(&self.file, self.started, self.written - self.started);
            self.started = self.written;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// Starts writing `len` bytes of `file` from `offset` to disk, without waiting. A hint:
/// the sync that follows is what makes them durable, so a failure is of no consequence.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn start_writeback(file: &fs::File, offset: u64, len: u64) {
    use std::os::fd::AsRawFd;
    let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else {
        return;
    };
    // SAFETY: the descriptor is open for as long as `file` is borrowed; the call reads no
    // memory of ours.
    unsafe {
        libc::sync_file_range(file.as_raw_fd(), offset, len, libc::SYNC_FILE_RANGE_WRITE);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn start_writeback(_file: &fs::File, _offset: u64, _len: u64) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_keeps_mode() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.json");
        fs::write(&p, b"old").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
        }
        write_atomic(&p, b"new", false).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"new");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                fs::metadata(&p).unwrap().permissions().mode() & 0o777,
                0o640
            );
            write_atomic(&p, b"private", true).unwrap();
            assert_eq!(
                fs::metadata(&p).unwrap().permissions().mode() & 0o777,
                0o600
            );
        }
        let leftovers: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1);
    }

    #[test]
    fn a_large_file_read_in_two_halves_is_its_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big.jsonl");
        let bytes: Vec<u8> = (0..SPLIT_READ_BYTES as usize + 12_345)
            .map(|i| (i % 253) as u8)
            .collect();
        fs::write(&p, &bytes).unwrap();
        assert!(read_input(&p).unwrap() == bytes);
        assert!(read_split(&p).unwrap() == bytes);
        let small = dir.path().join("small.jsonl");
        fs::write(&small, b"{}\n").unwrap();
        assert_eq!(read_split(&small).unwrap(), b"{}\n");
    }

    fn temps(dir: &Path) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with(TEMP_PREFIX)
            })
            .collect();
        out.sort();
        out
    }

    /// [`write_atomic`] of `bytes` under `fault`.
    fn write_bytes_with(p: &Path, bytes: &[u8], fault: Option<Fault>) -> io::Result<()> {
        write_atomic_with(p, false, fault, &mut |f| f.write_all(bytes))
    }

    #[test]
    fn a_full_disk_or_a_failed_rename_leaves_the_old_file_and_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.json");
        fs::write(&p, b"old content").unwrap();
        for at in [FailAt::Write, FailAt::BeforeRename] {
            let fault = Some(Fault { at, kill: false });
            let e = write_bytes_with(&p, b"new content, longer", fault).unwrap_err();
            assert!(e.to_string().contains("CTXCTL_TEST_FAIL_AT"), "{e}");
            assert_eq!(fs::read(&p).unwrap(), b"old content", "{at:?}");
            assert_eq!(temps(dir.path()), Vec::<PathBuf>::new(), "{at:?}");
        }
        let mut half = Vec::new();
        let fault = Some(Fault {
            at: FailAt::Write,
            kill: false,
        });
        let e = write_checked(&mut half, b"12345678", fault, FailAt::Write).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::StorageFull);
        assert_eq!(half, b"1234");
        // A fault elsewhere does not touch this write.
        write_bytes_with(
            &p,
            b"new",
            Some(Fault {
                at: FailAt::ArchiveWrite,
                kill: false,
            }),
        )
        .unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"new");
    }

    #[test]
    fn a_staged_file_replaces_its_target_only_when_committed() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.json");
        fs::write(&p, b"old").unwrap();
        let staged = stage(&p, false, b"new").unwrap().unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"old");
        assert_eq!(temps(dir.path()).len(), 1);
        drop(staged);
        assert_eq!(fs::read(&p).unwrap(), b"old");
        assert_eq!(temps(dir.path()), Vec::<PathBuf>::new());
        stage(&p, false, b"new").unwrap().unwrap().commit().unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"new");
        assert_eq!(temps(dir.path()), Vec::<PathBuf>::new());
        // A device is written to when it is written, never staged.
        #[cfg(unix)]
        assert!(stage(Path::new("/dev/null"), false, b"x")
            .unwrap()
            .is_none());
    }

    #[test]
    fn temps_beside_a_session_keep_its_extension_and_are_not_sessions() {
        let dir = tempfile::tempdir().unwrap();
        let session = dir.path().join("s.jsonl");
        let tmp = temp_beside(&session).unwrap();
        assert_eq!(tmp.path().parent(), Some(dir.path()));
        assert_eq!(tmp.path().extension().unwrap(), "jsonl");
        let name = tmp.path().file_name().unwrap().to_str().unwrap();
        assert!(name.starts_with(TEMP_PREFIX), "{name}");
        let path = tmp.path().to_path_buf();
        drop(tmp);
        assert!(!path.exists());
    }

    #[test]
    fn stale_temps_beside_the_target_go_on_the_next_write() {
        let dir = tempfile::tempdir().unwrap();
        let stale = dir.path().join(format!("{TEMP_PREFIX}stale"));
        let fresh = dir.path().join(format!("{TEMP_PREFIX}fresh"));
        let other = dir.path().join("notes.tmp");
        for p in [&stale, &fresh, &other] {
            fs::write(p, b"half a sess").unwrap();
        }
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        fs::File::options()
            .write(true)
            .open(&stale)
            .unwrap()
            .set_modified(old)
            .unwrap();
        write_atomic(&dir.path().join("s.json"), b"[]", false).unwrap();
        assert!(!stale.exists(), "a stale temp file is removed");
        assert!(fresh.exists(), "a live one (another run's) is left alone");
        assert!(other.exists(), "files that are not ours are left alone");
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_written_to_not_replaced() {
        use std::os::unix::fs::FileTypeExt;
        let null = Path::new("/dev/null");
        write_atomic(null, b"discarded", false).unwrap();
        assert!(fs::metadata(null).unwrap().file_type().is_char_device());
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_written_through_and_stays_a_link() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        let target = dir.path().join("sub/target.jsonl");
        fs::write(&target, b"old").unwrap();
        let link = dir.path().join("link.jsonl");
        std::os::unix::fs::symlink("sub/target.jsonl", &link).unwrap();
        write_atomic(&link, b"new", false).unwrap();
        let staged = stage_by(&link, false, &mut |w| w.write_all(b"newer")).unwrap();
        staged.unwrap().commit().unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read(&target).unwrap(), b"newer");
        // A dangling link makes its target.
        let dangling = dir.path().join("dangling.jsonl");
        std::os::unix::fs::symlink("sub/made.jsonl", &dangling).unwrap();
        write_atomic(&dangling, b"made", false).unwrap();
        assert!(fs::symlink_metadata(&dangling)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(
            fs::read(dir.path().join("sub/made.jsonl")).unwrap(),
            b"made"
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn names_of_open_descriptors_are_devices() {
        // Redirected to a regular file, /dev/stdout still names the descriptor: renaming
        // over it would replace the system's link.
        for p in ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "/dev/null"] {
            assert!(is_device(Path::new(p)), "{p}");
        }
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        fs::write(&f, b"x").unwrap();
        assert!(!is_device(&f) && !is_device(&dir.path().join("missing")));
    }

    #[test]
    fn directories_are_refused_with_a_hint() {
        let dir = tempfile::tempdir().unwrap();
        let e = read_input(dir.path()).unwrap_err();
        assert!(e.to_string().contains("-r DIR"), "{e}");
    }
}
