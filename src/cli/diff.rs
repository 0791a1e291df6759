//! `ctxctl diff A B`: what a rewrite removed, edited and added, message by message with
//! token figures. Exit 0 when the two sessions hold the same messages, 1 when they differ.

use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use crate::context::Context;
use crate::diff::{align, Change};
use crate::exit::ExitStatus;
use crate::ops::load::{self, Loaded};
use crate::render::preview::preview;
use crate::render::table::thousands;
use crate::render::{Printer, Report, Style};

/// Compare two sessions message by message.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 when both hold the same messages, 1 when they differ, 2 on error.\n\nExamples:\n  ctxctl diff session.jsonl trimmed.jsonl\n  ctxctl diff session.json compacted.json --json | jq '.removed_tokens'"
)]
pub struct DiffArgs {
    /// The session before (with only one session given: this project's newest session,
    /// and the one given is B)
    #[arg(value_name = "A")]
    pub a: Option<PathBuf>,
    /// The session after
    #[arg(value_name = "B")]
    pub b: Option<PathBuf>,
    /// Also list the messages both hold
    #[arg(long, help_heading = "Output")]
    pub all: bool,
    #[command(flatten)]
    pub here: crate::cli::args::here::PickArgs,
}

/// `diff --json`.
#[derive(Debug, Serialize)]
struct DiffReport {
    a: Side,
    b: Side,
    same: bool,
    removed: usize,
    removed_tokens: usize,
    edited: usize,
    edited_tokens_before: usize,
    edited_tokens_after: usize,
    added: usize,
    added_tokens: usize,
    kept: usize,
    changes: Vec<Entry>,
}

#[derive(Debug, Serialize)]
struct Side {
    path: String,
    format: &'static str,
    model: String,
    messages: usize,
    tokens: usize,
}

/// One changed (or, with `--all`, kept) message.
#[derive(Debug, Serialize)]
struct Entry {
    op: &'static str,
    /// Index in A (`null` for an addition).
    a_index: Option<usize>,
    /// Index in B (`null` for a removal).
    b_index: Option<usize>,
    role: &'static str,
    tokens_before: Option<usize>,
    tokens_after: Option<usize>,
    preview: String,
}

pub fn run(ctx: &Context, args: &DiffArgs) -> anyhow::Result<ExitStatus> {
    // With one side given, A is filled in with this project's session (`cli::here`).
    let (Some(a), Some(b)) = (&args.a, &args.b) else {
        anyhow::bail!("diff needs two sessions: A and B");
    };
    let a = load::load_for_reading(ctx, a)?;
    let b = load::load_for_reading(ctx, b)?;
    let changes = align(&a.session.messages, &b.session.messages);
    let report = report(&a, &b, &changes, args.all);
    ctx.printer.report(&report)?;
    Ok(if report.same {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}

fn side(l: &Loaded) -> Side {
    Side {
        path: l.display(),
        format: l.session.format.name(),
        model: l.model.name.clone(),
        messages: l.session.messages.len(),
        tokens: l.total,
    }
}

fn report(a: &Loaded, b: &Loaded, changes: &[Change], all: bool) -> DiffReport {
    let mut r = DiffReport {
        a: side(a),
        b: side(b),
        same: true,
        removed: 0,
        removed_tokens: 0,
        edited: 0,
        edited_tokens_before: 0,
        edited_tokens_after: 0,
        added: 0,
        added_tokens: 0,
        kept: 0,
        changes: Vec::new(),
    };
    let entry = |op, ai: Option<usize>, bi: Option<usize>| {
        // The message as it is now (as it was, for a removal).
        let m = match (ai, bi) {
            (_, Some(j)) => &b.session.messages[j],
            (Some(i), None) => &a.session.messages[i],
            (None, None) => unreachable!("a change names at least one side"),
        };
        Entry {
            op,
            a_index: ai,
            b_index: bi,
            role: m.role.name(),
            tokens_before: ai.map(|i| a.counts[i]),
            tokens_after: bi.map(|j| b.counts[j]),
            preview: preview(&m.text(), 60),
        }
    };
    for c in changes {
        let e = match *c {
            Change::Kept { a: i, b: j } => {
                r.kept += 1;
                if !all {
                    continue;
                }
                entry("kept", Some(i), Some(j))
            }
            Change::Removed { a: i } => {
                r.removed += 1;
                r.removed_tokens += a.counts[i];
                entry("removed", Some(i), None)
            }
            Change::Added { b: j } => {
                r.added += 1;
                r.added_tokens += b.counts[j];
                entry("added", None, Some(j))
            }
            Change::Edited { a: i, b: j } => {
                r.edited += 1;
                r.edited_tokens_before += a.counts[i];
                r.edited_tokens_after += b.counts[j];
                entry("edited", Some(i), Some(j))
            }
        };
        r.changes.push(e);
    }
    r.same = r.removed + r.added + r.edited == 0;
    r
}

impl Report for DiffReport {
    fn human(&self, p: &Printer) -> anyhow::Result<()> {
        let r = self;
        let head = |mark: &str, s: &Side| {
            format!(
                "{mark} {}  ({}, {} messages, {} tokens)",
                s.path,
                s.format,
                s.messages,
                thousands(s.tokens as u64)
            )
        };
        p.line(&p.paint(&head("---", &r.a), Style::Bold))?;
        p.line(&p.paint(&head("+++", &r.b), Style::Bold))?;
        let idx = |i: Option<usize>| i.map_or_else(String::new, |i| format!("#{i}"));
        let n = |t: Option<usize>| t.map_or_else(String::new, |t| thousands(t as u64));
        for e in &r.changes {
            let (mark, style, tokens) = match e.op {
                "removed" => ("-", Style::Red, n(e.tokens_before)),
                "added" => ("+", Style::Green, n(e.tokens_after)),
                "edited" => (
                    "~",
                    Style::Yellow,
                    format!("{} → {}", n(e.tokens_before), n(e.tokens_after)),
                ),
                _ => (" ", Style::Dim, n(e.tokens_after)),
            };
            let line = format!(
                "{mark} {:>6} {:>6}  {:<9} {:>15}  {}",
                idx(e.a_index),
                idx(e.b_index),
                e.role,
                tokens,
                e.preview
            );
            p.line(&p.paint(&line, style))?;
        }
        if r.same {
            p.note(&format!("same {} messages", r.kept));
            return Ok(());
        }
        p.note(&format!(
        "removed {} ({} tokens), edited {} ({} → {} tokens), added {} ({} tokens), kept {}: {} → {} tokens",
        r.removed,
        thousands(r.removed_tokens as u64),
        r.edited,
        thousands(r.edited_tokens_before as u64),
        thousands(r.edited_tokens_after as u64),
        r.added,
        thousands(r.added_tokens as u64),
        r.kept,
        thousands(r.a.tokens as u64),
        thousands(r.b.tokens as u64),
    ));
        Ok(())
    }
}
