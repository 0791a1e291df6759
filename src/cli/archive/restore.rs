//! `ctxctl archive restore ID [FILE]`: the archived originals back in place of what
//! replaced them (a compaction's summary, or the result of a trim).

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde::Serialize;

use super::RestoreArgs;
use crate::archive::{self, ArchiveEntry, ArchiveFile, ArchiveStore};
use crate::context::Context;
use crate::exit::ExitStatus;
use crate::formats;
use crate::ops::load;
use crate::ops::rewrite::{self, Transaction};
use crate::ops::write::{self, Destination};
use crate::render::table::thousands;
use crate::session::{Document, Format, Record};

/// `archive restore --json`.
#[derive(Debug, Serialize)]
struct RestoreReport {
    restored: bool,
    id: String,
    messages: usize,
    original_tokens: usize,
    restored_tokens: usize,
    session: String,
    output: Option<String>,
    dry_run: bool,
}

pub fn run(ctx: &Context, store: &ArchiveStore, args: &RestoreArgs) -> anyhow::Result<ExitStatus> {
    // Filled in with this project's session's newest archive when none was given.
    let given_id = args
        .id
        .as_deref()
        .ok_or_else(|| anyhow::anyhow!("give the archive to restore, as NAME/SEQ"))?;
    let id = super::resolve(store, given_id)?;
    // Only the facts: a compaction's records (most of a large session) are read again once
    // the session is loaded (`records_again`), a trim's are not needed (its undo script
    // rebuilds the original).
    let (entry, mut file) = store.get_facts(&id)?;
    // A session's file named for its newest archive is also where it goes back.
    let given = args.file.as_deref().or_else(|| {
        let p = Path::new(given_id);
        (id != given_id && p.is_file()).then_some(p)
    });
    let target = target(ctx, &entry, &file, given)?;
    let now = crate::ops::store::clock(ctx)?;
    let tx = Transaction::begin_at(ctx, store.clone(), &entry.session, now)?;
    let in_place = args.output.is_none();
    if let Some(done) = entry.restored.as_ref().filter(|_| in_place && !args.force) {
        if Path::new(&done.into) == absolute(&target) {
            // Running the same restore twice (a script, a retry) is not an error.
            ctx.printer.note(&format!(
                "archive {} was already restored into {} on {}; nothing to do (--force restores it again, -o FILE into another file)",
                entry.id, done.into, done.at
            ));
            return Ok(ExitStatus::Success);
        }
    }
    // A compaction's records are read once the session is loaded (the lock is held by
    // then), never beside the load.
    let records_later = file.undo.is_none();
    let mut loaded = match file.agent_session.as_deref() {
        // An agent's database session is read, and written back, whole.
        Some(wanted) => load::load_selected(ctx, &target, Some(wanted))?,
        // The plan reads no text: each message's goes once counted.
        None => load::load_for_rewrite(ctx, &target, load::PlanReads::Structure)?,
    };
    let thinned = match records_later {
        true => records_again(&entry, &mut file, &loaded)?,
        false => None,
    };
    let messages = file.messages;
    let plan = plan(store, &entry, &mut file, thinned, &loaded)?;
    if let Plan::Undo(undo) = &plan {
        undo.check(now_text(&loaded))
            .map_err(|e| in_restore(e.into(), &entry, &loaded))?;
    }
    // Written as it is made and counted from the written file unless it cannot be read
    // back (a dry run, standard output, a device) or goes into an agent's database.
    let dest = match args.dry_run {
        true => None,
        false => Some(destination(ctx, args, &target)?),
    };
    let reread = dest
        .as_ref()
        .and_then(|d| written_file(d))
        .filter(|_| loaded.db_session.is_none())
        .map(Path::to_path_buf);
    let bytes = match reread {
        Some(_) => None,
        None => Some(plan.bytes(&loaded, &entry)?),
    };
    let restored_tokens = match &bytes {
        Some(bytes) => whole_count(&loaded, bytes)?,
        None => 0,
    };
    let mut report = RestoreReport {
        restored: !args.dry_run,
        id: entry.id.clone(),
        messages,
        original_tokens: loaded.total,
        restored_tokens,
        session: loaded.display(),
        output: None,
        dry_run: args.dry_run,
    };
    if args.dry_run {
        if ctx.printer.json {
            ctx.printer.json(&report)?;
        } else {
            ctx.printer.line(&format!(
                "would restore {} message(s) of {} into {}: {} → {} tokens",
                messages,
                entry.id,
                loaded.display(),
                thousands(loaded.total as u64),
                thousands(restored_tokens as u64)
            ))?;
        }
        return Ok(ExitStatus::Failure);
    }
    let Some(dest) = &dest else {
        anyhow::bail!("a restore that is no dry run has a destination");
    };
    match (&bytes, reread) {
        (Some(bytes), _) => tx.write(dest, &loaded, bytes)?,
        (None, reread) => {
            // A plan the writer refuses is its own error, not the write's.
            let mut refused = None;
            let written = tx.write_by(dest, &loaded, &mut |out| {
                plan.write_to(&loaded, out, &mut refused)
            });
            if let Some(e) = refused {
                return Err(e.into());
            }
            written?;
            if let Some(p) = &reread {
                loaded.release_document();
                // Counted as `count` counts the file, streamed.
                report.restored_tokens =
                    crate::ops::read_only::load(ctx, p, Default::default())?.total;
            }
        }
    }
    if let Destination::InPlace(p) = dest {
        tx.mark_restored(&entry.id, &entry.path, &absolute(p));
    }
    report.output = Some(dest.display());
    let restored_tokens = report.restored_tokens;
    if ctx.printer.json {
        if *dest != Destination::Stdout {
            ctx.printer.json(&report)?;
        }
    } else {
        ctx.printer.note(&format!(
            "restored {} message(s) of {} into {}: {} → {} tokens",
            messages,
            entry.id,
            dest.display(),
            thousands(loaded.total as u64),
            thousands(restored_tokens as u64)
        ));
    }
    Ok(ExitStatus::Success)
}

/// The later archive of the same session whose records hold the summary `compact_id`
/// (the session was compacted again after `entry`).
fn holder(store: &ArchiveStore, entry: &ArchiveEntry, compact_id: &str) -> Option<String> {
    let later = store.list(Some(&entry.session)).ok()?;
    later
        .into_iter()
        .filter(|e| e.seq > entry.seq)
        .find_map(|e| {
            let (_, f) = store.get(&e.id).ok()?;
            f.records
                .iter()
                .filter_map(|r| serde_json::from_str(r.get()).ok())
                .any(|r: serde_json::Value| carries(&r, compact_id))
                .then_some(e.id)
        })
}

/// Whether archived record `r` is the summary with `compact_id`: ctxctl's metadata sits at
/// the top of a chat record, under `ctxctl` in agent transcripts (a Codex line's payload).
fn carries(r: &serde_json::Value, compact_id: &str) -> bool {
    [
        "/compact_id",
        "/ctxctl/compact_id",
        "/metadata/ctxctl/compact_id",
        "/payload/ctxctl/compact_id",
    ]
    .iter()
    .any(|p| r.pointer(p).and_then(|v| v.as_str()) == Some(compact_id))
}

/// The session to restore into: FILE, else where the compaction wrote its output, else the
/// store's copy of the session.
fn target(
    ctx: &Context,
    entry: &ArchiveEntry,
    file: &ArchiveFile,
    given: Option<&Path>,
) -> anyhow::Result<PathBuf> {
    if let Some(p) = given {
        return Ok(p.to_path_buf());
    }
    if let Some(out) = file.output.as_deref().map(PathBuf::from) {
        if out.is_file() {
            return Ok(out);
        }
    }
    crate::ops::store::stored_session(ctx, &entry.session).with_context(|| {
        format!(
            "cannot find the session {} was compacted into; pass it as FILE",
            entry.id
        )
    })
}

/// What a restore writes: the original a trim's undo script rebuilds from the file, or
/// the session with a compaction's records back in place of its summary.
enum Plan<'a> {
    Undo(&'a crate::archive::Undo<'a>),
    Items(Vec<crate::session::Item>),
}

impl Plan<'_> {
    /// The restored session, whole.
    fn bytes(&self, loaded: &load::Loaded, entry: &ArchiveEntry) -> anyhow::Result<Vec<u8>> {
        match self {
            Plan::Undo(undo) => undo
                .apply(now_text(loaded))
                .map_err(|e| in_restore(e.into(), entry, loaded)),
            Plan::Items(items) => Ok(formats::write(&loaded.session, items)?),
        }
    }

    /// The restored session written into `out` as it is made (an undo script once
    /// checked: [`crate::archive::Undo::check`]); a plan the writer refuses is put in
    /// `refused`.
    fn write_to(
        &self,
        loaded: &load::Loaded,
        out: &mut dyn std::io::Write,
        refused: &mut Option<crate::session::WriteError>,
    ) -> std::io::Result<()> {
        match self {
            Plan::Undo(undo) => undo.write_to(now_text(loaded), out),
            Plan::Items(items) => match formats::write_to(&loaded.session, items, out) {
                Ok(()) => Ok(()),
                Err(crate::session::WriteError::Io(io)) => Err(io),
                Err(other) => {
                    let said = std::io::Error::other(other.to_string());
                    *refused = Some(other);
                    Err(said)
                }
            },
        }
    }
}

/// The records of archive `entry` read again, its facts as first read (`file`, without
/// its records): an archive is never rewritten, so one that changed is refused. Into a
/// Claude Code transcript or a Codex rollout, which a compaction leaves its records in,
/// each record that is a line of the session is kept as that line (`Some`, the records as
/// they go back): read one at a time, they are never all held beside the session. Else
/// they go back into `file`.
fn records_again(
    entry: &ArchiveEntry,
    file: &mut ArchiveFile,
    loaded: &load::Loaded,
) -> anyhow::Result<Option<Vec<Record>>> {
    let changed = || {
        anyhow::anyhow!(
            "archive {} changed while it was being restored; run the restore again",
            entry.id
        )
    };
    let lines = match &loaded.session.doc {
        Document::Lines(doc)
            if matches!(loaded.session.format, Format::ClaudeCode | Format::Codex) =>
        {
            doc
        }
        _ => {
            let mut records = Vec::new();
            let again = archive::read_each_record(&entry.path, &mut |r| records.push(r))?;
            anyhow::ensure!(again == *file, changed());
            file.records = records;
            return Ok(None);
        }
    };
    let same = archive::SameLines::new(lines);
    let mut records = Vec::new();
    let again = archive::read_each_record(&entry.path, &mut |r| records.push(same.record(r)))?;
    anyhow::ensure!(again == *file, changed());
    Ok(Some(records))
}

/// The session's text as read.
fn now_text(loaded: &load::Loaded) -> &[u8] {
    loaded.session.doc.text().unwrap_or_default().as_bytes()
}

/// `e` said of restoring `entry` into `loaded`.
fn in_restore(e: anyhow::Error, entry: &ArchiveEntry, loaded: &load::Loaded) -> anyhow::Error {
    e.context(format!("restoring {} into {}", entry.id, loaded.display()))
}

/// The restore `file` (archive `entry`) makes of `loaded`.
fn plan<'a>(
    store: &ArchiveStore,
    entry: &ArchiveEntry,
    file: &'a mut ArchiveFile,
    thinned: Option<Vec<Record>>,
    loaded: &load::Loaded,
) -> anyhow::Result<Plan<'a>> {
    if file.undo.is_some() {
        // A trim: the original comes back from what the trim wrote.
        let undo = file.undo.as_ref().context("the trim's undo script")?;
        return Ok(Plan::Undo(undo));
    }
    // The records move into the plan: the archive is not held twice.
    let items = match thinned {
        Some(records) => archive::restore_records(&loaded.session, file, records),
        None => archive::restore(&loaded.session, file),
    };
    let items = items.map_err(|e| {
        let newer = match &e {
            archive::RestoreError::SummaryNotFound { id } => holder(store, entry, id),
            _ => None,
        };
        let err = match newer {
            Some(n) => anyhow::anyhow!(
                "{e}; it is inside archive {n}: run `ctxctl archive restore {n}` first"
            ),
            None => anyhow::Error::new(e),
        };
        in_restore(err, entry, loaded)
    })?;
    Ok(Plan::Items(items))
}

/// The total of `bytes`, `loaded` restored, counted as `loaded` was.
fn whole_count(loaded: &load::Loaded, bytes: &[u8]) -> anyhow::Result<usize> {
    let restored = formats::read(bytes, Some(loaded.session.format))
        .context("reading the restored session back")?;
    // Scaled like the session's own count (Claude estimates are ×1.2), so the two compare.
    let counts: Vec<usize> = (loaded.counter.messages(&restored).into_iter())
        .map(|n| loaded.scaled(n))
        .collect();
    Ok(crate::tokens::Counter::total(&counts))
}

/// Where the restore goes: `-o FILE`, `-o -`, else in place of `target`.
fn destination(ctx: &Context, args: &RestoreArgs, target: &Path) -> anyhow::Result<Destination> {
    Ok(match &args.output {
        Some(p) if p == Path::new("-") => Destination::Stdout,
        Some(p) => Destination::File(p.clone()),
        None if target == Path::new("-") => {
            anyhow::bail!("reading standard input: give -o FILE (or -o -) for the restored session")
        }
        None => {
            let in_place = write::OutputChoice {
                output: None,
                in_place: true,
            };
            rewrite::guard_input(ctx, &in_place, target, false)?;
            Destination::InPlace(target.to_path_buf())
        }
    })
}

/// The file a restore written to `dest` can be read back from once written: `-o FILE` (a
/// regular file, or none yet) and the session replaced; not standard output or a device.
fn written_file(dest: &Destination) -> Option<&Path> {
    match dest {
        Destination::File(p) | Destination::InPlace(p) | Destination::Store { path: p, .. } => {
            let regular = std::fs::metadata(p).map_or(true, |m| m.is_file());
            regular.then_some(p.as_path())
        }
        Destination::Stdout => None,
    }
}

/// `p` made absolute (the way archives record session paths), without resolving symlinks.
fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}
