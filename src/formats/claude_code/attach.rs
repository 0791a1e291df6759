//! Claude Code's `attachment` records and synthetic API-error records.
//!
//! Claude Code 2.1.x writes context it adds on its own (the agent list
//! `agent_listing_delta`, `skill_listing`, `task_reminder`, files re-read after a compaction
//! `file`, `compact_file_reference` …) as `attachment` records on the `parentUuid` chain and
//! sends each as a `system` message. Their text is what ctxctl counts: every string the
//! attachment holds (file contents, listing lines, reminders), its `type` tags left out.
//! The exact wording Claude Code wraps them in is not in the file.
//!
//! When an API call fails, Claude Code writes an assistant record with model `<synthetic>`
//! and `isApiErrorMessage: true` (e.g. "Prompt is too long"). It is on the chain but never
//! sent, so it is no message.

use serde_json::Value;

use super::thread::Rec;
use crate::session::Part;

/// Attachments Claude Code 2.1.332 records but never sends as a message: the system prompt
/// and tool schemas it sent as the request's `system` and `tools` (`prompt_snapshot`, the
/// hidden part, see [`prompt_snapshot`]) and the session's bookkeeping.
const NOT_SENT: [&str; 2] = ["prompt_snapshot", "session_context"];

/// The parts of an attachment record's message: the text Claude Code rendered for the
/// wire (`rendered`, 2.1.332), else every string it holds, as one part; nothing for an
/// attachment that is never sent.
pub fn parts(r: &Rec) -> Vec<Part> {
    let a = r.v.get("attachment");
    if a.and_then(|a| a.get("type"))
        .and_then(Value::as_str)
        .is_some_and(|t| NOT_SENT.contains(&t))
    {
        return Vec::new();
    }
    let rendered = a
        .and_then(|a| a.get("rendered"))
        .or_else(|| r.v.get("rendered"))
        .and_then(Value::as_str);
    if let Some(text) = rendered {
        return vec![Part::Text(text.to_string())];
    }
    let mut texts = Vec::new();
    if let Some(a) = r.v.get("attachment") {
        strings(a, &mut texts);
    }
    vec![Part::Text(texts.join("\n"))]
}

/// Every string in `v`, depth first, except the values of `type` keys.
fn strings<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) if !s.is_empty() => out.push(s),
        Value::Array(items) => items.iter().for_each(|x| strings(x, out)),
        Value::Object(map) => map
            .iter()
            .filter(|(k, _)| k.as_str() != "type")
            .for_each(|(_, x)| strings(x, out)),
        _ => {}
    }
}

/// The system prompt and tool schemas of the latest `prompt_snapshot` attachment among
/// `recs` (Claude Code 2.1.332): what the agent sends besides the messages, measured.
pub fn prompt_snapshot(recs: &[Rec]) -> Option<String> {
    let a = recs.iter().rev().find_map(|r| {
        let a = r.v.get("attachment")?;
        (a.get("type").and_then(Value::as_str) == Some("prompt_snapshot")).then_some(a)
    })?;
    let mut texts = Vec::new();
    if let Some(system) = a.get("systemPrompt") {
        strings(system, &mut texts);
    }
    let mut out = texts.join("\n");
    if let Some(tools) = a.get("tools").filter(|t| !t.is_null()) {
        out.push('\n');
        out.push_str(&tools.to_string());
    }
    Some(out)
}

/// A record Claude Code wrote for a failed API call.
pub fn is_api_error(r: &Rec) -> bool {
    r.v.get("isApiErrorMessage").and_then(Value::as_bool) == Some(true)
}

#[cfg(test)]
mod tests {
    use crate::formats::claude_code::read;
    use crate::session::Role;

    #[test]
    fn attachments_are_system_messages_with_their_text() {
        let lines = [
            r#"{"parentUuid":null,"type":"user","uuid":"u1","message":{"role":"user","content":"hi"}}"#,
            r#"{"parentUuid":"u1","type":"attachment","uuid":"a1","attachment":{"type":"file","filename":"/w/x.py","content":{"type":"text","file":{"filePath":"/w/x.py","content":"print(1)","numLines":1}},"displayPath":"x.py"}}"#,
            r#"{"parentUuid":"a1","type":"attachment","uuid":"a2","attachment":{"type":"task_reminder","content":[],"itemCount":0}}"#,
            r#"{"type":"last-prompt","leafUuid":"a2"}"#,
        ];
        let s = read(lines.join("\n") + "\n").unwrap();
        let roles: Vec<Role> = s.messages.iter().map(|m| m.role).collect();
        assert_eq!(roles, [Role::User, Role::System, Role::System]);
        assert_eq!(s.messages[1].text(), "/w/x.py\n/w/x.py\nprint(1)\nx.py");
        assert_eq!(s.messages[1].id.as_deref(), Some("a1"));
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    }

    #[test]
    fn rendered_attachments_count_their_wire_text_and_snapshots_are_the_hidden_part() {
        let lines = [
            r#"{"parentUuid":null,"type":"user","uuid":"u1","message":{"role":"user","content":"hi"}}"#,
            r#"{"parentUuid":"u1","type":"attachment","uuid":"a1","attachment":{"type":"date","date":"2026-11-27","rendered":"Today is 2026-11-27.","renderedRole":"system"}}"#,
            r#"{"parentUuid":"a1","type":"attachment","uuid":"a2","attachment":{"type":"prompt_snapshot","systemPrompt":[{"type":"text","text":"You are Claude Code."}],"tools":[{"name":"Bash"}]}}"#,
            r#"{"type":"last-prompt","leafUuid":"a2"}"#,
        ];
        let s = read(lines.join("\n") + "\n").unwrap();
        assert_eq!(s.messages[1].text(), "Today is 2026-11-27.");
        assert!(s.messages[2].parts.is_empty());
        let extra = s.request_extra.as_deref().unwrap();
        assert!(extra.starts_with("You are Claude Code.\n") && extra.contains("\"Bash\""));
        assert!(s.agent_limits.prompt_measured);
        // No response yet: Claude Code's default model, not a generic one.
        assert_eq!(
            s.model.as_deref(),
            Some(crate::formats::claude_code::DEFAULT_MODEL)
        );
    }

    #[test]
    fn a_haiku_transcript_sends_its_tool_schemas_in_full() {
        let at = |model: &str| {
            let asst = format!(
                r#"{{"parentUuid":"u1","type":"assistant","uuid":"a1","message":{{"id":"m","role":"assistant","model":"{model}","content":[{{"type":"text","text":"ok"}}]}}}}"#
            );
            let lines = [
                r#"{"parentUuid":null,"type":"user","uuid":"u1","message":{"role":"user","content":"hi"}}"#,
                asst.as_str(),
            ];
            read(lines.join("\n") + "\n")
                .unwrap()
                .agent_limits
                .full_tool_schemas
        };
        assert!(at("claude-haiku-4-5-20251001"));
        assert!(!at("claude-sonnet-4-6"));
        // No response yet: the default model, which defers tools.
        let first = r#"{"parentUuid":null,"type":"user","uuid":"u1","message":{"role":"user","content":"hi"}}"#;
        assert!(
            !read(first.to_string() + "\n")
                .unwrap()
                .agent_limits
                .full_tool_schemas
        );
    }

    #[test]
    fn synthetic_error_records_are_not_messages() {
        let lines = [
            r#"{"parentUuid":null,"type":"user","uuid":"u1","message":{"role":"user","content":"hi"}}"#,
            r#"{"parentUuid":"u1","type":"assistant","uuid":"e1","isApiErrorMessage":true,"error":"invalid_request","message":{"id":"x","role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"Prompt is too long"}]}}"#,
            r#"{"parentUuid":"e1","type":"user","uuid":"u2","message":{"role":"user","content":"again"}}"#,
        ];
        let s = read(lines.join("\n") + "\n").unwrap();
        let texts: Vec<String> = s.messages.iter().map(|m| m.text()).collect();
        assert_eq!(texts, ["hi", "again"]);
    }
}
