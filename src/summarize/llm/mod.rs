//! The LLM summarizer: one request to an OpenAI- or Anthropic-compatible server, retried
//! with backoff on network errors, timeouts, 429/5xx and empty answers.
//!
//! The only module that uses tokio: [`LlmSummarizer::summarize`] builds a current-thread
//! runtime for its request and drops it afterwards.

mod chunked;
mod error;
#[doc(hidden)]
pub mod prompt;
mod provider;

pub use error::{excerpt, redact, LlmError};
#[doc(hidden)]
pub use prompt::{middle_out, Prompt, SYSTEM};
pub use provider::Provider;

use std::fmt;
use std::time::Duration;

use super::{Input, SummarizeError, Summarizer};
use crate::tokens::Counter;

/// The longest `retry-after` honoured; a server asking for more gets this.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(120);

/// How to reach the summarizer model.
#[derive(Clone)]
pub struct LlmConfig {
    /// The API the server speaks.
    pub provider: Provider,
    /// `https://api.openai.com/v1`-style for OpenAI, `https://api.anthropic.com` for
    /// Anthropic.
    pub base_url: String,
    /// The model that writes the summary.
    pub model: String,
    /// Never printed: `Debug` shows `[redacted]`, errors replace it wherever it appears.
    pub api_key: String,
    /// Per request.
    pub timeout: Duration,
    /// Further attempts after the first fails.
    pub retries: u32,
    /// The summarizer model's input window (its context window minus room for the answer).
    pub max_input_tokens: usize,
    /// Room for the answer (Anthropic's required `max_tokens`).
    pub max_output_tokens: u32,
    /// The first retry waits this long, each further one twice as long.
    pub backoff: Duration,
}

impl LlmConfig {
    /// A configuration with the provider's public URL and default limits.
    pub fn new(provider: Provider, model: impl Into<String>, api_key: impl Into<String>) -> Self {
        LlmConfig {
            provider,
            base_url: provider.default_base_url().to_string(),
            model: model.into(),
            api_key: api_key.into(),
            timeout: Duration::from_secs(120),
            retries: 2,
            max_input_tokens: 100_000,
            max_output_tokens: 4096,
            backoff: Duration::from_secs(1),
        }
    }

    /// The request URL, checked to be http(s).
    fn url(&self) -> Result<String, LlmError> {
        let url = self.provider.url(&self.base_url);
        if url.starts_with("http://") || url.starts_with("https://") {
            Ok(url)
        } else {
            Err(LlmError::BadUrl {
                url: redact(&self.base_url, &self.api_key),
            })
        }
    }
}

impl fmt::Debug for LlmConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmConfig")
            .field("provider", &self.provider)
            .field("base_url", &redact(&self.base_url, &self.api_key))
            .field("model", &self.model)
            .field("api_key", &"[redacted]")
            .field("timeout", &self.timeout)
            .field("retries", &self.retries)
            .field("max_input_tokens", &self.max_input_tokens)
            .field("max_output_tokens", &self.max_output_tokens)
            .field("backoff", &self.backoff)
            .finish()
    }
}

/// The LLM summarizer.
#[derive(Debug, Clone)]
pub struct LlmSummarizer {
    /// Where and how to ask.
    pub config: LlmConfig,
}

impl LlmSummarizer {
    /// A summarizer asking the server of `config`.
    pub fn new(config: LlmConfig) -> LlmSummarizer {
        LlmSummarizer { config }
    }

    /// Sends `prompt` and returns the answer, with the delays waited between attempts.
    pub fn complete(&self, prompt: &Prompt) -> (Result<String, LlmError>, Vec<Duration>) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build();
        match runtime {
            Ok(rt) => rt.block_on(send_with_retries(&self.config, prompt)),
            Err(e) => (Err(LlmError::Client(e.to_string())), Vec::new()),
        }
    }
}

impl Summarizer for LlmSummarizer {
    fn name(&self) -> &'static str {
        "llm"
    }

    fn summarize(&self, input: &Input<'_>, counter: &Counter) -> Result<String, SummarizeError> {
        let summary = input.with_secrets_removed(|i| self.any_size(i, counter))?;
        Ok(if input.redact {
            super::redact::redact_string(&summary)
        } else {
            summary
        })
    }
}

/// Why one attempt failed.
enum Failure {
    Network(String),
    Timeout,
    Status {
        status: u16,
        detail: String,
        retry_after: Option<Duration>,
    },
    Auth {
        status: u16,
        detail: String,
    },
    Empty,
    Malformed(String),
}

impl Failure {
    fn retryable(&self) -> bool {
        match self {
            Failure::Network(_) | Failure::Timeout | Failure::Empty => true,
            Failure::Status { status, .. } => *status == 429 || *status >= 500,
            Failure::Auth { .. } | Failure::Malformed(_) => false,
        }
    }

    fn into_error(self, config: &LlmConfig, url: &str, attempts: u32) -> LlmError {
        let url = redact(url, &config.api_key);
        match self {
            Failure::Network(detail) => LlmError::Network {
                url,
                detail: redact(&detail, &config.api_key),
                attempts,
            },
            Failure::Timeout => LlmError::Timeout {
                url,
                secs: config.timeout.as_secs_f64().ceil() as u64,
                attempts,
            },
            Failure::Status { status, detail, .. } => LlmError::Status {
                url,
                status,
                detail,
                attempts,
            },
            Failure::Auth { status, detail } => LlmError::Auth {
                url,
                status,
                detail,
            },
            Failure::Empty => LlmError::Empty { url, attempts },
            Failure::Malformed(detail) => LlmError::Malformed {
                url,
                detail: redact(&detail, &config.api_key),
            },
        }
    }
}

async fn send_with_retries(
    config: &LlmConfig,
    prompt: &Prompt,
) -> (Result<String, LlmError>, Vec<Duration>) {
    let mut delays = Vec::new();
    let url = match config.url() {
        Ok(u) => u,
        Err(e) => return (Err(e), delays),
    };
    let client = match reqwest::Client::builder().timeout(config.timeout).build() {
        Ok(c) => c,
        Err(e) => {
            let detail = redact(&error_chain(&e), &config.api_key);
            return (Err(LlmError::Client(detail)), delays);
        }
    };
    let body = config.provider.body(config, prompt);
    let mut attempt = 0;
    loop {
        attempt += 1;
        let failure = match send_once(config, &client, &url, &body).await {
            Ok(text) => return (Ok(text), delays),
            Err(f) => f,
        };
        if !failure.retryable() || attempt > config.retries {
            return (Err(failure.into_error(config, &url, attempt)), delays);
        }
        let backoff = config.backoff.saturating_mul(1 << (attempt - 1).min(16));
        let delay = match &failure {
            Failure::Status {
                retry_after: Some(d),
                ..
            } => (*d).min(MAX_RETRY_AFTER),
            _ => backoff,
        };
        delays.push(delay);
        tokio::time::sleep(delay).await;
    }
}

async fn send_once(
    config: &LlmConfig,
    client: &reqwest::Client,
    url: &str,
    body: &str,
) -> Result<String, Failure> {
    let mut req = client
        .post(url)
        .header("content-type", "application/json")
        .body(body.to_string());
    for (name, value) in config.provider.headers(&config.api_key) {
        req = req.header(name, value);
    }
    let resp = req.send().await.map_err(transport)?;
    let status = resp.status().as_u16();
    let retry_after = resp
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64);
    let text = resp.text().await.map_err(transport)?;
    if !(200..300).contains(&status) {
        let detail = excerpt(&text, &config.api_key);
        return Err(if status == 401 || status == 403 {
            Failure::Auth { status, detail }
        } else {
            Failure::Status {
                status,
                detail,
                retry_after,
            }
        });
    }
    match config.provider.answer(&text) {
        Ok(Some(summary)) => Ok(summary),
        Ok(None) => Err(Failure::Empty),
        Err(what) => Err(Failure::Malformed(format!(
            "{what}; the body starts with: {}",
            excerpt(&text, &config.api_key)
        ))),
    }
}

fn transport(e: reqwest::Error) -> Failure {
    if e.is_timeout() {
        Failure::Timeout
    } else {
        Failure::Network(error_chain(&e.without_url()))
    }
}

/// An error and its causes, `: `-separated.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}

#[cfg(test)]
mod test_server;
#[cfg(test)]
mod tests;
