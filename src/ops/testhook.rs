//! Test hooks: ways for the integration tests to stop a rewrite at a chosen step, all fired
//! by the [rewrite transaction](crate::ops::rewrite) (the fail points through
//! [`crate::fsutil`]). They are read from the environment and do nothing unless set.
//!
//! - `CTXCTL_TEST_FAIL_AT=STEP[:kill]` fails the run at STEP: `archive-write` (half the
//!   archive written, then "disk full"), `after-archive` (archive in place, session not yet
//!   replaced), `write` (half the session's temp file written, then "disk full") or
//!   `before-rename` (temp file complete and synced, not yet renamed). Without `:kill` the
//!   step returns an error and the run cleans up as it would after a real failure; with
//!   `:kill` the process exits at once with status 137, no cleanup, as `kill -9` would leave
//!   it.
//! - `CTXCTL_TEST_PAUSE_BEFORE_REPLACE=PATH`: before replacing an input file, create PATH
//!   (holding the attempt number) and wait until it is removed, so a test can change the
//!   input in between, as an agent still writing to it would, once per attempt. (The batch
//!   runs' `CTXCTL_TEST_HOLD_BEFORE_REPLACE` below waits on a marker the test
//!   made beforehand; it cannot tell the test when ctxctl got there, nor stop a second
//!   attempt.)
//! - `CTXCTL_TEST_HOLD_BEFORE_REPLACE=PATH`: while PATH exists (at most a minute), wait
//!   before the last check of a file about to be replaced ([`hold_before_replace`]).
//! - `CTXCTL_TEST_MAP_FROM=BYTES`: map agent transcripts (Claude Code, Codex) of BYTES or
//!   more for a rewrite ([`map_from`]), so that small test files take the mapped way too.
//! - `CTXCTL_TEST_UUID_SPILL=memory|slice:N`: keep a streamed Claude Code transcript's
//!   uuids in memory, or resolve them from their temp file N at a time ([`uuid_spill`]),
//!   so that small test files take the fallback, or many passes, too.

use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context as _;

use crate::config::env;
use crate::context::Context;
use crate::fsutil::{self, FailAt, Fault};

/// The longest a paused run waits for the test to remove the marker.
const PAUSE_LIMIT: Duration = Duration::from_secs(120);

/// Parses `CTXCTL_TEST_FAIL_AT` and arms it for this process.
pub fn install(ctx: &Context) -> anyhow::Result<()> {
    let Some(value) = ctx.env.get(env::CTXCTL_TEST_FAIL_AT) else {
        return Ok(());
    };
    let fault = parse(value).with_context(|| {
        format!(
            "{}: expected archive-write, after-archive, write or before-rename, \
             optionally followed by :kill; got {value:?}",
            env::CTXCTL_TEST_FAIL_AT
        )
    })?;
    fsutil::inject_fault(fault);
    Ok(())
}

fn parse(value: &str) -> Option<Fault> {
    let (step, kill) = match value.strip_suffix(":kill") {
        Some(step) => (step, true),
        None => (value, false),
    };
    let at = match step {
        "archive-write" => FailAt::ArchiveWrite,
        "after-archive" => FailAt::AfterArchive,
        "write" => FailAt::Write,
        "before-rename" => FailAt::BeforeRename,
        _ => return None,
    };
    Some(Fault { at, kill })
}

/// Waits for the test to remove the `CTXCTL_TEST_PAUSE_BEFORE_REPLACE` marker (created
/// here, holding how many times this process has paused) before `path` is replaced.
pub fn pause_before_replace(ctx: &Context, path: &Path) -> anyhow::Result<()> {
    static PAUSES: AtomicU32 = AtomicU32::new(0);
    let Some(marker) = ctx.env.get(env::CTXCTL_TEST_PAUSE_BEFORE_REPLACE) else {
        return Ok(());
    };
    let attempt = PAUSES.fetch_add(1, Ordering::SeqCst) + 1;
    let marker = Path::new(marker);
    // Written atomically: a test polling for the marker never sees it empty.
    crate::fsutil::write_atomic(marker, attempt.to_string().as_bytes(), false).with_context(
        || {
            format!(
                "{}: {}",
                env::CTXCTL_TEST_PAUSE_BEFORE_REPLACE,
                marker.display()
            )
        },
    )?;
    ctx.printer.debug(&format!(
        "paused before replacing {} until {} is removed",
        path.display(),
        marker.display()
    ));
    let deadline = Instant::now() + PAUSE_LIMIT;
    while marker.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    Ok(())
}

/// The size from which a rewrite maps an agent transcript, when a test sets it (see
/// [`crate::ops::mapped_input`]); a file that small is also loaded as a large one is.
pub fn map_from(ctx: &Context) -> Option<u64> {
    ctx.env.get(env::CTXCTL_TEST_MAP_FROM)?.parse().ok()
}

/// Where a streamed Claude Code transcript's uuids go, when a test says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UuidSpill {
    /// Held in memory, as where no temp file can be made.
    Memory,
    /// In the temp file, resolved this many hashes a pass.
    Slice(usize),
}

/// `CTXCTL_TEST_UUID_SPILL`, if set and well formed.
pub fn uuid_spill(ctx: &Context) -> Option<UuidSpill> {
    parse_uuid_spill(ctx.env.get(env::CTXCTL_TEST_UUID_SPILL)?)
}

fn parse_uuid_spill(value: &str) -> Option<UuidSpill> {
    match value {
        "memory" => Some(UuidSpill::Memory),
        _ => (value.strip_prefix("slice:")?.parse().ok())
            .filter(|&n| n > 0)
            .map(UuidSpill::Slice),
    }
}

/// While the file named by `CTXCTL_TEST_HOLD_BEFORE_REPLACE` exists, waits (at most a
/// minute) before the last check of `path`, about to be replaced, so that an integration
/// test can change the file in between, deterministically.
pub fn hold_before_replace(ctx: &Context, path: &Path) {
    let Some(marker) = ctx.env.get(env::CTXCTL_TEST_HOLD_BEFORE_REPLACE) else {
        return;
    };
    ctx.printer.debug(&format!(
        "test hook: holding {} before replacing it",
        path.display()
    ));
    let until = Instant::now() + Duration::from_secs(60);
    while Path::new(marker).exists() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fail_points_parse() {
        assert_eq!(
            parse("before-rename"),
            Some(Fault {
                at: FailAt::BeforeRename,
                kill: false
            })
        );
        assert_eq!(
            parse("archive-write:kill"),
            Some(Fault {
                at: FailAt::ArchiveWrite,
                kill: true
            })
        );
        for bad in ["", "kill", "write:", "write:KILL", "rename"] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn uuid_spill_hooks_parse() {
        assert_eq!(parse_uuid_spill("memory"), Some(UuidSpill::Memory));
        assert_eq!(parse_uuid_spill("slice:3"), Some(UuidSpill::Slice(3)));
        for bad in ["", "slice:", "slice:0", "slice:x", "Memory", "3"] {
            assert_eq!(parse_uuid_spill(bad), None, "{bad:?}");
        }
    }
}
