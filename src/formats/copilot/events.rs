//! Reading a GitHub Copilot CLI event log the way `copilot --resume` turns it into a
//! request.
//!
//! Every line is one event `{"type", "data", "id", "timestamp", "parentId"}` (Copilot CLI
//! 1.0, `session-events.schema.json` in its package). The conversation is built from:
//!
//! * `system.message`: the system prompt Copilot sent (the last one is counted; Copilot
//!   sends a fresh one on resume, of the same kind);
//! * `user.message`: a user turn; Copilot sends `transformedContent` (the text with its
//!   `<current_datetime>` prefix), else `content`;
//! * `assistant.message`: the model's text and its `toolRequests`;
//! * `tool.execution_complete`: the result of one tool call (`result.content`), with its
//!   `tool.execution_start` line;
//! * `session.compaction_complete` (success): Copilot's own compaction; everything before it
//!   is replaced by one user message holding the earlier user messages and the summary.
//!
//! `session.usage_record` events give the usage of each model call, `session.start` /
//! `session.model_change` / `assistant.message` the model. Events with an `agentId` belong
//! to a subagent and are not the main conversation. Everything else (turn markers,
//! shutdown and resume records, hooks …) is kept on rewrite and not counted.

use std::collections::HashMap;

use serde_json::Value;

use crate::formats::jsonl::{records, Record};
use crate::formats::message::compact_meta;
use crate::session::{
    CompactMeta, LinesDoc, Message, Origin, Part, ReadError, ReportedUsage, Role,
};

/// Who wrote a compaction summary Copilot CLI made itself.
pub const BY: &str = "copilot-cli";

/// The text Copilot CLI 1.0 sends in place of a compacted history (observed with
/// `copilot --resume` after `/compact`): the earlier user messages, then the summary.
pub fn compacted_text(user_messages: &[String], summary: &str) -> String {
    let mut out = String::from(
        "Some of the conversation history has been summarized to free up context.\n\n\
         You were originally given instructions from a user over one or more turns. Here \
         were the user messages:\n",
    );
    for m in user_messages {
        out.push_str("<user_message>\n");
        out.push_str(m);
        out.push_str("\n</user_message>\n");
    }
    out.push_str("\nHere is a summary of the prior context:\n<summary>\n");
    out.push_str(summary);
    out.push_str("\n</summary>\n");
    out
}

/// A read event log.
#[derive(Debug, Default)]
pub struct Log {
    pub messages: Vec<Message>,
    pub model: Option<String>,
    pub usage: Option<ReportedUsage>,
    /// The prompt-token limit Copilot used (`maxPromptTokens` of its usage records).
    pub window: Option<u64>,
    /// The last recorded timestamp.
    pub last_time: Option<String>,
    pub truncated_tail: Option<usize>,
    pub warnings: Vec<String>,
}

pub fn str_at<'a>(v: &'a Value, path: &str) -> Option<&'a str> {
    v.pointer(path).and_then(Value::as_str)
}

/// Whether `v` looks like a Copilot CLI event.
pub fn is_event(v: &Value) -> bool {
    v.get("type").is_some_and(Value::is_string)
        && v.get("data").is_some_and(Value::is_object)
        && v.get("id").is_some()
        && v.get("parentId").is_some()
}

impl Log {
    pub fn parse(doc: &LinesDoc) -> Result<Log, ReadError> {
        let mut log = Log::default();
        let mut system: Option<Message> = None;
        // Every user message's `content` so far (what a compaction lists).
        let mut said: Vec<String> = Vec::new();
        // Tool call id -> the line of its `tool.execution_start`.
        let mut started: HashMap<String, usize> = HashMap::new();
        let mut usages: Vec<(usize, u64, u64)> = Vec::new();
        for rec in records(doc) {
            let (i, v) = match rec? {
                Record::Line(i, v) => (i, v),
                Record::Truncated(i, w) => {
                    log.truncated_tail = Some(i);
                    log.warnings.push(w);
                    continue;
                }
            };
            let place = || format!("line {}", i + 1);
            if !is_event(&v) {
                return Err(ReadError::shape(
                    place(),
                    "a Copilot CLI event {\"type\", \"data\", \"id\", \"parentId\", …}",
                ));
            }
            if let Some(t) = v.get("timestamp").and_then(Value::as_str) {
                log.last_time = Some(t.to_string());
            }
            if v.get("agentId").is_some() {
                continue;
            }
            // A record ctxctl wrote: the usage recorded before it was of another history.
            if v.get("ctxctl").is_some() {
                usages.clear();
            }
            let ty = v["type"].as_str().unwrap_or_default();
            let data = &v["data"];
            let with_id = |m: Message| stamped(&v, m);
            match ty {
                "session.start" => {
                    if let Some(m) = str_at(data, "/selectedModel") {
                        log.model = Some(m.to_string());
                    }
                }
                "session.model_change" => {
                    if let Some(m) = str_at(data, "/newModel") {
                        log.model = Some(m.to_string());
                    }
                }
                "system.message" => {
                    system = Some(system_prompt(&v, i));
                }
                "user.message" => {
                    said.push(said_by_user(data).to_string());
                    log.messages.push(with_id(user(data, i)));
                }
                "assistant.message" => {
                    if let Some(m) = str_at(data, "/model") {
                        log.model = Some(m.to_string());
                    }
                    log.messages.push(with_id(assistant(data, i)));
                }
                "tool.execution_start" => {
                    if let Some(c) = str_at(data, "/toolCallId") {
                        started.insert(c.to_string(), i);
                    }
                }
                "tool.execution_complete" => {
                    let call = str_at(data, "/toolCallId").unwrap_or_default();
                    let start = started.remove(call);
                    log.messages.push(with_id(tool_done(data, i, start)));
                }
                "session.compaction_complete" => {
                    let Some(summary) = str_at(data, "/summaryContent")
                        .filter(|_| data.get("success").and_then(Value::as_bool) == Some(true))
                    else {
                        continue;
                    };
                    log.messages.clear();
                    usages.clear();
                    log.messages.push(compaction(&v, &said, summary, i));
                }
                "session.usage_record" => {
                    let u = &data["usage"];
                    let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
                    if let Some(w) = u.get("maxPromptTokens").and_then(Value::as_u64) {
                        log.window = Some(w);
                    }
                    let input = n("inputTokens") + n("cacheReadTokens") + n("cacheWriteTokens");
                    if input > 0 {
                        usages.push((log.messages.len(), input, n("outputTokens")));
                    }
                }
                _ => {}
            }
        }
        // The system prompt goes first, as Copilot sends it.
        if let Some(s) = system {
            log.messages.insert(0, s);
            for u in &mut usages {
                u.0 += 1;
            }
        }
        if let Some((end, input, output)) = usages.pop() {
            log.usage = Some(ReportedUsage {
                input_tokens: input,
                output_tokens: output,
                after_message: log.messages.len().checked_sub(1).filter(|&a| a >= end),
                request_end: Some(end),
                earlier: usages.iter().map(|&(e, i, _)| (e, i)).collect(),
                dropped: 0,
            });
        }
        Ok(log)
    }
}

/// `m` with the id of its event `v` and ctxctl's metadata (a summary's compact_id …),
/// which rides along under `ctxctl`.
pub fn stamped(v: &Value, mut m: Message) -> Message {
    m.id = v.get("id").and_then(Value::as_str).map(str::to_string);
    if m.compact.is_none() {
        m.compact = v.get("ctxctl").and_then(compact_meta).map(Box::new);
    }
    m
}

/// The system prompt of a `system.message` event `v` on line `line`.
pub fn system_prompt(v: &Value, line: usize) -> Message {
    let text = str_at(&v["data"], "/content").unwrap_or_default();
    let mut m = Message::new(
        Role::System,
        vec![Part::Text(text.into())],
        Origin::Record(line),
    );
    m.id = v.get("id").and_then(Value::as_str).map(str::to_string);
    m
}

/// What a `user.message` said (what a compaction lists).
pub fn said_by_user(data: &Value) -> &str {
    str_at(data, "/content").unwrap_or_default()
}

/// A `user.message`: Copilot sends `transformedContent`, else `content`.
pub fn user(data: &Value, line: usize) -> Message {
    let sent = str_at(data, "/transformedContent").unwrap_or(said_by_user(data));
    Message::new(
        Role::User,
        vec![Part::Text(sent.into())],
        Origin::Record(line),
    )
}

/// A `tool.execution_complete` on line `line`, its `tool.execution_start` on `start`.
pub fn tool_done(data: &Value, line: usize, start: Option<usize>) -> Message {
    let call = str_at(data, "/toolCallId").unwrap_or_default();
    let origin = match start {
        Some(s) => Origin::Records(vec![s, line]),
        None => Origin::Record(line),
    };
    tool_result(data, call, origin)
}

/// The message a successful `session.compaction_complete` event `v` (on line `line`,
/// summary `summary`) leaves in place of the history before it, `said` the user messages
/// before it.
pub fn compaction(v: &Value, said: &[String], summary: &str, line: usize) -> Message {
    let mut m = Message::new(
        Role::User,
        vec![Part::Text(compacted_text(said, summary))],
        Origin::Record(line),
    );
    m.compact = Some(Box::new(CompactMeta {
        id: v.get("id").and_then(Value::as_str).map(str::to_string),
        seq: None,
        timestamp: v.get("timestamp").and_then(Value::as_str).map(Into::into),
        by: BY,
    }));
    stamped(v, m)
}

/// An `assistant.message`: its text, then a tool call per `toolRequests` entry.
pub fn assistant(data: &Value, line: usize) -> Message {
    let mut parts = Vec::new();
    if let Some(r) = str_at(data, "/reasoningText").filter(|t| !t.is_empty()) {
        parts.push(Part::Thinking(r.into()));
    }
    if let Some(t) = str_at(data, "/content").filter(|t| !t.is_empty()) {
        parts.push(Part::Text(t.into()));
    }
    for r in data
        .get("toolRequests")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let arguments = match r.get("arguments") {
            Some(Value::String(s)) => s.clone(),
            Some(v) => v.to_string(),
            None => "{}".into(),
        };
        parts.push(Part::ToolCall {
            id: str_at(r, "/toolCallId").unwrap_or_default().into(),
            name: str_at(r, "/name").unwrap_or_default().into(),
            arguments,
        });
    }
    Message::new(Role::Assistant, parts, Origin::Record(line))
}

/// A `tool.execution_complete`: the result Copilot sends back (`result.content`, else the
/// error's message).
fn tool_result(data: &Value, call: &str, origin: Origin) -> Message {
    let ok = data.get("success").and_then(Value::as_bool) != Some(false);
    let text = str_at(data, "/result/content")
        .or_else(|| str_at(data, "/error/message"))
        .or_else(|| str_at(data, "/error"))
        .unwrap_or_default();
    Message::new(
        Role::Tool,
        vec![Part::ToolResult {
            call_id: call.into(),
            content: vec![Part::Text(text.into())],
            is_error: !ok,
        }],
        origin,
    )
}
