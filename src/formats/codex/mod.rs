//! Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).
//!
//! Every line is `{"timestamp", "type", "payload"}`. The model's history is the
//! `response_item` payloads (Responses API input items); a `compacted` record replaces it
//! with its `replacement_history` (or, in older builds, with the user messages so far plus a
//! summary). `session_meta` holds the base instructions (a system message here);
//! `turn_context` the model; `event_msg` the UI stream and `token_count` usage reports.
//! Legacy rollouts (bare items after a `{id, timestamp, instructions}` line, with
//! `record_type` lines) are read too.

mod append;
pub mod fetch;
mod items;
mod reasoning;
mod restore;
pub mod skel;
pub mod stream;
pub mod tools;
mod write;

use std::path::Path;

use serde_json::{json, Value};

use super::agent::{AgentInfo, AgentStore, ResumeRule};
use crate::formats::jsonl::{records, Record};
use crate::formats::message::Notes;
use crate::formats::{lines_doc, Codec};
use crate::session::{parse_agent_version, Item, Keep, WriteError};
use crate::session::{
    AgentLimits, Document, Format, LinesDoc, Message, Origin, Part, ReadError, ReportedUsage, Role,
    Session,
};
use items::{codex_compact, item_message};

/// Where an item of the active history comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A `response_item` line (or a bare item line in a legacy rollout).
    Line(usize),
    /// Element `index` of the `replacement_history` of the `compacted` record on `line`.
    History { line: usize, index: usize },
    /// The summary text of an older `compacted` record on this line.
    Summary(usize),
}

impl Source {
    pub fn line(&self) -> usize {
        match self {
            Source::Line(l) | Source::Summary(l) | Source::History { line: l, .. } => *l,
        }
    }
}

/// One Responses API item of the active history.
#[derive(Debug, Clone)]
pub struct ActiveItem {
    pub value: Value,
    pub source: Source,
    /// Reasoning tokens the provider billed for this item's `encrypted_content`.
    pub billed: Option<usize>,
}

impl ActiveItem {
    fn new(value: Value, source: Source) -> ActiveItem {
        ActiveItem {
            value,
            source,
            billed: None,
        }
    }
}

/// Lines of the records a rewrite copies after its `compacted` record, as Codex 0.169
/// writes them after its own compaction.
#[derive(Debug, Default, Clone, Copy)]
pub struct Latest {
    /// The last `world_state` holding the whole state (`full: true`).
    pub world_state: Option<usize>,
    pub turn_context: Option<usize>,
    /// The last `token_count` event with usage.
    pub token_count: Option<usize>,
}

/// A parsed rollout.
#[derive(Debug, Default)]
pub struct Rollout {
    /// Base instructions and the line of the `session_meta` holding them.
    pub system: Option<(usize, String)>,
    /// The active history, one message each.
    pub items: Vec<ActiveItem>,
    pub model: Option<String>,
    /// `(input, output, line)` of the last `token_count` after the last compaction.
    pub usage: Option<(u64, u64, usize)>,
    /// Bare items without the `{timestamp, type, payload}` envelope.
    pub legacy: bool,
    pub truncated_tail: Option<usize>,
    pub warnings: Vec<String>,
    /// The last `timestamp` in the file, for records ctxctl appends.
    pub last_timestamp: Option<String>,
    /// The highest `ordinal` (Codex 0.169's paginated rollouts number every record).
    pub ordinal: Option<u64>,
    pub latest: Latest,
    /// The window Codex recorded (`model_context_window`) and whether its last request was
    /// refused as too large.
    pub limits: AgentLimits,
    /// The tools the first `session_meta` records that Codex sends besides its own
    /// ([`tools::sent`]), as JSON text.
    pub tools: Option<String>,
    /// Reasoning items waiting for the usage report of their response.
    unbilled: Vec<usize>,
    /// Call ids made in the same response as a reasoning item, per the file's own lines.
    reasoned_calls: std::collections::HashSet<String>,
    /// Whether the response being read (the `response_item`s since the last input item)
    /// holds a reasoning item.
    in_reasoned_response: bool,
    /// Billed reasoning items by their encrypted content's hash.
    billed: std::collections::HashMap<u128, usize>,
    /// The session total of the last usage report: Codex repeats a report unchanged (a
    /// rate-limit update), and the first of them is where the response's report stands.
    last_total: Option<Value>,
}

impl Rollout {
    pub fn parse(doc: &LinesDoc) -> Result<Rollout, ReadError> {
        let mut r = Rollout::default();
        let mut first = true;
        let mut enveloped = false;
        for record in records(doc) {
            let (i, v) = match record? {
                Record::Line(i, v) => (i, v),
                Record::Truncated(i, w) => {
                    r.warnings.push(w);
                    r.truncated_tail = Some(i);
                    continue;
                }
            };
            if !v.is_object() {
                return Err(ReadError::shape(format!("line {}", i + 1), "a JSON object"));
            }
            if let Some(ts) = v.get("timestamp").and_then(Value::as_str) {
                r.last_timestamp = Some(ts.to_string());
            }
            if let Some(o) = v.get("ordinal").and_then(Value::as_u64) {
                r.ordinal = Some(r.ordinal.map_or(o, |p| p.max(o)));
            }
            let was_first = std::mem::replace(&mut first, false);
            let ty = v.get("type").and_then(Value::as_str).unwrap_or("");
            match v.get("payload") {
                Some(payload) => {
                    enveloped = true;
                    r.record(i, ty, payload)
                }
                None => r.legacy_record(i, &v, was_first),
            }
        }
        // One record without a payload (damaged, or of a kind not known yet) does not make
        // a rollout legacy: its rewrite would then delete lines, `compacted` ones included,
        // and bring back the history they replaced.
        r.legacy &= !enveloped;
        Ok(r)
    }

    fn record(&mut self, line: usize, ty: &str, payload: &Value) {
        match ty {
            "session_meta" if self.system.is_none() => {
                self.limits.agent_version = payload
                    .get("cli_version")
                    .and_then(Value::as_str)
                    .and_then(parse_agent_version);
                self.limits.instructions_read = payload
                    .pointer("/base_instructions/text")
                    .and_then(Value::as_str)
                    .is_some_and(|s| !s.is_empty());
                let text = payload
                    .pointer("/base_instructions/text")
                    .or_else(|| payload.get("instructions"))
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty());
                if let Some(text) = text {
                    self.system = Some((line, text.to_string()));
                }
                self.tools = tools::sent(payload);
            }
            "response_item" if is_model_item(payload) => {
                self.response_item(payload);
                self.items
                    .push(ActiveItem::new(payload.clone(), Source::Line(line)));
            }
            "compacted" => self.compacted(line, payload),
            "turn_context" => {
                self.latest.turn_context = Some(line);
                if let Some(m) = payload.get("model").and_then(Value::as_str) {
                    self.model = Some(m.to_string());
                }
            }
            "world_state" if payload.get("full").and_then(Value::as_bool) == Some(true) => {
                self.latest.world_state = Some(line);
            }
            "token_usage_record" => {
                if let Some(u) = payload.get("usage") {
                    self.bill(u);
                }
            }
            "event_msg" => self.event(line, payload),
            _ => {}
        }
    }

    fn event(&mut self, line: usize, payload: &Value) {
        let window = |v: Option<&Value>| v.and_then(Value::as_u64).filter(|&w| w > 0);
        match payload.get("type").and_then(Value::as_str) {
            Some("token_count") => {
                let Some(info) = payload.get("info").filter(|i| i.is_object()) else {
                    return;
                };
                self.latest.token_count = Some(line);
                if let Some(w) = window(info.get("model_context_window")) {
                    self.limits.window = Some(w);
                }
                let last = info.get("last_token_usage");
                if let Some(u) = last {
                    self.bill(u);
                }
                let n = |k: &str| last.and_then(|u| u.get(k)).and_then(Value::as_u64);
                let total = info.get("total_token_usage").cloned();
                let repeated = total.is_some() && total == self.last_total && self.usage.is_some();
                self.last_total = total;
                if let (Some(input), Some(output), false) =
                    (n("input_tokens"), n("output_tokens"), repeated)
                {
                    if input > 0 {
                        self.usage = Some((input, output, line));
                        self.limits.overflow = false;
                    }
                }
            }
            Some("task_started") => {
                if let Some(w) = window(payload.get("model_context_window")) {
                    self.limits.window = Some(w);
                }
            }
            Some("task_complete") => {
                let info = payload.pointer("/error/codex_error_info");
                if info.and_then(Value::as_str) == Some("context_window_exceeded") {
                    self.limits.overflow = true;
                }
            }
            _ => {}
        }
    }

    fn compacted(&mut self, line: usize, payload: &Value) {
        self.usage = None;
        self.limits.overflow = false;
        self.unbilled.clear();
        if let Some(history) = payload.get("replacement_history").and_then(Value::as_array) {
            self.items = history
                .iter()
                .enumerate()
                .filter(|(_, v)| is_model_item(v))
                .map(|(index, v)| ActiveItem {
                    value: v.clone(),
                    source: Source::History { line, index },
                    billed: self.billed_before(v),
                })
                .collect();
            return;
        }
        // Older builds: the history becomes the user messages so far plus the summary.
        let summary = payload.get("message").and_then(Value::as_str).unwrap_or("");
        self.items.retain(|it| {
            it.value.get("type").and_then(Value::as_str) == Some("message")
                && it.value.get("role").and_then(Value::as_str) == Some("user")
        });
        self.items.push(ActiveItem::new(
            json!({"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": summary}]}),
            Source::Summary(line),
        ));
    }

    fn legacy_record(&mut self, line: usize, v: &Value, first: bool) {
        self.legacy = true;
        if v.get("record_type").is_some() {
            return;
        }
        if first && v.get("type").is_none() {
            if let Some(text) = v.get("instructions").and_then(Value::as_str) {
                if !text.is_empty() {
                    self.system = Some((line, text.to_string()));
                }
            }
            return;
        }
        if is_model_item(v) {
            self.response_item(v);
            self.items
                .push(ActiveItem::new(v.clone(), Source::Line(line)));
        }
    }

    /// Whether the file holds Codex 0.169's paginated history: records ctxctl appends then
    /// carry the next ordinals.
    pub fn paginated(&self) -> bool {
        self.ordinal.is_some()
    }

    /// The session's messages: the instructions, then one per active item.
    pub fn messages(&self, notes: &mut Notes) -> Result<Vec<Message>, ReadError> {
        let mut out = Vec::with_capacity(self.items.len() + 1);
        if let Some((line, text)) = &self.system {
            out.push(Message::new(
                Role::System,
                vec![Part::Text(text.clone())],
                Origin::Record(*line),
            ));
        }
        for it in &self.items {
            let place = match &it.source {
                Source::History { line, index } => {
                    format!("line {}: replacement_history[{index}]", line + 1)
                }
                s => format!("line {}: payload", s.line() + 1),
            };
            let mut m = item_message(&it.value, &place, Origin::Record(it.source.line()), notes)?;
            if matches!(it.source, Source::Summary(_)) || self.is_codex_summary(it) {
                m.compact = Some(Box::new(codex_compact()));
            }
            reasoning::annotate(&mut m, it, &self.reasoned_calls);
            out.push(m);
        }
        Ok(out)
    }
}

/// For each message of a Codex rollout: the Responses item it was read from when that item
/// has no line of its own (an element of a `compacted` record's `replacement_history`, or
/// the summary of an older one); `None` for messages read from their own line.
pub fn embedded_items(doc: &LinesDoc) -> Result<Vec<Option<Value>>, ReadError> {
    let r = Rollout::parse(doc)?;
    let mut out = Vec::with_capacity(r.items.len() + 1);
    if r.system.is_some() {
        out.push(None);
    }
    out.extend(r.items.into_iter().map(|it| match it.source {
        Source::Line(_) => None,
        _ => Some(it.value),
    }));
    Ok(out)
}

/// Items that are model history (`ghost_snapshot` is an undo point, not model input).
fn is_model_item(v: &Value) -> bool {
    matches!(v.get("type").and_then(Value::as_str), Some(t) if t != "ghost_snapshot")
}

pub fn read(text: impl Into<String>) -> Result<Session, ReadError> {
    let mut doc = LinesDoc::new(text.into());
    let r = Rollout::parse(&doc)?;
    doc.truncated_tail = r.truncated_tail;
    let mut notes = Notes::default();
    let mut messages = r.messages(&mut notes)?;
    let reported_usage = r.usage.map(|u| {
        let lines = (messages.iter()).map(|m| m.origin.records().first().copied());
        let roles: Vec<Role> = messages.iter().map(|m| m.role).collect();
        reported(lines, &roles, u)
    });
    let dropped = reasoning::drop_closed_turns(&mut messages, reported_usage.as_ref());
    let reported_usage = reported_usage.map(|u| ReportedUsage { dropped, ..u });
    let mut warnings = r.warnings.clone();
    warnings.extend(notes.into_warnings());
    Ok(Session {
        format: Format::Codex,
        doc: Document::Lines(doc),
        messages,
        model: r.model,
        warnings,
        reported_usage,
        agent_limits: r.limits,
        request_extra: r.tools,
        resume: None,
        skipped: false,
    })
}

/// The usage `(input, output, line)` a rollout reports, placed among its messages (each's
/// first line and role).
pub fn reported(
    lines: impl IntoIterator<Item = Option<usize>>,
    roles: &[Role],
    (input_tokens, output_tokens, line): (u64, u64, usize),
) -> ReportedUsage {
    let before = (lines.into_iter())
        .take_while(|l| l.is_some_and(|l| l < line))
        .count();
    // The response is the run of assistant items (reasoning, calls, answers) the
    // report follows; what came before it was the request. Older Codex builds (0.58)
    // write the report before the response: then everything before it was the request.
    let response = roles[..before]
        .iter()
        .rev()
        .take_while(|r| **r == Role::Assistant)
        .count();
    ReportedUsage {
        input_tokens,
        output_tokens,
        after_message: before.checked_sub(1),
        request_end: Some(before - response),
        earlier: Vec::new(),
        dropped: 0,
    }
}

/// Codex CLI rollouts (`~/.codex/sessions/**/rollout-*.jsonl`).
pub struct Codex;

/// Envelope types of a current rollout (`{"timestamp", "type", "payload"}`).
const CODEX_TYPES: [&str; 6] = [
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
    "world_state",
];

/// Codex CLI outside its rollouts: `~/.codex/sessions` (`$CODEX_HOME`), the `codex`
/// program, `codex resume ID`.
pub static AGENT: AgentInfo = AgentInfo {
    programs: &["codex"],
    packages: &["codex"],
    stores: |env, home| {
        let root = env
            .var("CODEX_HOME")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| home.join(".codex"));
        vec![AgentStore::dir("codex", root.join("sessions"))]
    },
    resume: Some(ResumeRule {
        var: "CTXCTL_CODEX_BIN",
        program: "codex",
        args: |id, _| vec!["resume".into(), id.into()],
        id_of: Some(|path| {
            super::agent::head_value(path, |r| {
                (r.get("type")?.as_str()? == "session_meta")
                    .then(|| r.get("payload")?.get("id")?.as_str().map(str::to_string))?
            })
            .or_else(|| id_from_name(path))
        }),
    }),
    id_by_place: None,
    database: None,
};

/// The uuid that ends a rollout's name (`rollout-<time>-<uuid>.jsonl`).
fn id_from_name(path: &std::path::Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    let id = stem.get(stem.len().checked_sub(36)?..)?;
    (id.chars().filter(|c| *c == '-').count() == 4).then(|| id.to_string())
}

impl Codec for Codex {
    fn agent_info(&self) -> Option<&'static AgentInfo> {
        Some(&AGENT)
    }

    fn format(&self) -> Format {
        Format::Codex
    }

    fn name(&self) -> &'static str {
        "codex"
    }

    fn project(&self, _path: &Path, head: &[Value]) -> Option<String> {
        head.iter()
            .find(|r| r.get("type").and_then(Value::as_str) == Some("session_meta"))?
            .pointer("/payload/cwd")?
            .as_str()
            .map(String::from)
    }

    fn line_score(&self, index: usize, r: &Value) -> usize {
        let ty = r.get("type").and_then(Value::as_str).unwrap_or("");
        let envelope = r.get("payload").is_some() && CODEX_TYPES.contains(&ty);
        // Legacy rollouts: bare items after an `{id, timestamp, instructions}` line.
        let legacy =
            r.get("record_type").is_some() || (index == 0 && r.get("instructions").is_some());
        usize::from(envelope) + usize::from(legacy)
    }

    fn read(&self, text: String, _keep: Keep) -> Result<Session, ReadError> {
        read(text)
    }

    fn write(&self, session: &Session, items: &[Item]) -> Result<Vec<u8>, WriteError> {
        Ok(write::write(session, lines_doc(session)?, items)?.into_bytes())
    }

    fn write_to(
        &self,
        session: &Session,
        items: &[Item],
        out: &mut dyn std::io::Write,
    ) -> Result<(), WriteError> {
        Ok(write::write(session, lines_doc(session)?, items)?.write_to(out)?)
    }

    /// A message read from a `compacted` record's `replacement_history` is archived as its
    /// item, not as the whole record its origin names.
    fn embedded_items(&self, session: &Session) -> Option<Vec<Option<Value>>> {
        let Document::Lines(doc) = &session.doc else {
            return None;
        };
        embedded_items(doc)
            .ok()
            .filter(|e| e.len() == session.messages.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_ids_come_from_the_rollout_name() {
        let p = Path::new("rollout-2026-01-02T03-04-05-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl");
        assert_eq!(
            id_from_name(p).as_deref(),
            Some("0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
        );
        assert_eq!(id_from_name(Path::new("short.jsonl")), None);
    }

    use crate::session::Item;

    fn line(ty: &str, payload: Value) -> String {
        json!({"timestamp": "2025-01-01T00:00:00.000Z", "type": ty, "payload": payload}).to_string()
    }

    fn user(text: &str) -> Value {
        json!({"type":"message","role":"user","content":[{"type":"input_text","text":text}]})
    }

    #[test]
    fn the_first_session_meta_s_dynamic_tools_are_sent_with_the_request() {
        let tools =
            json!([{"name": "lookup", "description": "Find", "inputSchema": {"type": "object"}}]);
        let first =
            json!({"id": "a", "base_instructions": {"text": "be good"}, "dynamic_tools": tools});
        // A fork copies its parent's `session_meta` after its own: the first one counts.
        let parent = json!({"id": "b", "base_instructions": {"text": "parent"},
            "dynamic_tools": [{"name": "other", "description": "x", "inputSchema": {}}]});
        let lines = [
            line("session_meta", first),
            line("session_meta", parent),
            line("response_item", user("hi")),
        ];
        let s = read(&(lines.join("\n") + "\n")).unwrap();
        let extra: Value = serde_json::from_str(s.request_extra.as_deref().unwrap()).unwrap();
        assert_eq!(extra[0]["name"], "lookup");
        assert_eq!(extra.as_array().unwrap().len(), 1);
        // Without them, nothing is added.
        let plain = [
            line("session_meta", json!({"id": "a"})),
            line("response_item", user("hi")),
        ];
        assert_eq!(
            read(&(plain.join("\n") + "\n")).unwrap().request_extra,
            None
        );
    }

    #[test]
    fn items_become_messages() {
        let lines = [
            line(
                "session_meta",
                json!({"id":"x","base_instructions":{"text":"be good"}}),
            ),
            line(
                "response_item",
                json!({"type":"message","role":"developer","content":[{"type":"input_text","text":"perm"}]}),
            ),
            line("response_item", user("hi")),
            line("turn_context", json!({"model":"gpt-5"})),
            line(
                "response_item",
                json!({"type":"ghost_snapshot","ghost_commit":{}}),
            ),
            line(
                "response_item",
                json!({"type":"reasoning","summary":[{"type":"summary_text","text":"hmm"}],"encrypted_content":"gAAA"}),
            ),
            line(
                "response_item",
                json!({"type":"function_call","name":"shell","arguments":"{}","call_id":"c1"}),
            ),
            line(
                "event_msg",
                json!({"type":"token_count","info":{"last_token_usage":{"input_tokens":900,"output_tokens":20}}}),
            ),
            line(
                "response_item",
                json!({"type":"function_call_output","call_id":"c1","output":"{\"output\":\"ok\"}"}),
            ),
        ];
        let s = read(&(lines.join("\n") + "\n")).unwrap();
        let roles: Vec<Role> = s.messages.iter().map(|m| m.role).collect();
        assert_eq!(
            roles,
            [
                Role::System,
                Role::Developer,
                Role::User,
                Role::Assistant,
                Role::Assistant,
                Role::Tool
            ]
        );
        assert_eq!(
            s.messages[3].parts,
            [
                Part::Thinking("hmm".into()),
                Part::Opaque {
                    kind: "encrypted_content".into(),
                    bytes: 4,
                    tokens: None
                }
            ]
        );
        assert_eq!(s.messages[5].result_ids().collect::<Vec<_>>(), ["c1"]);
        assert_eq!(s.model.as_deref(), Some("gpt-5"));
        let u = s.reported_usage.unwrap();
        assert_eq!(
            (u.input_tokens, u.output_tokens, u.after_message),
            (900, 20, Some(4))
        );
    }

    #[test]
    fn compaction_replaces_the_history() {
        let lines = [
            line("session_meta", json!({"id":"x","instructions":null})),
            line("response_item", user("old")),
            line(
                "event_msg",
                json!({"type":"token_count","info":{"last_token_usage":{"input_tokens":5,"output_tokens":1}}}),
            ),
            line(
                "compacted",
                json!({"message":"","replacement_history":[user("kept"),{"type":"compaction","encrypted_content":"xyz"}]}),
            ),
            line("response_item", user("new")),
        ];
        let s = read(lines.join("\n")).unwrap();
        let texts: Vec<String> = s.messages.iter().map(Message::text).collect();
        assert_eq!(texts, ["kept", "", "new"]);
        assert_eq!(s.messages[1].compact.as_ref().unwrap().by, "codex");
        assert_eq!(s.messages[0].origin, Origin::Record(3));
        assert_eq!(s.reported_usage, None, "usage before a compaction is stale");
    }

    #[test]
    fn older_compaction_keeps_user_messages_and_the_summary() {
        let lines = [
            line("response_item", user("ask")),
            line(
                "response_item",
                json!({"type":"message","role":"assistant","content":[{"type":"output_text","text":"answer"}]}),
            ),
            line("compacted", json!({"message":"the summary"})),
        ];
        let s = read(lines.join("\n")).unwrap();
        let texts: Vec<String> = s.messages.iter().map(Message::text).collect();
        assert_eq!(texts, ["ask", "the summary"]);
        assert!(s.messages[1].compact.is_some());
    }

    #[test]
    fn legacy_rollouts_read() {
        let text = "{\"id\":\"x\",\"timestamp\":\"t\",\"instructions\":\"sys\"}\n{\"record_type\":\"state\"}\n{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"hi\"}]}\n";
        let s = read(text).unwrap();
        assert_eq!(s.messages.len(), 2);
        assert_eq!(s.messages[0].role, Role::System);
        assert_eq!(s.messages[1].origin, Origin::Record(2));
    }

    #[test]
    fn a_record_without_payload_does_not_make_a_rollout_legacy() {
        let lines = [
            line("response_item", user("old, replaced by the compaction")),
            r#"{"timestamp":"t","type":"response_item","pa'load":{"type":"message"}}"#.to_string(),
            line(
                "compacted",
                json!({"message":"","replacement_history":[user("first"),user("second")]}),
            ),
            line("response_item", user("third")),
        ];
        let s = read(lines.join("\n")).unwrap();
        let texts: Vec<String> = s.messages.iter().map(Message::text).collect();
        assert_eq!(texts, ["first", "second", "third"]);
        // Dropping the messages of the `compacted` record must not revive what it replaced.
        let out = crate::formats::write(&s, &[Item::Keep(2)]).unwrap();
        let again = read(String::from_utf8(out).unwrap()).unwrap();
        let texts: Vec<String> = again.messages.iter().map(Message::text).collect();
        assert_eq!(texts, ["third"]);
    }

    #[test]
    fn the_window_and_a_refused_request_are_read() {
        let failed = json!({"type":"task_complete","error":{"message":"too long","codex_error_info":"context_window_exceeded"}});
        let mut lines = vec![
            line("session_meta", json!({"id":"x"})),
            line(
                "event_msg",
                json!({"type":"task_started","model_context_window":258400}),
            ),
            line("response_item", user("hi")),
            line("event_msg", failed),
        ];
        let s = read(lines.join("\n")).unwrap();
        assert_eq!(
            s.agent_limits,
            AgentLimits {
                window: Some(258_400),
                overflow: true,
                subagent: false,
                instructions_read: false,
                prompt_measured: false,
                full_tool_schemas: false,
                agent_version: None,
                compacted_at: None,
                hidden_before_compaction: None,
                ratio_before_compaction: None,
            }
        );
        // A compaction (or a later answer) ends it.
        lines.push(line(
            "compacted",
            json!({"message":"","replacement_history":[user("hi")]}),
        ));
        assert!(!read(lines.join("\n")).unwrap().agent_limits.overflow);
    }

    #[test]
    fn reasoning_is_billed_by_the_usage_report_of_its_response() {
        let rs =
            |n: usize| json!({"type":"reasoning","summary":[],"encrypted_content":"e".repeat(n)});
        let usage = json!({"input_tokens":10,"output_tokens":30,"reasoning_output_tokens":20});
        let lines = [
            line("response_item", user("go")),
            line("response_item", rs(30)),
            line("response_item", rs(10)),
            line(
                "response_item",
                json!({"type":"function_call","name":"f","arguments":"{}","call_id":"c"}),
            ),
            line("token_usage_record", json!({"usage": usage})),
            line(
                "response_item",
                json!({"type":"function_call_output","call_id":"c","output":"Process exited with code 2\nOutput:\n"}),
            ),
            line("response_item", rs(40)),
        ];
        let s = read(lines.join("\n")).unwrap();
        let tokens: Vec<Option<usize>> = s
            .messages
            .iter()
            .flat_map(|m| &m.parts)
            .filter_map(|p| match p {
                Part::Opaque { tokens, .. } => Some(*tokens),
                _ => None,
            })
            .collect();
        // 20 shared 3:1 by size; the last has no report yet and is estimated.
        assert_eq!(tokens, [Some(15), Some(5), None]);
        assert!(s.messages[3].needs_reasoning);
        assert!(matches!(
            s.messages[4].parts[0],
            Part::ToolResult { is_error: true, .. }
        ));
    }

    #[test]
    fn bad_items_name_their_line() {
        let text = line("response_item", json!({"type":"message","content":[]}));
        let e = read(&text).unwrap_err();
        assert!(e.to_string().starts_with("line 1: payload"), "{e}");
    }
}
