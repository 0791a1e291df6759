//! Replacing what was read, for `trim` and `compact`: a second attempt when the input
//! changed under the first (`--in-place`), and no archive left behind for a rewrite that
//! did not happen.

use std::path::Path;

use anyhow::Context as _;

use super::input::Loaded;
use super::output::{self, Destination};
use super::testhook;
use crate::context::Context;
use crate::fsutil::{self, FailAt};

/// Runs `attempt(n)`; when it fails because the input changed between reading and
/// replacing it ([`output::Changed`]), says so and runs it once more from a fresh read.
/// A second change is an error: nothing was replaced.
pub fn retrying<T>(
    ctx: &Context,
    shown: &str,
    mut attempt: impl FnMut(u32) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    match attempt(1) {
        Err(e) if output::is_changed(&e) => {
            ctx.printer.warn(&format!(
                "{shown} changed while ctxctl was working on it; reading it again"
            ));
            attempt(2).map_err(|e| {
                if output::is_changed(&e) {
                    anyhow::anyhow!(
                        "{shown} changed again while ctxctl was working on it (is an agent still \
                         writing to it?); nothing was replaced: run again once it is idle"
                    )
                } else {
                    e
                }
            })
        }
        r => r,
    }
}

/// Writes `bytes` to `dest` once the originals are archived at `archive`. If the write
/// fails (the input changed, the disk is full …) the archive is removed again, so no
/// archive describes a rewrite that never happened.
pub fn write_archived(
    ctx: &Context,
    dest: &Destination,
    loaded: &Loaded,
    bytes: &[u8],
    archive: Option<&Path>,
    attempt: u32,
) -> anyhow::Result<()> {
    let written = (|| {
        if archive.is_some() {
            fsutil::fail_point(FailAt::AfterArchive).context("after archiving")?;
        }
        if let Destination::InPlace(p) = dest {
            testhook::pause_before_replace(ctx, p, attempt)?;
        }
        output::write(ctx, dest, loaded, bytes)
    })();
    if let (Err(_), Some(path)) = (&written, archive) {
        match std::fs::remove_file(path) {
            Ok(()) => ctx.printer.debug(&format!(
                "removed {}: the session was not replaced",
                path.display()
            )),
            Err(e) => ctx.printer.warn(&format!(
                "cannot remove {} after the failed write ({e}); it describes a rewrite that \
                 did not happen",
                path.display()
            )),
        }
    }
    written
}
