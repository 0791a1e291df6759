//! The model a session names before its messages, guessed from its first bytes: a JSON
//! document's member before its message list, else the first JSONL line that names one.
//! Both the whole read ([`crate::ops::load`]) and the streamed one ([`crate::ops::json_stream`])
//! guess with it, before the tokenizer is chosen.

use crate::formats::chat;
use crate::formats::claude_code::SYNTHETIC_MODEL;
use crate::formats::stream::{DocReader, LineReader};

/// The model the start of a session's `bytes` names, as the streamed read guesses it before
/// the records: a JSON document's member before its message list, else the first of the
/// first JSONL lines that names one.
pub fn model_hint(bytes: &[u8]) -> Option<String> {
    let mut doc = DocReader::new(bytes);
    if doc.start().is_ok() {
        return chat::early_model(doc.prefix(), doc.key());
    }
    let (head, _) = LineReader::new(bytes).head().ok()?;
    let mut response = None;
    for value in head
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
    {
        if let Some(model) = value.get("model").and_then(|m| m.as_str()) {
            return Some(model.to_string());
        }
        if response.is_none() {
            response = response_model(&value);
        }
    }
    response
}

/// The model a line holding an API response names in it (`message.model`, where Claude
/// Code's transcripts name it; not the made-up [`SYNTHETIC_MODEL`] of its own error
/// records): without it, a transcript's rewrite would be counted with the default model's
/// tokenizer first, and again with its own. A model named at the top of any head line
/// still comes first.
fn response_model(value: &serde_json::Value) -> Option<String> {
    let model = value.pointer("/message/model")?.as_str()?;
    (model != SYNTHETIC_MODEL).then(|| model.to_string())
}

/// The model the first of the `head` lines that names one names.
pub fn named_model(head: &str) -> Option<String> {
    head.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find_map(|v| v.get("model").and_then(|m| m.as_str()).map(str::to_string))
}

#[cfg(test)]
mod tests {
    use super::model_hint;

    #[test]
    fn a_claude_code_transcript_is_guessed_by_its_first_real_response() {
        let text = [
            r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}"#,
            r#"{"type":"assistant","uuid":"e1","parentUuid":"u1","isApiErrorMessage":true,"message":{"model":"<synthetic>","role":"assistant","content":"API Error"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"model":"claude-sonnet-4-5","role":"assistant","content":"a"}}"#,
        ]
        .join("\n");
        assert_eq!(
            model_hint(text.as_bytes()).as_deref(),
            Some("claude-sonnet-4-5")
        );
        // A model named at the top of a record still comes first.
        let text = format!("{{\"model\":\"gpt-4o\"}}\n{text}");
        assert_eq!(model_hint(text.as_bytes()).as_deref(), Some("gpt-4o"));
        // ... wherever in the head it is named.
        let text = format!("{text}\n{{\"model\":\"gpt-4.1\"}}");
        assert_eq!(model_hint(text.as_bytes()).as_deref(), Some("gpt-4o"));
        let late = text.replacen("{\"model\":\"gpt-4o\"}\n", "", 1);
        assert_eq!(model_hint(late.as_bytes()).as_deref(), Some("gpt-4.1"));
    }
}
