//! `ctxctl config`: the effective settings and where each came from; `config path`.

use clap::{Args, Subcommand};
use serde::Serialize;

use crate::config::Source;
use crate::context::Context;
use crate::exit::ExitStatus;
use crate::render::table::table;
use crate::render::{Printer, Report};

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
        ctx.printer.report(&ConfigPath {
            path: path.map(|p| p.display().to_string()),
            exists: path.is_some_and(|p| p.is_file()),
        })?;
        return Ok(ExitStatus::Success);
    }
    ctx.printer.report(&Settings(settings(ctx)?))?;
    Ok(ExitStatus::Success)
}

/// `config path`: where the config file is read from. `exists`: a config file is
/// optional; the path is where it would be read.
#[derive(Serialize)]
struct ConfigPath {
    path: Option<String>,
    exists: bool,
}

impl Report for ConfigPath {
    fn human(&self, p: &Printer) -> anyhow::Result<()> {
        match &self.path {
            Some(path) => p.line(path)?,
            None => p.note("no config file (--no-config, or no home directory)"),
        }
        Ok(())
    }
}

/// `config`: every setting, its value and where it came from (`--json`: the rows).
#[derive(Serialize)]
#[serde(transparent)]
struct Settings(Vec<Setting>);

impl Report for Settings {
    fn human(&self, p: &Printer) -> anyhow::Result<()> {
        let rows: Vec<Vec<String>> = (self.0.iter())
            .map(|s| vec![s.key.to_string(), s.value.clone(), s.source.clone()])
            .collect();
        p.line(&table(&["setting", "value", "from"], &rows, &[]))?;
        Ok(())
    }
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
    push_or(
        &mut push,
        "count_api.timeout_secs",
        s.file.count_api.timeout_secs,
        crate::ops::count_api::DEFAULT_TIMEOUT_SECS.to_string(),
    );
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
    match &s.file.llm.api_key_env {
        Some(var) => push("llm.api_key_env", var.clone(), Source::File),
        None => push("llm.api_key_env", "(none)".into(), Source::Default),
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
    let llm_defaults = crate::summarize::LlmConfig::new(crate::summarize::Provider::OpenAi, "", "");
    let file = &s.file;
    push_or(
        &mut push,
        "llm.timeout_secs",
        file.llm.timeout_secs,
        llm_defaults.timeout.as_secs().to_string(),
    );
    push_or(
        &mut push,
        "llm.retries",
        file.llm.retries,
        llm_defaults.retries.to_string(),
    );
    push_or(
        &mut push,
        "llm.context_window",
        file.llm.context_window,
        "(the summarizer model's, from the registry)".into(),
    );
    push_or(
        &mut push,
        "compact.summarizer",
        file.compact.summarizer.clone(),
        "offline".into(),
    );
    push_or(
        &mut push,
        "compact.tail_tokens",
        file.compact.tail_tokens,
        "(from compact.tail_ratio)".into(),
    );
    push_or(
        &mut push,
        "compact.tail_ratio",
        file.compact.tail_ratio,
        crate::manager::DEFAULT_TAIL_RATIO.to_string(),
    );
    push_or(
        &mut push,
        "compact.summary_tokens",
        file.compact.summary_tokens,
        crate::summarize::offline::DEFAULT_CAP.to_string(),
    );
    push_or(
        &mut push,
        "compact.live_secs",
        file.compact.live_secs,
        crate::formats::dbagent::LIVE_SECS.to_string(),
    );
    let compress = s.archive_compress.clone()?;
    push(
        "archive.compress",
        compress.value.name().to_string(),
        compress.source,
    );
    let lock = s.lock_timeout.clone()?;
    push("lock_timeout", lock.value.to_string(), lock.source);
    let models: Vec<&str> = file.models.keys().map(String::as_str).collect();
    match models.as_slice() {
        [] => push("models", "(built-in registry)".into(), Source::Default),
        names => push(
            "models",
            format!("built-in registry + {}", names.join(", ")),
            Source::File,
        ),
    }
    Ok(out)
}

/// A row for a config-file-only setting: its value from the file, else `default`.
fn push_or<T: ToString>(
    push: &mut impl FnMut(&'static str, String, Source),
    key: &'static str,
    file: Option<T>,
    default: String,
) {
    match file {
        Some(v) => push(key, v.to_string(), Source::File),
        None => push(key, default, Source::Default),
    }
}
