//! The history Gemini CLI sends, from the live message list of a replayed log
//! (`convertSessionToClientHistory` in Gemini CLI 0.61):
//!
//! * `info`, `error` and `warning` messages are not sent;
//! * a user message whose text (function parts count as `[Function …]` text) is empty or
//!   starts with `/`, `?`, `<session_context>` or `<hook_context>` is not sent. The
//!   session context is sent all the same, freshly made: ctxctl counts the recorded one in
//!   its place, as context the agent injected;
//! * a `gemini` message whose content has `functionCall` or `thought` parts is sent as
//!   stored; an older one is rebuilt from its `thoughts`, its content and its `toolCalls`;
//! * a `gemini` message with `toolCalls` that have results is followed by a synthetic
//!   user turn `<id>_response` holding them, besides the user message that recorded the
//!   same results: Gemini sends the results twice. ctxctl keeps that recorded copy in the
//!   same message as the synthetic turn, so that no rewrite separates them.

use serde_json::{json, Value};

use super::replay::Live;
use crate::formats::message::{args_text, compact_meta, Notes};
use crate::session::{CompactMeta, Message, Origin, Part, ReadError, Role};

/// Where a sent message's records come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Live message `k`, as recorded.
    Record(usize),
    /// The synthetic `<id>_response` turn of live `gemini` message `k`.
    Responses(usize),
}

/// One message of the history, with the records it is written back as.
#[derive(Debug, Clone)]
pub struct Sent {
    pub message: Message,
    pub sources: Vec<Source>,
}

/// The ack Gemini CLI's own compression puts after its `<state_snapshot>` turn.
pub const ACK: &str = "Got it. Thanks for the additional context!";

/// `content` as a list of Gemini parts (a string is one text part).
pub fn ensure_parts(content: Option<&Value>) -> Vec<Value> {
    match content {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|p| match p {
                Value::String(s) => json!({ "text": s }),
                p => p.clone(),
            })
            .collect(),
        Some(Value::String(s)) => vec![json!({ "text": s })],
        Some(p) => vec![p.clone()],
    }
}

/// The parts a `gemini` message is sent with.
pub fn model_parts(v: &Value) -> Vec<Value> {
    let content = ensure_parts(v.get("content"));
    let modern = content
        .iter()
        .any(|p| p.get("functionCall").is_some() || is_thought(p));
    if modern {
        return content;
    }
    let mut out = Vec::new();
    for t in v
        .get("thoughts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let desc = t.get("description").and_then(Value::as_str).unwrap_or("");
        let text = match t.get("subject").and_then(Value::as_str) {
            Some(s) if !s.is_empty() => format!("**{s}** {desc}"),
            _ => desc.to_string(),
        };
        out.push(json!({"text": text, "thought": true}));
    }
    out.extend(content);
    for c in tool_calls(v) {
        out.push(json!({ "functionCall": present(c, &["id", "name", "args"]) }));
    }
    out
}

/// The members `keys` of `v` that it has (JavaScript leaves out undefined ones).
fn present(v: &Value, keys: &[&str]) -> serde_json::Map<String, Value> {
    keys.iter()
        .filter_map(|&k| v.get(k).map(|x| (k.to_string(), x.clone())))
        .collect()
}

fn tool_calls(v: &Value) -> impl Iterator<Item = &Value> {
    v.get("toolCalls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn is_thought(p: &Value) -> bool {
    p.get("thought")
        .is_some_and(|t| !t.is_null() && t != &Value::Bool(false))
}

/// The parts of the synthetic `<id>_response` turn of a `gemini` message (empty: none).
pub fn response_parts(v: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for c in tool_calls(v) {
        match c.get("result") {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) => {
                let mut r = present(c, &["id", "name"]);
                r.insert("response".into(), json!({ "output": s }));
                out.push(json!({ "functionResponse": r }));
            }
            Some(r @ Value::Array(_)) => out.extend(ensure_parts(Some(r))),
            Some(r) => out.push(r.clone()),
        }
    }
    out
}

/// The synthetic `<id>_response` user record of `gemini` message `v`.
pub fn response_record(v: &Value) -> Value {
    let id = v.get("id").and_then(Value::as_str).unwrap_or("");
    json!({"id": format!("{id}_response"), "timestamp": v.get("timestamp"),
        "type": "user", "content": response_parts(v)})
}

/// A part as Gemini CLI's `partToString` (verbose) writes it: only whether it is empty
/// and how it starts matter here.
fn part_string(p: &Value) -> String {
    let name = |k: &str| {
        p.pointer(&format!("/{k}/name"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    if p.get("functionCall").is_some() {
        format!("[Function Call: {}]", name("functionCall"))
    } else if p.get("functionResponse").is_some() {
        format!("[Function Response: {}]", name("functionResponse"))
    } else if let Some(m) = p.pointer("/inlineData/mimeType").and_then(Value::as_str) {
        format!("<{m}>")
    } else if p.get("fileData").is_some() {
        "[File Data]".into()
    } else {
        p.get("text")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    }
}

/// Whether a user message is left out of the history, and whether it is the session
/// context (sent, but fresh).
fn user_kind(parts: &[Value]) -> (bool, bool) {
    let text: String = parts.iter().map(part_string).collect();
    let t = text.trim();
    let context = t.starts_with("<session_context>");
    let ignored = t.is_empty() || t.starts_with('/') || t.starts_with('?');
    (ignored || t.starts_with("<hook_context>"), context)
}

/// One Gemini part as ctxctl's.
fn part(p: &Value, notes: &mut Notes) -> Part {
    if let Some(c) = p.get("functionCall") {
        let name = c.get("name").and_then(Value::as_str).unwrap_or("");
        return Part::ToolCall {
            id: call_id(c, name),
            name: name.to_string(),
            arguments: args_text(c.get("args")),
        };
    }
    if let Some(r) = p.get("functionResponse") {
        let name = r.get("name").and_then(Value::as_str).unwrap_or("");
        let response = r.get("response");
        let error = response
            .and_then(|r| r.get("error"))
            .filter(|e| !e.is_null());
        let text = match response.and_then(|r| r.get("output")).or(error) {
            Some(Value::String(s)) => s.clone(),
            Some(v) => v.to_string(),
            None => response.map(Value::to_string).unwrap_or_default(),
        };
        return Part::ToolResult {
            call_id: call_id(r, name),
            content: vec![Part::Text(text)],
            is_error: error.is_some(),
        };
    }
    if let Some(t) = p.get("text").and_then(Value::as_str) {
        return if is_thought(p) {
            Part::Thinking(t.to_string())
        } else {
            Part::Text(t.to_string())
        };
    }
    if let Some(d) = p.get("inlineData") {
        let media_type = d.get("mimeType").and_then(Value::as_str);
        return Part::Image {
            media_type: media_type.map(str::to_string),
        };
    }
    let kind = p
        .as_object()
        .and_then(|o| o.keys().next().cloned())
        .unwrap_or_else(|| "part".into());
    notes.unknown_part(&kind);
    Part::Other { kind }
}

/// A call's id; Gemini pairs calls without one to their results by name.
fn call_id(c: &Value, name: &str) -> String {
    match c.get("id").and_then(Value::as_str) {
        Some(id) if !id.is_empty() => id.to_string(),
        _ => name.to_string(),
    }
}

fn message(role: Role, parts: &[Value], lines: Vec<usize>, notes: &mut Notes) -> Message {
    let parts = parts.iter().map(|p| part(p, notes)).collect();
    let origin = match lines.as_slice() {
        [l] => Origin::Record(*l),
        _ => Origin::Records(lines),
    };
    Message::new(role, parts, origin)
}

/// The history Gemini sends for the live list `live`.
pub fn history(live: &[Live], notes: &mut Notes) -> Result<Vec<Sent>, ReadError> {
    let mut out: Vec<Sent> = Vec::new();
    let mut emit = |s: Sent| out.push(s);
    let mut b = Builder::default();
    for (k, l) in live.iter().enumerate() {
        b.push(k, l, notes, &mut emit);
    }
    b.finish(&mut emit);
    Ok(out)
}

/// The history made a live message at a time (the whole list need not be held): each
/// sent message is handed out once no later live message can add to it (only the last
/// one can take the recorded copy of its results).
#[derive(Default)]
pub struct Builder {
    last: Option<Sent>,
    /// Sent messages made so far, `last` included.
    made: usize,
}

impl Builder {
    /// Takes live message `k`: the first and last sent messages made from it (as itself or
    /// as its response turn), if any.
    pub fn push(
        &mut self,
        k: usize,
        l: &Live,
        notes: &mut Notes,
        emit: &mut impl FnMut(Sent),
    ) -> Option<(usize, usize)> {
        let v = &l.value;
        let line = l.from.line();
        match l.kind() {
            "user" => {
                let parts = ensure_parts(v.get("content"));
                let (ignored, context) = user_kind(&parts);
                if ignored {
                    return None;
                }
                if let Some(prev) =
                    (self.last.as_mut()).filter(|p| repeats_results(&p.message, &parts))
                {
                    let again = message(Role::User, &parts, vec![line], notes);
                    prev.message.parts.extend(again.parts);
                    let mut lines = prev.message.origin.records().to_vec();
                    if !lines.contains(&line) {
                        lines.push(line);
                    }
                    prev.message.origin = Origin::Records(lines);
                    prev.sources.push(Source::Record(k));
                    return Some((self.made - 1, self.made - 1));
                }
                let mut m = message(Role::User, &parts, vec![line], notes);
                m.id = Some(l.id().to_string());
                m.injected = context;
                m.compact = summary_meta(v, &m).map(Box::new);
                self.add(m, Source::Record(k), emit);
                Some((self.made - 1, self.made - 1))
            }
            "gemini" => {
                let parts = model_parts(v);
                if parts.is_empty() {
                    return None;
                }
                let mut m = message(Role::Assistant, &parts, vec![line], notes);
                m.id = Some(l.id().to_string());
                self.add(m, Source::Record(k), emit);
                let first = self.made - 1;
                let results = response_parts(v);
                if !results.is_empty() {
                    let mut m = message(Role::User, &results, vec![line], notes);
                    m.id = Some(format!("{}_response", l.id()));
                    self.add(m, Source::Responses(k), emit);
                }
                Some((first, self.made - 1))
            }
            _ => None,
        }
    }

    /// Hands out the last sent message.
    pub fn finish(self, emit: &mut impl FnMut(Sent)) {
        if let Some(last) = self.last {
            emit(last);
        }
    }

    fn add(&mut self, message: Message, source: Source, emit: &mut impl FnMut(Sent)) {
        let sent = Sent {
            message,
            sources: vec![source],
        };
        if let Some(prev) = self.last.replace(sent) {
            emit(prev);
        }
        self.made += 1;
    }
}

/// Whether user `parts` are only results that `prev` already holds (the recorded copy of
/// a synthetic `_response` turn).
fn repeats_results(prev: &Message, parts: &[Value]) -> bool {
    let held: Vec<&str> = prev.result_ids().collect();
    !held.is_empty()
        && !parts.is_empty()
        && parts.iter().all(|p| {
            p.get("functionResponse").is_some_and(|r| {
                let name = r.get("name").and_then(Value::as_str).unwrap_or("");
                held.contains(&call_id(r, name).as_str())
            })
        })
}

/// ctxctl's summary metadata (under `ctxctl`), or Gemini CLI's own `<state_snapshot>`.
fn summary_meta(v: &Value, m: &Message) -> Option<CompactMeta> {
    if let Some(meta) = v.get("ctxctl").and_then(compact_meta) {
        return Some(meta);
    }
    m.text()
        .trim_start()
        .starts_with("<state_snapshot>")
        .then(|| CompactMeta {
            id: m.id.clone(),
            seq: None,
            timestamp: v
                .get("timestamp")
                .and_then(Value::as_str)
                .map(str::to_string),
            by: "gemini-cli",
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::gemini::replay::From;

    fn live(v: Value, line: usize) -> Live {
        Live {
            value: v,
            from: From::Line(line),
        }
    }

    fn sent(values: Vec<Value>) -> Vec<Sent> {
        let live: Vec<Live> = values
            .into_iter()
            .enumerate()
            .map(|(i, v)| live(v, i))
            .collect();
        history(&live, &mut Notes::default()).unwrap()
    }

    #[test]
    fn tool_results_are_sent_twice_and_read_as_one_message() {
        let call = json!({"id": "g1", "type": "gemini", "content": "reading", "thoughts": [{"subject": "Plan", "description": "read it"}],
            "toolCalls": [{"id": "c1", "name": "read_file", "args": {"p": "a"},
                "result": [{"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": "DATA"}}}]}]});
        let recorded = json!({"id": "u2", "type": "user", "content": [{"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": "DATA"}}}]});
        let s = sent(vec![
            json!({"id": "ctx", "type": "user", "content": [{"text": "<session_context>\nenv\n</session_context>"}]}),
            json!({"id": "u1", "type": "user", "content": [{"text": "go"}]}),
            call,
            recorded,
            json!({"id": "i", "type": "info", "content": "note"}),
            json!({"id": "u3", "type": "user", "content": "/compress"}),
            json!({"id": "g2", "type": "gemini", "content": "done"}),
        ]);
        let roles: Vec<Role> = s.iter().map(|s| s.message.role).collect();
        assert_eq!(
            roles,
            [
                Role::User,
                Role::User,
                Role::Assistant,
                Role::User,
                Role::Assistant
            ]
        );
        assert!(s[0].message.injected);
        assert_eq!(
            s[2].message.parts,
            [
                Part::Thinking("**Plan** read it".into()),
                Part::Text("reading".into()),
                Part::ToolCall {
                    id: "c1".into(),
                    name: "read_file".into(),
                    arguments: "{\"p\":\"a\"}".into()
                }
            ]
        );
        let results = &s[3];
        assert_eq!(results.message.id.as_deref(), Some("g1_response"));
        assert_eq!(
            results.message.result_ids().collect::<Vec<_>>(),
            ["c1", "c1"]
        );
        assert_eq!(results.sources, [Source::Responses(2), Source::Record(3)]);
        assert_eq!(results.message.origin, Origin::Records(vec![2, 3]));
    }

    #[test]
    fn modern_messages_are_sent_as_stored_and_snapshots_are_summaries() {
        let s = sent(vec![
            json!({"id": "s", "type": "user", "content": [{"text": "<state_snapshot>x</state_snapshot>"}]}),
            json!({"id": "a", "type": "gemini", "content": [{"text": ACK}]}),
            json!({"id": "g", "type": "gemini", "content": [{"text": "t", "thought": true}, {"functionCall": {"name": "ls", "args": {}}}],
                "thoughts": [{"description": "ignored"}]}),
        ]);
        assert_eq!(s[0].message.compact.as_ref().unwrap().by, "gemini-cli");
        assert_eq!(s[2].message.parts.len(), 2);
        assert!(matches!(&s[2].message.parts[1], Part::ToolCall { id, .. } if id == "ls"));
    }
}
