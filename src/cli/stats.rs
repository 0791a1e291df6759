//! `ctxctl stats`: where the tokens go.

use clap::Args;
use serde::Serialize;

use crate::cli::args::budget::LimitArgs;
use crate::cli::args::InputArgs;
use crate::context::Context;
use crate::exit::ExitStatus;
use crate::ops::batch;
use crate::ops::counted::Counted;
use crate::ops::figures::Wants;
use crate::ops::read_only;
use crate::ops::walk::Input;
use crate::render::bar::bar;
use crate::render::json::{ByRole, FileEntry, Files, Reported};
use crate::render::table::{thousands, Cell, Table};
use crate::render::Style;
use crate::session::Role;

/// Show where the tokens of a session go.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  ctxctl stats session.jsonl\n  ctxctl stats session.json --model claude-sonnet-4-5 --json"
)]
pub struct StatsArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Debug, Serialize)]
struct ToolStats {
    name: String,
    calls: usize,
    call_tokens: usize,
    result_tokens: usize,
    errors: usize,
}

#[derive(Debug, Serialize)]
struct Largest {
    index: usize,
    role: &'static str,
    tokens: usize,
    preview: String,
}

#[derive(Debug, Serialize)]
struct Compaction {
    index: usize,
    by: &'static str,
    id: Option<String>,
}

#[derive(Debug, Serialize)]
struct StatsFile {
    path: String,
    format: &'static str,
    model: String,
    tokenizer: &'static str,
    exact: bool,
    messages: usize,
    tokens: usize,
    messages_by_role: ByRole,
    by_role: ByRole,
    tools: Vec<ToolStats>,
    largest: Vec<Largest>,
    compactions: Vec<Compaction>,
    reported: Option<Reported>,
    next_request_tokens: usize,
    next_request_source: &'static str,
    context_window: u64,
    context_window_source: &'static str,
    effective_limit: u64,
    usage: f64,
}

pub fn run(ctx: &Context, args: &StatsArgs) -> anyhow::Result<ExitStatus> {
    let files = args.input.collect(ctx, true)?;
    let mut status = ExitStatus::Success;
    let mut out = Vec::new();
    let work = |input: &Input| -> anyhow::Result<StatsFile> {
        let wants = Wants {
            tools: true,
            ..Wants::default()
        };
        let mut s = read_only::load_session(ctx, &input.path, input.id(), wants)
            .and_then(|l| stats(ctx, args, &l))?;
        s.path = input.shown();
        if !ctx.printer.json && !ctx.printer.tsv {
            print_human(ctx, &s)?;
        }
        Ok(s)
    };
    batch::run_inputs(
        ctx,
        &files,
        "reading",
        usize::MAX,
        work,
        |input, outcome| {
            out.push(batch::entry(ctx, &input.label(), outcome, &mut status)?);
            Ok(())
        },
    )?;
    if ctx.printer.json {
        ctx.printer.json(&Files { files: out })?;
    } else if ctx.printer.tsv {
        let done: Vec<&StatsFile> = out.iter().filter_map(FileEntry::done).collect();
        print_tsv(ctx, &done)?;
    }
    Ok(status)
}

fn stats(ctx: &Context, args: &StatsArgs, l: &Counted) -> anyhow::Result<StatsFile> {
    let window = l.window();
    let limits = args.limits.limits(ctx, &l.model, &window)?;
    let effective = limits.effective_limit();
    let largest: Vec<Largest> = l
        .tally
        .largest
        .iter()
        .map(|m| Largest {
            index: m.index,
            role: m.role.name(),
            tokens: m.tokens,
            preview: m.preview.clone(),
        })
        .collect();
    let compactions = l
        .tally
        .compactions
        .iter()
        .map(|c| Compaction {
            index: c.index,
            by: c.by,
            id: c.id.clone(),
        })
        .collect();
    let next = l.prediction();
    let tokens = next.tokens;
    Ok(StatsFile {
        path: l.display(),
        format: l.format.name(),
        model: l.model.name.clone(),
        tokenizer: l.model.encoding.name(),
        exact: l.exact(),
        messages: l.tally.len(),
        tokens: l.total,
        messages_by_role: l.by_role(std::iter::repeat(1)),
        by_role: l.by_role(l.counts().iter().copied()),
        tools: l
            .tally
            .tools()
            .into_iter()
            .map(|t| ToolStats {
                name: t.name,
                calls: t.calls,
                call_tokens: t.call_tokens,
                result_tokens: t.result_tokens,
                errors: t.errors,
            })
            .collect(),
        largest,
        compactions,
        reported: l.reported(),
        next_request_tokens: tokens,
        next_request_source: next.source.name(),
        context_window: limits.context_window,
        context_window_source: args.limits.source(&window).name(),
        effective_limit: effective,
        usage: if effective == 0 {
            0.0
        } else {
            tokens as f64 / effective as f64
        },
    })
}

fn print_human(ctx: &Context, s: &StatsFile) -> anyhow::Result<()> {
    let p = &ctx.printer;
    let estimate = if s.exact { "" } else { ", estimate" };
    p.line(&p.paint(&s.path, Style::Bold))?;
    p.line(&format!(
        "  {} tokens in {} messages ({}, {}, {}{estimate})",
        thousands(s.tokens as u64),
        thousands(s.messages as u64),
        s.format,
        s.model,
        s.tokenizer
    ))?;
    let style = if s.usage > 1.0 {
        Style::Red
    } else if s.usage >= 0.8 {
        Style::Yellow
    } else {
        Style::Green
    };
    let drawn = bar(s.usage, 30, p.color);
    p.line(&format!(
        "  window {} {:.1}% of {} effective ({} window, {}); next request {} ({})",
        p.paint(&drawn, style),
        s.usage * 100.0,
        thousands(s.effective_limit),
        thousands(s.context_window),
        s.context_window_source,
        thousands(s.next_request_tokens as u64),
        s.next_request_source
    ))?;
    if let Some(r) = &s.reported {
        p.line(&format!(
            "  reported by the provider: {} input, {} output; {}",
            thousands(r.input_tokens),
            thousands(r.output_tokens),
            crate::render::table::same_messages(r.input_tokens, r.difference)
        ))?;
    }
    p.line("")?;
    p.line(&indent(&roles(&[s], false).human()))?;
    if !s.tools.is_empty() {
        p.line("")?;
        p.line(&indent(&tools(&[s], false).human()))?;
    }
    if !s.largest.is_empty() {
        p.line("")?;
        p.line(&indent(&largest(&[s], false).human()))?;
    }
    if !s.compactions.is_empty() {
        p.line("")?;
        for c in &s.compactions {
            p.line(&format!(
                "  compaction summary at message {} (by {}{})",
                c.index,
                c.by,
                c.id.as_deref()
                    .map(|i| format!(", id {i}"))
                    .unwrap_or_default()
            ))?;
        }
    }
    Ok(())
}

/// `--tsv`: the roles, tools and largest-messages tables of every file, each with a
/// header and a `path` column, separated by an empty line.
fn print_tsv(ctx: &Context, files: &[&StatsFile]) -> anyhow::Result<()> {
    ctx.printer.line(&format!(
        "{}\n\n{}\n\n{}",
        roles(files, true).tsv(),
        tools(files, true).tsv(),
        largest(files, true).tsv()
    ))?;
    Ok(())
}

/// The header `names`, after a `path` column when `with_path`.
fn header(names: &[&'static str], with_path: bool) -> Table {
    let mut h = if with_path { vec!["path"] } else { vec![] };
    h.extend_from_slice(names);
    Table::new(&h)
}

fn row(s: &StatsFile, with_path: bool, cells: Vec<Cell>) -> Vec<Cell> {
    let mut r = if with_path {
        vec![Cell::text(&s.path)]
    } else {
        vec![]
    };
    r.extend(cells);
    r
}

fn roles(files: &[&StatsFile], with_path: bool) -> Table {
    let mut t = header(&["role", "messages", "tokens", "share"], with_path);
    for s in files {
        for r in Role::ALL.iter().filter(|r| s.messages_by_role.get(**r) > 0) {
            let n = s.by_role.get(*r);
            let share = if s.tokens == 0 {
                0.0
            } else {
                n as f64 / s.tokens as f64
            };
            t.push(row(
                s,
                with_path,
                vec![
                    Cell::text(r.name()),
                    Cell::Num(s.messages_by_role.get(*r) as u64),
                    Cell::Num(n as u64),
                    Cell::Share(share),
                ],
            ));
        }
    }
    t
}

fn tools(files: &[&StatsFile], with_path: bool) -> Table {
    let names: &[&'static str] = if with_path {
        &["tool", "calls", "call_tokens", "result_tokens", "errors"]
    } else {
        &["tool", "calls", "call tokens", "result tokens", "errors"]
    };
    let mut t = header(names, with_path);
    for s in files {
        for tool in &s.tools {
            t.push(row(
                s,
                with_path,
                vec![
                    Cell::text(&tool.name),
                    Cell::Num(tool.calls as u64),
                    Cell::Num(tool.call_tokens as u64),
                    Cell::Num(tool.result_tokens as u64),
                    Cell::Num(tool.errors as u64),
                ],
            ));
        }
    }
    t
}

fn largest(files: &[&StatsFile], with_path: bool) -> Table {
    let names: &[&'static str] = if with_path {
        &["index", "role", "tokens", "text"]
    } else {
        &["largest #", "role", "tokens", "text"]
    };
    let mut t = header(names, with_path);
    for s in files {
        for m in &s.largest {
            t.push(row(
                s,
                with_path,
                vec![
                    Cell::Num(m.index as u64),
                    Cell::text(m.role),
                    Cell::Num(m.tokens as u64),
                    Cell::text(&m.preview),
                ],
            ));
        }
    }
    t
}

fn indent(text: &str) -> String {
    crate::render::table::indent(text, 2)
}
