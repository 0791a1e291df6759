//! Resolving `compact`'s settings: the summarizer, the LLM connection, the tail budget.

use std::time::Duration;

use anyhow::Context as _;

use super::CompactArgs;
use crate::config::env;
use crate::context::Context;
use crate::summarize::{self, LlmConfig, LlmSummarizer, OfflineSummarizer, Provider, Summarizer};

/// Default share of the effective limit kept verbatim at the end.
const DEFAULT_TAIL_RATIO: f64 = 0.2;

/// The summarizer `compact` uses (`Sync`: batch runs share it between threads).
pub fn summarizer(
    ctx: &Context,
    args: &CompactArgs,
) -> anyhow::Result<Box<dyn Summarizer + Send + Sync>> {
    let kind = args
        .summarizer
        .clone()
        .or_else(|| ctx.settings.file.compact.summarizer.clone())
        .unwrap_or_else(|| "offline".into());
    match kind.as_str() {
        "offline" => Ok(Box::new(offline(ctx, args))),
        "llm" => {
            let config = llm_config(ctx, args.retries)?;
            // `LlmConfig`'s Debug never shows the key.
            ctx.printer.debug(&format!("llm summarizer: {config:?}"));
            Ok(Box::new(LlmSummarizer::new(config)))
        }
        other => anyhow::bail!("config compact.summarizer: expected offline or llm, got {other:?}"),
    }
}

/// The offline summarizer with its cap: `--summary-tokens`, config
/// `compact.summary_tokens`, default 2000.
pub fn offline(ctx: &Context, args: &CompactArgs) -> OfflineSummarizer {
    let cap = args
        .summary_tokens
        .or(ctx.settings.file.compact.summary_tokens.map(|n| n as usize))
        .unwrap_or(summarize::offline::DEFAULT_CAP);
    OfflineSummarizer { cap }
}

/// `--min-recall`, checked to be a share.
pub fn min_recall(args: &CompactArgs) -> anyhow::Result<Option<f64>> {
    match args.min_recall {
        Some(r) if !(0.0..=1.0).contains(&r) => {
            anyhow::bail!("--min-recall: expected a share in [0, 1], got {r}")
        }
        r => Ok(r),
    }
}

/// The LLM settings: environment > config file > defaults. The key comes from
/// `CTXCTL_LLM_API_KEY`, the variable named by `llm.api_key_env`, or the provider's usual
/// variable; it may be empty for local servers.
fn llm_config(ctx: &Context, retries: Option<u32>) -> anyhow::Result<LlmConfig> {
    let file = &ctx.settings.file.llm;
    let llm = &ctx.settings.llm;
    let provider_name = &llm.provider.value;
    let provider = Provider::from_name(provider_name).with_context(|| {
        format!("unknown LLM provider {provider_name:?}; expected openai or anthropic")
    })?;
    let model = llm.model.as_ref().map(|m| m.value.clone()).context(
        "the llm summarizer needs a model: set llm.model in the config file or CTXCTL_LLM_MODEL",
    )?;
    let key_var = match provider {
        Provider::OpenAi => env::OPENAI_API_KEY,
        Provider::Anthropic => env::ANTHROPIC_API_KEY,
    };
    let key = ctx
        .env
        .get(env::CTXCTL_LLM_API_KEY)
        .or_else(|| file.api_key_env.as_deref().and_then(|v| ctx.env.get(v)))
        .or_else(|| ctx.env.get(key_var))
        .unwrap_or_default();
    let mut c = LlmConfig::new(provider, model.clone(), key);
    if let Some(url) = &llm.base_url {
        c.base_url.clone_from(&url.value);
    }
    if key.is_empty() && c.base_url == provider.default_base_url() {
        ctx.printer.warn(&format!(
            "no API key for the llm summarizer (set CTXCTL_LLM_API_KEY or {key_var})"
        ));
    }
    c.timeout = Duration::from_secs(file.timeout_secs.unwrap_or(120));
    c.retries = retries.or(file.retries).unwrap_or(2);
    let window = file.context_window.unwrap_or_else(|| {
        ctx.registry
            .lookup(&model)
            .map_or(crate::models::FALLBACK_CONTEXT_WINDOW, |s| s.context_window)
    });
    c.max_output_tokens = 4096;
    c.max_input_tokens = (window.saturating_sub(4096) as usize).max(1024);
    Ok(c)
}

/// Tokens the tail should reach: `--tail-tokens`, else `--tail-ratio` × the limit (config
/// `compact.tail_tokens` / `compact.tail_ratio`, default 0.2).
pub fn tail_budget(ctx: &Context, args: &CompactArgs, limit: usize) -> anyhow::Result<usize> {
    let cfg = &ctx.settings.file.compact;
    if let Some(n) = args.tail_tokens {
        return Ok(n as usize);
    }
    let (r, what) = match (args.tail_ratio, cfg.tail_tokens, cfg.tail_ratio) {
        (Some(r), _, _) => (r, "--tail-ratio"),
        (None, Some(n), _) => return Ok(n as usize),
        (None, None, Some(r)) => (r, "config compact.tail_ratio"),
        (None, None, None) => (DEFAULT_TAIL_RATIO, "default"),
    };
    if !(r > 0.0 && r <= 1.0) {
        anyhow::bail!("{what}: expected a ratio in (0, 1], got {r}");
    }
    Ok((r * limit as f64).round() as usize)
}
