//! Responses API input items (what Codex replays to the model) as messages.

use serde_json::{json, Value};

use crate::formats::message::{self, args_text, Notes};
use crate::session::{CompactMeta, Message, Origin, Part, ReadError, Role};

/// Codex's own compaction summaries.
pub fn codex_compact() -> CompactMeta {
    CompactMeta {
        id: None,
        seq: None,
        timestamp: None,
        by: "codex",
    }
}

fn text_of(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// The role of the message [`item_message`] makes of an item of type `kind` and `role`:
/// a message's role (a user's when ctxctl does not know it; `None` without one), a
/// compaction's the user's, an output's the tool's, the assistant's for what the model
/// produced, and for other kinds their `role` when ctxctl knows it.
pub fn item_role(kind: &str, role: Option<&str>) -> Option<Role> {
    Some(match kind {
        "message" => Role::parse(role?).unwrap_or(Role::User),
        "compaction" => Role::User,
        "function_call_output" | "custom_tool_call_output" | "tool_search_output" => Role::Tool,
        "reasoning"
        | "function_call"
        | "custom_tool_call"
        | "local_shell_call"
        | "tool_search_call"
        | "web_search_call"
        | "image_generation_call"
        | "agent_message" => Role::Assistant,
        _ => role.and_then(Role::parse).unwrap_or(Role::Assistant),
    })
}

/// One Responses API item as a message.
pub fn item_message(
    v: &Value,
    place: &str,
    origin: Origin,
    notes: &mut Notes,
) -> Result<Message, ReadError> {
    let ty = v
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| ReadError::shape(place, "an item with a \"type\""))?;
    let call = |name: String, arguments: String| Part::ToolCall {
        id: v
            .get("call_id")
            .or_else(|| v.get("id"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        name,
        arguments,
    };
    let result = |content: Vec<Part>| Part::ToolResult {
        call_id: text_of(v, "call_id"),
        content,
        is_error: v.pointer("/output/success").and_then(Value::as_bool) == Some(false),
    };
    let (role, parts) = match ty {
        "message" => {
            let role = v.get("role").and_then(Value::as_str);
            let Some(r) = role else {
                return Err(ReadError::shape(place, "a message with a \"role\""));
            };
            if Role::parse(r).is_none() {
                notes.unknown_role(r);
            }
            (Role::User, content_items(v.get("content"), notes))
        }
        "reasoning" => {
            let mut parts = Vec::new();
            for key in ["summary", "content"] {
                for p in v.get(key).and_then(Value::as_array).into_iter().flatten() {
                    parts.push(Part::Thinking(text_of(p, "text")));
                }
            }
            if let Some(enc) = v.get("encrypted_content").and_then(Value::as_str) {
                parts.push(Part::Opaque {
                    kind: "encrypted_content".into(),
                    bytes: enc.len(),
                    tokens: None,
                });
            }
            (Role::Assistant, parts)
        }
        "function_call" => (
            Role::Assistant,
            vec![call(text_of(v, "name"), args_text(v.get("arguments")))],
        ),
        "custom_tool_call" => (
            Role::Assistant,
            vec![call(text_of(v, "name"), args_text(v.get("input")))],
        ),
        "local_shell_call" => (
            Role::Assistant,
            vec![call("local_shell".into(), args_text(v.get("action")))],
        ),
        "tool_search_call" => (
            Role::Assistant,
            vec![call("tool_search".into(), args_text(v.get("arguments")))],
        ),
        "function_call_output" | "custom_tool_call_output" => (
            Role::Tool,
            vec![result(output_parts(v.get("output"), notes))],
        ),
        "tool_search_output" => (
            Role::Tool,
            vec![result(vec![Part::Text(args_text(v.get("tools")))])],
        ),
        "web_search_call" => (
            Role::Assistant,
            vec![Part::Text(format!(
                "web search: {}",
                args_text(v.get("action"))
            ))],
        ),
        "image_generation_call" => (
            Role::Assistant,
            vec![
                Part::Text(text_of(v, "revised_prompt")),
                Part::Image { media_type: None },
            ],
        ),
        "agent_message" => (Role::Assistant, content_items(v.get("content"), notes)),
        "compaction" => {
            let bytes = v
                .get("encrypted_content")
                .and_then(Value::as_str)
                .map_or(0, str::len);
            let mut m = Message::new(
                Role::User,
                vec![Part::Opaque {
                    kind: "compaction".into(),
                    bytes,
                    tokens: None,
                }],
                origin,
            );
            m.compact = Some(Box::new(codex_compact()));
            return Ok(m);
        }
        other => (Role::Assistant, vec![unknown(other, notes)]),
    };
    // The role [`item_role`] tells (the one above where it tells none).
    let role = item_role(ty, v.get("role").and_then(Value::as_str)).unwrap_or(role);
    let mut parts = parts;
    // Most items are one part: a list grown by pushes keeps room for four, which a large
    // rollout's messages hold for as long as the session.
    parts.shrink_to_fit();
    let mut m = Message::new(role, parts, origin);
    m.id = v.get("id").and_then(Value::as_str).map(str::to_string);
    m.pinned = v.get("_preserve").and_then(Value::as_bool) == Some(true);
    m.compact = v
        .get("ctxctl")
        .and_then(message::compact_meta)
        .map(Box::new);
    Ok(m)
}

fn unknown(kind: &str, notes: &mut Notes) -> Part {
    notes.unknown_part(kind);
    Part::Other {
        kind: kind.to_string(),
    }
}

/// A tool output: a string, a list of content items, one item, or `{content, success}`.
fn output_parts(v: Option<&Value>, notes: &mut Notes) -> Vec<Part> {
    match v {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => vec![Part::Text(s.clone())],
        Some(items @ Value::Array(_)) => content_items(Some(items), notes),
        Some(obj) if obj.get("type").is_some() => content_items(Some(&json!([obj])), notes),
        Some(obj) if obj.get("content").is_some() => output_parts(obj.get("content"), notes),
        Some(other) => vec![Part::Text(args_text(Some(other)))],
    }
}

/// Message content items (`input_text`, `output_text`, `input_image`, …).
fn content_items(v: Option<&Value>, notes: &mut Notes) -> Vec<Part> {
    let items = match v {
        Some(Value::String(s)) => return vec![Part::Text(s.clone())],
        Some(Value::Array(items)) => items,
        _ => return Vec::new(),
    };
    items
        .iter()
        .map(
            |c| match c.get("type").and_then(Value::as_str).unwrap_or("") {
                "input_text" | "output_text" | "text" | "summary_text" | "reasoning_text" => {
                    Part::Text(text_of(c, "text"))
                }
                "refusal" => Part::Text(text_of(c, "refusal")),
                "input_image" => Part::Image {
                    media_type: c
                        .get("image_url")
                        .and_then(Value::as_str)
                        .and_then(|u| u.strip_prefix("data:"))
                        .and_then(|u| u.split(';').next())
                        .map(str::to_string),
                },
                "encrypted_content" => Part::Opaque {
                    kind: "encrypted_content".into(),
                    bytes: c
                        .get("encrypted_content")
                        .and_then(Value::as_str)
                        .map_or(0, str::len),
                    tokens: None,
                },
                other => unknown(other, notes),
            },
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_items_role_is_the_one_its_message_gets() {
        let kinds = [
            "message",
            "reasoning",
            "function_call",
            "function_call_output",
            "custom_tool_call_output",
            "tool_search_output",
            "web_search_call",
            "compaction",
            "agent_message",
            "something_new",
        ];
        for kind in kinds {
            for role in [
                None,
                Some("user"),
                Some("developer"),
                Some("critic"),
                Some("tool"),
            ] {
                let mut v = json!({"type": kind, "content": []});
                if let Some(r) = role {
                    v["role"] = json!(r);
                }
                let made = item_message(&v, "here", Origin::Record(0), &mut Notes::default());
                assert_eq!(
                    made.ok().map(|m| m.role),
                    item_role(kind, role),
                    "{kind} {role:?}"
                );
            }
        }
    }
}
