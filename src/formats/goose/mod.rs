//! goose JSONL sessions (goose ≤ 1.9, `~/.local/share/goose/sessions/<id>.jsonl`, and the
//! files later versions import): a metadata line, then one goose `Message` per line.
//!
//! Messages marked `metadata.agentVisible: false` (summarized by a compaction, UI-only) are
//! not part of what the model sees: they are carried along untouched, not read as messages.

pub(crate) mod restore;
pub mod stream;
pub(crate) mod write;

use std::path::Path;

use serde_json::Value;

use super::agent::{AgentInfo, ResumeRule};
use crate::formats::jsonl::{records, Record};
use crate::formats::message::{self, args_text, Notes};
use crate::formats::{lines_doc, Codec};
use crate::session::{
    CompactMeta, Document, Format, LinesDoc, Message, Origin, Part, ReadError, Role, Session,
};
use crate::session::{Item, Keep, RestorePlan, WriteError};
pub use stream::{line_read, reported, LineRead};

/// Content types goose uses for the UI and control flow; not sent to the model.
const UI_TYPES: [&str; 7] = [
    "toolConfirmationRequest",
    "actionRequired",
    "systemNotification",
    "contextLengthExceeded",
    "summarizationRequested",
    "conversationCompacted",
    "notification",
];

/// A parsed goose session.
#[derive(Debug, Default)]
pub struct GooseFile {
    /// Line of the metadata record.
    pub metadata: Option<(usize, Value)>,
    /// `(line, record)` of every message the agent sees, in order.
    pub visible: Vec<(usize, Value)>,
    /// Lines of the messages the agent does not see (`agentVisible: false`), in order.
    pub hidden: Vec<usize>,
    /// `created` of every message line, hidden ones included, in file order.
    pub created: Vec<(usize, i64)>,
    pub truncated_tail: Option<usize>,
    pub warnings: Vec<String>,
}

impl GooseFile {
    pub fn parse(doc: &LinesDoc) -> Result<GooseFile, ReadError> {
        let mut g = GooseFile::default();
        let mut first = true;
        for record in records(doc) {
            let (i, v) = match record? {
                Record::Line(i, v) => (i, v),
                Record::Truncated(i, w) => {
                    g.warnings.push(w);
                    g.truncated_tail = Some(i);
                    continue;
                }
            };
            let place = format!("line {}", i + 1);
            if !v.is_object() {
                return Err(ReadError::shape(place, "a JSON object"));
            }
            let was_first = std::mem::replace(&mut first, false);
            if v.get("role").is_none() {
                if was_first {
                    g.metadata = Some((i, v));
                } else {
                    g.warnings
                        .push(format!("{place}: not a message (no \"role\"); kept as is"));
                }
                continue;
            }
            if let Some(c) = v.get("created").and_then(Value::as_i64) {
                g.created.push((i, c));
            }
            if agent_visible(&v) {
                g.visible.push((i, v));
            } else {
                g.hidden.push(i);
            }
        }
        Ok(g)
    }

    /// The agent-visible messages.
    pub fn messages(&self, notes: &mut Notes) -> Result<Vec<Message>, ReadError> {
        self.visible
            .iter()
            .map(|(line, v)| {
                message(
                    v,
                    &format!("line {}", line + 1),
                    Origin::Record(*line),
                    notes,
                )
            })
            .collect()
    }
}

/// `metadata.agentVisible`, true when absent (older files have no metadata).
pub fn agent_visible(v: &Value) -> bool {
    v.pointer("/metadata/agentVisible").and_then(Value::as_bool) != Some(false)
}

fn text_of(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

pub(crate) fn message(
    v: &Value,
    place: &str,
    origin: Origin,
    notes: &mut Notes,
) -> Result<Message, ReadError> {
    let role = match v.get("role").and_then(Value::as_str) {
        Some(r) => Role::parse(r).unwrap_or_else(|| {
            notes.unknown_role(r);
            Role::User
        }),
        None => return Err(ReadError::shape(format!("{place}.role"), "a string")),
    };
    let items = match v.get("content") {
        Some(Value::Array(items)) => items.as_slice(),
        None | Some(Value::Null) => &[],
        Some(_) => {
            return Err(ReadError::shape(
                format!("{place}.content"),
                "a list of content items",
            ))
        }
    };
    let mut parts = Vec::with_capacity(items.len());
    for (i, c) in items.iter().enumerate() {
        let ty = c.get("type").and_then(Value::as_str).ok_or_else(|| {
            ReadError::shape(
                format!("{place}.content[{i}]"),
                "a content item with a \"type\"",
            )
        })?;
        parts.push(content(ty, c, notes));
    }
    let mut m = Message::new(role, parts, origin);
    m.id = v.get("id").and_then(Value::as_str).map(str::to_string);
    m.pinned = v.get("_preserve").and_then(Value::as_bool) == Some(true);
    m.compact = v
        .get("ctxctl")
        .or_else(|| v.pointer("/metadata/ctxctl"))
        .and_then(message::compact_meta)
        .or_else(|| goose_summary(v, &m))
        .map(Box::new);
    Ok(m)
}

/// goose's own compaction summary: a user message only the agent sees, text only.
fn goose_summary(v: &Value, m: &Message) -> Option<CompactMeta> {
    let agent_only = v.pointer("/metadata/userVisible").and_then(Value::as_bool) == Some(false);
    let text_only = !m.parts.is_empty() && m.parts.iter().all(|p| matches!(p, Part::Text(_)));
    (m.role == Role::User && agent_only && text_only).then_some(CompactMeta {
        id: None,
        seq: None,
        timestamp: None,
        by: "goose",
    })
}

fn content(ty: &str, c: &Value, notes: &mut Notes) -> Part {
    if !for_assistant(c) {
        return Part::Other {
            kind: format!("{ty} for the user only"),
        };
    }
    match ty {
        "text" => Part::Text(text_of(c, "text")),
        "image" => Part::Image {
            media_type: c
                .get("mimeType")
                .and_then(Value::as_str)
                .map(str::to_string),
        },
        "toolRequest" | "frontendToolRequest" => {
            let call = c.get("toolCall");
            let (name, arguments) = match call.and_then(|t| t.get("value")) {
                Some(value) => (text_of(value, "name"), args_text(value.get("arguments"))),
                None => (String::new(), args_text(call.and_then(|t| t.get("error")))),
            };
            Part::ToolCall {
                id: text_of(c, "id"),
                name,
                arguments,
            }
        }
        "toolResponse" => {
            let (content, is_error) = tool_result(c.get("toolResult"));
            Part::ToolResult {
                call_id: text_of(c, "id"),
                content,
                is_error,
            }
        }
        "thinking" => Part::Thinking(text_of(c, "thinking")),
        "reasoning" => Part::Thinking(text_of(c, "text")),
        "redactedThinking" => Part::Opaque {
            kind: ty.to_string(),
            bytes: c.get("data").and_then(Value::as_str).map_or(0, str::len),
            tokens: None,
        },
        ui if UI_TYPES.contains(&ui) => Part::Other {
            kind: ui.to_string(),
        },
        other => {
            notes.unknown_part(other);
            Part::Other {
                kind: other.to_string(),
            }
        }
    }
}

/// A `toolResult`: `{status:"success", value}` where `value` is an MCP `CallToolResult`
/// (`{content, isError}`) or, in older files, the bare list of content items; or
/// `{status:"error", error}`.
fn tool_result(r: Option<&Value>) -> (Vec<Part>, bool) {
    let Some(r) = r else {
        return (Vec::new(), false);
    };
    if let Some(err) = r.get("error") {
        return (vec![Part::Text(args_text(Some(err)))], true);
    }
    let value = r.get("value");
    let (items, is_error) = match value {
        Some(Value::Array(items)) => (items.as_slice(), false),
        Some(obj @ Value::Object(_)) => (
            obj.get("content")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice),
            obj.get("isError").and_then(Value::as_bool) == Some(true),
        ),
        _ => (&[][..], false),
    };
    let parts = items
        .iter()
        .map(|c| {
            if !for_assistant(c) {
                return Part::Other {
                    kind: "content for the user only".into(),
                };
            }
            match c.get("type").and_then(Value::as_str).unwrap_or("") {
                "text" => Part::Text(text_of(c, "text")),
                "image" => Part::Image {
                    media_type: c
                        .get("mimeType")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                },
                "resource" => match c.pointer("/resource/text").and_then(Value::as_str) {
                    Some(t) => Part::Text(t.to_string()),
                    None => Part::Other {
                        kind: "resource".into(),
                    },
                },
                other => Part::Other {
                    kind: other.to_string(),
                },
            }
        })
        .collect();
    (parts, is_error)
}

/// Whether the model sees a content item: goose (`agent_visible_content`) leaves out items
/// whose `annotations.audience` does not include `assistant`.
fn for_assistant(c: &Value) -> bool {
    match c.pointer("/annotations/audience").and_then(Value::as_array) {
        Some(a) => a.iter().any(|r| r.as_str() == Some("assistant")),
        None => true,
    }
}

pub fn read(text: impl Into<String>) -> Result<Session, ReadError> {
    let mut doc = LinesDoc::new(text.into());
    let g = GooseFile::parse(&doc)?;
    doc.truncated_tail = g.truncated_tail;
    let mut notes = Notes::default();
    let messages = g.messages(&mut notes)?;
    // The metadata's token counts are the provider's last report.
    let meta = g.metadata.as_ref().map(|(_, v)| v);
    let n = |k: &str| meta.and_then(|m| m.get(k)).and_then(Value::as_u64);
    let reported_usage = reported(
        (n("input_tokens"), n("output_tokens")),
        message::rewritten_by_ctxctl(&messages),
        messages.iter().rposition(|m| m.role == Role::Assistant),
    );
    let mut warnings = g.warnings;
    warnings.extend(notes.into_warnings());
    Ok(Session {
        format: Format::Goose,
        doc: Document::Lines(doc),
        messages,
        model: None,
        warnings,
        reported_usage,
        agent_limits: Default::default(),
        request_extra: None,
        resume: None,
        skipped: false,
    })
}

/// The `working_dir` of a goose session's metadata line (its first).
pub fn working_dir(head: &[Value]) -> Option<String> {
    head.first()?
        .get("working_dir")?
        .as_str()
        .filter(|d| !d.is_empty())
        .map(String::from)
}

/// goose JSONL sessions (metadata line, then messages).
pub struct Goose;

/// goose ≤ 1.9 outside its JSONL files (their directory is listed with goose's database,
/// by the `goose_db` format's agent): `goose session --resume --path FILE`.
pub static AGENT: AgentInfo = AgentInfo {
    programs: &["goose"],
    packages: &["goose"],
    stores: |_, _| Vec::new(),
    resume: Some(ResumeRule {
        var: "CTXCTL_GOOSE_BIN",
        program: "goose",
        args: |_, path| {
            vec![
                "session".into(),
                "--resume".into(),
                "--path".into(),
                path.display().to_string(),
            ]
        },
        id_of: None,
    }),
    id_by_place: None,
    database: None,
};

impl Codec for Goose {
    fn agent_info(&self) -> Option<&'static AgentInfo> {
        Some(&AGENT)
    }

    fn format(&self) -> Format {
        Format::Goose
    }

    fn name(&self) -> &'static str {
        "goose"
    }

    fn project(&self, _path: &Path, head: &[Value]) -> Option<String> {
        working_dir(head)
    }

    fn line_score(&self, index: usize, r: &Value) -> usize {
        let metadata_line =
            index == 0 && r.get("working_dir").is_some() && r.get("message_count").is_some();
        usize::from(metadata_line || is_goose_message(r))
    }

    fn read(&self, text: String, _keep: Keep) -> Result<Session, ReadError> {
        read(text)
    }

    fn write(&self, session: &Session, items: &[Item]) -> Result<Vec<u8>, WriteError> {
        write::write(session, lines_doc(session)?, items)
    }

    fn restores_summaries(&self) -> bool {
        true
    }

    fn restore(&self, session: &Session, plan: &RestorePlan) -> Result<Vec<u8>, WriteError> {
        restore::restore(session, lines_doc(session)?, plan)
    }
}

/// A goose `Message` line: a Unix `created` time and goose's own part types or metadata.
fn is_goose_message(r: &Value) -> bool {
    r.get("created").is_some_and(Value::is_i64)
        && r.get("content").and_then(Value::as_array).is_some_and(|c| {
            c.iter().any(|p| {
                matches!(
                    p.get("type").and_then(Value::as_str),
                    Some("toolRequest" | "toolResponse")
                )
            }) || r
                .get("metadata")
                .is_some_and(|m| m.get("agentVisible").is_some())
                || r.get("id").is_some_and(Value::is_null)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SESSION: &str = concat!(
        r#"{"working_dir":"/w","description":"d","message_count":4,"input_tokens":120,"output_tokens":9}"#,
        "\n",
        r#"{"id":null,"role":"user","created":1,"content":[{"type":"text","text":"old"}],"metadata":{"userVisible":true,"agentVisible":false}}"#,
        "\n",
        r#"{"id":"m1","role":"assistant","created":2,"content":[{"type":"text","text":"ok"},{"type":"toolRequest","id":"t1","toolCall":{"status":"success","value":{"name":"shell","arguments":{"cmd":"ls"}}}}]}"#,
        "\n",
        r#"{"id":null,"role":"user","created":3,"content":[{"type":"toolResponse","id":"t1","toolResult":{"status":"success","value":[{"type":"text","text":"a.txt"}]}}]}"#,
        "\n",
        r#"{"id":null,"role":"user","created":4,"content":[{"type":"toolResponse","id":"t2","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"x"}],"isError":true}}},{"type":"thinking","thinking":"t","signature":"s"},{"type":"redactedThinking","data":"abcd"}]}"#,
        "\n",
    );

    #[test]
    fn reads_visible_messages() {
        let s = read(SESSION).unwrap();
        assert_eq!(s.messages.len(), 3);
        assert_eq!(s.messages[0].origin, Origin::Record(2));
        assert_eq!(s.messages[0].call_ids().collect::<Vec<_>>(), ["t1"]);
        assert_eq!(s.messages[1].text(), "a.txt");
        assert!(matches!(
            s.messages[2].parts[0],
            Part::ToolResult { is_error: true, .. }
        ));
        assert_eq!(
            s.messages[2].parts[2],
            Part::Opaque {
                kind: "redactedThinking".into(),
                bytes: 4,
                tokens: None
            }
        );
        let u = s.reported_usage.unwrap();
        assert_eq!((u.input_tokens, u.after_message), (120, Some(0)));
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    }

    #[test]
    fn usage_goes_stale_once_ctxctl_rewrote_the_history() {
        let marker = r#"{"id":null,"role":"user","created":5,"content":[{"type":"text","text":"[3 messages omitted]"}]}"#;
        let s = read(format!("{SESSION}{marker}\n")).unwrap();
        assert!(s.reported_usage.is_none(), "{:?}", s.reported_usage);
        assert!(read(SESSION).unwrap().reported_usage.is_some());
    }

    #[test]
    fn errors_and_summaries() {
        let text = r#"{"id":null,"role":"user","created":1,"content":[{"type":"text","text":"sum"}],"metadata":{"userVisible":false,"agentVisible":true}}
{"id":null,"role":"assistant","created":1,"content":[{"type":"toolRequest","id":"t","toolCall":{"status":"error","error":"bad json"}}]}
"#;
        let s = read(text).unwrap();
        assert_eq!(s.messages[0].compact.as_ref().unwrap().by, "goose");
        assert!(
            matches!(&s.messages[1].parts[0], Part::ToolCall { arguments, .. } if arguments == "bad json")
        );
        let e = read("{\"role\":\"user\",\"content\":[{\"text\":\"x\"}]}\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 1.content[0]: expected a content item with a \"type\""
        );
    }

    #[test]
    fn content_for_the_user_only_is_not_what_the_model_sees() {
        let line = r#"{"id":"m","role":"user","created":1,"content":[{"type":"toolResponse","id":"t","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"for the model","annotations":{"audience":["assistant"]}},{"type":"text","text":"for the user","annotations":{"audience":["user"],"priority":0.0}},{"type":"text","text":"for both"}],"isError":false}}},{"type":"text","text":"ui","annotations":{"audience":["user"]}}]}"#;
        let s = read(format!("{line}\n")).unwrap();
        assert_eq!(s.messages[0].text(), "for the model\nfor both");
        assert!(
            matches!(&s.messages[0].parts[1], Part::Other { kind } if kind.contains("user only"))
        );
    }
}
