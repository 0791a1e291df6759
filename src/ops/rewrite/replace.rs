//! The replace step of the [rewrite transaction](super): a session file replaced (or, when
//! the rewrite only adds lines, appended to) through a handle opened first, so that whole
//! records an agent appends meanwhile are carried over ([`carry`]), its last activity time
//! kept; a session of an agent's database written back in the database's own transaction.

use std::path::Path;

use anyhow::Context as _;

use super::RewriteError;
use crate::context::Context;
use crate::ops::carry::{self, Carried};
use crate::ops::load::{Changed, Fingerprint, Loaded};

/// Replaces the input `p` with `bytes`, checked through a handle opened first, so that
/// whole records an agent appends between the check and the rename are carried into the
/// new file. A symlink stays a symlink: the file it leads to is what gets replaced.
pub(super) fn file(ctx: &Context, p: &Path, loaded: &Loaded, bytes: &[u8]) -> anyhow::Result<()> {
    let (real, old) = checked(p, loaded)?;
    // The agent's last activity, kept: ctxctl's own rewrite must not make the session look
    // active (`sessions`, `--since`) or live (the recent-write window) to the next run.
    let activity = std::fs::metadata(&real).and_then(|m| m.modified()).ok();
    let lines = loaded.session.format.is_lines();
    // Only lines added at the end: appended, so that nothing an agent holding the file
    // writes meanwhile is lost and no byte of the original moves.
    let len = loaded.fingerprint.len;
    if lines && bytes.len() > len && Fingerprint::of(&bytes[..len]) == loaded.fingerprint {
        return appended(ctx, p, loaded, (real, old), activity, &bytes[len..]);
    }
    let carried = carry::replace(&real, bytes, old, len, lines)
        .with_context(|| format!("replacing {}", p.display()))?;
    replaced(ctx, p, &real, activity, carried)
}

/// [`file`] of a rewrite that only adds `suffix` at the end of the file `loaded` read (a
/// line format's whole document): appended, never put together with the file.
pub(super) fn append(
    ctx: &Context,
    p: &Path,
    loaded: &Loaded,
    suffix: &[u8],
) -> anyhow::Result<()> {
    let (real, old) = checked(p, loaded)?;
    let activity = std::fs::metadata(&real).and_then(|m| m.modified()).ok();
    appended(ctx, p, loaded, (real, old), activity, suffix)
}

/// Appends `suffix` to the file `real` (open as `old`, checked to hold what `loaded`
/// read), keeping its last activity time.
fn appended(
    ctx: &Context,
    p: &Path,
    loaded: &Loaded,
    (real, old): (std::path::PathBuf, std::fs::File),
    activity: Option<std::time::SystemTime>,
    suffix: &[u8],
) -> anyhow::Result<()> {
    let appended = carry::append(&real, suffix, &old, loaded.fingerprint.len)
        .with_context(|| format!("appending to {}", p.display()))?;
    if !appended {
        return Err(Changed {
            path: p.to_path_buf(),
        }
        .into());
    }
    replaced(ctx, p, &real, activity, Carried::Nothing)?;
    ctx.printer.debug(&format!(
        "{}: the rewrite only adds lines: {} bytes appended",
        p.display(),
        suffix.len()
    ));
    Ok(())
}

/// [`file`] of what `produce` writes, piece by piece (never held whole). Always a
/// replacement: whether the rewrite only adds lines is not known before it is written.
pub(super) fn file_by(
    ctx: &Context,
    p: &Path,
    loaded: &Loaded,
    produce: &mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    let (real, old) = checked(p, loaded)?;
    let activity = std::fs::metadata(&real).and_then(|m| m.modified()).ok();
    let lines = loaded.session.format.is_lines();
    let carried = carry::replace_by(&real, produce, old, loaded.fingerprint.len, lines)
        .with_context(|| format!("replacing {}", p.display()))?;
    replaced(ctx, p, &real, activity, carried)
}

/// The file `p` leads to, open and checked to hold what `loaded` read (else the error
/// the rewrite gives).
fn checked(p: &Path, loaded: &Loaded) -> anyhow::Result<(std::path::PathBuf, std::fs::File)> {
    let real = std::fs::canonicalize(p).with_context(|| format!("re-reading {}", p.display()))?;
    if let Some(read) = loaded.target.as_ref().filter(|t| **t != real) {
        return Err(RewriteError::Relinked {
            path: p.display().to_string(),
            read: read.display().to_string(),
            now: real.display().to_string(),
        }
        .into());
    }
    let old = carry::open_unchanged(&real, loaded.fingerprint)
        .with_context(|| format!("re-reading {}", p.display()))?;
    match old {
        Some(old) => Ok((real, old)),
        None => Err(Changed {
            path: p.to_path_buf(),
        }
        .into()),
    }
}

/// The outcome of a replacement of `p` (the file `real`): its last activity time kept
/// (`activity`), what an agent appended meanwhile noted, a roll-back an error.
fn replaced(
    ctx: &Context,
    p: &Path,
    real: &Path,
    activity: Option<std::time::SystemTime>,
    carried: Carried,
) -> anyhow::Result<()> {
    match carried {
        Carried::Nothing => {
            if let Some(t) = activity {
                let _ = std::fs::File::options()
                    .append(true)
                    .open(real)
                    .and_then(|f| f.set_modified(t));
            }
            Ok(())
        }
        Carried::Appended(n) => {
            ctx.printer.note(&format!(
                "{}: {n} bytes the agent appended while it was replaced were kept at its end",
                p.display()
            ));
            Ok(())
        }
        Carried::RolledBack => Err(Changed {
            path: p.to_path_buf(),
        }
        .into()),
    }
}

/// Writes a session of an agent's database back into it, in one transaction that first
/// checks its rows are still what was read (and that the agent is not running it).
pub(super) fn database(
    ctx: &Context,
    db: &Path,
    loaded: &Loaded,
    bytes: &[u8],
) -> anyhow::Result<()> {
    let Some(session) = &loaded.db_session else {
        return Err(RewriteError::NotADatabase(db.display().to_string()).into());
    };
    let guard = crate::ops::agentdb::Guard {
        expected: loaded.fingerprint.hash,
        now: crate::ops::store::clock(ctx)?.unix(),
        include_live: ctx.settings.include_live,
    };
    let done = crate::ops::agentdb::write(db, session, bytes, &guard)?;
    ctx.printer.debug(&format!(
        "{} ({} session {}): {done}",
        db.display(),
        session.agent_name(),
        session.id,
    ));
    Ok(())
}
