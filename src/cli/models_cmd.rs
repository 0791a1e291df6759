//! `ctxctl models [PATTERN]`: the model registry.

use clap::Args;
use serde::Serialize;

use crate::context::Context;
use crate::exit::ExitStatus;
use crate::render::table::{Cell, Table};
use crate::render::{Printer, Report};

/// List known models: context window, max output and tokenizer.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  ctxctl models claude\n  ctxctl models gpt-5 --json")]
pub struct ModelsArgs {
    /// Only models whose id contains PATTERN (case-insensitive)
    pub pattern: Option<String>,
}

#[derive(Debug, Serialize)]
struct ModelRow {
    id: String,
    context_window: u64,
    max_output_tokens: Option<u64>,
    tokenizer: &'static str,
    exact: bool,
}

pub fn run(ctx: &Context, args: &ModelsArgs) -> anyhow::Result<ExitStatus> {
    let pattern = args.pattern.as_deref().unwrap_or("");
    let rows: Vec<ModelRow> = ctx
        .registry
        .matching(pattern)
        .into_iter()
        .map(|m| ModelRow {
            exact: m.exact,
            tokenizer: m.encoding.name(),
            id: m.id,
            context_window: m.context_window,
            max_output_tokens: m.max_output_tokens,
        })
        .collect();
    let empty = rows.is_empty();
    ctx.printer.report(&Models {
        rows,
        pattern: pattern.to_string(),
    })?;
    Ok(if empty {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

/// The models a pattern matched (`--json`: the rows alone).
#[derive(Serialize)]
#[serde(transparent)]
struct Models {
    rows: Vec<ModelRow>,
    #[serde(skip)]
    pattern: String,
}

impl Report for Models {
    fn human(&self, p: &Printer) -> anyhow::Result<()> {
        if self.rows.is_empty() && !p.tsv {
            p.note(&format!("no model matches {:?}", self.pattern));
        } else {
            let mut t = Table::new(if p.tsv {
                &[
                    "id",
                    "context_window",
                    "max_output_tokens",
                    "tokenizer",
                    "exact",
                ]
            } else {
                &["model", "context", "max output", "tokenizer"]
            });
            for r in &self.rows {
                let mut row = vec![
                    Cell::text(&r.id),
                    Cell::Num(r.context_window),
                    match r.max_output_tokens {
                        Some(n) => Cell::Num(n),
                        None if p.tsv => Cell::None,
                        None => Cell::text("unknown"),
                    },
                ];
                if p.tsv {
                    row.push(Cell::text(r.tokenizer));
                    row.push(Cell::text(r.exact.to_string()));
                } else if r.exact {
                    row.push(Cell::text(r.tokenizer));
                } else {
                    row.push(Cell::text(format!("{} (estimate)", r.tokenizer)));
                }
                t.push(row);
            }
            p.table(&t)?;
        }
        Ok(())
    }
}
