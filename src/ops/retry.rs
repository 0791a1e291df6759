//! Replacing what was read, for one-file `trim` and `compact`: a second attempt when the
//! input changed under the first (`--in-place`). Batch runs skip such a file instead.

use crate::context::Context;
use crate::ops::load;

/// Runs `attempt`; when it fails because the input changed between reading and
/// replacing it ([`Changed`](crate::ops::load::Changed)), says so and runs it once more from a fresh read.
/// A second change is an error: nothing was replaced.
pub fn retrying<T>(
    ctx: &Context,
    shown: &str,
    mut attempt: impl FnMut() -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    match attempt() {
        Err(e) if load::is_changed(&e) => {
            ctx.printer.warn(&format!(
                "{shown} changed while ctxctl was working on it; reading it again"
            ));
            attempt().map_err(|e| {
                if load::is_changed(&e) {
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
