//! The message text of one record of an agent's file, whatever the agent: the pieces a
//! person or a model reads (text, thinking, a tool call's argument values, a tool's
//! output), each with its role and tool, never the JSON around them, ids, signatures,
//! encrypted reasoning or images. Also whether the record marks the agent's own
//! compaction: Claude Code's `compact_boundary`, Codex's `compacted`, Copilot CLI's
//! `session.compaction_complete`.

use std::collections::HashMap;

use serde_json::Value;

/// A piece of a message's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// `user`, `assistant`, `tool` or `system`.
    pub role: &'static str,
    /// The tool called, or whose output this is.
    pub tool: Option<String>,
    pub text: String,
    /// The call a tool's output answers (its name is found later when `tool` is `None`).
    pub call: Option<String>,
}

/// What one record holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    /// The record's own time, as it wrote it.
    pub when: Option<String>,
    pub pieces: Vec<Piece>,
    /// The agent compacted the conversation here: what came before is off its thread.
    pub marker: bool,
}

/// Tool names by call id, so a tool's output can be named by its call.
#[derive(Debug, Default)]
pub struct Tools(HashMap<String, String>);

impl Tools {
    fn add(&mut self, id: Option<&str>, name: &str) {
        if let Some(id) = id {
            self.0.insert(id.to_string(), name.to_string());
        }
    }

    pub fn name(&self, id: Option<&str>) -> Option<String> {
        id.and_then(|id| self.0.get(id).cloned())
    }
}

/// Bytes that a record holding a tool call has in its raw form (it must be read for the
/// tool's name even when its text cannot match).
pub const CALL_MARKERS: &[&str] = &[
    "\"tool_use\"",
    "function_call\"",
    "\"tool_calls\"",
    "custom_tool_call\"",
    "toolRequest",
    "toolCalls",
];

/// Records the tool calls of `raw` (a record's bytes whose text cannot match) from the
/// bytes as Claude Code and Codex write them, without parsing the record: false when it
/// holds none in that shape (the record is then parsed). A `"` inside a JSON string is
/// escaped, so `"name":"` in the raw bytes is always a key.
pub fn calls_fast(raw: &[u8], tools: &mut Tools) -> bool {
    use regex::bytes::Regex;
    use std::sync::OnceLock;
    static RES: OnceLock<[Regex; 3]> = OnceLock::new();
    let [claude, codex, call_id] = RES.get_or_init(|| {
        [
            r#""type":"tool_use","id":"([^"\\]*)","name":"([^"\\]*)""#,
            r#""type":"(?:function_call|custom_tool_call)",(?:"id":"[^"\\]*",)?"name":"([^"\\]*)""#,
            r#""call_id":"([^"\\]*)""#,
        ]
        .map(|r| Regex::new(r).expect("a valid regex"))
    });
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let mut found = false;
    for c in claude.captures_iter(raw) {
        tools.0.insert(text(&c[1]), text(&c[2]));
        found = true;
    }
    if let (Some(c), Some(id)) = (codex.captures(raw), call_id.captures(raw)) {
        tools.0.insert(text(&id[1]), text(&c[1]));
        found = true;
    }
    found
}

/// The pieces of a message a format's reader made (an agent's database session).
pub fn of_message(m: &crate::session::Message, tools: &mut Tools) -> Vec<Piece> {
    use crate::session::{join_text, Part};
    let role = role_name(m.role.name());
    let mut out = Vec::new();
    for p in &m.parts {
        match p {
            Part::Text(t) | Part::Thinking(t) => push(&mut out, role, None, t.clone()),
            Part::ToolCall {
                id,
                name,
                arguments: args,
            } => {
                tools.add(Some(id), name);
                let text = arguments(&Value::String(args.clone()));
                push(&mut out, "assistant", Some(name.clone()), text);
            }
            Part::ToolResult {
                call_id, content, ..
            } => push_result(&mut out, tools, Some(call_id), join_text(content)),
            _ => {}
        }
    }
    out
}

/// Codex's item types (records of a rollout's `response_item`, or items on their own in
/// an archive or a compaction's history).
const CODEX_ITEMS: &[&str] = &[
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
];

/// Reads `v`, one record.
pub fn read(v: &Value, tools: &mut Tools) -> Record {
    let mut out = Record {
        when: v.get("timestamp").and_then(Value::as_str).map(String::from),
        ..Record::default()
    };
    let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
    match kind {
        "response_item" => {
            if let Some(p) = v.get("payload") {
                item(p, tools, &mut out.pieces);
            }
        }
        "compacted" => {
            out.marker = true;
            let p = v.get("payload").unwrap_or(&Value::Null);
            if let Some(m) = p.get("message").and_then(Value::as_str) {
                push(&mut out.pieces, "user", None, m.to_string());
            }
            for it in p
                .get("replacement_history")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                item(it, tools, &mut out.pieces);
            }
        }
        "system" if v.get("subtype").and_then(Value::as_str) == Some("compact_boundary") => {
            out.marker = true;
        }
        "user" | "assistant" if v.get("message").is_some_and(Value::is_object) => {
            message(&v["message"], tools, &mut out.pieces);
        }
        "user" | "gemini" | "model" if v.get("content").is_some() => gemini(v, kind, &mut out),
        "user.message" | "assistant.message" | "tool.execution_complete" => {
            copilot(v, kind, tools, &mut out.pieces)
        }
        "session.compaction_complete" => {
            out.marker = true;
            if let Some(t) = v.pointer("/data/summaryContent").and_then(Value::as_str) {
                push(&mut out.pieces, "user", None, t.to_string());
            }
        }
        k if CODEX_ITEMS.contains(&k) && v.get("role").is_none_or(|_| k == "message") => {
            item(v, tools, &mut out.pieces)
        }
        _ if v.get("role").is_some() => message(v, tools, &mut out.pieces),
        _ => {}
    }
    out
}

fn role_name(r: &str) -> &'static str {
    match r {
        "assistant" | "model" | "gemini" | "ai" => "assistant",
        "tool" | "function" | "toolResponse" => "tool",
        "system" | "developer" => "system",
        _ => "user",
    }
}

fn push(out: &mut Vec<Piece>, role: &'static str, tool: Option<String>, text: String) {
    if !text.is_empty() {
        out.push(Piece {
            role,
            tool,
            text,
            call: None,
        });
    }
}

/// A tool's output answering call `id`.
fn push_result(out: &mut Vec<Piece>, tools: &Tools, id: Option<&str>, text: String) {
    if !text.is_empty() {
        out.push(Piece {
            role: "tool",
            tool: tools.name(id),
            text,
            call: id.map(String::from),
        });
    }
}

/// A provider-shaped message: `{role, content}` with content a string or blocks
/// (Anthropic's, OpenAI's, goose's), and OpenAI's `tool_calls`.
fn message(m: &Value, tools: &mut Tools, out: &mut Vec<Piece>) {
    let role = role_name(m.get("role").and_then(Value::as_str).unwrap_or("user"));
    let own_tool = || {
        m.get("name")
            .and_then(Value::as_str)
            .map(String::from)
            .or_else(|| tools.name(m.get("tool_call_id").and_then(Value::as_str)))
    };
    match m.get("content") {
        Some(Value::String(s)) => {
            let tool = (role == "tool").then(own_tool).flatten();
            push(out, role, tool, s.clone());
        }
        Some(Value::Array(blocks)) => {
            let tool = (role == "tool").then(own_tool).flatten();
            for b in blocks {
                block(b, role, tool.clone(), tools, out);
            }
        }
        _ => {}
    }
    for call in m
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let f = call.get("function").unwrap_or(call);
        let name = f.get("name").and_then(Value::as_str).unwrap_or("");
        tools.add(call.get("id").and_then(Value::as_str), name);
        let args = f.get("arguments").map(arguments).unwrap_or_default();
        push(out, "assistant", Some(name.to_string()), args);
    }
}

/// One content block of a message of `role`.
fn block(
    b: &Value,
    role: &'static str,
    tool: Option<String>,
    tools: &mut Tools,
    out: &mut Vec<Piece>,
) {
    let s = |k: &str| b.get(k).and_then(Value::as_str);
    match s("type").unwrap_or("") {
        "text" | "input_text" | "output_text" => {
            push(out, role, tool, s("text").unwrap_or("").to_string())
        }
        "thinking" => push(out, role, None, s("thinking").unwrap_or("").to_string()),
        "tool_use" | "server_tool_use" => {
            let name = s("name").unwrap_or("");
            tools.add(s("id"), name);
            let input = b.get("input").map(arguments).unwrap_or_default();
            push(out, "assistant", Some(name.to_string()), input);
        }
        "tool_result" => push_result(out, tools, s("tool_use_id"), content_text(b.get("content"))),
        "toolRequest" => {
            let call = b.pointer("/toolCall/value").unwrap_or(&Value::Null);
            let name = call.get("name").and_then(Value::as_str).unwrap_or("");
            tools.add(s("id"), name);
            let args = call.get("arguments").map(arguments).unwrap_or_default();
            push(out, "assistant", Some(name.to_string()), args);
        }
        "toolResponse" => {
            let name = tools.name(s("id"));
            let v = b.pointer("/toolResult/value");
            push(out, "tool", name, content_text(v));
        }
        "image" | "input_image" | "redacted_thinking" | "document" => {}
        _ => {
            if let Some(t) = s("text") {
                push(out, role, tool, t.to_string());
            }
        }
    }
}

/// A tool's output: a string, or blocks whose text is joined by lines.
fn content_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|b| match b {
                Value::String(s) => Some(s.as_str()),
                _ => b.get("text").and_then(Value::as_str),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Some(Value::Object(o)) => o
            .get("output")
            .or_else(|| o.get("content"))
            .or_else(|| o.get("text"))
            .map(|v| content_text(Some(v)))
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// A tool call's arguments as text: the string values of its input, one per line (a
/// string holding JSON, as OpenAI and Codex write arguments, is read as that JSON).
fn arguments(v: &Value) -> String {
    let parsed;
    let v = match v {
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(p) if p.is_object() || p.is_array() => {
                parsed = p;
                &parsed
            }
            _ => return s.clone(),
        },
        v => v,
    };
    let mut out = Vec::new();
    leaves(v, &mut out);
    out.join("\n")
}

fn leaves<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(a) => a.iter().for_each(|x| leaves(x, out)),
        Value::Object(o) => o.values().for_each(|x| leaves(x, out)),
        _ => {}
    }
}

/// One Codex item.
fn item(p: &Value, tools: &mut Tools, out: &mut Vec<Piece>) {
    let s = |k: &str| p.get(k).and_then(Value::as_str);
    match s("type").unwrap_or("") {
        "message" => message(p, tools, out),
        "reasoning" => {
            for part in p
                .get("summary")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let t = part.get("text").and_then(Value::as_str).unwrap_or("");
                push(out, "assistant", None, t.to_string());
            }
        }
        "function_call" | "custom_tool_call" => {
            let name = s("name").unwrap_or("");
            tools.add(s("call_id"), name);
            let args = p
                .get("arguments")
                .or_else(|| p.get("input"))
                .map(arguments)
                .unwrap_or_default();
            push(out, "assistant", Some(name.to_string()), args);
        }
        "function_call_output" | "custom_tool_call_output" => {
            let text = match p.get("output") {
                Some(Value::String(o)) => match serde_json::from_str::<Value>(o) {
                    Ok(Value::Object(m)) if m.contains_key("output") => {
                        content_text(m.get("output"))
                    }
                    _ => o.clone(),
                },
                other => content_text(other),
            };
            push_result(out, tools, s("call_id"), text);
        }
        "local_shell_call" => {
            let args = p.get("action").map(arguments).unwrap_or_default();
            push(out, "assistant", Some("shell".into()), args);
        }
        _ => {}
    }
}

/// A GitHub Copilot CLI event: `{type, data}` with the user's words in `data.content`, the
/// assistant's in `data.content`, `data.reasoningText` and `data.toolRequests`, a tool's
/// output in `data.result.content` (else its error).
fn copilot(v: &Value, kind: &str, tools: &mut Tools, out: &mut Vec<Piece>) {
    let data = v.get("data").unwrap_or(&Value::Null);
    let s = |p: &str| data.pointer(p).and_then(Value::as_str);
    match kind {
        "user.message" => push(out, "user", None, s("/content").unwrap_or("").to_string()),
        "assistant.message" => {
            for k in ["/reasoningText", "/content"] {
                push(out, "assistant", None, s(k).unwrap_or("").to_string());
            }
            for r in data
                .get("toolRequests")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let name = r.get("name").and_then(Value::as_str).unwrap_or("");
                tools.add(r.get("toolCallId").and_then(Value::as_str), name);
                let args = r.get("arguments").map(arguments).unwrap_or_default();
                push(out, "assistant", Some(name.to_string()), args);
            }
        }
        _ => {
            let text = s("/result/content")
                .or_else(|| s("/error/message"))
                .or_else(|| s("/error"))
                .unwrap_or("");
            push_result(out, tools, s("/toolCallId"), text.to_string());
        }
    }
}

/// A Gemini CLI message: `{type: user|gemini, content, toolCalls}`.
fn gemini(v: &Value, kind: &str, out: &mut Record) {
    let role = role_name(kind);
    push(&mut out.pieces, role, None, content_text(v.get("content")));
    for call in v
        .get("toolCalls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = call.get("name").and_then(Value::as_str).unwrap_or("");
        let args = call.get("args").map(arguments).unwrap_or_default();
        push(&mut out.pieces, "assistant", Some(name.to_string()), args);
        let mut result = Vec::new();
        if let Some(r) = call.get("result") {
            leaves(r, &mut result);
        }
        push(
            &mut out.pieces,
            "tool",
            Some(name.to_string()),
            result.join("\n"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn texts(v: Value) -> Vec<(&'static str, Option<String>, String)> {
        let mut t = Tools::default();
        read(&v, &mut t)
            .pieces
            .into_iter()
            .map(|p| (p.role, p.tool, p.text))
            .collect()
    }

    fn texts_of(r: Record) -> Vec<(&'static str, Option<String>, String)> {
        r.pieces
            .into_iter()
            .map(|p| (p.role, p.tool, p.text))
            .collect()
    }

    #[test]
    fn claude_code_blocks_name_their_tool_and_results_their_call() {
        let mut t = Tools::default();
        let call = json!({"type":"assistant","timestamp":"T1","message":{"role":"assistant","content":[
            {"type":"thinking","thinking":"hmm","signature":"SIGXYZ"},
            {"type":"tool_use","id":"tu1","name":"Bash","input":{"command":"ls /tmp","description":"list"}}]}});
        let r = read(&call, &mut t);
        assert_eq!(r.when.as_deref(), Some("T1"));
        assert_eq!(r.pieces[1].text, "ls /tmp\nlist");
        let res = json!({"type":"user","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":"tu1","content":[{"type":"text","text":"a\nb"}]}]}});
        let r = read(&res, &mut t);
        assert_eq!(r.pieces[0].role, "tool");
        assert_eq!(r.pieces[0].tool.as_deref(), Some("Bash"));
        assert_eq!(r.pieces[0].text, "a\nb");
        let b = json!({"type":"system","subtype":"compact_boundary","content":"Conversation compacted"});
        assert!(read(&b, &mut t).marker);
    }

    #[test]
    fn tool_calls_are_read_from_the_bytes_as_the_agents_write_them() {
        let mut t = Tools::default();
        let cc = br#"{"message":{"content":[{"type":"tool_use","id":"tu9","name":"Read","input":{"name":"x"}}]}}"#;
        assert!(calls_fast(cc, &mut t));
        let cx = br#"{"payload":{"type":"function_call","id":"fc1","name":"exec_command","arguments":"{\"call_id\":\"no\"}","call_id":"c7"}}"#;
        assert!(calls_fast(cx, &mut t));
        assert_eq!(t.name(Some("tu9")).as_deref(), Some("Read"));
        assert_eq!(t.name(Some("c7")).as_deref(), Some("exec_command"));
        assert!(!calls_fast(
            br#"{"role":"assistant","tool_calls":[]}"#,
            &mut t
        ));
    }

    #[test]
    fn codex_items_and_its_compaction() {
        let c = json!({"type":"compacted","payload":{"message":"SUMMARY","replacement_history":[
            {"type":"message","role":"user","content":[{"type":"input_text","text":"kept"}]}]}});
        let mut t = Tools::default();
        let r = read(&c, &mut t);
        assert!(r.marker);
        assert_eq!(r.pieces.len(), 2);
        let call = json!({"type":"response_item","payload":{"type":"function_call","name":"exec_command",
            "arguments":"{\"cmd\":\"cat notes.txt\"}","call_id":"c1"}});
        assert_eq!(read(&call, &mut t).pieces[0].text, "cat notes.txt");
        let out = json!({"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"hello"}});
        let r = read(&out, &mut t);
        assert_eq!(r.pieces[0].tool.as_deref(), Some("exec_command"));
        assert_eq!(
            texts(json!({"type":"event_msg","payload":{"type":"user_message","message":"dup"}})),
            vec![]
        );
    }

    #[test]
    fn copilot_events_and_its_compaction() {
        let mut tools = Tools::default();
        let call = json!({"type":"assistant.message","data":{"content":"reading","toolRequests":[{"toolCallId":"c1","name":"view","arguments":{"path":"a.rs"}}]}});
        assert_eq!(
            texts_of(read(&call, &mut tools)),
            [
                ("assistant", None, "reading".into()),
                ("assistant", Some("view".into()), "a.rs".into())
            ]
        );
        let out = json!({"type":"tool.execution_complete","data":{"toolCallId":"c1","success":true,"result":{"content":"fn main"}}});
        assert_eq!(
            texts_of(read(&out, &mut tools)),
            [("tool", Some("view".into()), "fn main".into())]
        );
        let done = json!({"type":"session.compaction_complete","data":{"success":true,"summaryContent":"the gist"}});
        let r = read(&done, &mut tools);
        assert!(r.marker);
        assert_eq!(texts_of(r), [("user", None, "the gist".into())]);
    }

    #[test]
    fn chat_messages_and_gemini() {
        assert_eq!(
            texts(json!({"role":"developer","content":"rules"})),
            vec![("system", None, "rules".to_string())]
        );
        let g = json!({"type":"gemini","content":"hi","toolCalls":[{"name":"read_file","args":{"path":"a.rs"},"result":[{"functionResponse":{"response":{"output":"fn main"}}}]}]});
        assert_eq!(
            texts(g),
            vec![
                ("assistant", None, "hi".into()),
                ("assistant", Some("read_file".into()), "a.rs".into()),
                ("tool", Some("read_file".into()), "fn main".into())
            ]
        );
    }
}
