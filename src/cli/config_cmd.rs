//! `ctxctl config`: the effective settings and where each came from; `config path`.

use clap::{Args, Subcommand};
use serde::Serialize;

use crate::config::Source;
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
        let path = ctx.settings.config_path.as_ref().map(|(p, _)| p);
        if ctx.printer.json {
            // `exists`: a config file is optional; the path is where it would be read.
            ctx.printer.json(&serde_json::json!({
                "path": path.map(|p| p.display().to_string()),
                "exists": path.is_some_and(|p| p.is_file()),
            }))?;
            return Ok(ExitStatus::Success);
        }
        match path {
            Some(p) => ctx.printer.line(&p.display().to_string())?,
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

/// The run's settings ([`crate::config::Settings`]) as rows; an invalid variable or file
/// value is an error here, as in any command that uses it.
fn settings(ctx: &Context) -> anyhow::Result<Vec<Setting>> {
    let s = &ctx.settings;
    let mut out = Vec::new();
    let mut push = |key: &'static str, value: String, source: Source| {
        out.push(Setting {
            key,
            value,
            source: source.to_string(),
        })
    };
    match &s.config_path {
        Some((p, source)) => {
            let state = if s.config_loaded {
                ""
            } else {
                " (not present)"
            };
            push("config_file", format!("{}{state}", p.display()), *source)
        }
        None => push("config_file", "(none)".into(), Source::Flag),
    }
    match (&s.model, &s.default_model) {
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
    let tok = s
        .tokenizer
        .value
        .map_or("auto".to_string(), |e| e.name().to_string());
    push("tokenizer", tok, s.tokenizer.source);
    let t = s.threshold(None)?;
    push("threshold", t.value.to_string(), t.source);
    let r = s.reserved(None)?;
    push("reserved", r.value.to_string(), r.source);
    match s.reserve_output(None)? {
        Some(r) => push("reserve_output", r.value.to_string(), r.source),
        None => push(
            "reserve_output",
            "the model's max output, at most 20% of the window".into(),
            Source::Default,
        ),
    }
    let c = s.count_with.clone()?;
    push("count_with", c.value.name().to_string(), c.source);
    match &s.count_api_base_url {
        Some(u) => push("count_api.base_url", u.value.clone(), u.source),
        None => push(
            "count_api.base_url",
            "(each provider's public API)".into(),
            Source::Default,
        ),
    }
    let data = ctx.data_dir()?;
    push("data_dir", data.value.display().to_string(), data.source);
    let llm = &s.llm;
    push(
        "llm.provider",
        llm.provider.value.clone(),
        llm.provider.source,
    );
    match &llm.base_url {
        Some(u) => push("llm.base_url", u.value.clone(), u.source),
        None => push("llm.base_url", "(provider default)".into(), Source::Default),
    }
    match &llm.model {
        Some(m) => push("llm.model", m.value.clone(), m.source),
        None => push("llm.model", "(none)".into(), Source::Default),
    }
    // The key itself is never shown: only whether one is set, and where.
    match &llm.api_key_var {
        Some(var) => push(
            "llm.api_key",
            format!("(set, from {})", var.value),
            var.source,
        ),
        None => push("llm.api_key", "(not set)".into(), Source::Default),
    }
    Ok(out)
}
