//! `ctxctl compact FILE | --name NAME`: keep the head and a recent tail, replace the
//! middle with one summary message, archive the originals first.

mod report;
mod settings;

pub use settings::{clock, lock, stored_session};

use std::path::{Path, PathBuf};

use clap::Args;

use super::input::{self, Loaded};
use super::limits::{self, LimitArgs};
use super::output::{self, Destination, OutputArgs};
use super::{replace, testhook};
use crate::archive::{self, ArchiveRecord, ArchiveStore, Timestamp, Tokens};
use crate::compact::{self, CompactInfo, Partition};
use crate::context::Context;
use crate::exit::ExitStatus;
use crate::render::table::thousands;
use crate::session;
use crate::summarize::Input;
use report::{dry_run, unchanged, Report};
use settings::{summarizer, tail_budget};

const AFTER_HELP: &str = "\
The head (leading system messages) and the most recent messages (the tail) are kept as they
are; everything between is replaced by one summary message. The replaced messages are
archived first (`ctxctl archive ls`) and `ctxctl archive restore NAME/SEQ` puts them back.

Examples:
  ctxctl compact --name my-session
  ctxctl compact session.jsonl --if-needed --in-place
  ctxctl compact session.json --tail-tokens 8000 --dry-run
  ctxctl compact session.json --summarizer llm --instructions 'keep all file paths'
  ctxctl compact session.jsonl --summarizer llm --redact --in-place";

/// Summarize the middle of a session to make room.
#[derive(Debug, Args)]
#[command(after_help = AFTER_HELP)]
pub struct CompactArgs {
    /// The session file (`-` reads standard input); leave out to compact `--name` in the store
    #[arg(value_name = "FILE", required_unless_present = "name")]
    pub file: Option<PathBuf>,
    /// A stored session to compact in place; with FILE, the name to store the result under
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Tokens kept verbatim at the end
    #[arg(
        long,
        value_name = "N",
        conflicts_with = "tail_ratio",
        help_heading = "Compaction"
    )]
    pub tail_tokens: Option<u64>,
    /// Share of the effective limit kept verbatim at the end (default 0.2)
    #[arg(long, value_name = "R", help_heading = "Compaction")]
    pub tail_ratio: Option<f64>,
    /// Only compact when usage is at or over the threshold
    #[arg(long, help_heading = "Compaction")]
    pub if_needed: bool,
    /// Threshold for --if-needed, a share of the effective limit (default 0.8) [env: CTXCTL_THRESHOLD]
    #[arg(long, value_name = "R", help_heading = "Compaction")]
    pub threshold: Option<f64>,
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Who writes the summary: offline (default, no network) or llm
    #[arg(long, value_name = "S", value_parser = ["offline", "llm"], help_heading = "Summary")]
    pub summarizer: Option<String>,
    /// Cap on the offline summary, in tokens (default 2000)
    #[arg(long, value_name = "N", help_heading = "Summary")]
    pub summary_tokens: Option<usize>,
    /// What the summary should pay attention to (llm)
    #[arg(long, value_name = "TEXT", help_heading = "Summary")]
    pub instructions: Option<String>,
    /// Retries of a failed summarizer call (default 2)
    #[arg(long, value_name = "N", help_heading = "Summary")]
    pub retries: Option<u32>,
    /// Remove secrets (API keys, tokens, private keys, passwords) from what the summarizer
    /// sees and from the summary
    #[arg(long, help_heading = "Summary")]
    pub redact: bool,
    #[command(flatten)]
    pub output: OutputArgs,
}
pub fn run(ctx: &Context, args: &CompactArgs) -> anyhow::Result<ExitStatus> {
    ctx.prewarm();
    testhook::install(ctx)?;
    let (path, from_store) = input_path(ctx, args)?;
    let shown = input::display(&path);
    replace::retrying(ctx, &shown, |n| attempt(ctx, args, &path, from_store, n))
}

/// One read-summarize-write pass; `n` counts passes (the input may change under the first).
fn attempt(
    ctx: &Context,
    args: &CompactArgs,
    path: &Path,
    from_store: bool,
    n: u32,
) -> anyhow::Result<ExitStatus> {
    let loaded = input::load(ctx, path)?;
    let shown = loaded.display();
    let summarizer = summarizer(ctx, args)?;
    let limit = args.limits.limits(ctx, &loaded)?.effective_limit() as usize;

    if args.if_needed {
        let t = limits::threshold(ctx, args.threshold)?.value;
        if !compact::needs_compaction(loaded.total, limit, t) {
            let reason = format!(
                "below the threshold: {} of {} tokens ({:.0}% < {:.0}%)",
                thousands(loaded.total as u64),
                thousands(limit as u64),
                ratio(loaded.total, limit) * 100.0,
                t * 100.0
            );
            return unchanged(ctx, &shown, summarizer.name(), reason, args.output.dry_run);
        }
    }
    let budget = tail_budget(ctx, args, limit)?;
    let part = compact::partition(&loaded.session, &loaded.counts, budget);
    if !part.has_middle() {
        let reason = format!(
            "nothing to compact: with a tail of {} tokens no messages are left between the head \
             and the tail (the session has {} tokens)",
            thousands(budget as u64),
            thousands(loaded.total as u64)
        );
        return unchanged(ctx, &shown, summarizer.name(), reason, args.output.dry_run);
    }

    let middle = &loaded.session.messages[part.middle.clone()];
    let input = Input::new(middle)
        .with_instructions(args.instructions.clone())
        .with_redaction(args.redact);
    let spinner = ctx
        .printer
        .spinner(&format!("summarizing {} messages", middle.len()));
    let summary = summarizer.summarize(&input, &loaded.counter);
    spinner.finish_and_clear();
    let summary = match summary {
        Ok(s) => s,
        Err(e) => {
            let err = anyhow::Error::new(e).context(format!("{shown}: the summarizer failed"));
            ctx.printer.error(&err);
            ctx.printer
                .hint("nothing was changed; check the llm settings with `ctxctl config`");
            return Ok(ExitStatus::SummarizerFailed);
        }
    };

    let name = archive_name(args, &loaded.path);
    let store = ArchiveStore::new(ctx.data_dir()?.value);
    let now = clock(ctx)?;
    if args.output.dry_run {
        let seq = store.next_seq(&name)?;
        let info = info(
            &CompactInfo::new_id(),
            seq,
            Some(store.path_for(&name, seq, now)?),
            now,
        );
        return dry_run(ctx, &loaded, &part, &summary, &info, summarizer.name());
    }

    let dest = if from_store && args.output.output.is_none() {
        Destination::InPlace(path.to_path_buf())
    } else {
        output::destination(ctx, &args.output, Some(&name), &loaded)?
    };
    let _lock = lock(ctx, &store, &name)?;
    let id = CompactInfo::new_id();
    // Archive the originals before anything is replaced.
    let archived = (|| {
        let seq = store.next_seq(&name)?;
        let info = info(&id, seq, Some(store.path_for(&name, seq, now)?), now);
        let record = ArchiveRecord {
            seq: Some(seq),
            compact_id: id.clone(),
            created: now,
            source: (path != Path::new("-")).then(|| absolute(path)),
            output: match &dest {
                Destination::Stdout => None,
                d => Some(absolute(Path::new(&d.display()))),
            },
            format: loaded.session.format.name().to_string(),
            model: Some(loaded.model.name.clone()),
            summarizer: summarizer.name().to_string(),
            tokens: Tokens {
                original: loaded.total,
                compacted: compacted(&loaded, &part, &summary, &info),
                archived: loaded.counts[part.middle.clone()].iter().sum(),
            },
            first_message: part.middle.start,
            messages: part.middle.len(),
            summary: summary.clone(),
            records: archive::original_records(&loaded.session, part.middle.clone())?,
        };
        let stored = store.put(&name, &record)?;
        Ok::<_, archive::ArchiveError>((info, stored))
    })();
    let (info, archived) = match archived {
        Ok((info, stored)) => (info, Some((stored.seq, stored.path))),
        Err(e) if dest.replaces_input() => {
            return Err(anyhow::Error::new(e).context(format!(
                "archiving the originals of {shown}; nothing was changed"
            )))
        }
        Err(e) => {
            ctx.printer.warn(&format!(
                "cannot archive the originals of {shown} ({e}); writing the compacted session anyway"
            ));
            (info(&id, 0, None, now), None)
        }
    };
    let tokens = compacted(&loaded, &part, &summary, &info);
    let items = compact::assemble(&loaded.session, &part, &summary, &info);
    let bytes = session::write(&loaded.session, &items)?;
    let archive_path = archived.as_ref().map(|(_, p)| p.as_path());
    replace::write_archived(ctx, &dest, &loaded, &bytes, archive_path, n)?;

    let report = Report {
        compacted: true,
        original_tokens: loaded.total,
        compacted_tokens: tokens,
        compaction_ratio: ratio(tokens, loaded.total),
        compacted_messages: part.middle.len(),
        retained_messages: part.head.len() + part.tail.len(),
        archive: archived.as_ref().map(|(_, p)| p.display().to_string()),
        output: Some(dest.display()),
        archive_id: archived.map(|(seq, _)| format!("{name}/{seq}")),
        summarizer: summarizer.name(),
        reason: None,
        dry_run: false,
    };
    if ctx.printer.json {
        if dest != Destination::Stdout {
            ctx.printer.json(&report)?;
        }
    } else {
        ctx.printer.note(&format!(
            "compacted {shown}: {} → {} tokens ({:.0}%), summarized {} of {} messages{} → {}",
            thousands(report.original_tokens as u64),
            thousands(report.compacted_tokens as u64),
            report.compaction_ratio * 100.0,
            report.compacted_messages,
            loaded.session.messages.len(),
            report
                .archive_id
                .as_ref()
                .map(|id| format!(", archived as {id}"))
                .unwrap_or_default(),
            dest.display()
        ));
    }
    Ok(ExitStatus::Success)
}

/// The input file, and whether it is the store's copy of `--name`.
fn input_path(ctx: &Context, args: &CompactArgs) -> anyhow::Result<(PathBuf, bool)> {
    if let Some(f) = &args.file {
        return Ok((f.clone(), false));
    }
    let name = args.name.as_deref().unwrap_or_default();
    Ok((stored_session(ctx, name)?, true))
}

/// The session name archives are filed under: `--name`, the file's stem, or `stdin`.
fn archive_name(args: &CompactArgs, path: &Path) -> String {
    output::session_name(args.name.as_deref(), path).unwrap_or_else(|_| "stdin".to_string())
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
    let message = compact::summary_message(summary, part, info);
    compact::compacted_tokens(&l.counter, &l.counts, part, &message)
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        (a as f64 / b as f64 * 10_000.0).round() / 10_000.0
    }
}

fn absolute(p: &Path) -> String {
    std::path::absolute(p)
        .unwrap_or_else(|_| p.to_path_buf())
        .display()
        .to_string()
}
