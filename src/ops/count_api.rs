//! The next request counted by the provider (`--count-with api`): the session converted
//! to the provider's request shape and sent to its token-counting endpoint, the answer
//! remembered in the persistent cache by the request's digest, so that checking an
//! unchanged session again sends nothing. Any failure (no endpoint for the model, the
//! network, an error status, an answer that is not a count) leaves the local figure, with
//! one warning naming the file.
//!
//! Where the file records usage, the provider counts both the live thread and the
//! messages the latest reported request held, so that the agent's hidden part (reported
//! prompt minus that request's messages) is measured in the provider's own tokens too.

use std::time::Duration;

use crate::config::{env, CountWith};
use crate::context::Context;
use crate::ops::load::Loaded;
use crate::ops::predict::{NextSource, Prediction};
use crate::session::Message;
use crate::tokens::api::{self, ApiConfig, ApiError, Provider};

/// Seconds before a count is abandoned, unless `[count_api] timeout_secs` says otherwise.
pub const DEFAULT_TIMEOUT_SECS: u64 = 10;

/// Whether this run counts with the providers' APIs (a malformed setting is an error).
pub fn enabled(ctx: &Context) -> anyhow::Result<bool> {
    Ok(ctx.settings.count_with.clone()?.value == CountWith::Api)
}

/// The predicted next request of `l`: the provider's count when `--count-with api` asks
/// for it and it can be had, else the local figure.
pub fn prediction(ctx: &Context, l: &Loaded) -> anyhow::Result<Prediction> {
    let local = l.prediction();
    if !enabled(ctx)? {
        return Ok(local);
    }
    let shown = l.display();
    let model = if l.model.known {
        l.model.spec.id.clone()
    } else {
        l.model.name.clone()
    };
    let Some(provider) = Provider::for_model(&model) else {
        ctx.printer.warn(&format!(
            "{shown}: no token-counting API for model {model}; using the local figure"
        ));
        return Ok(local);
    };
    let config = config(ctx, provider);
    match counted(ctx, l, &config, &model) {
        Ok(tokens) => Ok(Prediction {
            tokens,
            source: NextSource::Api,
            overhead: tokens.saturating_sub(l.total),
            ratio: None,
        }),
        Err(e) => {
            ctx.printer.warn(&format!(
                "{shown}: counting with the {} API failed: {e}; using the local figure",
                provider.name()
            ));
            Ok(local)
        }
    }
}

/// The next request in the provider's tokens.
fn counted(ctx: &Context, l: &Loaded, config: &ApiConfig, model: &str) -> Result<usize, ApiError> {
    let msgs = &l.session.messages;
    let count = |upto: usize| count_messages(ctx, l, config, model, &msgs[..upto.min(msgs.len())]);
    let all = count(msgs.len())?;
    let Some(u) = l.live_usage() else {
        let prior = crate::ops::prior::of(l.session.format, &l.session.agent_limits).tokens;
        return Ok(all + prior);
    };
    Ok(match u.request_end {
        Some(end) => (u.input_tokens as usize).saturating_sub(count(end)?) + all,
        None => {
            let after = u.after_message.map_or(msgs.len(), |i| i + 1);
            (u.input_tokens + u.output_tokens) as usize + all.saturating_sub(count(after)?)
        }
    })
}

/// `messages` counted by the provider (from the cache when it counted the same request
/// before), plus ctxctl's count of the parts a request cannot carry again.
fn count_messages(
    ctx: &Context,
    l: &Loaded,
    config: &ApiConfig,
    model: &str,
    messages: &[Message],
) -> Result<usize, ApiError> {
    if messages.iter().all(|m| m.role.is_system()) {
        return Ok(0);
    }
    let shaped = api::body(
        config.provider,
        model,
        messages,
        l.session.request_extra.as_deref(),
    );
    let local: usize = ctx
        .count_parts(&l.counter, &shaped.left_out)
        .into_iter()
        .map(|n| l.scaled(n))
        .sum();
    let body = shaped.body.to_string();
    let url = config.url(model)?;
    let key = api::cache_key(config.provider, &url, &body);
    if let Some(n) = ctx.api_count(key) {
        ctx.printer
            .debug(&format!("{}: count from the cache ({url})", l.display()));
        return Ok(n + local);
    }
    ctx.printer.debug(&format!(
        "{}: asking {url} ({} bytes)",
        l.display(),
        body.len()
    ));
    let n = config.count(model, &body)?;
    ctx.remember_api_count(key, n);
    Ok(n + local)
}

/// The connection for `provider`: `CTXCTL_COUNT_API_BASE_URL` or `[count_api] base_url`,
/// else the provider's public API; the key as the LLM summarizer finds it when the
/// summarizer uses the same provider (`CTXCTL_LLM_API_KEY`, the variable `llm.api_key_env`
/// names), else the provider's own variable.
fn config(ctx: &Context, provider: Provider) -> ApiConfig {
    let s = &ctx.settings;
    let own_var = match provider {
        Provider::Anthropic => env::ANTHROPIC_API_KEY,
        Provider::OpenAi => env::OPENAI_API_KEY,
        Provider::Gemini => env::GEMINI_API_KEY,
    };
    let summarizer_key = (s.llm.provider.value == provider.name())
        .then(|| {
            ctx.env.get(env::CTXCTL_LLM_API_KEY).or_else(|| {
                s.file
                    .llm
                    .api_key_env
                    .as_deref()
                    .and_then(|v| ctx.env.get(v))
            })
        })
        .flatten();
    let key = summarizer_key
        .or_else(|| ctx.env.get(own_var))
        .unwrap_or_default();
    let base_url = s
        .count_api_base_url
        .as_ref()
        .map_or(provider.default_base_url().to_string(), |u| u.value.clone());
    if key.is_empty() && base_url == provider.default_base_url() {
        ctx.warn_once(format!(
            "no API key for the {} token-counting API (set {own_var})",
            provider.name()
        ));
    }
    let secs = s
        .file
        .count_api
        .timeout_secs
        .unwrap_or(DEFAULT_TIMEOUT_SECS);
    ApiConfig {
        provider,
        base_url,
        key: key.to_string(),
        timeout: Duration::from_secs(secs),
    }
}
