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

/// Writes `bytes` to `path` atomically: a temp file in the same directory, synced, then
/// renamed over `path`. With `private`, the file is created 0600; otherwise an existing
/// file's permissions are kept.
pub fn write_atomic(path: &Path, bytes: &[u8], private: bool) -> io::Result<()> {
    // A device or pipe (`-o /dev/null`, `-o /dev/stdout`, a FIFO) is written to, never
    // replaced: renaming over it would swap the device for a regular file.
    if fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        let mut f = fs::OpenOptions::new().write(true).open(path)?;
        return f.write_all(bytes);
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(&dir)?;
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
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    if let Ok(d) = fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
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

    #[cfg(unix)]
    #[test]
    fn devices_are_written_to_not_replaced() {
        use std::os::unix::fs::FileTypeExt;
        let null = Path::new("/dev/null");
        write_atomic(null, b"discarded", false).unwrap();
        assert!(fs::metadata(null).unwrap().file_type().is_char_device());
    }

    #[test]
    fn directories_are_refused_with_a_hint() {
        let dir = tempfile::tempdir().unwrap();
        let e = read_input(dir.path()).unwrap_err();
        assert!(e.to_string().contains("-r DIR"), "{e}");
    }
}
