//! Sessions an agent is writing right now: a batch rewrite (`compact -r`, several files)
//! leaves alone a file modified within the last `live_secs` seconds (`[compact] live_secs`,
//! default the 120 s goose's database uses for the same question) or held open for
//! writing by another process (Linux), unless `--include-live`. The check against a concurrent writer in [`write`](super::write) still
//! protects a session whose agent wakes up mid-rewrite; this spares the rewrite, the
//! archive and the agent's next request a session that is plainly in use.

use std::path::Path;
use std::time::UNIX_EPOCH;

use crate::context::Context;
use crate::formats::goose_db::LIVE_SECS;

/// Why a session was left alone, for the batch's note and `--json`'s `reason`.
#[derive(Debug, thiserror::Error)]
pub enum Live {
    #[error("written {age}s ago (within {window}s): an agent may be writing it; --include-live rewrites it")]
    Recent { age: u64, window: u64 },
    #[error("held open for writing by process {pid}: an agent may be writing it; --include-live rewrites it")]
    Open { pid: u32 },
}

/// `Err(Live)` when `path` was modified within the run's live window by the run's clock
/// (`CTXCTL_NOW` in tests); `Ok` otherwise, with `--include-live`, or for a file whose time
/// cannot be read (the rewrite's own checks decide then).
pub fn check(ctx: &Context, path: &Path) -> anyhow::Result<()> {
    let Some(window) = window(ctx) else {
        return Ok(());
    };
    let now = crate::ops::store::clock(ctx)?.unix();
    let modified = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_secs() as i64);
    if let Some(age) = modified.and_then(|m| age(now, m, window)) {
        return Err(Live::Recent { age, window }.into());
    }
    if let Some(pid) = writer_of(path) {
        return Err(Live::Open { pid }.into());
    }
    Ok(())
}

/// [`check`] for one session of an agent's database, last active at `active` (Unix
/// seconds): the database is written by every session of it, so its file's time and
/// writers do not tell (its write checks the session again).
pub fn check_session(ctx: &Context, active: Option<i64>) -> anyhow::Result<()> {
    let Some(window) = window(ctx) else {
        return Ok(());
    };
    let now = crate::ops::store::clock(ctx)?.unix();
    if let Some(age) = active.and_then(|m| age(now, m, window)) {
        return Err(Live::Recent { age, window }.into());
    }
    Ok(())
}

/// The run's live window in seconds; `None` with `--include-live` or a window of 0.
fn window(ctx: &Context) -> Option<u64> {
    let window = ctx
        .settings
        .file
        .compact
        .live_secs
        .unwrap_or(LIVE_SECS as u64);
    (!ctx.settings.include_live && window != 0).then_some(window)
}

/// The id of another process holding `path` open for writing (Linux: `/proc/*/fd` and
/// the access mode in `/proc/*/fdinfo`), read once per run. Processes whose `/proc`
/// entries cannot be read (other users') are not seen.
#[cfg(target_os = "linux")]
fn writer_of(path: &Path) -> Option<u32> {
    use std::collections::HashMap;
    use std::os::unix::fs::MetadataExt;
    use std::sync::OnceLock;
    static WRITERS: OnceLock<HashMap<(u64, u64), u32>> = OnceLock::new();
    let writers = WRITERS.get_or_init(|| {
        let mut out = HashMap::new();
        let me = std::process::id();
        let Ok(procs) = std::fs::read_dir("/proc") else {
            return out;
        };
        for proc in procs.flatten() {
            let Some(pid) = proc
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            if pid == me {
                continue;
            }
            let Ok(fds) = std::fs::read_dir(proc.path().join("fd")) else {
                continue;
            };
            for fd in fds.flatten() {
                let writes = opened_for_writing(&proc.path(), &fd.file_name());
                if let (true, Ok(m)) = (writes, std::fs::metadata(fd.path())) {
                    if m.is_file() {
                        out.insert((m.dev(), m.ino()), pid);
                    }
                }
            }
        }
        out
    });
    let m = std::fs::metadata(path).ok()?;
    writers.get(&(m.dev(), m.ino())).copied()
}

/// Whether descriptor `fd` of the process whose `/proc` directory is `proc` was opened for
/// writing (the access mode in its `fdinfo` flags: write-only or read-write).
#[cfg(target_os = "linux")]
pub(crate) fn opened_for_writing(proc: &Path, fd: &std::ffi::OsStr) -> bool {
    let info = proc.join("fdinfo").join(fd);
    std::fs::read_to_string(info).ok().is_some_and(|text| {
        text.lines()
            .find_map(|l| l.strip_prefix("flags:"))
            .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
            .is_some_and(|flags| flags & 0o3 != 0)
    })
}

#[cfg(not(target_os = "linux"))]
fn writer_of(_path: &Path) -> Option<u32> {
    None
}

/// Seconds since `modified` when that is within `window` of `now`. A time after `now` is
/// a clock out of step, not a write in progress.
fn age(now: i64, modified: i64, window: u64) -> Option<u64> {
    let age = u64::try_from(now.checked_sub(modified)?).ok()?;
    (age < window).then_some(age)
}

#[cfg(test)]
mod tests {
    use super::age;

    #[test]
    fn recent_is_live_and_old_or_future_is_not() {
        assert_eq!(age(1000, 1000, 120), Some(0));
        assert_eq!(age(1000, 881, 120), Some(119));
        assert_eq!(age(1000, 880, 120), None);
        assert_eq!(age(1000, 1005, 120), None);
    }
}
