//! Exact counts from the providers' token-counting endpoints (opt-in, `--count-with
//! api`): Anthropic `POST /v1/messages/count_tokens`, OpenAI `POST
//! /v1/responses/input_tokens`, Gemini `POST /v1beta/models/{model}:countTokens`.
//!
//! One attempt per request, with a short timeout: a count is an improvement on the local
//! figure, never worth waiting for. Like the LLM summarizer, it builds a current-thread
//! tokio runtime for the request; every text from outside is passed through
//! [`redact`](crate::summarize::llm::redact) so no error ever shows the key.

mod shape;

pub use shape::{body, Shaped};

use std::fmt;
use std::time::Duration;

use serde_json::Value;

use crate::summarize::llm::{error_chain, excerpt, redact};

/// A provider with a token-counting endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    Anthropic,
    OpenAi,
    Gemini,
}

impl Provider {
    pub fn name(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::OpenAi => "openai",
            Provider::Gemini => "gemini",
        }
    }

    /// The provider serving `model`, if it has a counting endpoint ctxctl knows.
    pub fn for_model(model: &str) -> Option<Provider> {
        let m = model.to_ascii_lowercase();
        let m = m.rsplit('/').next().unwrap_or(&m);
        if m.contains("claude") {
            Some(Provider::Anthropic)
        } else if m.starts_with("gemini") {
            Some(Provider::Gemini)
        } else if ["gpt-", "o1", "o3", "o4", "codex", "chatgpt"]
            .iter()
            .any(|p| m.starts_with(p))
        {
            Some(Provider::OpenAi)
        } else {
            None
        }
    }

    /// The public API's root.
    pub fn default_base_url(self) -> &'static str {
        match self {
            Provider::Anthropic => "https://api.anthropic.com",
            Provider::OpenAi => "https://api.openai.com",
            Provider::Gemini => "https://generativelanguage.googleapis.com",
        }
    }

    /// The counting endpoint under `base_url` (a root, without `/v1`).
    pub fn url(self, base_url: &str, model: &str) -> String {
        let base = base_url.trim_end_matches('/');
        match self {
            Provider::Anthropic => format!("{base}/v1/messages/count_tokens"),
            Provider::OpenAi => format!("{base}/v1/responses/input_tokens"),
            Provider::Gemini => format!("{base}/v1beta/models/{model}:countTokens"),
        }
    }

    /// Request headers besides the content type; an empty key sends no credentials.
    pub fn headers(self, key: &str) -> Vec<(&'static str, String)> {
        let mut h = Vec::new();
        match self {
            Provider::Anthropic => {
                if !key.is_empty() {
                    h.push(("x-api-key", key.to_string()));
                }
                h.push(("anthropic-version", "2023-06-01".to_string()));
            }
            Provider::OpenAi if !key.is_empty() => {
                h.push(("authorization", format!("Bearer {key}")));
            }
            Provider::Gemini if !key.is_empty() => h.push(("x-goog-api-key", key.to_string())),
            _ => {}
        }
        h
    }

    /// The count in a successful answer.
    pub fn answer(self, body: &str) -> Result<usize, String> {
        let v: Value = serde_json::from_str(body).map_err(|e| format!("not JSON ({e})"))?;
        let field = match self {
            Provider::Anthropic | Provider::OpenAi => "input_tokens",
            Provider::Gemini => "totalTokens",
        };
        v.get(field)
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| format!("no {field} number in the answer"))
    }
}

/// How to reach one provider's endpoint.
#[derive(Clone)]
pub struct ApiConfig {
    pub provider: Provider,
    pub base_url: String,
    /// Never printed: `Debug` shows `[redacted]`, errors replace it wherever it appears.
    pub key: String,
    pub timeout: Duration,
}

impl fmt::Debug for ApiConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiConfig")
            .field("provider", &self.provider)
            .field("base_url", &redact(&self.base_url, &self.key))
            .field("key", &"[redacted]")
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// Why a count failed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ApiError {
    #[error("cannot reach {url}: {detail}")]
    Network { url: String, detail: String },
    #[error("{url} did not answer within {secs}s")]
    Timeout { url: String, secs: u64 },
    #[error("{url} answered HTTP {status}: {detail}")]
    Status {
        url: String,
        status: u16,
        detail: String,
    },
    #[error("{url} sent an answer ctxctl cannot read: {detail}")]
    Malformed { url: String, detail: String },
    #[error("invalid base URL {url:?}: expected http:// or https://")]
    BadUrl { url: String },
    #[error("cannot start the HTTP client: {0}")]
    Client(String),
}

impl ApiConfig {
    /// The endpoint for `model`, checked to be http(s).
    pub fn url(&self, model: &str) -> Result<String, ApiError> {
        let url = self.provider.url(&self.base_url, model);
        if url.starts_with("http://") || url.starts_with("https://") {
            Ok(redact(&url, &self.key))
        } else {
            Err(ApiError::BadUrl {
                url: redact(&self.base_url, &self.key),
            })
        }
    }

    /// Sends `body` to the counting endpoint for `model` and returns the count.
    pub fn count(&self, model: &str, body: &str) -> Result<usize, ApiError> {
        let url = self.url(model)?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| ApiError::Client(e.to_string()))?;
        runtime.block_on(self.send(&url, body))
    }

    async fn send(&self, url: &str, body: &str) -> Result<usize, ApiError> {
        let key = &self.key;
        let client = reqwest::Client::builder()
            .timeout(self.timeout)
            .build()
            .map_err(|e| ApiError::Client(redact(&error_chain(&e), key)))?;
        let mut req = client
            .post(url)
            .header("content-type", "application/json")
            .body(body.to_string());
        for (name, value) in self.provider.headers(key) {
            req = req.header(name, value);
        }
        let transport = |e: reqwest::Error| {
            if e.is_timeout() {
                ApiError::Timeout {
                    url: url.to_string(),
                    secs: self.timeout.as_secs_f64().ceil() as u64,
                }
            } else {
                ApiError::Network {
                    url: url.to_string(),
                    detail: redact(&error_chain(&e.without_url()), key),
                }
            }
        };
        let resp = req.send().await.map_err(transport)?;
        let status = resp.status().as_u16();
        let text = resp.text().await.map_err(transport)?;
        if !(200..300).contains(&status) {
            return Err(ApiError::Status {
                url: url.to_string(),
                status,
                detail: excerpt(&text, key),
            });
        }
        self.provider
            .answer(&text)
            .map_err(|what| ApiError::Malformed {
                url: url.to_string(),
                detail: format!("{what}; the body starts with: {}", excerpt(&text, key)),
            })
    }
}

/// The cache key of a count: the provider, endpoint and body, hashed.
pub fn cache_key(provider: Provider, url: &str, body: &str) -> u128 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for piece in ["ctxctl count api 1", provider.name(), url, body] {
        h.update(piece.as_bytes());
        h.update(&[0]);
    }
    h.digest128()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_go_to_their_provider() {
        assert_eq!(
            Provider::for_model("claude-opus-4-6"),
            Some(Provider::Anthropic)
        );
        assert_eq!(Provider::for_model("gpt-5.1-codex"), Some(Provider::OpenAi));
        assert_eq!(Provider::for_model("o3-mini"), Some(Provider::OpenAi));
        assert_eq!(
            Provider::for_model("models/gemini-2.5-pro"),
            Some(Provider::Gemini)
        );
        assert_eq!(Provider::for_model("llama-3.1-70b"), None);
    }

    #[test]
    fn endpoints_and_answers() {
        assert_eq!(
            Provider::Gemini.url("http://h/", "gemini-2.5-pro"),
            "http://h/v1beta/models/gemini-2.5-pro:countTokens"
        );
        assert_eq!(Provider::Anthropic.answer(r#"{"input_tokens":12}"#), Ok(12));
        assert_eq!(Provider::Gemini.answer(r#"{"totalTokens":7}"#), Ok(7));
        assert!(Provider::OpenAi.answer(r#"{"tokens":7}"#).is_err());
        assert!(Provider::OpenAi.answer("<html>").is_err());
        assert!(Provider::Anthropic
            .headers("")
            .iter()
            .all(|(n, _)| *n != "x-api-key"));
    }

    #[test]
    fn keys_stay_out_of_debug_output_and_errors() {
        let c = ApiConfig {
            provider: Provider::OpenAi,
            base_url: "ftp://sk-secret-1@h".into(),
            key: "sk-secret-1".into(),
            timeout: Duration::from_secs(1),
        };
        assert!(!format!("{c:?}").contains("sk-secret-1"));
        assert!(!c.url("m").unwrap_err().to_string().contains("sk-secret-1"));
        assert_ne!(
            cache_key(Provider::OpenAi, "u", "a"),
            cache_key(Provider::Anthropic, "u", "a")
        );
    }
}
