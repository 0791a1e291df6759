//! After the write step of the [rewrite transaction](super): what was written, counted back
//! from the file as `count` reads it, where the plan of the rewrite cannot say it (a format
//! that adds records the plan does not count).

use std::path::Path;

use crate::context::Context;
use crate::ops::load::Loaded;

/// `loaded`'s session as written to `path`, counted: streamed as `count` reads a file (the
/// file is never held whole) when that counts with the session's tokenizer and scale, else
/// read whole ([`Loaded::recount_file`]).
pub fn streamed(ctx: &Context, loaded: &Loaded, path: &Path) -> Option<usize> {
    let wants = crate::ops::figures::Wants::default();
    match crate::ops::json_stream::tally(ctx, path, wants) {
        Ok(Some(c))
            if c.model.encoding == loaded.model.encoding
                && c.model.factor == loaded.model.factor =>
        {
            Some(c.total)
        }
        _ => loaded.recount_file(path),
    }
}
