//! After the write step of the [rewrite transaction](super): the hidden part of the next
//! request, measured from the usage the session recorded, left in the cache for the next
//! check of the bytes just written ([`crate::cache::carried`]), so that it reports what the
//! rewrite did rather than a prior.

use crate::context::Context;
use crate::ops::load::{Fingerprint, Loaded};
use crate::ops::write::Destination;

/// Leaves the hidden part of `loaded`'s next request for the next check of the bytes just
/// written to `dest` (whose fingerprint `written` gives). Nothing for standard output,
/// without usage (the prior applies before and after alike), or under `--no-cache`; a
/// failure only logs.
pub(super) fn carry(
    ctx: &Context,
    dest: &Destination,
    loaded: &Loaded,
    written: impl FnOnce() -> std::io::Result<Fingerprint>,
) {
    use crate::ops::predict::NextSource;
    let p = loaded.prediction();
    let measured = matches!(p.source, NextSource::Reported | NextSource::Calibrated);
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
