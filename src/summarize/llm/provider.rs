//! The two wire formats: OpenAI Chat Completions and Anthropic Messages.

use serde_json::{json, Value};

use super::prompt::Prompt;
use super::LlmConfig;

/// Which API the summarizer server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// Chat Completions: OpenAI, OpenRouter, vLLM, llama.cpp, Ollama …
    OpenAi,
    /// Anthropic's Messages API.
    Anthropic,
}

impl Provider {
    /// `openai` or `anthropic`, as the config file spells it.
    pub fn name(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
        }
    }

    /// Parses a `llm.provider` value.
    pub fn from_name(name: &str) -> Option<Provider> {
        match name {
            "openai" => Some(Provider::OpenAi),
            "anthropic" => Some(Provider::Anthropic),
            _ => None,
        }
    }

    /// The public endpoint, used when no base URL is configured.
    pub fn default_base_url(self) -> &'static str {
        match self {
            Provider::OpenAi => "https://api.openai.com/v1",
            Provider::Anthropic => "https://api.anthropic.com",
        }
    }

    /// The request URL for `base_url`.
    pub fn url(self, base_url: &str) -> String {
        let base = base_url.trim_end_matches('/');
        match self {
            Provider::OpenAi => format!("{base}/chat/completions"),
            Provider::Anthropic => format!("{base}/v1/messages"),
        }
    }

    /// Request headers besides the content type. An empty key sends no credentials (local
    /// servers need none).
    pub fn headers(self, api_key: &str) -> Vec<(&'static str, String)> {
        let mut h = Vec::new();
        match self {
            Provider::OpenAi => {
                if !api_key.is_empty() {
                    h.push(("authorization", format!("Bearer {api_key}")));
                }
            }
            Provider::Anthropic => {
                if !api_key.is_empty() {
                    h.push(("x-api-key", api_key.to_string()));
                }
                h.push(("anthropic-version", "2023-06-01".to_string()));
            }
        }
        h
    }

    /// The JSON request body. OpenAI-compatible requests leave the answer's length to the
    /// server: the name of that limit differs between servers and models.
    pub fn body(self, config: &LlmConfig, prompt: &Prompt) -> String {
        let v = match self {
            Provider::OpenAi => json!({
                "model": config.model,
                "messages": [
                    {"role": "system", "content": prompt.system},
                    {"role": "user", "content": prompt.user},
                ],
                "stream": false,
            }),
            Provider::Anthropic => json!({
                "model": config.model,
                "max_tokens": config.max_output_tokens,
                "system": prompt.system,
                "messages": [{"role": "user", "content": prompt.user}],
            }),
        };
        v.to_string()
    }

    /// The summary text in a successful response body: `Ok(None)` when the answer is
    /// empty, `Err(what is missing)` when the body has another shape.
    pub fn answer(self, body: &str) -> Result<Option<String>, String> {
        let v: Value = serde_json::from_str(body).map_err(|e| format!("not JSON ({e})"))?;
        let text = match self {
            Provider::OpenAi => {
                let content = v
                    .pointer("/choices/0/message")
                    .ok_or("no choices[0].message in the answer")?
                    .get("content");
                match content {
                    None | Some(Value::Null) => String::new(),
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Array(parts)) => texts(parts),
                    Some(_) => return Err("choices[0].message.content is not text".into()),
                }
            }
            Provider::Anthropic => {
                let blocks = v
                    .get("content")
                    .and_then(Value::as_array)
                    .ok_or("no content list in the answer")?;
                texts(blocks)
            }
        };
        let text = text.trim();
        Ok((!text.is_empty()).then(|| text.to_string()))
    }
}

/// The text of `{"type": "text", "text": …}` parts, joined.
fn texts(parts: &[Value]) -> String {
    parts
        .iter()
        .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_join_without_double_slashes() {
        assert_eq!(
            Provider::OpenAi.url("http://h/v1/"),
            "http://h/v1/chat/completions"
        );
        assert_eq!(Provider::Anthropic.url("http://h"), "http://h/v1/messages");
        assert_eq!(Provider::from_name("anthropic"), Some(Provider::Anthropic));
        assert_eq!(Provider::from_name("gemini"), None);
    }

    #[test]
    fn answers_are_read_or_explained() {
        let o = Provider::OpenAi;
        assert_eq!(
            o.answer(r#"{"choices":[{"message":{"content":" hi "}}]}"#),
            Ok(Some("hi".into()))
        );
        assert_eq!(
            o.answer(r#"{"choices":[{"message":{"content":null}}]}"#),
            Ok(None)
        );
        assert!(o.answer(r#"{"choices":[]}"#).is_err());
        assert!(o.answer("<html>").unwrap_err().starts_with("not JSON"));
        let a = Provider::Anthropic;
        assert_eq!(
            a.answer(r#"{"content":[{"type":"thinking","thinking":"x"},{"type":"text","text":"a"},{"type":"text","text":"b"}]}"#),
            Ok(Some("a\nb".into()))
        );
        assert_eq!(a.answer(r#"{"content":[]}"#), Ok(None));
        assert!(a.answer(r#"{"type":"error"}"#).is_err());
    }
}
