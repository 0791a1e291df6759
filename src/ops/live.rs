//! Sessions an agent is writing right now: a batch rewrite (`compact -r`, several files)
//! leaves alone a file modified within the last `live_secs` seconds (`[compact] live_secs`,
//! default the 120 s goose's database uses for the same question), unless
//! `--include-live`. The check against a concurrent writer in [`write`](super::write) still
//! protects a session whose agent wakes up mid-rewrite; this spares the rewrite, the
//! archive and the agent's next request a session that is plainly in use.

use std::path::Path;
use std::time::UNIX_EPOCH;

use crate::context::Context;
use crate::formats::goose_db::LIVE_SECS;

/// Why a session was left alone, for the batch's note and `--json`'s `reason`.
#[derive(Debug, thiserror::Error)]
#[error("written {age}s ago (within {window}s): an agent may be writing it; --include-live rewrites it")]
pub struct Live {
    pub age: u64,
    pub window: u64,
}

/// `Err(Live)` when `path` was modified within the run's live window by the run's clock
/// (`CTXCTL_NOW` in tests); `Ok` otherwise, with `--include-live`, or for a file whose time
/// cannot be read (the rewrite's own checks decide then).
pub fn check(ctx: &Context, path: &Path) -> anyhow::Result<()> {
    let window = ctx.settings.file.compact.live_secs.unwrap_or(LIVE_SECS as u64);
    if ctx.settings.include_live || window == 0 {
        return Ok(());
    }
    let now = crate::ops::store::clock(ctx)?.unix();
    let modified = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_secs() as i64);
    match modified.and_then(|m| age(now, m, window)) {
        Some(age) => Err(Live { age, window }.into()),
        None => Ok(()),
    }
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
