//! Format detection from content alone (standard input has no name).

use serde_json::Value;

use crate::formats::sniff::skeleton;
use crate::formats::CODECS;
use crate::session::{Format, ReadError};

/// How many leading JSONL records are looked at to tell the agent formats apart.
const SNIFF_LINES: usize = 50;

/// Detects the format of `text` (BOM already removed, not blank).
pub fn detect(text: &str) -> Result<Format, ReadError> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        let v = skeleton(trimmed).map_err(|e| ReadError::json(&e, 0))?;
        if v.get(0).is_some_and(is_openhands_event) {
            return Err(ReadError::NotSession {
                what: "an OpenHands event stream (actions and observations)".into(),
                hint: "ctxctl does not read OpenHands trajectories".into(),
            });
        }
        return Ok(detect_array(&v));
    }
    if !trimmed.starts_with('{') {
        let first = trimmed.chars().next().unwrap_or(' ');
        return Err(ReadError::Detect(format!(
            "the content starts with {first:?}, not a JSON object or array"
        )));
    }
    let mut records = Vec::new();
    let mut lines = trimmed.lines().filter(|l| !l.trim().is_empty());
    let first = lines.next().unwrap_or("");
    match skeleton(first) {
        Ok(v) => records.push(v),
        // The first line is not a whole object: a pretty-printed JSON document.
        Err(_) => return detect_object(trimmed),
    }
    let more = lines.clone().next().is_some();
    if !more && (is_document(&records[0]) || records[0].get("role").is_none()) {
        let format = detect_lines(&records);
        if format == Format::Jsonl {
            return detect_document(&records[0]);
        }
        return Ok(format);
    }
    records.extend(lines.take(SNIFF_LINES).filter_map(|l| skeleton(l).ok()));
    Ok(detect_lines(&records))
}

/// The leading whole JSONL records of `lines` (at most [`SNIFF_LINES`], each as a bounded
/// skeleton: long strings cut), and the line format they score highest for (`None` when
/// there are fewer than two: one record may be a whole JSON document, which only
/// [`detect`] tells).
pub fn detect_head(lines: &str) -> (Option<Format>, Vec<Value>) {
    let records: Vec<Value> = lines
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(SNIFF_LINES)
        .map_while(|l| skeleton(l).ok())
        .filter(Value::is_object)
        .collect();
    let format = (records.len() >= 2).then(|| detect_lines(&records));
    (format, records)
}

/// What a JSON document's layout tells about it (see [`detect_layout`]).
pub struct LayoutFacts<'a> {
    /// The document is the message array.
    pub root_array: bool,
    /// The top-level object's members and their text, in order.
    pub members: Vec<(&'a str, &'a str)>,
    /// The member holding the message list (`messages`, `history`).
    pub list_key: &'a str,
    /// The text of each message record.
    pub records: Vec<&'a str>,
    /// The whole document is one line (it could be a one-record JSONL file).
    pub one_line: bool,
}

/// Detects a JSON document's format from its layout, deciding as [`detect`] does from the
/// skeleton of the whole text, but skeleton-parsing only the records a skeleton keeps
/// rather than the whole document again. `None` when the document is not an OpenAI or
/// Anthropic one (or cannot be told this way): [`detect`] then decides, and words errors.
pub fn detect_layout(facts: &LayoutFacts) -> Option<Format> {
    let list = Value::Array(
        facts
            .records
            .iter()
            .take(super::sniff::MAX_ITEMS)
            .map(|r| skeleton(r))
            .collect::<Result<Vec<Value>, _>>()
            .ok()?,
    );
    if facts.root_array {
        if list.get(0).is_some_and(is_openhands_event) {
            return None;
        }
        return Some(detect_array(&list));
    }
    let mut doc = serde_json::Map::new();
    for &(key, text) in facts.members.iter().take(super::sniff::MAX_MEMBERS) {
        let v = if key == facts.list_key {
            list.clone()
        } else {
            skeleton(text).ok()?
        };
        doc.insert(key.to_string(), v);
    }
    let doc = Value::Object(doc);
    if facts.one_line {
        if doc.get("role").is_some() {
            return None;
        }
        if detect_lines(std::slice::from_ref(&doc)) != Format::Jsonl {
            return None;
        }
    }
    match detect_document(&doc) {
        Ok(f @ (Format::OpenAi | Format::Anthropic)) => Some(f),
        _ => None,
    }
}

/// A one-line file is a JSON document when it holds a message list rather than a message.
fn is_document(v: &Value) -> bool {
    v.get("role").is_none() && (v.get("messages").is_some() || v.get("history").is_some())
}

fn detect_array(v: &Value) -> Format {
    if looks_anthropic_blocks(v) {
        Format::Anthropic
    } else {
        Format::OpenAi
    }
}

fn detect_object(text: &str) -> Result<Format, ReadError> {
    detect_document(&skeleton(text).map_err(|e| ReadError::json(&e, 0))?)
}

/// Tells a JSON document's format from its skeleton.
fn detect_document(v: &Value) -> Result<Format, ReadError> {
    if super::gemini::is_chat_document(v) {
        return Ok(Format::Gemini);
    }
    if v.get("messages").is_some_and(Value::is_array) {
        let top_system = v
            .get("system")
            .is_some_and(|s| s.is_string() || s.is_array());
        if top_system || v.get("max_tokens").is_some() || looks_anthropic_blocks(&v["messages"]) {
            return Ok(Format::Anthropic);
        }
        return Ok(Format::OpenAi);
    }
    if v.get("history").is_some_and(Value::is_array) {
        return Ok(Format::OpenAi);
    }
    if is_goose_recording(v) {
        return Err(ReadError::NotSession {
            what: "a goose scenario recording (provider requests and responses keyed by hash)"
                .into(),
            hint: "goose sessions are the JSONL files in ~/.local/share/goose/sessions/".into(),
        });
    }
    Err(ReadError::Detect(
        "a JSON object without a `messages` or `history` list".to_string(),
    ))
}

/// goose's scenario-test recordings: `{hash: {input: {system, messages, tools}, output}}`.
fn is_goose_recording(v: &Value) -> bool {
    v.as_object().is_some_and(|o| {
        !o.is_empty()
            && o.values().all(|e| {
                e.pointer("/input/messages").is_some_and(Value::is_array)
                    && e.get("output").is_some()
            })
    })
}

/// OpenHands events carry `source` (user/agent/environment) and an `action` or `observation`.
fn is_openhands_event(v: &Value) -> bool {
    v.get("role").is_none()
        && v.get("source").is_some_and(Value::is_string)
        && (v.get("action").is_some() || v.get("observation").is_some())
}

/// Anthropic content blocks have types OpenAI's parts never use.
/// Whether the (skeleton of the) message list uses Anthropic's block types.
fn looks_anthropic_blocks(messages: &Value) -> bool {
    let text = messages.to_string();
    [
        "\"tool_use\"",
        "\"tool_result\"",
        "\"redacted_thinking\"",
        "\"tool_use_id\"",
    ]
    .iter()
    .any(|needle| text.contains(needle))
        && !text.contains("\"tool_calls\"")
}

/// The line format whose codec scores the records highest (see [`Codec::line_score`]);
/// plain JSONL when none recognises any.
fn detect_lines(records: &[Value]) -> Format {
    let mut best = (0, Format::Jsonl);
    for codec in CODECS {
        let score: usize = records
            .iter()
            .enumerate()
            .map(|(i, r)| codec.line_score(i, r))
            .sum();
        if score > best.0 {
            best = (score, codec.format());
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_and_objects() {
        assert_eq!(
            detect(r#"[{"role":"user","content":"hi"}]"#).unwrap(),
            Format::OpenAi
        );
        assert_eq!(
            detect("{\n \"system\": \"s\",\n \"messages\": []\n}").unwrap(),
            Format::Anthropic
        );
        assert_eq!(
            detect(r#"{"messages":[{"role":"user","content":"hi"}]}"#).unwrap(),
            Format::OpenAi
        );
        assert_eq!(detect(r#"{"history":[]}"#).unwrap(), Format::OpenAi);
    }

    #[test]
    fn jsonl_flavours() {
        let plain =
            "{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"assistant\",\"content\":\"b\"}\n";
        assert_eq!(detect(plain).unwrap(), Format::Jsonl);
        let one = "{\"role\":\"user\",\"content\":\"a\"}";
        assert_eq!(detect(one).unwrap(), Format::Jsonl);
        let codex = "{\"timestamp\":\"t\",\"type\":\"session_meta\",\"payload\":{}}\n";
        assert_eq!(detect(codex).unwrap(), Format::Codex);
        let claude = "{\"type\":\"user\",\"uuid\":\"u\",\"parentUuid\":null,\"sessionId\":\"s\"}\n";
        assert_eq!(detect(claude).unwrap(), Format::ClaudeCode);
        let goose = "{\"working_dir\":\"/x\",\"description\":\"d\",\"message_count\":1}\n{\"id\":null,\"role\":\"user\",\"created\":1,\"content\":[{\"type\":\"text\",\"text\":\"a\"}]}\n";
        assert_eq!(detect(goose).unwrap(), Format::Goose);
    }

    #[test]
    fn recordings_and_event_streams_are_not_sessions() {
        let oh = r#"[{"id":0,"source":"user","message":"hi","action":"message","args":{}}]"#;
        assert!(matches!(detect(oh), Err(ReadError::NotSession { .. })));
        let rec =
            "{\n \"ab\": {\"input\": {\"system\": \"s\", \"messages\": []}, \"output\": {}}\n}";
        assert!(matches!(detect(rec), Err(ReadError::NotSession { .. })));
        assert_eq!(detect("[]").unwrap(), Format::OpenAi);
    }

    #[test]
    fn rejects_non_json() {
        assert!(matches!(detect("hello"), Err(ReadError::Detect(_))));
        assert!(matches!(detect("{\"a\":1}"), Err(ReadError::Detect(_))));
    }
}
