//! Errors of the LLM summarizer. Every text that comes from outside (server answers,
//! transport errors, the URL) is passed through [`redact`] before it is stored, so no
//! message ever contains the API key.

/// Why the LLM summarizer failed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LlmError {
    #[error(
        "cannot reach the summarizer at {url}: {detail} (gave up after {attempts} attempt(s))"
    )]
    /// The server could not be reached.
    Network {
        /// The URL asked (the key removed).
        url: String,
        /// What went wrong (the key removed).
        detail: String,
        /// Attempts made.
        attempts: u32,
    },
    #[error("the summarizer at {url} did not answer within {secs}s (gave up after {attempts} attempt(s))")]
    /// The server did not answer in time.
    Timeout {
        /// The URL asked (the key removed).
        url: String,
        /// The timeout, in seconds.
        secs: u64,
        /// Attempts made.
        attempts: u32,
    },
    #[error("the summarizer at {url} answered HTTP {status}: {detail} (gave up after {attempts} attempt(s))")]
    /// The server answered with an error status.
    Status {
        /// The URL asked (the key removed).
        url: String,
        /// The HTTP status.
        status: u16,
        /// What went wrong (the key removed).
        detail: String,
        /// Attempts made.
        attempts: u32,
    },
    #[error("the summarizer at {url} refused the API key (HTTP {status}): {detail}")]
    /// The server refused the API key.
    Auth {
        /// The URL asked (the key removed).
        url: String,
        /// The HTTP status.
        status: u16,
        /// What went wrong (the key removed).
        detail: String,
    },
    #[error(
        "the summarizer at {url} returned an empty summary (gave up after {attempts} attempt(s))"
    )]
    /// The server returned an empty summary.
    Empty {
        /// The URL asked (the key removed).
        url: String,
        /// Attempts made.
        attempts: u32,
    },
    #[error("the summarizer at {url} sent an answer ctxctl cannot read: {detail}")]
    /// The server's answer could not be read.
    Malformed {
        /// The URL asked (the key removed).
        url: String,
        /// What could not be read.
        detail: String,
    },
    #[error(
        "the conversation to summarize takes {tokens} tokens, more than the summarizer's \
         input limit of {limit} even with every tool result left out"
    )]
    /// The conversation does not fit the summarizer's input, even without tool results.
    TooLarge {
        /// Tokens of the conversation.
        tokens: usize,
        /// The summarizer's input limit.
        limit: usize,
    },
    #[error("invalid summarizer base URL {url:?}: expected http:// or https://")]
    /// The base URL is not http(s).
    BadUrl {
        /// The URL given.
        url: String,
    },
    #[error("cannot start the HTTP client: {0}")]
    /// The HTTP client could not be built.
    Client(String),
}

/// `text` with every occurrence of `key` replaced. Keys shorter than 4 characters are not
/// secrets worth the damage of replacing them everywhere.
pub fn redact(text: &str, key: &str) -> String {
    if key.len() < 4 {
        return text.to_string();
    }
    text.replace(key, "[redacted]")
}

/// A server's answer reduced to one readable line: the `error.message` of a JSON error
/// body (both providers use it), else the start of the body.
pub fn excerpt(body: &str, key: &str) -> String {
    let v: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let msg = v.as_ref().and_then(|v| {
        v.pointer("/error/message")
            .or_else(|| v.get("error"))
            .or_else(|| v.get("message"))
            .and_then(serde_json::Value::as_str)
    });
    let text = msg
        .unwrap_or(body)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let mut short: String = text.chars().take(300).collect();
    if short.len() < text.len() {
        short.push('…');
    }
    if short.is_empty() {
        short = "(empty body)".into();
    }
    redact(&short, key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_prefer_the_error_message_and_hide_the_key() {
        let body =
            r#"{"error":{"message":"Incorrect API key provided: sk-secret-123","type":"x"}}"#;
        assert_eq!(
            excerpt(body, "sk-secret-123"),
            "Incorrect API key provided: [redacted]"
        );
        assert_eq!(excerpt("  upstream\n  down ", "k"), "upstream down");
        assert_eq!(excerpt("", "k"), "(empty body)");
        assert!(excerpt(&"x".repeat(1000), "k").ends_with('…'));
    }
}
