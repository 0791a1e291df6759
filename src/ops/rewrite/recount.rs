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

/// `loaded`'s session as a rewrite that only appends `suffix` to its document writes it,
/// counted before it is written (the figure [`Loaded::recount`] gives of the whole bytes):
/// a Codex rollout streamed from the document and the suffix without the two being put
/// together, else read from a copy of them. `None` without the document, or when the
/// bytes do not read back.
pub fn appended(ctx: &Context, loaded: &Loaded, suffix: &[u8]) -> Option<usize> {
    let text = loaded.session.doc.text()?.as_bytes();
    let whole = || {
        let mut whole = Vec::with_capacity(text.len() + suffix.len());
        whole.extend_from_slice(text);
        whole.extend_from_slice(suffix);
        loaded.recount_owned(whole)
    };
    let streams = loaded.session.format == crate::session::Format::Codex
        && !crate::ops::count_api::enabled(ctx).unwrap_or(true);
    let streamed = streams
        .then(|| crate::ops::codex_stream::total_appended(ctx, text, suffix, &loaded.model))
        .flatten();
    match streamed {
        Some(n) => {
            debug_assert_eq!(Some(n), whole(), "{}", loaded.display());
            Some(n)
        }
        None => whole(),
    }
}
