//! The model a session names before its messages, guessed from its first bytes: a JSON
//! document's member before its message list, else the first JSONL line that names one.
//! Both the whole read ([`crate::ops::load`]) and the streamed one ([`crate::ops::json_stream`])
//! guess with it, before the tokenizer is chosen.

use crate::formats::chat;
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
    named_model(&head)
}

/// The model the first of the `head` lines that names one names.
pub fn named_model(head: &str) -> Option<String> {
    head.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find_map(|v| v.get("model").and_then(|m| m.as_str()).map(str::to_string))
}
