//! The rewrite transaction, written once: every command that replaces a session (`trim`,
//! `compact`, `archive restore`, an agent's SQLite store through them) hands its plan to a
//! [`Transaction`] and gets the outcome back. In order:
//!
//! 1. the live-session rule, before any work ([`guard_input`], [`guard_batch`]);
//! 2. the session's lock ([`Transaction::begin`]), held until the transaction is dropped;
//! 3. the input checked unchanged since it was read ([`Transaction::ensure_unchanged`]);
//! 4. the originals archived, their archive assembled here ([`originals`]);
//! 5. the new bytes staged beside the destination and synced ([`Transaction::stage`]; a
//!    new file may be written as it is made, [`Transaction::stage_by`], and counted back
//!    from there, [`recount`]);
//! 6. the last look (the test hook, the live recheck) and the replace: a rename, an append,
//!    or the database's own transaction, the agent's last activity time kept ([`replace`]);
//! 7. on failure, the archive filed for it removed again ([`Transaction::commit`]); on
//!    success, the next request's hidden part carried over to the bytes written ([`next`]);
//! 8. once the lock is released, the archive store kept within its limits
//!    ([`retention`](crate::ops::retention)), unless the caller bounds it once for a batch.
//!
//! Commands decide what to write; nothing in `crate::cli` opens, syncs, renames or archives
//! a session itself.

mod next;
pub mod originals;
pub mod recount;
mod replace;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context as _;

use crate::archive::{ArchiveError, ArchiveStore, LockGuard, Stored, Timestamp};
use crate::context::Context;
use crate::fsutil;
use crate::ops::live::{self, Scope};
use crate::ops::load::{self, Fingerprint, Loaded};
use crate::ops::write::{self, Destination, OutputChoice};

pub use originals::{Originals, Paths, UndoFrom};

/// The number and file an archive gets, or why it cannot be had.
pub type Slot = Result<(u64, PathBuf), ArchiveError>;

/// What the rewrite transaction refuses on its own account.
#[derive(Debug, thiserror::Error)]
pub enum RewriteError {
    #[error(
        "{path} led to {read} when it was read and leads to {now} now; left both as they are \
         (run again to rewrite what it leads to now)"
    )]
    Relinked {
        path: String,
        read: String,
        now: String,
    },
    #[error("{0}: not a database session")]
    NotADatabase(String),
    #[error("{0}: replacing the input takes the whole output at once")]
    WholeOutput(String),
}

/// When the archive store is brought back within its limits after an archive is filed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// As the transaction ends (its lock released).
    Now,
    /// By the caller, once for a whole batch ([`bound_store`]).
    Later,
}

/// One rewrite of one session, under its lock. See the module doc for its steps.
pub struct Transaction<'a> {
    ctx: &'a Context,
    store: ArchiveStore,
    name: String,
    now: Timestamp,
    bound: Bound,
    /// Whether an archive was filed and the rewrite it belongs to written.
    filed: AtomicBool,
    lock: Option<LockGuard>,
}

/// The live-session rule for a rewrite of the session file `input` the user named, before
/// any work: a live session is an error naming the file and the signal seen, nothing
/// written. An agent's database is checked per session, in the transaction that writes it;
/// ctxctl's own store (`from_store`) has no agent.
pub fn guard_input(
    ctx: &Context,
    choice: &OutputChoice,
    input: &Path,
    from_store: bool,
) -> anyhow::Result<()> {
    if from_store || !choice.replaces(input) || load::is_database(input) {
        return Ok(());
    }
    live::guard_named(ctx, input)
}

/// The live-session rule for one session of a batch, once it is known to need a rewrite:
/// a live one is skipped (the error says why).
pub fn guard_batch(ctx: &Context, input: &Path) -> Result<(), live::Live> {
    live::guard(ctx, input, Scope::Batch)
}

/// The session name the archives of a rewrite of `loaded` are filed under: a database
/// session's id, else `--name` or the file's stem ([`write::archive_name`]).
pub fn archive_name(loaded: &Loaded, name: Option<&str>) -> anyhow::Result<String> {
    match &loaded.db_session {
        Some(s) => Ok(s.archive_name()),
        None => write::archive_name(name, &loaded.path),
    }
}

/// Whether a rewrite of `loaded` to `dest` can be applied by appending to the input
/// ([`Transaction::commit_appended`], [`crate::formats::write_in_place`]): it replaces a
/// line format's file (not a database's session) whose document is the file's bytes
/// exactly, as read.
pub fn appends_in_place(dest: &Destination, loaded: &Loaded) -> bool {
    let Destination::InPlace(_) = dest else {
        return false;
    };
    if loaded.db_session.is_some() || !loaded.session.format.is_lines() {
        return false;
    }
    let crate::session::Document::Lines(doc) = &loaded.session.doc else {
        return false;
    };
    Fingerprint {
        len: doc.text.len(),
        hash: doc.text.xxh3_128(),
    } == loaded.fingerprint
}

/// Brings the archive store back within its limits (after a batch that deferred it).
pub fn bound_store(ctx: &Context) {
    crate::ops::retention::apply(ctx);
}

/// The archive store a rewrite files into, opened before any work so that its settings
/// are checked before a summary is made ([`Transaction::begin_at`] takes it).
pub fn open_store(ctx: &Context) -> anyhow::Result<ArchiveStore> {
    ctx.archive_store()
}

/// The archive number and file the next archive of `name` would get at `now`, without
/// the lock: what a dry run shows.
pub fn preview_slot(ctx: &Context, name: &str, now: Timestamp) -> anyhow::Result<(u64, PathBuf)> {
    let store = ctx.archive_store()?;
    let seq = store.next_seq(name)?;
    Ok((seq, store.path_for(name, seq, now)?))
}

/// Writes `bytes`, the rewrite of `loaded`, to a destination other than the input (`-o
/// FILE`, `-o -`, the store, the latter under no lock: see [`Transaction::write`]), and
/// carries its next request over to them ([`next::carry`]).
pub fn write_new(
    ctx: &Context,
    dest: &Destination,
    loaded: &Loaded,
    bytes: &[u8],
) -> anyhow::Result<()> {
    write_new_bytes(ctx, dest, bytes)?;
    next::carry(ctx, dest, loaded, || Ok(Fingerprint::of(bytes)));
    Ok(())
}

/// [`write_new`] without carrying the next request over.
fn write_new_bytes(ctx: &Context, dest: &Destination, bytes: &[u8]) -> anyhow::Result<()> {
    match dest {
        Destination::Stdout => ctx
            .printer
            .data(bytes)
            .context("writing to standard output"),
        Destination::File(p) => fsutil::write_atomic(p, bytes, false)
            .with_context(|| format!("writing {}", p.display())),
        Destination::Store { path, .. } => write::write_store(&ctx.data_dir()?.value, path, bytes),
        Destination::InPlace(p) => Err(RewriteError::WholeOutput(p.display().to_string()).into()),
    }
}

/// [`write_new`] of what `produce` writes, piece by piece, never holding it whole.
/// Replacing the input takes whole bytes ([`Transaction::write`]): its archive's undo
/// script and the carrying over of what an agent appends meanwhile need them.
pub fn write_new_by(
    ctx: &Context,
    dest: &Destination,
    loaded: &Loaded,
    produce: &mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    match dest {
        Destination::Stdout => {
            let mut out = ctx.printer.data_writer();
            produce(&mut out)
                .and_then(|()| std::io::Write::flush(&mut out))
                .context("writing to standard output")?;
        }
        Destination::File(p) => fsutil::write_atomic_by(p, false, produce)
            .with_context(|| format!("writing {}", p.display()))?,
        Destination::Store { path, .. } => {
            write::write_store_by(&ctx.data_dir()?.value, path, produce)?
        }
        Destination::InPlace(p) => {
            return Err(RewriteError::WholeOutput(p.display().to_string()).into())
        }
    }
    if let Destination::File(p) | Destination::Store { path: p, .. } = dest {
        // Never held whole: hashed as written, read back.
        next::carry(ctx, dest, loaded, || Fingerprint::of_file(p));
    }
    Ok(())
}

impl<'a> Transaction<'a> {
    /// Begins the rewrite of session `name` (the name its archives are filed under): takes
    /// its lock, waiting for another ctxctl holding it.
    pub fn begin(ctx: &'a Context, name: &str) -> anyhow::Result<Self> {
        let now = crate::ops::store::clock(ctx)?;
        Self::begin_at(ctx, ctx.archive_store()?, name, now)
    }

    /// [`Transaction::begin`] in `store`, its archives dated `now`.
    pub fn begin_at(
        ctx: &'a Context,
        store: ArchiveStore,
        name: &str,
        now: Timestamp,
    ) -> anyhow::Result<Self> {
        let lock = crate::ops::store::lock(ctx, &store, name)?;
        Ok(Transaction {
            ctx,
            store,
            name: name.to_string(),
            now,
            bound: Bound::Now,
            filed: AtomicBool::new(false),
            lock: Some(lock),
        })
    }

    /// Leaves bounding the archive store to the caller ([`Bound::Later`]).
    pub fn bound(mut self, bound: Bound) -> Self {
        self.bound = bound;
        self
    }

    /// The session name the archives are filed under.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The time the transaction's archives carry.
    pub fn now(&self) -> Timestamp {
        self.now
    }

    /// Errors (as [`load::Changed`] or the database's own "changed") when `dest` replaces
    /// the input and it changed since `loaded` read it: such a session is not even archived.
    pub fn ensure_unchanged(&self, dest: &Destination, loaded: &Loaded) -> anyhow::Result<()> {
        match dest {
            Destination::InPlace(_) => loaded.ensure_unchanged(),
            _ => Ok(()),
        }
    }

    /// The number and file the next archive gets.
    pub fn slot(&self) -> Slot {
        let seq = self.store.next_seq(&self.name)?;
        Ok((seq, self.store.path_for(&self.name, seq, self.now)?))
    }

    /// The first half of the write of `bytes` to a new file (`-o FILE`, the store): written
    /// to a synced temp file beside it, renamed into place by [`Transaction::commit`] once
    /// the archive is filed. `None` where the write cannot be split (see [`write::stage`]).
    pub fn stage(
        &self,
        dest: &Destination,
        bytes: &[u8],
    ) -> anyhow::Result<Option<fsutil::Staged>> {
        write::stage(self.ctx, dest, bytes)
    }

    /// [`Transaction::stage`] of what `produce` writes, piece by piece, never holding it
    /// whole; committed by [`Transaction::commit_staged`].
    pub fn stage_by(
        &self,
        dest: &Destination,
        produce: &mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>,
    ) -> anyhow::Result<Option<fsutil::Staged>> {
        write::stage_by(self.ctx, dest, produce)
    }

    /// Renames a file [`Transaction::stage_by`] wrote into place (a new file: nothing is
    /// archived) and carries the next request over to it, hashed as it is read back.
    pub fn commit_staged(
        &self,
        dest: &Destination,
        loaded: &Loaded,
        staged: fsutil::Staged,
    ) -> anyhow::Result<()> {
        staged
            .commit()
            .with_context(|| format!("writing {}", dest.display()))?;
        if let Destination::File(p) | Destination::Store { path: p, .. } = dest {
            next::carry(self.ctx, dest, loaded, || Fingerprint::of_file(p));
        }
        Ok(())
    }

    /// Whether [`Transaction::stage`] splits a write to `dest`.
    pub fn stages(dest: &Destination) -> bool {
        write::stages(dest)
    }

    /// Writes `bytes` to `dest`. Replacing the input first holds for the test hook, looks
    /// again for an agent on the session, and checks that it did not change since it was
    /// read (an agent may still be appending to it).
    pub fn write(&self, dest: &Destination, loaded: &Loaded, bytes: &[u8]) -> anyhow::Result<()> {
        self.write_bytes(dest, loaded, bytes)?;
        next::carry(self.ctx, dest, loaded, || Ok(Fingerprint::of(bytes)));
        Ok(())
    }

    /// [`Transaction::write`] of what `produce` writes, piece by piece, never holding it
    /// whole; replacing the input checks it as [`Transaction::write`] does. Not for an
    /// agent's database, written in its own transaction from whole bytes.
    pub fn write_by(
        &self,
        dest: &Destination,
        loaded: &Loaded,
        produce: &mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>,
    ) -> anyhow::Result<()> {
        match dest {
            Destination::InPlace(p) if loaded.db_session.is_some() => {
                Err(RewriteError::WholeOutput(p.display().to_string()).into())
            }
            Destination::InPlace(p) => {
                crate::ops::testhook::hold_before_replace(self.ctx, p);
                live::recheck(self.ctx, p)?;
                replace::file_by(self.ctx, p, loaded, produce)?;
                // Hashed as written, read back.
                next::carry(self.ctx, dest, loaded, || Fingerprint::of_file(p));
                Ok(())
            }
            other => write_new_by(self.ctx, other, loaded, produce),
        }
    }

    /// [`Transaction::write`] without carrying the next request over.
    fn write_bytes(&self, dest: &Destination, loaded: &Loaded, bytes: &[u8]) -> anyhow::Result<()> {
        match dest {
            Destination::InPlace(p) if loaded.db_session.is_some() => {
                replace::database(self.ctx, p, loaded, bytes)
            }
            Destination::InPlace(p) => {
                crate::ops::testhook::hold_before_replace(self.ctx, p);
                // The last look: an agent may have started on the session meanwhile.
                live::recheck(self.ctx, p)?;
                replace::file(self.ctx, p, loaded, bytes)
            }
            other => write_new_bytes(self.ctx, other, bytes),
        }
    }

    /// [`Transaction::write`] of a rewrite whose removed messages were archived as
    /// `archive` first (`staged`: `bytes` already written beside `dest` by
    /// [`Transaction::stage`], or failed to be; renamed into place). When nothing was
    /// replaced (the input changed meanwhile, the disk is full …), the archive is removed
    /// again: it would describe a rewrite that never happened.
    pub fn commit(
        &self,
        dest: &Destination,
        loaded: &Loaded,
        bytes: &[u8],
        archive: Option<&Stored>,
        staged: Option<anyhow::Result<fsutil::Staged>>,
    ) -> anyhow::Result<()> {
        self.committing(dest, archive, || {
            match staged {
                Some(staged) => staged?
                    .commit()
                    .with_context(|| format!("writing {}", dest.display()))?,
                None => self.write_bytes(dest, loaded, bytes)?,
            }
            next::carry(self.ctx, dest, loaded, || Ok(Fingerprint::of(bytes)));
            Ok(())
        })
    }

    /// [`Transaction::commit`] of a rewrite of the file `loaded` read that only adds
    /// `suffix` at its end ([`appends_in_place`]): appended, the file never held with it.
    pub fn commit_appended(
        &self,
        dest: &Destination,
        loaded: &Loaded,
        suffix: &[u8],
        archive: Option<&Stored>,
    ) -> anyhow::Result<()> {
        let Destination::InPlace(p) = dest else {
            return Err(RewriteError::WholeOutput(dest.display()).into());
        };
        self.committing(dest, archive, || {
            crate::ops::testhook::hold_before_replace(self.ctx, p);
            live::recheck(self.ctx, p)?;
            replace::append(self.ctx, p, loaded, suffix)?;
            next::carry(self.ctx, dest, loaded, || {
                let text = (loaded.session.doc.text())
                    .ok_or_else(|| std::io::Error::other("the session's document was released"))?;
                Ok(Fingerprint::of_parts(&[text.as_bytes(), suffix]))
            });
            Ok(())
        })
    }

    /// [`Transaction::commit`] of a rewrite written to the file `from` (never held whole),
    /// copied into `dest` as [`Transaction::write_by`] writes (`from` is left for the
    /// caller to remove).
    pub fn commit_from(
        &self,
        dest: &Destination,
        loaded: &Loaded,
        from: &Path,
        archive: Option<&Stored>,
    ) -> anyhow::Result<()> {
        self.committing(dest, archive, || {
            self.write_by(dest, loaded, &mut |out| {
                std::io::copy(&mut std::fs::File::open(from)?, out).map(|_| ())
            })
        })
    }

    /// What every commit does around its `write`: the fail point after archiving and the
    /// test hook before a replacement first, then the write, then [`Transaction::settle`].
    fn committing(
        &self,
        dest: &Destination,
        archive: Option<&Stored>,
        write: impl FnOnce() -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let written = (|| {
            if archive.is_some() {
                fsutil::fail_point(fsutil::FailAt::AfterArchive).context("after archiving")?;
            }
            if let Destination::InPlace(p) = dest {
                crate::ops::testhook::pause_before_replace(self.ctx, p)?;
            }
            write()
        })();
        self.settle(&written, archive);
        written
    }

    /// After a commit: the archive filed for it removed again when nothing was written,
    /// else marked filed.
    fn settle(&self, written: &anyhow::Result<()>, archive: Option<&Stored>) {
        match (written, archive) {
            (Err(_), Some(archive)) => {
                if let Err(rm) = std::fs::remove_file(&archive.path) {
                    self.ctx.printer.warn(&format!(
                        "cannot remove the unused archive {}: {rm}",
                        archive.path.display()
                    ));
                }
            }
            (Ok(()), Some(_)) => self.filed.store(true, Ordering::SeqCst),
            _ => {}
        }
    }

    /// Marks archive `archive` restored into `into` (a warning when it cannot be: the
    /// session is back either way).
    pub fn mark_restored(&self, id: &str, archive: &Path, into: &Path) {
        let mark = crate::archive::Restored {
            at: self.now.rfc3339(),
            into: into.display().to_string(),
        };
        if let Err(e) = crate::archive::marks::write(archive, &mark) {
            self.ctx
                .printer
                .warn(&format!("restored, but cannot mark {id} restored: {e}"));
        }
    }
}

impl Drop for Transaction<'_> {
    /// Releases the session's lock, then, when an archive was filed, keeps the archive
    /// store within its limits (each removal takes its session's lock: this one's too).
    fn drop(&mut self) {
        drop(self.lock.take());
        if self.bound == Bound::Now && *self.filed.get_mut() {
            bound_store(self.ctx);
        }
    }
}
