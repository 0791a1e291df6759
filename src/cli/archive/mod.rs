//! `ctxctl archive ls [NAME]`, `archive show ID`, `archive restore ID`, `archive rm ID`,
//! `archive prune`: the originals a rewrite removed, putting them back, and bounding the store.

mod clean;
mod restore;

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use serde::Serialize;

use crate::archive::{ArchiveFile, ArchiveStore};
use crate::context::Context;
use crate::exit::ExitStatus;
use crate::render::table::{thousands, Cell, Table};
use crate::render::{Printer, Report};

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
    /// Delete archives (what they hold can no longer be restored)
    Rm(clean::RmArgs),
    /// Delete old archives: beyond the newest N of each session, or older than a duration
    Prune(clean::PruneArgs),
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  ctxctl archive ls\n  ctxctl archive ls my-session --json")]
pub struct LsArgs {
    /// Only this session's archives: its name, or its file (default: those of this
    /// project's newest session, when run in a project directory with agent sessions)
    #[arg(value_name = "NAME|PATH")]
    pub name: Option<String>,
    /// Every archive, whatever the current directory
    #[arg(long, conflicts_with = "name")]
    pub all: bool,
    #[command(flatten)]
    pub here: crate::cli::args::here::PickArgs,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  ctxctl archive show my-session/1\n  ctxctl archive show my-session/1 --json > originals.json"
)]
pub struct ShowArgs {
    /// The archive, as NAME/SEQ (see `ctxctl archive ls`); a session's file or name stands
    /// for its newest archive
    #[arg(value_name = "ID|PATH")]
    pub id: String,
}

#[derive(Debug, Args)]
#[command(
    after_help = "The summary carrying the archive's compact_id is replaced by the archived messages;\nmessages added after the compaction stay. A session compacted again must first be\nrestored from the newer archive.\n\nExamples:\n  ctxctl archive restore my-session/2\n  ctxctl archive restore run/1 run.jsonl -o restored.jsonl"
)]
pub struct RestoreArgs {
    /// The archive, as NAME/SEQ; a session's file or name stands for its newest archive
    /// (default: the newest archive of this project's newest session, restored into it)
    #[arg(value_name = "ID|PATH")]
    pub id: Option<String>,
    /// The compacted session (default: where the compaction wrote it)
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Write the restored session here (`-` for standard output) instead of replacing FILE
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Only show what would be restored (exit 1 if something would change)
    #[arg(long)]
    pub dry_run: bool,
    /// Restore even if the archive was already restored into this file
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub here: crate::cli::args::here::PickArgs,
}

/// An archive as the user named it: `NAME/SEQ`, or a session standing for its newest
/// archive: the session's file (the archives a rewrite of it filed, under its name) or its
/// name in the store.
pub(crate) fn resolve(store: &ArchiveStore, given: &str) -> anyhow::Result<String> {
    let session = match session_of(given) {
        Some(name) => name,
        None if given.contains('/') => {
            crate::archive::parse_id(given)?;
            return Ok(given.to_string());
        }
        None if crate::archive::validate_name(given).is_ok() => given.to_string(),
        None => anyhow::bail!(
            "{given}: not an archive id (NAME/SEQ), a session file or a session name (see `ctxctl archive ls`)"
        ),
    };
    let newest = match store.list(Some(&session)) {
        Ok(entries) => entries.into_iter().max_by_key(|e| e.seq),
        Err(crate::archive::ArchiveError::NotFound(_)) => None,
        Err(e) => return Err(e.into()),
    };
    newest.map(|e| e.id).ok_or_else(|| {
        anyhow::anyhow!(
            "{given}: no archive of this session (filed as {session}; see `ctxctl archive ls`)"
        )
    })
}

/// The name a session file's archives are filed under, when `given` is a file.
fn session_of(given: &str) -> Option<String> {
    let path = Path::new(given);
    if !path.is_file() {
        return None;
    }
    crate::ops::write::archive_name(None, path).ok()
}

pub fn run(ctx: &Context, cmd: &ArchiveCommand) -> anyhow::Result<ExitStatus> {
    let store = ArchiveStore::new(ctx.data_dir()?.value);
    match cmd {
        ArchiveCommand::Ls(a) => ls(ctx, &store, a),
        ArchiveCommand::Show(a) => show(ctx, &store, a),
        ArchiveCommand::Restore(a) => restore::run(ctx, &store, a),
        ArchiveCommand::Rm(a) => clean::rm(ctx, &store, a),
        ArchiveCommand::Prune(a) => clean::prune(ctx, &store, a),
    }
}

fn ls(ctx: &Context, store: &ArchiveStore, args: &LsArgs) -> anyhow::Result<ExitStatus> {
    let name = args
        .name
        .as_deref()
        .map(|n| session_of(n).unwrap_or(n.to_string()));
    let entries = match store.list(name.as_deref()) {
        Err(crate::archive::ArchiveError::NotFound(_)) if name.is_some() => Vec::new(),
        r => r?,
    };
    ctx.printer.report(&Listed {
        entries,
        name: args.name.clone(),
    })?;
    Ok(ExitStatus::Success)
}

/// `archive ls`: the archives (`--json`: the list alone).
#[derive(Serialize)]
#[serde(transparent)]
struct Listed {
    entries: Vec<crate::archive::ArchiveEntry>,
    /// The session asked for, said when it has none.
    #[serde(skip)]
    name: Option<String>,
}

impl Report for Listed {
    fn human(&self, p: &Printer) -> anyhow::Result<()> {
        let entries = &self.entries;
        if entries.is_empty() && !p.tsv {
            let whose = self
                .name
                .as_ref()
                .map(|n| format!(" for {n}"))
                .unwrap_or_default();
            p.note(&format!("no archives{whose}"));
            return Ok(());
        }
        let mut t = Table::new(if p.tsv {
            &["id", "timestamp", "messages", "tokens", "bytes", "restored"]
        } else {
            &["id", "time", "messages", "tokens", "bytes", "restored"]
        });
        for e in entries {
            t.push(vec![
                Cell::text(&e.id),
                Cell::text(&e.timestamp),
                Cell::Num(e.messages as u64),
                Cell::Num(e.tokens as u64),
                Cell::Num(e.bytes),
                e.restored
                    .as_ref()
                    .map_or(Cell::None, |r| Cell::text(&r.at)),
            ]);
        }
        p.table(&t)?;
        if !p.tsv {
            let total: u64 = entries.iter().map(|e| e.bytes).sum();
            p.note(&format!(
                "{} archive(s), {} bytes",
                entries.len(),
                thousands(total)
            ));
        }
        Ok(())
    }
}

fn show(ctx: &Context, store: &ArchiveStore, args: &ShowArgs) -> anyhow::Result<ExitStatus> {
    let (entry, file) = store.get(&resolve(store, &args.id)?)?;
    if ctx.printer.json {
        ctx.printer
            .json(&Show::new(&entry.id, &entry.path, entry.bytes, &file)?)?;
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

/// `archive show --json`: the archive file in the JSON vocabulary of the other commands
/// (`timestamp`, `tokens` as the archived messages' count like `archive ls`, and the
/// session's `original_tokens` / `compacted_tokens` like `compact`).
#[derive(Serialize)]
struct Show<'a> {
    id: &'a str,
    path: &'a Path,
    bytes: u64,
    ctxctl_version: &'a str,
    session: &'a str,
    seq: u64,
    compact_id: &'a str,
    timestamp: &'a str,
    source: Option<&'a str>,
    output: Option<&'a str>,
    format: &'a str,
    model: Option<&'a str>,
    summarizer: &'a str,
    messages: usize,
    tokens: usize,
    original_tokens: usize,
    compacted_tokens: usize,
    first_message: usize,
    summary: &'a str,
    /// As values (pretty-printed with the rest), not the archived text.
    records: Vec<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    undo: Option<&'a crate::archive::Undo<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent_session: Option<&'a str>,
}

impl<'a> Show<'a> {
    fn new(
        id: &'a str,
        path: &'a Path,
        bytes: u64,
        f: &'a ArchiveFile,
    ) -> serde_json::Result<Show<'a>> {
        let records = (f.records.iter())
            .map(|r| serde_json::from_str(r.get()))
            .collect::<serde_json::Result<_>>()?;
        Ok(Show {
            id,
            path,
            bytes,
            ctxctl_version: &f.ctxctl_version,
            session: &f.session,
            seq: f.seq,
            compact_id: &f.compact_id,
            timestamp: &f.created,
            source: f.source.as_deref(),
            output: f.output.as_deref(),
            format: &f.format,
            model: f.model.as_deref(),
            summarizer: &f.summarizer,
            messages: f.messages,
            tokens: f.tokens.archived,
            original_tokens: f.tokens.original,
            compacted_tokens: f.tokens.compacted,
            first_message: f.first_message,
            summary: &f.summary,
            records,
            undo: f.undo.as_ref(),
            agent_session: f.agent_session.as_deref(),
        })
    }
}
