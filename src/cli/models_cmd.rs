//! `ctxctl models [PATTERN]`: the model registry.

use clap::Args;
use serde::Serialize;

use crate::context::Context;
use crate::exit::ExitStatus;
use crate::render::table::{table, thousands};

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
    if ctx.printer.json {
        ctx.printer.json(&rows)?;
    } else if rows.is_empty() {
        ctx.printer.note(&format!("no model matches {pattern:?}"));
    } else {
        let cells: Vec<Vec<String>> = rows
            .iter()
            .map(|r| {
                let tok = if r.exact {
                    r.tokenizer.to_string()
                } else {
                    format!("{} (estimate)", r.tokenizer)
                };
                vec![
                    r.id.clone(),
                    thousands(r.context_window),
                    r.max_output_tokens.map_or("unknown".into(), thousands),
                    tok,
                ]
            })
            .collect();
        ctx.printer.line(&table(
            &["model", "context", "max output", "tokenizer"],
            &cells,
            &[1, 2],
        ))?;
    }
    Ok(if rows.is_empty() {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}
