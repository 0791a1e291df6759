//! `ctxctl config`: the effective settings and where each came from; `config path`.

use clap::{Args, Subcommand};
use serde::Serialize;

use crate::config::{env, Source};
use crate::context::Context;
use crate::exit::ExitStatus;
use crate::render::table::table;

/// Show the effective settings and their sources.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  ctxctl config\n  ctxctl config path")]
pub struct ConfigArgs {
    #[command(subcommand)]
    pub action: Option<ConfigAction>,
}

#[derive(Debug, Subcommand)]
pub enum ConfigAction {
    /// Print the config file's location
    #[command(
        after_help = "Examples:\n  ctxctl config path\n  ctxctl --config ./ctxctl.toml config path"
    )]
    Path,
}

#[derive(Debug, Serialize)]
struct Setting {
    key: &'static str,
    value: String,
    source: String,
}

pub fn run(ctx: &Context, args: &ConfigArgs) -> anyhow::Result<ExitStatus> {
    if let Some(ConfigAction::Path) = args.action {
        match &ctx.config_path {
            Some((p, _)) => ctx.printer.line(&p.display().to_string())?,
            None => ctx
                .printer
                .note("no config file (--no-config, or no home directory)"),
        }
        return Ok(ExitStatus::Success);
    }
    let settings = settings(ctx)?;
    if ctx.printer.json {
        ctx.printer.json(&settings)?;
    } else {
        let rows: Vec<Vec<String>> = settings
            .iter()
            .map(|s| vec![s.key.to_string(), s.value.clone(), s.source.clone()])
            .collect();
        ctx.printer
            .line(&table(&["setting", "value", "from"], &rows, &[]))?;
    }
    Ok(ExitStatus::Success)
}

fn settings(ctx: &Context) -> anyhow::Result<Vec<Setting>> {
    let mut out = Vec::new();
    let mut push = |key: &'static str, value: String, source: Source| {
        out.push(Setting {
            key,
            value,
            source: source.to_string(),
        })
    };
    match &ctx.config_path {
        Some((p, s)) => {
            let state = if ctx.config_loaded {
                ""
            } else {
                " (not present)"
            };
            push("config_file", format!("{}{state}", p.display()), *s)
        }
        None => push("config_file", "(none)".into(), Source::Flag),
    }
    match (&ctx.model, &ctx.file.default_model) {
        (Some(m), _) => push("model", m.value.clone(), m.source),
        (None, Some(m)) => push(
            "model",
            format!("{m} (unless the session names one)"),
            Source::File,
        ),
        (None, None) => push(
            "model",
            format!(
                "{} (unless the session names one)",
                crate::models::DEFAULT_MODEL
            ),
            Source::Default,
        ),
    }
    let tok = ctx
        .tokenizer
        .value
        .map_or("auto".to_string(), |e| e.name().to_string());
    push("tokenizer", tok, ctx.tokenizer.source);
    let t = crate::cli::args::limits::threshold(ctx, None)?;
    push("threshold", t.value.to_string(), t.source);
    let layer_u64 = |var: &'static str, file: Option<u64>| {
        crate::config::layer(None, &ctx.env, var, file, |s| s.parse().ok(), "a number")
    };
    match layer_u64(env::CTXCTL_RESERVED, ctx.file.reserved)? {
        Some(s) => push("reserved", s.value.to_string(), s.source),
        None => push("reserved", "0".into(), Source::Default),
    }
    match layer_u64(env::CTXCTL_RESERVE_OUTPUT, ctx.file.reserve_output)? {
        Some(s) => push("reserve_output", s.value.to_string(), s.source),
        None => push(
            "reserve_output",
            "the model's max output, at most 20% of the window".into(),
            Source::Default,
        ),
    }
    let data = ctx.data_dir()?;
    push("data_dir", data.value.display().to_string(), data.source);
    let llm = &ctx.file.llm;
    let pick = |var: &'static str, file: &Option<String>, default: &str| -> (String, Source) {
        if let Some(v) = ctx.env.get(var) {
            (v.to_string(), Source::Env(var))
        } else if let Some(v) = file {
            (v.clone(), Source::File)
        } else {
            (default.to_string(), Source::Default)
        }
    };
    let (v, s) = pick(env::CTXCTL_LLM_PROVIDER, &llm.provider, "openai");
    push("llm.provider", v, s);
    let (v, s) = pick(
        env::CTXCTL_LLM_BASE_URL,
        &llm.base_url,
        "(provider default)",
    );
    push("llm.base_url", v, s);
    let (v, s) = pick(env::CTXCTL_LLM_MODEL, &llm.model, "(none)");
    push("llm.model", v, s);
    // The key itself is never shown: only whether one is set, and where.
    let key_vars = [
        Some(env::CTXCTL_LLM_API_KEY),
        llm.api_key_env.as_deref().map(|_| "api_key_env"),
        Some(env::OPENAI_API_KEY),
        Some(env::ANTHROPIC_API_KEY),
    ];
    let found = key_vars.iter().flatten().find_map(|v| {
        let var = if *v == "api_key_env" {
            llm.api_key_env.as_deref()?
        } else {
            v
        };
        ctx.env.get(var).map(|_| var.to_string())
    });
    match found {
        Some(var) => push("llm.api_key", format!("(set, from {var})"), Source::Default),
        None => push("llm.api_key", "(not set)".into(), Source::Default),
    }
    Ok(out)
}
