//! `ctxctl compact FILE... | -r DIR | --name NAME`: keep the head and a recent tail,
//! replace the middle with one summary message, archive the originals first.

mod many;
mod one;
mod report;
mod settings;

use crate::ops::store::stored_session;

use std::path::{Path, PathBuf};

use clap::Args;

use crate::archive::Timestamp;
use crate::cli::args::budget::LimitArgs;
use crate::cli::args::OutputArgs;
use crate::compact::{self, CompactInfo, Partition};
use crate::context::Context;
use crate::exit::ExitStatus;
use crate::ops::load::{self, Loaded};
use crate::ops::{agentdb, retry, testhook};
use settings::summarizer;

const AFTER_HELP: &str = "\
The head (leading system messages) and the most recent messages (the tail) are kept as they
are; everything between is replaced by one summary message. A rewrite of the input
(--in-place, --name NAME alone) archives the replaced messages first (`ctxctl archive ls`) and
`ctxctl archive restore NAME/SEQ` puts them back; -o FILE and the store leave the input as it
is and archive nothing (as trim).

Examples:
  ctxctl compact --name my-session
  ctxctl compact session.jsonl --if-needed --in-place
  ctxctl compact session.json --tail-tokens 8000 --dry-run
  ctxctl compact session.json --summarizer llm --instructions 'keep all file paths'
  ctxctl compact session.jsonl --summarizer llm --redact --in-place
  ctxctl compact session.jsonl --summarizer llm --fallback offline --min-recall 0.9

Several files, -r DIR or --all are compacted in parallel, one report per file (a JSON array
with --json). A session its agent is using (held open, named by a running agent or its live
marker) is never rewritten: named alone it is an error, in a batch it is skipped, as is one
written less than 2 minutes ago; --include-live rewrites it anyway. A batch ends with one
summary line; -q prints only what was compacted and what needs a person (a session that
needs compaction but is live). Every rewrite keeps the archive store within its limits
([archive] keep and max_mib; see `ctxctl doctor`). The nightly job, for crontab (cron's PATH
is short: give the full path `command -v ctxctl` prints):
  30 3 * * *  $HOME/.cargo/bin/ctxctl compact --all --if-needed --in-place -q";

/// Summarize the middle of a session to make room.
#[derive(Debug, Args)]
#[command(after_help = AFTER_HELP)]
pub struct CompactArgs {
    /// Session files (`-` reads standard input); leave out to compact `--name` in the store,
    /// or, without --name, this project's newest session
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Every agent's sessions in their default homes, as `ctxctl sessions` lists them: with
    /// --if-needed --in-place -q, the nightly job
    #[arg(long, conflicts_with_all = ["name", "files", "recursive"])]
    pub all: bool,
    /// Also compact every session below DIR (*.json, *.jsonl, each session of goose's sessions.db and OpenCode's opencode.db; with --if-needed --in-place: cron)
    #[arg(
        short = 'r',
        long = "recursive",
        value_name = "DIR",
        conflicts_with = "name"
    )]
    pub recursive: Vec<PathBuf>,
    #[command(flatten)]
    pub filters: crate::cli::args::filter::FileFilterArgs,
    /// A stored session to compact in place; with one FILE, the name to store the result under
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Tokens kept verbatim at the end
    #[arg(
        long,
        value_name = "N",
        allow_negative_numbers = true,
        conflicts_with = "tail_ratio",
        help_heading = "Compaction"
    )]
    pub tail_tokens: Option<u64>,
    /// Share of the effective limit kept verbatim at the end (default 0.2)
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "R",
        help_heading = "Compaction"
    )]
    pub tail_ratio: Option<f64>,
    /// Only compact when usage is at or over the threshold
    #[arg(long, help_heading = "Compaction")]
    pub if_needed: bool,
    /// Threshold for --if-needed, a share of the effective limit (default 0.8) [env: CTXCTL_THRESHOLD]
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "R",
        help_heading = "Compaction"
    )]
    pub threshold: Option<f64>,
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Who writes the summary: offline (default, no network) or llm
    #[arg(long, value_name = "S", value_parser = ["offline", "llm"], help_heading = "Summary")]
    pub summarizer: Option<String>,
    /// Cap on the offline summary, in tokens (default 2000; at least 1)
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "N",
        help_heading = "Summary",
        value_parser = positive
    )]
    pub summary_tokens: Option<usize>,
    /// What the summary should pay attention to (llm)
    #[arg(long, value_name = "TEXT", help_heading = "Summary")]
    pub instructions: Option<String>,
    /// Retries of a failed summarizer call (default 2)
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "N",
        help_heading = "Summary"
    )]
    pub retries: Option<u32>,
    /// Remove secrets (API keys, tokens, private keys, passwords) from what the summarizer
    /// sees and from the summary
    #[arg(long, help_heading = "Summary")]
    pub redact: bool,
    /// Refuse a summary that mentions less than this share of the replaced messages'
    /// facts (paths, commands, error lines, user requests): exit 3, nothing changed
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "R",
        help_heading = "Summary"
    )]
    pub min_recall: Option<f64>,
    /// When the llm summarizer fails after its retries, use this one instead of exiting 3
    #[arg(long, value_name = "S", value_parser = ["offline"], help_heading = "Summary")]
    pub fallback: Option<String>,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub here: crate::cli::args::here::PickArgs,
    #[command(flatten)]
    pub resume: crate::cli::args::here::ResumeArgs,
}
pub fn run(ctx: &Context, args: &CompactArgs) -> anyhow::Result<ExitStatus> {
    testhook::install(ctx)?;
    let (path, from_store) = match (args.files.as_slice(), args.recursive.is_empty()) {
        ([], true) if !args.all => match (&args.name, &ctx.settings.session) {
            // `--session` alone: that session of goose's or OpenCode's database, rewritten
            // in place.
            (None, Some(id)) => (agent_db(ctx, id)?, true),
            (name, _) => (
                stored_or_goose(ctx, name.as_deref().unwrap_or_default())?,
                true,
            ),
        },
        // A database of sessions without `--session` is compacted as a directory of them.
        ([one], true) if !one.is_dir() && !args.all && !every_session_of(ctx, one) => {
            (one.clone(), false)
        }
        _ => return many::run(ctx, args, &*summarizer(ctx, args)?),
    };
    ctx.prewarm(&path);
    let summarizer = summarizer(ctx, args)?;
    // One file: when it changes while ctxctl works on it, read it again once.
    let done = retry::retrying(ctx, &load::display(&path), || {
        one::compact_file(
            ctx,
            args,
            &*summarizer,
            &path,
            None,
            from_store,
            crate::ops::live::Scope::Named,
        )
    })?;
    if let Some(doc) = &done.doc {
        ctx.printer.json(doc)?;
    }
    Ok(done.status)
}

/// Whether `path` is an agent's database to be read session by session, as a directory
/// of them (see [`crate::ops::walk::every_session`]).
fn every_session_of(ctx: &Context, path: &Path) -> bool {
    let all = crate::ops::filter::Filter::default();
    matches!(
        crate::ops::walk::every_session(ctx, path, &all),
        Ok(Some(_))
    )
}

/// The agent database at its default location holding session `id` (the agents in the
/// order of the codec table: goose's, then OpenCode's); with none holding it, the first
/// that exists (whose error then lists its sessions).
fn agent_db(ctx: &Context, id: &str) -> anyhow::Result<PathBuf> {
    let known = crate::formats::agent::default_databases(&ctx.env);
    let dbs: Vec<&PathBuf> = known
        .iter()
        .map(|s| &s.path)
        .filter(|p| p.is_file())
        .collect();
    if let Some(db) = dbs.iter().find(|db| agentdb::has(db, id)) {
        return Ok(db.to_path_buf());
    }
    match dbs.first() {
        Some(db) => Ok(db.to_path_buf()),
        None if known.is_empty() => anyhow::bail!(
            "no agent session database found: their default places are not known without HOME; \
             pass the database as FILE"
        ),
        None => {
            let places: Vec<String> = known
                .iter()
                .map(|s| format!("{}: {}", s.agent, s.path.display()))
                .collect();
            anyhow::bail!(
                "no agent session database at its default place ({}); pass the database as FILE",
                places.join(", ")
            )
        }
    }
}

/// A count that must be at least 1 (`--summary-tokens 0` would summarize nothing).
fn positive(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("expected at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("expected a whole number of tokens, got {s:?}")),
    }
}

/// `--name NAME`: the session stored in ctxctl's store under NAME; when there is none,
/// the goose session named NAME (or with id NAME) in goose's database, as
/// `goose session --name NAME` finds it, else the OpenCode session with that id or title.
fn stored_or_goose(ctx: &Context, name: &str) -> anyhow::Result<PathBuf> {
    let stored = stored_session(ctx, name);
    if stored.is_ok() || ctx.settings.session.is_some() {
        return stored;
    }
    let dbs = crate::formats::agent::default_databases(&ctx.env);
    match dbs
        .into_iter()
        .map(|s| s.path)
        .find(|db| db.is_file() && agentdb::has(db, name))
    {
        Some(db) => Ok(db),
        None => stored,
    }
}

fn info(id: &str, seq: u64, archive: Option<PathBuf>, now: Timestamp) -> CompactInfo {
    CompactInfo {
        id: id.to_string(),
        timestamp: now.rfc3339(),
        seq,
        archive: archive.map(|p| p.display().to_string()),
    }
}

fn compacted(l: &Loaded, part: &Partition, summary: &str, info: &CompactInfo) -> usize {
    let message = compact::summary_tokens(&l.counter, summary, part, info);
    compact::compacted_tokens_with(&l.counts, part, message)
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        (a as f64 / b as f64 * 10_000.0).round() / 10_000.0
    }
}
