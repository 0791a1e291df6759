//! Parsing one provider-shaped message (OpenAI Chat Completions or Anthropic Messages) from
//! its JSON record. Both shapes share this code: their part types do not overlap.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::session::{CompactMeta, Message, Origin, Part, ReadError, Role};

/// Warnings gathered while parsing, folded into one line per kind at the end.
#[derive(Debug, Default)]
pub struct Notes {
    unknown_parts: BTreeMap<String, usize>,
    unknown_roles: BTreeMap<String, usize>,
}

impl Notes {
    /// Notes a content part of a type the reader does not know.
    pub fn unknown_part(&mut self, kind: &str) {
        *self.unknown_parts.entry(kind.to_string()).or_default() += 1;
    }

    /// Notes a role the reader does not know (the message is counted as a user message).
    pub fn unknown_role(&mut self, role: &str) {
        *self.unknown_roles.entry(role.to_string()).or_default() += 1;
    }

    /// Adds what `other` noted (records read on another thread).
    pub fn merge(&mut self, other: Notes) {
        for (k, n) in other.unknown_parts {
            *self.unknown_parts.entry(k).or_default() += n;
        }
        for (k, n) in other.unknown_roles {
            *self.unknown_roles.entry(k).or_default() += n;
        }
    }

    pub fn into_warnings(self) -> Vec<String> {
        let mut out = Vec::new();
        for (kind, n) in self.unknown_parts {
            out.push(format!(
                "skipped {n} content part(s) of unknown type \"{kind}\" (not counted, kept on rewrite)"
            ));
        }
        for (role, n) in self.unknown_roles {
            out.push(format!(
                "{n} message(s) with unknown role \"{role}\" counted as user"
            ));
        }
        out
    }
}

/// The marker's text for `k` omitted messages: `[93 messages omitted]`, `[1 message omitted]`.
pub fn omission_marker(k: usize) -> String {
    if k == 1 {
        "[1 message omitted]".to_string()
    } else {
        format!("[{k} messages omitted]")
    }
}

/// If `m` is an omission marker (what `trim --strategy smart` puts where it dropped
/// messages: a user message whose only content is the marker text), the number of
/// messages it stands for.
pub fn is_omission_marker(m: &Message) -> Option<usize> {
    let [Part::Text(t)] = m.parts.as_slice() else {
        return None;
    };
    if m.role != Role::User {
        return None;
    }
    let rest = t.strip_prefix('[')?;
    let (n, rest) = rest.split_once(' ')?;
    let k: usize = n.parse().ok()?;
    (rest
        == if k == 1 {
            "message omitted]"
        } else {
            "messages omitted]"
        })
    .then_some(k)
}

/// Whether ctxctl rewrote the history these messages came from: one of them is a ctxctl
/// compaction summary or an omission marker. Provider usage recorded in files that cannot
/// say where the rewrite happened is stale then.
pub fn rewritten_by_ctxctl(messages: &[Message]) -> bool {
    messages.iter().any(|m| {
        m.compact.as_ref().is_some_and(|c| c.by == "ctxctl") || is_omission_marker(m).is_some()
    })
}

/// Parses `v`, the record at `place` (e.g. `messages[3]` or `line 4`).
pub fn parse(
    mut v: Value,
    place: &str,
    origin: Origin,
    notes: &mut Notes,
) -> Result<Message, ReadError> {
    // A string `content` (most messages) is moved into the message rather than copied.
    let owned_text = match v.get_mut("content") {
        Some(c @ Value::String(_)) => match c.take() {
            Value::String(s) => Some(s),
            _ => None,
        },
        _ => None,
    };
    let v = &v;
    let obj = v
        .as_object()
        .ok_or_else(|| ReadError::shape(place, "a message object"))?;
    let role = match obj.get("role") {
        Some(Value::String(r)) => Role::parse(r).unwrap_or_else(|| {
            *notes.unknown_roles.entry(r.clone()).or_default() += 1;
            Role::User
        }),
        Some(_) => return Err(ReadError::shape(format!("{place}.role"), "a string")),
        None => {
            return Err(ReadError::shape(
                place,
                "a message with a \"role\" (system, developer, user, assistant or tool)",
            ))
        }
    };
    let mut parts = Vec::new();
    if let Some(r) = obj.get("reasoning_content").and_then(Value::as_str) {
        parts.push(Part::Thinking(r.to_string()));
    }
    let content = match owned_text {
        Some(text) => vec![Part::Text(text)],
        None => content_parts(obj.get("content"), &format!("{place}.content"), notes)?,
    };
    if role == Role::Tool {
        let ids = result_ids(obj);
        let mut ids = ids.into_iter();
        let first = ids.next().unwrap_or_default();
        parts.push(Part::ToolResult {
            call_id: first,
            content,
            is_error: false,
        });
        for id in ids {
            parts.push(Part::ToolResult {
                call_id: id,
                content: Vec::new(),
                is_error: false,
            });
        }
    } else {
        parts.extend(content);
    }
    if let Some(r) = obj.get("refusal").and_then(Value::as_str) {
        parts.push(Part::Text(r.to_string()));
    }
    if let Some(calls) = obj.get("tool_calls").filter(|c| !c.is_null()) {
        let calls = calls.as_array().ok_or_else(|| {
            ReadError::shape(format!("{place}.tool_calls"), "a list of tool calls")
        })?;
        for (i, c) in calls.iter().enumerate() {
            parts.push(tool_call(c, &format!("{place}.tool_calls[{i}]"))?);
        }
    }
    if let Some(fc) = obj.get("function_call").filter(|c| c.is_object()) {
        let name = str_field(fc, "name");
        parts.push(Part::ToolCall {
            id: format!("function:{name}"),
            name,
            arguments: args_text(fc.get("arguments")),
        });
    }
    let mut msg = Message::new(role, parts, origin);
    msg.name = obj.get("name").and_then(Value::as_str).map(str::to_string);
    msg.id = obj.get("id").and_then(Value::as_str).map(str::to_string);
    msg.pinned = obj.get("_preserve").and_then(Value::as_bool) == Some(true);
    msg.compact = compact_meta(v).map(Box::new);
    Ok(msg)
}

/// ctxctl's own summary metadata (`compact_boundary: true` on the record).
pub fn compact_meta(v: &Value) -> Option<CompactMeta> {
    (v.get("compact_boundary").and_then(Value::as_bool) == Some(true)).then(|| CompactMeta {
        id: v
            .get("compact_id")
            .and_then(Value::as_str)
            .map(str::to_string),
        seq: v.get("compact_seq").and_then(Value::as_u64),
        timestamp: v
            .get("compact_timestamp")
            .and_then(Value::as_str)
            .map(str::to_string),
        by: "ctxctl",
    })
}

/// The call ids a `tool` (or legacy `function`) message answers.
fn result_ids(obj: &serde_json::Map<String, Value>) -> Vec<String> {
    if let Some(id) = obj.get("tool_call_id").and_then(Value::as_str) {
        return vec![id.to_string()];
    }
    if let Some(ids) = obj.get("tool_call_ids").and_then(Value::as_array) {
        let ids: Vec<String> = ids
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect();
        if !ids.is_empty() {
            return ids;
        }
    }
    if obj.get("role").and_then(Value::as_str) == Some("function") {
        if let Some(name) = obj.get("name").and_then(Value::as_str) {
            return vec![format!("function:{name}")];
        }
    }
    vec![String::new()]
}

pub(super) fn tool_call(c: &Value, place: &str) -> Result<Part, ReadError> {
    let f = c
        .get("function")
        .ok_or_else(|| ReadError::shape(place, "a tool call with a \"function\""))?;
    Ok(Part::ToolCall {
        id: str_field(c, "id"),
        name: str_field(f, "name"),
        arguments: args_text(f.get("arguments")),
    })
}

fn str_field(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// Tool arguments as text: OpenAI stores a JSON string, Anthropic an object.
pub fn args_text(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => serde_json::to_string(other).unwrap_or_default(),
    }
}

/// Parses a `content` field: a string, null, or a list of parts / blocks.
pub fn content_parts(
    v: Option<&Value>,
    place: &str,
    notes: &mut Notes,
) -> Result<Vec<Part>, ReadError> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(vec![Part::Text(s.clone())]),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, b)| block(b, &format!("{place}[{i}]"), notes))
            .collect(),
        Some(_) => Err(ReadError::shape(
            place,
            "a string, null or a list of content parts",
        )),
    }
}

/// One content part (OpenAI) or block (Anthropic).
fn block(b: &Value, place: &str, notes: &mut Notes) -> Result<Part, ReadError> {
    if let Value::String(s) = b {
        return Ok(Part::Text(s.clone()));
    }
    let ty = b
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| ReadError::shape(place, "a content part with a \"type\""))?;
    Ok(match ty {
        "text" | "input_text" | "output_text" | "refusal" => Part::Text(
            b.get("text")
                .or_else(|| b.get("refusal"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        ),
        "image" | "image_url" | "input_image" => Part::Image {
            media_type: b
                .pointer("/source/media_type")
                .and_then(Value::as_str)
                .map(str::to_string),
        },
        "tool_use" | "server_tool_use" => Part::ToolCall {
            id: str_field(b, "id"),
            name: str_field(b, "name"),
            arguments: args_text(b.get("input")),
        },
        "tool_result" | "web_search_tool_result" => Part::ToolResult {
            call_id: str_field(b, "tool_use_id"),
            content: content_parts(b.get("content"), &format!("{place}.content"), notes)?,
            is_error: b.get("is_error").and_then(Value::as_bool) == Some(true),
        },
        "thinking" => Part::Thinking(str_field(b, "thinking")),
        "redacted_thinking" => Part::Opaque {
            kind: ty.to_string(),
            bytes: b.get("data").and_then(Value::as_str).map_or(0, str::len),
            tokens: None,
        },
        // Anthropic's tool search result (Claude Code 2.1.8x): the deferred tool it names is
        // loaded into the request. Its schema is not in the file; its name is counted.
        "tool_reference" => Part::Text(str_field(b, "tool_name")),
        "document" => Part::Text(
            b.pointer("/source/data")
                .filter(|_| b.pointer("/source/type").and_then(Value::as_str) == Some("text"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        ),
        other => {
            *notes.unknown_parts.entry(other.to_string()).or_default() += 1;
            Part::Other {
                kind: other.to_string(),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p(v: Value) -> Message {
        parse(v, "m", Origin::Record(0), &mut Notes::default()).unwrap()
    }

    #[test]
    fn tool_references_are_counted_by_the_name_they_load() {
        let m = p(json!({"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": "t1", "content": [{"type": "tool_reference", "tool_name": "Ask"}]}]}));
        let Part::ToolResult { content, .. } = &m.parts[0] else {
            panic!("{:?}", m.parts);
        };
        assert_eq!(content, &[Part::Text("Ask".into())]);
    }

    #[test]
    fn openai_tool_calls_and_results() {
        let m = p(json!({"role":"assistant","content":null,"tool_calls":[
            {"id":"c1","type":"function","function":{"name":"ls","arguments":"{\"a\":1}"}}]}));
        assert_eq!(m.call_ids().collect::<Vec<_>>(), ["c1"]);
        let r = p(json!({"role":"tool","tool_call_id":"c1","content":"out"}));
        assert_eq!(r.result_ids().collect::<Vec<_>>(), ["c1"]);
        assert_eq!(r.text(), "out");
    }

    #[test]
    fn swe_agent_result_lists() {
        let r = p(
            json!({"role":"tool","tool_call_ids":["a","b"],"content":[{"type":"text","text":"x"}]}),
        );
        assert_eq!(r.result_ids().collect::<Vec<_>>(), ["a", "b"]);
    }

    #[test]
    fn anthropic_blocks() {
        let m = p(json!({"role":"user","content":[
            {"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"r"}],"is_error":true},
            {"type":"text","text":"next"}]}));
        assert!(matches!(
            &m.parts[0],
            Part::ToolResult { is_error: true, .. }
        ));
        assert_eq!(m.text(), "r\nnext");
    }

    #[test]
    fn wrong_shapes_name_the_place() {
        let mut n = Notes::default();
        let e = parse(
            json!({"content":"x"}),
            "messages[2]",
            Origin::Record(2),
            &mut n,
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("messages[2]: expected a message with a \"role\""),
            "{e}"
        );
        let e = parse(
            json!({"role":"user","content":5}),
            "messages[0]",
            Origin::Record(0),
            &mut n,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "messages[0].content: expected a string, null or a list of content parts"
        );
    }

    #[test]
    fn unknown_parts_are_noted() {
        let mut n = Notes::default();
        let m = parse(
            json!({"role":"user","content":[{"type":"hologram"}]}),
            "m",
            Origin::Record(0),
            &mut n,
        )
        .unwrap();
        assert!(matches!(m.parts[0], Part::Other { .. }));
        assert_eq!(n.into_warnings().len(), 1);
    }
}
