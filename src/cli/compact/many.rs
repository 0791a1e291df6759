//! `compact` over several files or `-r DIR`, for cron: `ctxctl compact --if-needed
//! --in-place -r DIR` compacts each session that needs it, in parallel, one report per file
//! in input order. A session that changes while ctxctl works on it (an agent is still
//! appending to it) is skipped, never clobbered.
//!
//! Exit code: skipped sessions do not count as failures, since for cron they are normal
//! (the next run will get them), so a run where some sessions were compacted and one was
//! skipped exits 0 with a warning. A run that got nothing done at all (every session
//! skipped or failed) exits 2, as `compact FILE` does when its one file changed.

use std::collections::HashMap;
use std::path::PathBuf;

use serde::Serialize;

use super::one::compact_file;
use super::report::{Doc, Report};
use super::settings::tail_budget;
use super::CompactArgs;
use crate::cli::args::budget;
use crate::cli::args::InputArgs;
use crate::context::Context;
use crate::exit::ExitStatus;
use crate::ops::batch;
use crate::ops::live::{self, Live, Scope};
use crate::ops::load::Changed;
use crate::ops::walk::Input;
use crate::ops::write;
use crate::render::json::{FileEntry, Files};
use crate::summarize::Summarizer;

/// The reason given for a skipped session in `--json`.
const SKIPPED: &str = "changed while ctxctl was working on it; left as it was";

/// One file of `compact --json` over several files.
#[derive(Debug, Serialize)]
struct Entry {
    path: String,
    skipped: bool,
    #[serde(flatten)]
    doc: Doc,
}

pub fn run(
    ctx: &Context,
    args: &CompactArgs,
    summarizer: &(dyn Summarizer + Sync),
) -> anyhow::Result<ExitStatus> {
    if args.name.is_some() {
        anyhow::bail!("--name names one session: give a single FILE with it");
    }
    if args.output.output.is_some() {
        anyhow::bail!(
            "-o writes one session: with several files use --in-place, or leave -o out to \
             write each into the store"
        );
    }
    // Settings errors once, up front, rather than once per file.
    if args.if_needed {
        budget::threshold(ctx, args.threshold)?;
    }
    tail_budget(ctx, args, 0)?;
    let files = match args.all {
        true => every_agents_sessions(ctx, args)?,
        false => InputArgs {
            files: args.files.clone(),
            here: Default::default(),
            recursive: args.recursive.clone(),
            filters: args.filters.clone(),
        }
        .collect(ctx, false)?,
    };
    if !args.output.in_place && !args.output.dry_run {
        distinct_store_names(&files)?;
    }
    // An LLM provider gets one request at a time (rate limits); offline uses every core.
    let workers = if summarizer.name() == "offline" {
        usize::MAX
    } else {
        1
    };
    let mut status = ExitStatus::Success;
    let mut entries = Vec::new();
    let mut succeeded = 0;
    let mut tally = Tally::default();
    let work = |input: &Input| {
        // One session of an agent's database: its own last activity tells (a file is
        // checked once it is known to need rewriting).
        if let Some(s) = &input.session {
            live::check_session(ctx, s.active)?;
        }
        compact_file(
            ctx,
            args,
            summarizer,
            &input.path,
            input.id(),
            false,
            Scope::Batch,
        )
    };
    batch::run_inputs(
        ctx,
        &files,
        "compacting",
        workers,
        work,
        |input, outcome| {
            let shown = input.shown();
            if let Some(live) = outcome
                .as_ref()
                .err()
                .and_then(|e| e.downcast_ref::<Live>())
            {
                let reason = live.to_string();
                tally.live += 1;
                // It needs compaction (or would be rewritten): a person should know.
                ctx.printer
                    .changed(&format!("skipped: {shown}: live session: {reason}"));
                let report = Report::unchanged(summarizer.name(), reason, args.output.dry_run);
                entries.push(FileEntry::Done(Entry {
                    path: shown,
                    skipped: true,
                    doc: Doc::Report(report),
                }));
                return Ok(());
            }
            if let Err(e) = &outcome {
                if e.downcast_ref::<Changed>().is_some() {
                    tally.changed += 1;
                    ctx.printer.warn(&format!(
                        "skipped: {shown} changed while ctxctl was working on it (is an agent \
                     still writing to it?); left as it was"
                    ));
                    let report = Report::unchanged(summarizer.name(), SKIPPED.into(), false);
                    entries.push(FileEntry::Done(Entry {
                        path: shown,
                        skipped: true,
                        doc: Doc::Report(report),
                    }));
                    return Ok(());
                }
            }
            match batch::entry(ctx, &input.label(), outcome, &mut status)? {
                FileEntry::Done(done) => {
                    tally.add(&done);
                    status = status.worst(done.status);
                    if done.status <= ExitStatus::Failure {
                        succeeded += 1;
                    }
                    if let Some(doc) = done.doc {
                        entries.push(FileEntry::Done(Entry {
                            path: shown,
                            skipped: false,
                            doc,
                        }));
                    }
                }
                FileEntry::Failed(failed) => {
                    tally.errors += 1;
                    entries.push(FileEntry::Failed(failed));
                }
            }
            Ok(())
        },
    )?;
    if tally.compacted > 0 || args.all {
        crate::ops::rewrite::bound_store(ctx);
    }
    tally.examined = files.len();
    if !files.is_empty() {
        ctx.printer.note(&tally.line(args.output.dry_run));
    }
    if succeeded == 0 && tally.changed > 0 {
        status = status.worst(ExitStatus::Error);
    }
    if ctx.printer.json {
        ctx.printer.json(&Files { files: entries })?;
    }
    Ok(status)
}

/// `--all`: every session of every agent in its default home, as `ctxctl sessions`
/// lists them (subagent transcripts stay with their parent), filtered as asked.
fn every_agents_sessions(ctx: &Context, args: &CompactArgs) -> anyhow::Result<Vec<Input>> {
    let filter = args.filters.filter(None)?;
    let roots = crate::ops::sessions::roots(ctx, &[]);
    if roots.is_empty() {
        ctx.printer
            .note("no agent sessions in their default homes (see `ctxctl doctor`)");
        return Ok(Vec::new());
    }
    let found = crate::ops::sessions::discover(ctx, &roots, &filter)?;
    Ok(found
        .into_iter()
        .map(|c| Input {
            path: c.path,
            session: c.db_session.map(|id| crate::ops::walk::DbItem {
                id,
                active: c.modified,
            }),
        })
        .collect())
}

/// Without `--in-place` every result goes into the store under its file's stem (a
/// database's session under its agent and id): two inputs with the same stem would
/// overwrite each other there.
fn distinct_store_names(files: &[Input]) -> anyhow::Result<()> {
    let mut seen: HashMap<String, &PathBuf> = HashMap::new();
    for f in files
        .iter()
        .filter(|f| f.session.is_none())
        .map(|f| &f.path)
    {
        if let Ok(name) = write::session_name(None, f) {
            if let Some(other) = seen.insert(name.clone(), f) {
                anyhow::bail!(
                    "{} and {} would both be stored as session {name}; use --in-place, or \
                     compact them one at a time with --name",
                    other.display(),
                    f.display()
                );
            }
        }
    }
    Ok(())
}

/// What a batch did, for its one closing line.
#[derive(Debug, Default)]
struct Tally {
    examined: usize,
    compacted: usize,
    unchanged: usize,
    live: usize,
    changed: usize,
    errors: usize,
    archived_bytes: u64,
}

impl Tally {
    fn add(&mut self, done: &super::report::Done) {
        // A dry run that would compact exits 1.
        match done.compacted || done.status == ExitStatus::Failure {
            true => self.compacted += 1,
            false => self.unchanged += 1,
        }
        if let Some(p) = &done.archived {
            self.archived_bytes += std::fs::metadata(p).map_or(0, |m| m.len());
        }
    }

    /// `12 sessions examined: 2 compacted (1,234,567 bytes archived), 9 below the
    /// threshold or unchanged, 1 skipped as live, 0 errors`.
    fn line(&self, dry_run: bool) -> String {
        let n =
            |k: usize, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
        let mut parts = vec![format!(
            "{} {}",
            self.compacted,
            if dry_run {
                "would be compacted"
            } else {
                "compacted"
            }
        )];
        if self.archived_bytes > 0 {
            parts[0].push_str(&format!(
                " ({} bytes archived)",
                crate::render::table::thousands(self.archived_bytes)
            ));
        }
        parts.push(format!("{} left as they were", self.unchanged));
        parts.push(format!("{} skipped as live", self.live));
        if self.changed > 0 {
            parts.push(format!("{} skipped as changed meanwhile", self.changed));
        }
        parts.push(n(self.errors, "error", "errors"));
        format!(
            "{} examined: {}",
            n(self.examined, "session", "sessions"),
            parts.join(", ")
        )
    }
}
