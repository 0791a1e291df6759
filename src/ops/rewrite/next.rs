//! After the write step of the [rewrite transaction](super): the hidden part of the next
//! request, measured from the usage the session recorded, left in the cache for the next
//! check of the bytes just written ([`crate::cache::carried`]), so that it reports what the
//! rewrite did rather than a prior.

use crate::context::Context;
use crate::ops::load::{Fingerprint, Loaded};
use crate::ops::write::Destination;

/// Leaves the hidden part of `loaded`'s next request for the next check of the bytes just
/// written to `dest` (whose fingerprint `written` gives). Nothing for standard output,
/// without a measured hidden part (the prior applies before and after alike), or under
/// `--no-cache`; a failure only logs.
pub(super) fn carry(
    ctx: &Context,
    dest: &Destination,
    loaded: &Loaded,
    written: impl FnOnce() -> std::io::Result<Fingerprint>,
) {
    use crate::ops::predict::NextSource;
    let p = loaded.prediction();
    // Whatever the session's own figures measured, including a hidden part measured
    // before the agent's compaction or carried over by an earlier rewrite: a rewrite of
    // such a file would otherwise leave the next check a prior (on a Claude Code session
    // compacted by its agent, 25% below what the rewrite reported).
    let measured = matches!(
        p.source,
        NextSource::Reported | NextSource::Calibrated | NextSource::Compacted | NextSource::Carried
    );
    if *dest == Destination::Stdout || !measured || ctx.digests().is_none() {
        return;
    }
    let Some(dir) = ctx.digests_dir() else { return };
    let saved = written().and_then(|f| {
        crate::cache::carried::put(
            &dir,
            &crate::cache::carried::Carried::new(
                f.len,
                f.hash,
                loaded.hidden_after.unwrap_or(p.overhead),
            ),
        )
    });
    if let Err(e) = saved {
        ctx.printer.debug(&format!(
            "next request not carried over to {}: {e}",
            dest.display()
        ));
    }
}
