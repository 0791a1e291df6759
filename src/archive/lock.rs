//! A lock file per session, so two compactions of one session do not interleave.
//! The lock is tried without blocking first; if another process holds it the caller is
//! told what is being waited for, then the lock is polled until a timeout.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

use super::pending::create_private_dir;
use super::ArchiveError;

/// How often a held lock is tried again.
const POLL: Duration = Duration::from_millis(50);

/// A held lock, released on drop.
#[derive(Debug)]
pub struct LockGuard {
    _file: File,
    path: PathBuf,
}

impl LockGuard {
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Locks `path` (created 0600 if missing, with 0700 parent directories). When the lock is
/// held elsewhere, calls `on_wait(path)` once and waits up to `timeout`.
pub fn acquire(
    path: &Path,
    timeout: Duration,
    on_wait: impl FnOnce(&Path),
) -> Result<LockGuard, ArchiveError> {
    if let Some(dir) = path.parent() {
        create_private_dir(dir)?;
    }
    let mut opts = OpenOptions::new();
    opts.create(true).truncate(false).write(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    let file = opts.open(path).map_err(|e| ArchiveError::io(path, e))?;
    let guard = |file| LockGuard {
        _file: file,
        path: path.to_path_buf(),
    };
    match file.try_lock() {
        Ok(()) => return Ok(guard(file)),
        Err(TryLockError::WouldBlock) => on_wait(path),
        Err(TryLockError::Error(e)) => return Err(ArchiveError::io(path, e)),
    }
    let deadline = Instant::now() + timeout;
    loop {
        let now = Instant::now();
        if now >= deadline {
            return Err(ArchiveError::LockTimeout {
                path: path.to_path_buf(),
                secs: timeout.as_secs_f64().ceil() as u64,
            });
        }
        thread::sleep(POLL.min(deadline - now));
        match file.try_lock() {
            Ok(()) => return Ok(guard(file)),
            Err(TryLockError::WouldBlock) => continue,
            Err(TryLockError::Error(e)) => return Err(ArchiveError::io(path, e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_is_announced_then_times_out_and_frees_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("locks/s.lock");
        let first = acquire(&path, Duration::ZERO, |_| panic!("free lock waited")).unwrap();
        assert_eq!(first.path(), path);
        let mut told = None;
        let e = acquire(&path, Duration::from_millis(120), |p| {
            told = Some(p.to_path_buf())
        })
        .unwrap_err();
        assert_eq!(told.as_deref(), Some(path.as_path()));
        assert!(matches!(e, ArchiveError::LockTimeout { .. }), "{e}");
        assert!(e.to_string().contains("s.lock"), "{e}");
        drop(first);
        acquire(&path, Duration::ZERO, |_| panic!("released lock waited")).unwrap();
    }

    #[test]
    fn a_waiter_gets_the_lock_when_it_is_released() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.lock");
        let held = acquire(&path, Duration::ZERO, |_| {}).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let p = path.clone();
        let waiter = thread::spawn(move || {
            acquire(&p, Duration::from_secs(30), |_| tx.send(()).unwrap()).map(|_| ())
        });
        rx.recv().unwrap(); // the waiter saw the lock held
        drop(held);
        waiter.join().unwrap().unwrap();
    }
}
