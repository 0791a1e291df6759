//! What OpenCode (1.18) sends of a session, as its `MessageV2.filterCompacted` and
//! `toModelMessages` decide it: pure functions over rows and rendering lines.
//!
//! * From the newest message back to the user message a completed compaction summary
//!   answers (an assistant message with `summary: true`, a `finish` and no `error`, whose
//!   `parentID` is that user message, which holds a `compaction` part); when that part has
//!   a `tail_start_id`, on back to that message, and the kept tail is sent after the
//!   summary: `[compaction, summary, tail…, later…]`.
//! * A user message's `text` parts (not `ignored`, not empty; `synthetic` ones too), its
//!   files, and a `compaction` part as the text "What did we do so far?"; an assistant
//!   message's text, reasoning, and each tool part as the call and its result
//!   ("[Old tool result content cleared]" once pruned). An assistant message with an
//!   error is left out, unless it was aborted after producing something.

use std::collections::HashSet;

use serde_json::Value;

use super::rows::Row;
use crate::session::{CompactMeta, Message, Origin, Part, Role};

/// What OpenCode's compaction user message says to the model.
pub const COMPACTION_PROMPT: &str = "What did we do so far?";
/// A tool result OpenCode pruned.
const CLEARED: &str = "[Old tool result content cleared]";
/// A tool call that never finished.
const INTERRUPTED: &str = "[Tool execution was interrupted]";

/// The facts about one message the selection needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Msg {
    pub id: String,
    pub user: bool,
    /// An assistant message that is a completed summary, with its parent.
    pub summary_of: Option<String>,
    /// A user message's `compaction` part: `Some(tail_start_id)`.
    pub compaction: Option<Option<String>>,
}

impl Msg {
    /// The facts of row `r`, or what is wrong with it.
    pub fn parse(r: &Row) -> Result<Msg, String> {
        let data: Value = serde_json::from_str(&r.data).map_err(|e| e.to_string())?;
        let role = data.get("role").and_then(Value::as_str).unwrap_or_default();
        let mut compaction = None;
        for p in &r.parts {
            let v: Value = serde_json::from_str(&p.data).map_err(|e| e.to_string())?;
            if v.get("type").and_then(Value::as_str) == Some("compaction") {
                compaction = Some(
                    v.get("tail_start_id")
                        .and_then(Value::as_str)
                        .map(String::from),
                );
                break;
            }
        }
        let completed = role == "assistant"
            && data.get("summary").and_then(Value::as_bool) == Some(true)
            && truthy(data.get("finish"))
            && !truthy(data.get("error"));
        Ok(Msg {
            id: r.id.clone(),
            user: role == "user",
            summary_of: completed
                .then(|| {
                    data.get("parentID")
                        .and_then(Value::as_str)
                        .map(String::from)
                })
                .flatten(),
            compaction,
        })
    }
}

fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) | Some(Value::Bool(false)) => false,
        Some(Value::String(s)) => !s.is_empty(),
        Some(_) => true,
    }
}

/// Indices of `msgs` (in stored order) OpenCode sends, in the order it sends them.
pub fn filter_compacted(msgs: &[Msg]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut completed: HashSet<&str> = HashSet::new();
    let mut tail: Option<&str> = None;
    for i in (0..msgs.len()).rev() {
        let m = &msgs[i];
        out.push(i);
        if let Some(t) = tail {
            if m.id == t {
                break;
            }
            continue;
        }
        if m.user && completed.contains(m.id.as_str()) {
            match &m.compaction {
                None => continue,
                Some(None) => break,
                Some(Some(t)) => {
                    tail = Some(t);
                    if m.id == *t {
                        break;
                    }
                    continue;
                }
            }
        }
        if let Some(p) = &m.summary_of {
            completed.insert(p);
        }
    }
    out.reverse();
    let Some(w) = out
        .iter()
        .rposition(|&i| msgs[i].user && matches!(msgs[i].compaction, Some(Some(_))))
    else {
        return out;
    };
    let h = &msgs[out[w]];
    let tail_id = h.compaction.clone().flatten();
    let j = out
        .iter()
        .enumerate()
        .position(|(z, &i)| z > w && msgs[i].summary_of.as_deref() == Some(&h.id));
    let v = out
        .iter()
        .position(|&i| Some(&msgs[i].id) == tail_id.as_ref());
    match (v, j) {
        (Some(v), Some(j)) if v < w && j > w => {
            let mut sent = out[w..=j].to_vec();
            sent.extend_from_slice(&out[v..w]);
            sent.extend_from_slice(&out[j + 1..]);
            sent
        }
        _ => out,
    }
}

/// One rendering line, parsed.
pub struct Line {
    pub id: String,
    pub time_created: i64,
    pub data: Value,
    pub parts: Vec<(String, Value)>,
}

impl Line {
    pub fn parse(v: &Value) -> Option<Line> {
        Some(Line {
            id: v.get("id")?.as_str()?.to_string(),
            time_created: v.get("time_created")?.as_i64()?,
            data: v.get("data")?.clone(),
            parts: v
                .get("parts")?
                .as_array()?
                .iter()
                .map(|p| {
                    Some((
                        p.get("id")?.as_str()?.to_string(),
                        p.get("data").cloned().unwrap_or(Value::Null),
                    ))
                })
                .collect::<Option<Vec<_>>>()?,
        })
    }

    pub fn role(&self) -> &str {
        self.data
            .get("role")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// ctxctl's facts on a message it wrote.
    pub fn ctxctl(&self) -> Option<&Value> {
        self.data.get("ctxctl")
    }

    pub fn is_summary(&self) -> bool {
        self.role() == "assistant"
            && self.data.get("summary").and_then(Value::as_bool) == Some(true)
    }

    /// Provider-reported usage of an assistant message: (prompt tokens, output tokens).
    pub fn usage(&self) -> Option<(u64, u64)> {
        let t = self.data.get("tokens")?;
        let n = |p: &str| t.pointer(p).and_then(Value::as_u64).unwrap_or(0);
        let input = n("/input") + n("/cache/read") + n("/cache/write");
        (input > 0).then(|| (input, n("/output")))
    }
}

/// The messages OpenCode sends for rendering line `line` (record `record`): none, one, or
/// an assistant message and the tool results of its calls.
pub fn messages(line: &Line, record: usize) -> Vec<Message> {
    let text = |p: &Value| p.get("text").and_then(Value::as_str).map(String::from);
    let kind = |p: &Value| {
        p.get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let mut out = Vec::new();
    match line.role() {
        "user" => {
            let mut parts = Vec::new();
            for (_, p) in &line.parts {
                match kind(p).as_str() {
                    "text" => {
                        let ignored = p.get("ignored").and_then(Value::as_bool) == Some(true);
                        if let Some(t) = text(p).filter(|t| !t.is_empty() && !ignored) {
                            parts.push(Part::Text(t));
                        }
                    }
                    "file" => {
                        let mime = p.get("mime").and_then(Value::as_str).unwrap_or_default();
                        if mime.starts_with("image/") {
                            parts.push(Part::Image {
                                media_type: Some(mime.to_string()),
                            });
                        } else if mime != "text/plain" && mime != "application/x-directory" {
                            parts.push(Part::Other {
                                kind: "file".into(),
                            });
                        }
                    }
                    "compaction" => parts.push(Part::Text(COMPACTION_PROMPT.into())),
                    "subtask" => parts.push(Part::Text(
                        "The following tool was executed by the user".into(),
                    )),
                    _ => {}
                }
            }
            if !parts.is_empty() {
                let mut m = Message::new(Role::User, parts, Origin::Record(record));
                m.id = Some(line.id.clone());
                out.push(m);
            }
        }
        "assistant" => {
            if let Some(e) = line.data.get("error").filter(|e| !e.is_null()) {
                let aborted = e.get("name").and_then(Value::as_str) == Some("MessageAbortedError");
                let produced = line
                    .parts
                    .iter()
                    .any(|(_, p)| !matches!(kind(p).as_str(), "step-start" | "reasoning"));
                if !(aborted && produced) {
                    return out;
                }
            }
            let mut parts = Vec::new();
            let mut results = Vec::new();
            for (_, p) in &line.parts {
                match kind(p).as_str() {
                    "text" => parts.push(Part::Text(text(p).unwrap_or_default())),
                    "reasoning" => parts.push(Part::Thinking(text(p).unwrap_or_default())),
                    "tool" => {
                        let id = p.get("callID").and_then(Value::as_str).unwrap_or_default();
                        let state = p.get("state").cloned().unwrap_or(Value::Null);
                        let input = state.get("input").cloned().unwrap_or(Value::Null);
                        parts.push(Part::ToolCall {
                            id: id.to_string(),
                            name: p
                                .get("tool")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .into(),
                            arguments: input.to_string(),
                        });
                        let (output, is_error) = tool_output(&state);
                        results.push(Part::ToolResult {
                            call_id: id.to_string(),
                            content: vec![Part::Text(output)],
                            is_error,
                        });
                    }
                    _ => {}
                }
            }
            if parts.is_empty() {
                return out;
            }
            let mut m = Message::new(Role::Assistant, parts, Origin::Record(record));
            m.id = Some(line.id.clone());
            if line.is_summary() {
                let c = line.ctxctl();
                m.compact = Some(Box::new(CompactMeta {
                    id: c
                        .and_then(|c| c.get("compact_id"))
                        .and_then(Value::as_str)
                        .map(String::from),
                    seq: c.and_then(|c| c.get("compact_seq")).and_then(Value::as_u64),
                    timestamp: c
                        .and_then(|c| c.get("compact_timestamp"))
                        .and_then(Value::as_str)
                        .map(String::from),
                    by: if c.is_some() { "ctxctl" } else { "opencode" },
                }));
            }
            out.push(m);
            if !results.is_empty() {
                out.push(Message::new(Role::Tool, results, Origin::Record(record)));
            }
        }
        _ => {}
    }
    out
}

/// What the model sees as a tool part's result, and whether it is an error.
fn tool_output(state: &Value) -> (String, bool) {
    let s = |k: &str| state.get(k).and_then(Value::as_str);
    match s("status") {
        Some("completed") => {
            if state
                .pointer("/time/compacted")
                .is_some_and(|v| !v.is_null())
            {
                return (CLEARED.into(), false);
            }
            let out = match state.get("output") {
                Some(Value::String(t)) => t.clone(),
                Some(Value::Object(o)) => o
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                Some(v) => v.to_string(),
                None => String::new(),
            };
            (out, false)
        }
        Some("error") => {
            let interrupted = state.pointer("/metadata/interrupted") == Some(&Value::Bool(true));
            match state.pointer("/metadata/output").and_then(Value::as_str) {
                Some(o) if interrupted => (o.to_string(), false),
                _ => (s("error").unwrap_or_default().to_string(), true),
            }
        }
        _ => (INTERRUPTED.into(), true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::join_text;

    fn msg(id: &str, user: bool) -> Msg {
        Msg {
            id: id.into(),
            user,
            summary_of: None,
            compaction: None,
        }
    }

    #[test]
    fn the_request_starts_at_the_last_completed_compaction() {
        let mut c = msg("c", true);
        c.compaction = Some(None);
        let mut s = msg("s", false);
        s.summary_of = Some("c".into());
        let all = [msg("a", true), msg("b", false), c, s, msg("d", true)];
        assert_eq!(filter_compacted(&all), [2, 3, 4]);
        // A summary not (yet) completed: everything is sent.
        let mut unfinished = all.clone();
        unfinished[3].summary_of = None;
        assert_eq!(filter_compacted(&unfinished), [0, 1, 2, 3, 4]);
    }

    #[test]
    fn a_kept_tail_is_sent_after_the_summary() {
        let mut c = msg("c", true);
        c.compaction = Some(Some("b".into()));
        let mut s = msg("s", false);
        s.summary_of = Some("c".into());
        let all = [
            msg("a", true),
            msg("b", true),
            msg("b2", false),
            c,
            s,
            msg("d", true),
        ];
        assert_eq!(filter_compacted(&all), [3, 4, 1, 2, 5]);
    }

    fn line(role: &str, extra: Value, parts: Vec<Value>) -> Line {
        let mut data = serde_json::json!({"role": role});
        if let (Value::Object(d), Value::Object(e)) = (&mut data, extra) {
            d.extend(e);
        }
        Line {
            id: "msg_1".into(),
            time_created: 1,
            data,
            parts: parts
                .into_iter()
                .map(|p| ("prt_1".to_string(), p))
                .collect(),
        }
    }

    #[test]
    fn parts_render_as_opencode_sends_them() {
        use serde_json::json;
        let u = line(
            "user",
            json!({}),
            vec![
                json!({"type": "text", "text": "hi"}),
                json!({"type": "text", "text": "skip", "ignored": true}),
                json!({"type": "text", "text": "Continue", "synthetic": true}),
                json!({"type": "compaction", "auto": true}),
            ],
        );
        let m = messages(&u, 3);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].text(), format!("hi\nContinue\n{COMPACTION_PROMPT}"));
        assert_eq!(m[0].origin, Origin::Record(3));
        let tool =
            |state: Value| json!({"type": "tool", "tool": "read", "callID": "c", "state": state});
        let a = line(
            "assistant",
            json!({}),
            vec![
                json!({"type": "step-start"}),
                json!({"type": "reasoning", "text": "think"}),
                tool(
                    json!({"status": "completed", "input": {}, "output": "old", "time": {"compacted": 5}}),
                ),
                tool(json!({"status": "error", "input": {}, "error": "boom"})),
                tool(json!({"status": "running", "input": {}})),
            ],
        );
        let m = messages(&a, 4);
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].call_ids().count(), 3);
        let results: Vec<(String, bool)> = m[1]
            .parts
            .iter()
            .map(|p| match p {
                Part::ToolResult {
                    content, is_error, ..
                } => (join_text(content), *is_error),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(
            results,
            [
                (CLEARED.to_string(), false),
                ("boom".to_string(), true),
                (INTERRUPTED.to_string(), true)
            ]
        );
        // A failed step is not sent; an aborted one that produced text is.
        let failed = line(
            "assistant",
            json!({"error": {"name": "APIError"}}),
            vec![json!({"type": "text", "text": "x"})],
        );
        assert!(messages(&failed, 5).is_empty());
        let aborted = line(
            "assistant",
            json!({"error": {"name": "MessageAbortedError"}}),
            vec![json!({"type": "text", "text": "x"})],
        );
        assert_eq!(messages(&aborted, 6).len(), 1);
    }
}
