//! Reading a session for a read-only command (`count`, `stats`, `check`): streamed and
//! counted as it is read ([`crate::ops::json_stream`]) when it can be, else read whole
//! ([`crate::ops::load`]) and counted ([`crate::ops::counted::of_loaded`]); an agent's
//! database session is read whole. Its figures are a [`Counted`].

use std::path::Path;

use crate::context::Context;
use crate::ops::counted::{self, Counted};
use crate::ops::figures::Wants;
use crate::ops::load::{self, Loaded};
use crate::render::progress::{Transient, LARGE_FILE_BYTES};
use crate::session::Keep;

/// Reads `path` for a read-only command, keeping what `wants` asks for.
pub fn load(ctx: &Context, path: &Path, wants: Wants) -> anyhow::Result<Counted> {
    load_session(ctx, path, None, wants)
}

/// `load`, of session `session` when `path` is an agent's database (`None`:
/// `--session`, else its only session).
pub fn load_session(
    ctx: &Context,
    path: &Path,
    session: Option<&str>,
    wants: Wants,
) -> anyhow::Result<Counted> {
    if let Some(id) = session {
        // An agent's database is read whole.
        let l = load::load_selected(ctx, path, Some(id))?;
        return finish(ctx, l, wants);
    }
    if let Some(t) = crate::ops::json_stream::tally(ctx, path, wants)? {
        return Ok(t);
    }
    // Read whole: a large file shows a spinner while it is read and counted.
    let _reading = std::fs::metadata(path)
        .is_ok_and(|m| m.is_file() && m.len() >= LARGE_FILE_BYTES)
        .then(|| {
            Transient::new(
                ctx.printer
                    .spinner(&format!("reading {}", load::display(path))),
            )
        });
    let l = if wants.resume && !load::is_database(path) {
        let (bytes, fingerprint) = load::read(path)?;
        load::load_bytes(ctx, path, bytes, fingerprint, Keep::After(None))?
    } else {
        load::load_for_reading(ctx, path)?
    };
    finish(ctx, l, wants)
}

/// The figures of `l`, with the provider's count under `--count-with api`.
fn finish(ctx: &Context, l: Loaded, wants: Wants) -> anyhow::Result<Counted> {
    let api = if crate::ops::count_api::enabled(ctx)? {
        Some(crate::ops::count_api::prediction(ctx, &l)?)
    } else {
        None
    };
    Ok(counted::of_loaded(ctx, l, wants, api))
}
