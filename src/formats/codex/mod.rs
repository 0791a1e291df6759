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
mod held;
mod items;
mod reasoning;
mod restore;
mod rollout;
mod shell_output;
pub mod skel;
pub mod stream;
pub mod tools;
mod write;

use std::path::Path;

use serde_json::Value;

use super::agent::{AgentInfo, AgentStore, ResumeRule};
use crate::formats::message::Notes;
use crate::formats::{lines_doc, Codec, CountedRead, Counting, Written};
use crate::session::{
    Document, Format, LinesDoc, Parsed, ReadError, ReportedUsage, Role, Session, Text,
};
use crate::session::{Item, Keep, WriteError};
pub use rollout::{ActiveItem, Latest, Rollout, Source};

/// For each message of a Codex rollout: the Responses item it was read from when that item
/// has no line of its own (an element of a `compacted` record's `replacement_history`, or
/// the summary of an older one); `None` for messages read from their own line.
pub fn embedded_items(doc: &LinesDoc) -> Result<Vec<Option<Value>>, ReadError> {
    // Only the items without a line of their own are wanted, and a lean parse holds them.
    let parsed;
    let r = match kept(doc) {
        Some(r) => r,
        None => {
            parsed = Rollout::parse_lean(doc)?;
            &parsed
        }
    };
    let mut out = Vec::with_capacity(r.items.len() + 1);
    if r.system.is_some() {
        out.push(None);
    }
    out.extend(r.items.iter().map(|it| match it.source {
        Source::Line(_) => None,
        _ => it.value.as_deref().cloned(),
    }));
    Ok(out)
}

/// The lean parse the reader kept in `doc` for a rewrite ([`read_keeping`]).
pub(crate) fn kept(doc: &LinesDoc) -> Option<&Rollout> {
    doc.parsed.get::<Rollout>()
}

pub fn read(text: impl Into<String>) -> Result<Session, ReadError> {
    read_keeping(text, Keep::Document)
}

/// A rollout read; for a session that may be written back (`keep`: the document or its
/// layout), its lean parse is kept in the document, so that the writer (and the
/// archive, on another thread) do not parse a large rollout again beside the session.
pub fn read_keeping(text: impl Into<String>, keep: Keep) -> Result<Session, ReadError> {
    read_with(Text::from(text.into()), keep, None).map(|(s, _)| s)
}

/// [`Codec::read_counting`] of a rollout's text mapped from its file (see
/// [`crate::mapped`]): every pass of the read and of the writer goes through its lines in
/// order, letting go of the pages behind it.
pub fn read_counting_text(text: Text, count: Counting) -> Result<CountedRead, ReadError> {
    let (session, counts) = read_with(text, Keep::Document, Some(count))?;
    Ok((session, Some(counts)))
}

/// [`read_keeping`], each message given to `count` (when there is one) as soon as it is
/// made and its turn closed ([`reasoning::Closed`]): its count comes back in
/// message order, and its text may go before the next message is made, so that a large
/// rollout's messages' texts are never all held beside the rollout's.
fn read_with(
    text: Text,
    keep: Keep,
    count: Option<Counting>,
) -> Result<(Session, Vec<usize>), ReadError> {
    let mut doc = LinesDoc::new(text);
    // Each item's value is read again as its message is made: a large rollout's values
    // are never all held at once (with the text, the messages and the rollout).
    let mut r = Rollout::parse_lean(&doc)?;
    doc.truncated_tail = r.truncated_tail;
    let mut notes = Notes::default();
    // The usage's place and the closed turns are told from the messages' lines and
    // roles, known before the messages are made.
    let (lines, roles) = r.heads();
    let reported_usage = r
        .usage
        .map(|u| reported(lines.into_iter().map(Some), &roles, u));
    let closed = reasoning::Closed::of(&roles, reported_usage.as_ref());
    drop(roles);
    let mut dropped = 0;
    let mut counts = Vec::new();
    // Shell outputs as Codex sends them, before they are counted.
    let mut reformat = shell_output::Reformat::of_doc(&doc);
    let messages = r.messages_each(&doc, &mut notes, |k, m| {
        reformat.message(m);
        dropped += closed.close(k, m);
        if let Some(count) = count {
            counts.push(count(k, m));
        }
    })?;
    let reported_usage = reported_usage.map(|u| ReportedUsage { dropped, ..u });
    let mut warnings = std::mem::take(&mut r.warnings);
    warnings.extend(notes.into_warnings());
    let (model, agent_limits, request_extra) = (r.model.take(), r.limits, r.tools.take());
    if matches!(keep, Keep::Document | Keep::Layout) {
        doc.parsed = Parsed::new(r.for_writer());
    }
    let session = Session {
        format: Format::Codex,
        doc: Document::Lines(doc),
        messages,
        model,
        warnings,
        reported_usage,
        agent_limits,
        request_extra,
        resume: None,
        skipped: false,
    };
    Ok((session, counts))
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

    /// Kept items are copied from the rollout's lines, new ones carry their own text.
    fn writes_from_document(&self) -> bool {
        true
    }

    fn read(&self, text: String, keep: Keep) -> Result<Session, ReadError> {
        read_keeping(text, keep)
    }

    /// Each message counted as it is made, its turn closed first (the roles are known
    /// from the parse): a rewrite's load never holds all the messages' texts.
    fn read_counting(&self, text: String, count: Counting) -> Result<CountedRead, ReadError> {
        read_counting_text(text.into(), count)
    }

    fn write(&self, session: &Session, items: &[Item]) -> Result<Vec<u8>, WriteError> {
        Ok(write::write(session, lines_doc(session)?, items)?.into_bytes())
    }

    /// A rollout is rewritten by appending records to it (see [`write`]): only those are
    /// made, unless the rollout is legacy or a restore drops lines.
    fn write_in_place(&self, session: &Session, items: &[Item]) -> Result<Written, WriteError> {
        let rendered = write::write(session, lines_doc(session)?, items)?;
        Ok(match rendered.appended() {
            Some(suffix) => Written::Appended(suffix),
            None => Written::Whole(rendered.into_bytes()),
        })
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
    use serde_json::json;

    use super::*;
    use crate::session::{AgentLimits, Message, Origin, Part};

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
    fn structured_shell_outputs_are_counted_as_codex_sends_them_once_it_patched() {
        let out = r#"{"output":"ok","metadata":{"exit_code":0,"duration_seconds":0.5}}"#;
        let call = json!({"type":"function_call","name":"shell","arguments":"{}","call_id":"c"});
        let output = json!({"type":"function_call_output","call_id":"c","output":out});
        let patch =
            json!({"type":"custom_tool_call","name":"apply_patch","input":"x","call_id":"p"});
        let result_text = |lines: &[String]| {
            let s = read(lines.join("\n") + "\n").unwrap();
            let results: Vec<String> = (s.messages.iter())
                .flat_map(|m| &m.parts)
                .filter_map(|p| match p {
                    Part::ToolResult {
                        call_id, content, ..
                    } if call_id == "c" => Some(crate::session::join_text(content)),
                    _ => None,
                })
                .collect();
            results
        };
        let mut lines = vec![line("response_item", call), line("response_item", output)];
        assert_eq!(result_text(&lines), [out]);
        // The freeform patch tool's call, even after the output: Codex sends it with the
        // tools of every request of that model.
        lines.push(line("response_item", patch));
        assert_eq!(
            result_text(&lines),
            ["Exit code: 0\nWall time: 0.5 seconds\nOutput:\nok"]
        );
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
        // The session's own `session_meta` counts even when it records no instructions.
        let bare = json!({"id": "a", "dynamic_tools": tools});
        let parent = json!({"id": "b", "base_instructions": {"text": "parent"},
            "dynamic_tools": [{"name": "other", "description": "x", "inputSchema": {}}]});
        let lines = [
            line("session_meta", bare),
            line("session_meta", parent),
            line("response_item", user("hi")),
        ];
        let s = read(&(lines.join("\n") + "\n")).unwrap();
        let extra: Value = serde_json::from_str(s.request_extra.as_deref().unwrap()).unwrap();
        assert_eq!(extra[0]["name"], "lookup");
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
                lone_surrogates: None,
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
