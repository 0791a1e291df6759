//! `ctxctl check`: is each session within its model's window? Exit 1 when one is at or
//! over its threshold, over its limit, or structurally broken.

use clap::Args;

use crate::cli::args::budget::{self, LimitArgs};
use crate::cli::args::filter::ResultFilterArgs;
use crate::cli::args::InputArgs;
use crate::config::Source;
use crate::context::Context;
use crate::exit::ExitStatus;
use crate::formats::drift;
use crate::ops::batch;
use crate::ops::checked::{load_session, Checked};
use crate::ops::load;
use crate::ops::walk::Input;
use crate::render::json::{CheckFile, FileEntry, Files};
use crate::render::table::{thousands, Cell, Table};
use crate::render::{Level, Style};
use crate::session::Format;
use crate::tokens::Counter;

/// Usage above which a warning is printed on stderr, whatever the threshold.
const WARN_USAGE: f64 = 0.85;

/// Check sessions against their model's context window.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  ctxctl check session.json --model gpt-4o\n  ctxctl check -r ~/.claude/projects --threshold 0.9 --json\n\nExit codes: 0 all below threshold · 1 a session needs compaction, is over, or is broken · 2 error"
)]
pub struct CheckArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Fraction of the effective limit at which a session needs compaction [env: CTXCTL_THRESHOLD] [default: 0.8]
    #[arg(long, allow_negative_numbers = true, value_name = "R")]
    pub threshold: Option<f64>,
    #[command(flatten)]
    pub limits: LimitArgs,
    #[command(flatten)]
    pub results: ResultFilterArgs,
    /// Check against the default limits when --model (or CTXCTL_MODEL) names a model the
    /// registry does not know, instead of refusing it
    #[arg(long)]
    pub allow_unknown_model: bool,
    /// Skip, with a note, a FILE that is no session (JSON no format reads: package.json,
    /// tsconfig.json) instead of failing on it: for a pre-commit hook given every staged
    /// *.json
    #[arg(long)]
    pub skip_non_sessions: bool,
}

pub fn run(ctx: &Context, args: &CheckArgs) -> anyhow::Result<ExitStatus> {
    if !args.allow_unknown_model {
        known_model(ctx)?;
    }
    let files = args.input.collect(ctx, false)?;
    let threshold = budget::threshold(ctx, args.threshold)?.value;
    let filter = args.input.filters.filter(Some(&args.results))?;
    let mut status = ExitStatus::Success;
    let mut results = Vec::new();
    let work = |input: &Input| -> anyhow::Result<Option<CheckFile>> {
        let l = match load_session(ctx, &input.path, input.id()) {
            Err(e) if args.skip_non_sessions && load::is_not_a_session(&e) => {
                ctx.printer.note(&format!(
                    "{}: not a session ({}); skipped",
                    input.shown(),
                    e.root_cause()
                ));
                return Ok(None);
            }
            loaded => loaded?,
        };
        let mut file = check_file(ctx, args, &l, threshold)?;
        file.path = input.shown();
        if ctx.printer.level >= Level::Info {
            report_drift(ctx, &input.path, &file.path, l.format);
        }
        if !filter.keeps_result(file.next_request_tokens, file.status) {
            ctx.printer.debug(&format!(
                "{}: left out ({} tokens, {})",
                file.path, file.next_request_tokens, file.status
            ));
            return Ok(None);
        }
        if file.usage > WARN_USAGE {
            ctx.printer.warn(&format!(
                "{}: {:.1}% of the effective limit used",
                file.path,
                file.usage * 100.0
            ));
        }
        if !ctx.printer.json && !ctx.printer.tsv {
            print_human(ctx, &file)?;
        }
        Ok(Some(file))
    };
    batch::run_inputs(
        ctx,
        &files,
        "checking",
        usize::MAX,
        work,
        |input, outcome| {
            let entry = match batch::entry(ctx, &input.label(), outcome, &mut status)? {
                // Left out by --min-tokens / --status.
                FileEntry::Done(None) => return Ok(()),
                FileEntry::Done(Some(file)) => FileEntry::Done(file),
                FileEntry::Failed(failed) => FileEntry::Failed(failed),
            };
            if entry.done().is_some_and(|file| file.status != "ok") {
                status = status.worst(ExitStatus::Failure);
            }
            results.push(entry);
            Ok(())
        },
    )?;
    if ctx.printer.json {
        ctx.printer.json(&Files { files: results })?;
    } else if ctx.printer.tsv {
        let done: Vec<&CheckFile> = results.iter().filter_map(FileEntry::done).collect();
        ctx.printer.table(&tsv(&done))?;
    }
    Ok(status)
}

/// `-v`: the agent release that wrote the file, and what it wrote that ctxctl does not
/// know (see [`drift`]). Read again only at this level: the check itself never needs it.
fn report_drift(ctx: &Context, path: &std::path::Path, shown: &str, format: Format) {
    let Some((agent, _)) = drift::verified(format) else {
        return;
    };
    let Ok(text) = std::fs::read_to_string(path) else {
        return;
    };
    let d = drift::scan(format, &text);
    if let Some(v) = d.version() {
        let against =
            drift::against_verified(format, v).map_or(String::new(), |note| format!(" ({note})"));
        ctx.printer.log(
            Level::Info,
            &format!("{shown}: written by {agent} {v}{against}"),
        );
    }
    if let Some(said) = d.describe(agent) {
        ctx.printer.log(Level::Info, &format!("{shown}: {said}"));
    }
}

/// `--tsv`: one line per file, raw numbers.
fn tsv(files: &[&CheckFile]) -> Table {
    let mut t = Table::new(&[
        "status",
        "next_request_tokens",
        "effective_limit",
        "usage",
        "context_window",
        "problems",
        "model",
        "path",
    ]);
    for f in files {
        t.push(vec![
            Cell::text(f.status),
            Cell::Num(f.next_request_tokens as u64),
            Cell::Num(f.effective_limit),
            Cell::Share(f.usage),
            Cell::Num(f.context_window),
            Cell::Num(f.problems.len() as u64),
            Cell::text(&f.model),
            Cell::text(&f.path),
        ]);
    }
    t
}

/// A check against made-up limits passes silently: a model named by `--model` or
/// `CTXCTL_MODEL` must be one the registry (or the config's `[models]`) knows.
fn known_model(ctx: &Context) -> anyhow::Result<()> {
    let Some(model) = &ctx.settings.model else {
        return Ok(());
    };
    let resolved = ctx.resolve_model_quietly(None);
    if resolved.known {
        return Ok(());
    }
    let named_by = match model.source {
        Source::Env(var) => var,
        _ => "--model",
    };
    let close = ctx.registry.suggest(&model.value, 3);
    let hint = if close.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", close.join(", "))
    };
    anyhow::bail!(
        "unknown model {:?} ({named_by}){hint} (`ctxctl models PATTERN` searches the \
         registry; --allow-unknown-model checks against default limits)",
        model.value
    )
}

fn check_file(
    ctx: &Context,
    args: &CheckArgs,
    l: &Checked,
    threshold: f64,
) -> anyhow::Result<CheckFile> {
    let window = l.window();
    let limits = args.limits.limits(ctx, &l.model, &window)?;
    let next = l.prediction();
    let tokens = next.tokens;
    let measured = Counter::total(&l.counts);
    let effective = limits.effective_limit();
    let usage = if effective == 0 {
        if tokens == 0 {
            0.0
        } else {
            f64::INFINITY
        }
    } else {
        tokens as f64 / effective as f64
    };
    Ok(CheckFile {
        path: load::display(&l.path),
        model: l.model.name.clone(),
        status: l.status(tokens, effective, threshold),
        tokens: measured,
        next_request_tokens: tokens,
        next_request_source: next.source.name(),
        context_window: limits.context_window,
        context_window_source: args.limits.source(&window).name(),
        max_output_tokens: limits.max_output_tokens,
        reserved: limits.reserved,
        effective_limit: effective,
        threshold,
        usage: if usage.is_finite() {
            (usage * 10000.0).round() / 10000.0
        } else {
            1e9
        },
        remaining: effective as i64 - tokens as i64,
        problems: l.problems.clone(),
    })
}

/// The problems a file's human report lists before it counts the rest.
const PROBLEMS_SHOWN: usize = 20;

fn print_human(ctx: &Context, f: &CheckFile) -> anyhow::Result<()> {
    let p = &ctx.printer;
    let style = match f.status {
        "ok" => Style::Green,
        "compact" | "broken" => Style::Yellow,
        _ => Style::Red,
    };
    p.line(&format!(
        "{}{:>11} / {} ({:.1}%)  {}  [{}; window {} ({})]",
        p.paint(&format!("{:<7}", f.status), style),
        thousands(f.next_request_tokens as u64),
        thousands(f.effective_limit),
        f.usage * 100.0,
        f.path,
        f.model,
        thousands(f.context_window),
        f.context_window_source
    ))?;
    if f.status == "over" && f.next_request_tokens as u64 <= f.effective_limit {
        p.line("         the agent's last request was refused as larger than its context window")?;
    }
    for problem in f.problems.iter().take(PROBLEMS_SHOWN) {
        p.line(&format!("         problem: {problem}"))?;
    }
    if let Some(more) = f
        .problems
        .len()
        .checked_sub(PROBLEMS_SHOWN)
        .filter(|&n| n > 0)
    {
        p.line(&format!(
            "         … and {} more problem{} (--json lists every one)",
            thousands(more as u64),
            if more == 1 { "" } else { "s" }
        ))?;
    }
    Ok(())
}
