//! `ctxctl archive ls [NAME]`, `archive show ID`, `archive restore ID`: the originals
//! compaction removed, and putting them back.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::{Args, Subcommand};
use serde::Serialize;

use crate::archive::{self, ArchiveEntry, ArchiveFile, ArchiveStore};
use crate::context::Context;
use crate::exit::ExitStatus;
use crate::formats;
use crate::ops::load;
use crate::ops::write::{self, Destination};
use crate::render::table::{table, thousands};

#[derive(Debug, Subcommand)]
#[command(
    after_help = "Archives live in the data directory: archives/<session>/compact-<time>-<seq>.json.\n\nExamples:\n  ctxctl archive ls\n  ctxctl archive restore my-session/1 --dry-run"
)]
pub enum ArchiveCommand {
    /// List archives: of one session, or of all
    Ls(LsArgs),
    /// Print one archive: its facts, the summary that replaced it, and (with --json) the records
    Show(ShowArgs),
    /// Put an archive's originals back in place of the summary that replaced them
    Restore(RestoreArgs),
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  ctxctl archive ls\n  ctxctl archive ls my-session --json")]
pub struct LsArgs {
    /// Only this session's archives
    #[arg(value_name = "NAME")]
    pub name: Option<String>,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  ctxctl archive show my-session/1\n  ctxctl archive show my-session/1 --json > originals.json"
)]
pub struct ShowArgs {
    /// The archive, as NAME/SEQ (see `ctxctl archive ls`)
    #[arg(value_name = "ID")]
    pub id: String,
}

#[derive(Debug, Args)]
#[command(
    after_help = "The summary carrying the archive's compact_id is replaced by the archived messages;\nmessages added after the compaction stay. A session compacted again must first be\nrestored from the newer archive.\n\nExamples:\n  ctxctl archive restore my-session/2\n  ctxctl archive restore run/1 run.jsonl -o restored.jsonl"
)]
pub struct RestoreArgs {
    /// The archive, as NAME/SEQ
    #[arg(value_name = "ID")]
    pub id: String,
    /// The compacted session (default: where the compaction wrote it)
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Write the restored session here (`-` for standard output) instead of replacing FILE
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Only show what would be restored (exit 1 if something would change)
    #[arg(long)]
    pub dry_run: bool,
}

pub fn run(ctx: &Context, cmd: &ArchiveCommand) -> anyhow::Result<ExitStatus> {
    let store = ArchiveStore::new(ctx.data_dir()?.value);
    match cmd {
        ArchiveCommand::Ls(a) => ls(ctx, &store, a),
        ArchiveCommand::Show(a) => show(ctx, &store, a),
        ArchiveCommand::Restore(a) => restore(ctx, &store, a),
    }
}

fn ls(ctx: &Context, store: &ArchiveStore, args: &LsArgs) -> anyhow::Result<ExitStatus> {
    let entries = store.list(args.name.as_deref())?;
    if ctx.printer.json {
        ctx.printer.json(&entries)?;
        return Ok(ExitStatus::Success);
    }
    if entries.is_empty() {
        let whose = args
            .name
            .as_ref()
            .map(|n| format!(" for {n}"))
            .unwrap_or_default();
        ctx.printer.note(&format!("no archives{whose}"));
        return Ok(ExitStatus::Success);
    }
    let rows: Vec<Vec<String>> = entries
        .iter()
        .map(|e| {
            vec![
                e.id.clone(),
                e.timestamp.clone(),
                e.messages.to_string(),
                thousands(e.tokens as u64),
                thousands(e.bytes),
            ]
        })
        .collect();
    ctx.printer.line(&table(
        &["id", "time", "messages", "tokens", "bytes"],
        &rows,
        &[2, 3, 4],
    ))?;
    Ok(ExitStatus::Success)
}

fn show(ctx: &Context, store: &ArchiveStore, args: &ShowArgs) -> anyhow::Result<ExitStatus> {
    let (entry, file) = store.get(&args.id)?;
    if ctx.printer.json {
        #[derive(Serialize)]
        struct Show<'a> {
            id: &'a str,
            path: &'a Path,
            bytes: u64,
            #[serde(flatten)]
            file: &'a ArchiveFile,
        }
        ctx.printer.json(&Show {
            id: &entry.id,
            path: &entry.path,
            bytes: entry.bytes,
            file: &file,
        })?;
        return Ok(ExitStatus::Success);
    }
    let opt = |o: &Option<String>| o.clone().unwrap_or_else(|| "-".into());
    let t = &file.tokens;
    let text = format!(
        "archive {}  ({})\n\
         created     {}\n\
         source      {}\n\
         output      {}\n\
         format      {}   model {}   summarizer {}\n\
         messages    {} (from index {} of the original)\n\
         tokens      {} archived; session {} → {}\n\
         compact_id  {}\n\
         \nsummary:\n{}\n\
         \n{} records archived (--json prints them)",
        entry.id,
        entry.path.display(),
        file.created,
        opt(&file.source),
        opt(&file.output),
        file.format,
        opt(&file.model),
        file.summarizer,
        file.messages,
        file.first_message,
        thousands(t.archived as u64),
        thousands(t.original as u64),
        thousands(t.compacted as u64),
        file.compact_id,
        file.summary,
        file.records.len()
    );
    ctx.printer.line(&text)?;
    Ok(ExitStatus::Success)
}

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

fn restore(ctx: &Context, store: &ArchiveStore, args: &RestoreArgs) -> anyhow::Result<ExitStatus> {
    let (entry, file) = store.get(&args.id)?;
    let target = target(ctx, &entry, &file, args.file.as_deref())?;
    let _lock = crate::ops::store::lock(ctx, store, &entry.session)?;
    let loaded = load::load_selected(ctx, &target, file.agent_session.as_deref())?;
    let bytes = match &file.undo {
        // A trim: the original comes back from what the trim wrote.
        Some(undo) => {
            let now = loaded.session.doc.text().unwrap_or_default().as_bytes();
            undo.apply(now).map_err(|e| {
                anyhow::Error::new(e).context(format!(
                    "restoring {} into {}",
                    entry.id,
                    loaded.display()
                ))
            })?
        }
        None => compaction_restored(store, &entry, &file, &loaded)?,
    };
    let restored = formats::read(&bytes, Some(loaded.session.format))
        .context("reading the restored session back")?;
    // Scaled like the session's own count (Claude estimates are ×1.2), so the two compare.
    let restored_counts: Vec<usize> = (loaded.counter.messages(&restored).into_iter())
        .map(|n| loaded.scaled(n))
        .collect();
    let restored_tokens = crate::tokens::Counter::total(&restored_counts);
    let mut report = RestoreReport {
        restored: !args.dry_run,
        id: entry.id.clone(),
        messages: file.messages,
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
                file.messages,
                entry.id,
                loaded.display(),
                thousands(loaded.total as u64),
                thousands(restored_tokens as u64)
            ))?;
        }
        return Ok(ExitStatus::Failure);
    }
    let dest = match &args.output {
        Some(p) if p == Path::new("-") => Destination::Stdout,
        Some(p) => Destination::File(p.clone()),
        None if target == Path::new("-") => {
            anyhow::bail!("reading standard input: give -o FILE (or -o -) for the restored session")
        }
        None => Destination::InPlace(target.clone()),
    };
    write::write(ctx, &dest, &loaded, &bytes)?;
    report.output = Some(dest.display());
    if ctx.printer.json {
        if dest != Destination::Stdout {
            ctx.printer.json(&report)?;
        }
    } else {
        ctx.printer.note(&format!(
            "restored {} message(s) of {} into {}: {} → {} tokens",
            file.messages,
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
                .any(|r| carries(r, compact_id))
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

/// The session with `file`'s records back in place of the summary of its compaction.
fn compaction_restored(
    store: &ArchiveStore,
    entry: &ArchiveEntry,
    file: &ArchiveFile,
    loaded: &load::Loaded,
) -> anyhow::Result<Vec<u8>> {
    let items = archive::restore(&loaded.session, file).map_err(|e| {
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
        err.context(format!("restoring {} into {}", entry.id, loaded.display()))
    })?;
    let bytes = formats::write(&loaded.session, &items)?;
    Ok(bytes)
}
