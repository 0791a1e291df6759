//! Reading the summaries earlier compactions left in a session (ctxctl's or an agent's).

use super::Message;

pub(crate) const OPEN: &str = "<summary>";
pub(crate) const CLOSE: &str = "</summary>";

/// The summary inside a summary message's text (what is between the tags), or the whole
/// text for summaries written by other tools.
pub fn summary_body(text: &str) -> &str {
    match (text.find(OPEN), text.rfind(CLOSE)) {
        (Some(a), Some(b)) if a + OPEN.len() <= b => text[a + OPEN.len()..b].trim(),
        _ => text.trim(),
    }
}

/// The bodies of earlier compaction summaries (ctxctl's or an agent's) among `messages`,
/// oldest first, to be carried forward into the new summary.
pub fn previous_summaries(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .filter(|m| m.compact.is_some())
        .map(|m| summary_body(&m.text()).to_string())
        .filter(|s| !s.is_empty())
        .collect()
}
