//! The store and the archive transaction's pieces: stored sessions, the run's clock, and
//! the per-session lock every rewrite holds while it archives and replaces.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context as _;

use crate::archive::{self, ArchiveStore, Timestamp};
use crate::config::env;
use crate::context::Context;

/// `sessions/NAME.json` or `sessions/NAME.jsonl` in the store.
pub fn stored_session(ctx: &Context, name: &str) -> anyhow::Result<PathBuf> {
    archive::validate_name(name)?;
    let dir = crate::config::paths::sessions_dir(&ctx.data_dir()?.value);
    let found: Vec<PathBuf> = ["json", "jsonl"]
        .iter()
        .map(|ext| dir.join(format!("{name}.{ext}")))
        .filter(|p| p.is_file())
        .collect();
    match found.as_slice() {
        [one] => Ok(one.clone()),
        [] => anyhow::bail!(
            "no stored session {name:?} (looked for {name}.json and {name}.jsonl in {})",
            dir.display()
        ),
        _ => anyhow::bail!(
            "both {name}.json and {name}.jsonl exist in {}; remove one",
            dir.display()
        ),
    }
}

/// The run's clock: `CTXCTL_NOW` (tests) or the system time.
pub fn clock(ctx: &Context) -> anyhow::Result<Timestamp> {
    match ctx.env.get(env::CTXCTL_NOW) {
        Some(s) => Timestamp::parse(s).with_context(|| env::CTXCTL_NOW.to_string()),
        None => Ok(Timestamp::from_system(std::time::SystemTime::now())),
    }
}

pub use crate::ops::data_dir::DataDirError;

/// Locks session `name`, saying so when another ctxctl holds it.
pub fn lock(ctx: &Context, store: &ArchiveStore, name: &str) -> anyhow::Result<archive::LockGuard> {
    let secs = ctx.settings.lock_timeout.clone()?.value;
    let path = store.lock_path(name)?;
    archive::acquire_lock(&path, Duration::from_secs(secs), |p| {
        ctx.printer.note(&format!(
            "waiting for the lock on {} (another ctxctl is working on session {name})",
            p.display()
        ));
    })
    .map_err(|e| match e {
        archive::ArchiveError::LockTimeout { .. } => anyhow::anyhow!(
            "{e} (set {} to wait longer, in seconds)",
            env::CTXCTL_LOCK_TIMEOUT
        ),
        e => DataDirError {
            doing: format!("cannot lock session {name}"),
            detail: e.to_string(),
        }
        .into(),
    })
}
