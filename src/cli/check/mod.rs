//! `ctxctl check`: is each session within its model's window? Exit 1 when one is at or
//! over its threshold, over its limit, or structurally broken.

use clap::Args;

use crate::cli::args::filter::ResultFilterArgs;
use crate::cli::args::limits::{self, LimitArgs};
use crate::cli::args::InputArgs;
use crate::context::Context;
use crate::exit::ExitStatus;
use crate::ops::batch;
use crate::ops::checked::{load, status, Checked};
use crate::ops::load;
use crate::render::json::CheckFile;
use crate::render::table::{thousands, Cell, Table};
use crate::render::Style;

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
    #[arg(long, value_name = "R")]
    pub threshold: Option<f64>,
    #[command(flatten)]
    pub limits: LimitArgs,
    #[command(flatten)]
    pub results: ResultFilterArgs,
}

pub fn run(ctx: &Context, args: &CheckArgs) -> anyhow::Result<ExitStatus> {
    let files = args.input.collect(ctx, false)?;
    let threshold = limits::threshold(ctx, args.threshold)?.value;
    let filter = args.input.filters.filter(Some(&args.results))?;
    let mut status = ExitStatus::Success;
    let mut results = Vec::new();
    let work = |path: &std::path::Path| -> anyhow::Result<Option<CheckFile>> {
        let l = load(ctx, path)?;
        let file = check_file(ctx, args, &l, threshold)?;
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
    batch::run(ctx, &files, "checking", usize::MAX, work, |_, outcome| {
        if let Some(file) = batch::reported(ctx, outcome, &mut status)?.flatten() {
            if file.status != "ok" || !file.problems.is_empty() {
                status = status.worst(ExitStatus::Failure);
            }
            results.push(file);
        }
        Ok(())
    })?;
    if ctx.printer.json {
        if files.len() == 1 && results.len() == 1 {
            ctx.printer.json(&results[0])?;
        } else {
            ctx.printer.json(&results)?;
        }
    } else if ctx.printer.tsv {
        ctx.printer.table(&tsv(&results))?;
    }
    Ok(status)
}

/// `--tsv`: one line per file, raw numbers.
fn tsv(files: &[CheckFile]) -> Table {
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
        // The agent's own record of a refused request outweighs any count.
        status: if l.agent.overflow {
            "over"
        } else {
            status(tokens, effective, threshold)
        },
        tokens,
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

fn print_human(ctx: &Context, f: &CheckFile) -> anyhow::Result<()> {
    let p = &ctx.printer;
    let style = match f.status {
        "ok" => Style::Green,
        "compact" => Style::Yellow,
        _ => Style::Red,
    };
    p.line(&format!(
        "{}{:>11} / {} ({:.1}%)  {}  [{}; window {} ({})]",
        p.paint(&format!("{:<7}", f.status), style),
        thousands(f.tokens as u64),
        thousands(f.effective_limit),
        f.usage * 100.0,
        f.path,
        f.model,
        thousands(f.context_window),
        f.context_window_source
    ))?;
    if f.status == "over" && f.tokens as u64 <= f.effective_limit {
        p.line("         the agent's last request was refused as larger than its context window")?;
    }
    for problem in &f.problems {
        p.line(&format!("         problem: {problem}"))?;
    }
    Ok(())
}
