//! Pieces every writer shares: the record of a message ctxctl adds, edits of tool results,
//! and the check that a re-read document still holds the session's messages.

use serde_json::{Map, Value};

use crate::session::{NewMessage, PartEdit, Session, WriteError};

/// Checks that reading the document again found the session's `found` messages (an agent
/// writer re-reads its transcript to place records; a different count means the session
/// did not come from this document).
pub(crate) fn same_messages(found: usize, session: &Session) -> Result<(), WriteError> {
    if found == session.messages.len() {
        return Ok(());
    }
    Err(WriteError::Document(format!(
        "{found} messages read again, {} in the session",
        session.messages.len()
    )))
}

/// The record for a message ctxctl adds: `{"role", "content", ...meta}`, a shape both
/// OpenAI and Anthropic accept.
pub fn new_record(m: &NewMessage) -> Value {
    let mut obj = Map::new();
    obj.insert("role".into(), Value::String(m.role.name().into()));
    obj.insert("content".into(), Value::String(m.text.clone()));
    for (k, v) in &m.meta {
        obj.insert(k.clone(), v.clone());
    }
    Value::Object(obj)
}

pub(crate) fn apply_edits(
    record: &mut Value,
    index: usize,
    edits: &[PartEdit],
) -> Result<(), WriteError> {
    for edit in edits {
        match edit {
            PartEdit::ResultText { call_id, text } => {
                if !set_result_text(record, call_id, text) {
                    return Err(WriteError::NoSuchResult {
                        index,
                        call_id: call_id.clone(),
                    });
                }
            }
        }
    }
    Ok(())
}

/// Replaces the content of the tool result for `call_id` in an OpenAI `tool` message or an
/// Anthropic `tool_result` block. Returns whether one was found.
pub fn set_result_text(record: &mut Value, call_id: &str, text: &str) -> bool {
    let is_tool_role = matches!(
        record.get("role").and_then(Value::as_str),
        Some("tool" | "function")
    );
    if is_tool_role {
        if let Some(obj) = record.as_object_mut() {
            obj.insert("content".into(), Value::String(text.into()));
            return true;
        }
    }
    let Some(blocks) = record.get_mut("content").and_then(Value::as_array_mut) else {
        return false;
    };
    for b in blocks {
        let matches = b.get("type").and_then(Value::as_str) == Some("tool_result")
            && b.get("tool_use_id").and_then(Value::as_str) == Some(call_id);
        if matches {
            b["content"] = Value::String(text.into());
            return true;
        }
    }
    false
}
