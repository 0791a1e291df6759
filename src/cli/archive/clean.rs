//! `ctxctl archive rm ID...` and `archive prune --keep N --older-than DUR`: bounding the
//! archive store. Each archive is removed under its session's lock, so a compaction writing
//! the next archive of that session is never interleaved with a removal.

use clap::Args;
use serde::Serialize;

use crate::archive::{prune, ArchiveEntry, ArchiveStore};
use crate::cli::args::duration::parse_secs;
use crate::context::Context;
use crate::exit::ExitStatus;
use crate::ops::store::clock;
use crate::render::table::thousands;
use crate::render::{Printer, Report};

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  ctxctl archive rm my-session/1\n  ctxctl archive rm my-session/1 my-session/2"
)]
pub struct RmArgs {
    /// The archives, as NAME/SEQ (see `ctxctl archive ls`)
    #[arg(value_name = "ID", required = true)]
    pub ids: Vec<String>,
}

#[derive(Debug, Args)]
#[command(
    after_help = "With both limits, only archives beyond the newest N that are also older than DUR go.\nDurations: 90s, 45m, 12h, 30d, 2w, 1d12h.\n\nExamples:\n  ctxctl archive prune --keep 3\n  ctxctl archive prune --older-than 30d --dry-run\n  ctxctl archive prune my-session --keep 1 --older-than 1w"
)]
pub struct PruneArgs {
    /// Only this session's archives
    #[arg(value_name = "NAME")]
    pub name: Option<String>,
    /// Keep the newest N archives of each session
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "N",
        required_unless_present = "older_than"
    )]
    pub keep: Option<usize>,
    /// Only delete archives older than DUR (e.g. 30d)
    #[arg(long, value_name = "DUR", value_parser = parse_secs)]
    pub older_than: Option<u64>,
    /// Only list what would be deleted (exit 1 if something would be)
    #[arg(long)]
    pub dry_run: bool,
}

/// `archive rm` / `archive prune --json`.
#[derive(Debug, Serialize)]
struct Removed<'a> {
    removed: Vec<&'a ArchiveEntry>,
    bytes: u64,
    dry_run: bool,
}

pub fn rm(ctx: &Context, store: &ArchiveStore, args: &RmArgs) -> anyhow::Result<ExitStatus> {
    // Every id is checked before anything is removed: a typo removes nothing.
    let mut entries = Vec::new();
    for id in &args.ids {
        let (entry, _) = store.get(id)?;
        if !entries.iter().any(|e: &ArchiveEntry| e.id == entry.id) {
            entries.push(entry);
        }
    }
    let refs: Vec<&ArchiveEntry> = entries.iter().collect();
    remove(ctx, store, &refs, false)
}

pub fn prune(ctx: &Context, store: &ArchiveStore, args: &PruneArgs) -> anyhow::Result<ExitStatus> {
    let entries = store.list(args.name.as_deref())?;
    let policy = prune::Policy {
        keep: args.keep,
        older_than: args.older_than,
    };
    let chosen = prune::select(&entries, policy, clock(ctx)?);
    let status = remove(ctx, store, &chosen, args.dry_run)?;
    Ok(if args.dry_run && !chosen.is_empty() {
        ExitStatus::Failure
    } else {
        status
    })
}

fn remove(
    ctx: &Context,
    store: &ArchiveStore,
    entries: &[&ArchiveEntry],
    dry_run: bool,
) -> anyhow::Result<ExitStatus> {
    let bytes: u64 = entries.iter().map(|e| e.bytes).sum();
    if !dry_run {
        for e in entries {
            crate::ops::retention::remove(ctx, store, &e.session, &e.path)?;
        }
    }
    ctx.printer.report(&Removed {
        removed: entries.to_vec(),
        bytes,
        dry_run,
    })?;
    Ok(ExitStatus::Success)
}

impl Report for Removed<'_> {
    /// One line per archive, then the total.
    fn human(&self, p: &Printer) -> anyhow::Result<()> {
        let verb = if self.dry_run {
            "would remove"
        } else {
            "removed"
        };
        for e in &self.removed {
            p.line(&format!(
                "{verb} {}  ({}, {} messages, {} bytes)",
                e.id,
                e.timestamp,
                e.messages,
                thousands(e.bytes)
            ))?;
        }
        p.note(&format!(
            "{verb} {} archive(s), {} bytes",
            self.removed.len(),
            thousands(self.bytes)
        ));
        Ok(())
    }
}
