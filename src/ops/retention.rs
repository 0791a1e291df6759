//! The archive store's default bound, applied after every rewrite that files an archive
//! and by the nightly job: per session the newest `[archive] keep` (default 20), the whole
//! store within `[archive] max_mib` (default 1 GiB), oldest first, never a session's newest
//! archive (see [`crate::archive::prune::retain`]). Each removal is made under the
//! session's lock, like `archive rm`.

use std::path::Path;

use crate::archive::prune::{self, Retention};
use crate::archive::ArchiveStore;
use crate::context::Context;

/// The retention in force: the config file's, else the defaults; 0 lifts a limit.
pub fn settings(ctx: &Context) -> Retention {
    let a = &ctx.settings.file.archive;
    let keep = a.keep.unwrap_or(Retention::DEFAULT_KEEP);
    let mib = a.max_mib.unwrap_or(Retention::DEFAULT_MAX_MIB);
    Retention {
        keep: (keep != 0).then_some(keep),
        max_bytes: (mib != 0).then_some(mib.saturating_mul(1 << 20)),
    }
}

/// Removes what the retention in force removes from the archive store. A failure is a
/// warning: the rewrite it follows is done.
pub fn apply(ctx: &Context) {
    if let Err(e) = try_apply(ctx) {
        ctx.printer.warn(&format!(
            "keeping the archive store within its limits: {e:#}"
        ));
    }
}

/// Removes the archive at `path` of `session` (with its marks), under the session's lock,
/// as retention and `archive rm` / `archive clean` do.
pub fn remove(
    ctx: &Context,
    store: &ArchiveStore,
    session: &str,
    path: &Path,
) -> anyhow::Result<()> {
    let _lock = crate::ops::store::lock(ctx, store, session)?;
    crate::archive::marks::remove_archive(path)?;
    Ok(())
}

fn try_apply(ctx: &Context) -> anyhow::Result<()> {
    let r = settings(ctx);
    if r.keep.is_none() && r.max_bytes.is_none() {
        return Ok(());
    }
    let store = ctx.archive_store()?;
    let filed = store.filed()?;
    let list: Vec<prune::Filed> = filed.iter().map(|(f, _)| f.clone()).collect();
    let gone = prune::retain(&list, r);
    let (mut n, mut bytes) = (0, 0);
    for i in gone {
        let (f, path) = &filed[i];
        remove(ctx, &store, &f.session, path)?;
        n += 1;
        bytes += f.bytes;
    }
    if n > 0 {
        ctx.printer.debug(&format!(
            "archive store: removed {n} old archive(s), {bytes} bytes (keep {}, max {} MiB; see `ctxctl doctor`)",
            r.keep.map_or("all".into(), |k| k.to_string()),
            r.max_bytes.map_or("-".into(), |b| (b >> 20).to_string())
        ));
    }
    Ok(())
}
