//! The records ctxctl adds to a Claude Code transcript, in the shape Claude Code writes its
//! own: the same envelope as their neighbours, a fresh UUIDv4, a timestamp, and ctxctl's
//! metadata (compaction id …) under a `ctxctl` key that Claude Code ignores.

use serde_json::{json, Map, Value};

use super::SYNTHETIC_MODEL;
use crate::session::NewMessage;
use crate::session::Role;

/// Envelope fields copied from a neighbouring record.
const ENVELOPE: [&str; 9] = [
    "isSidechain",
    "userType",
    "cwd",
    "sessionId",
    "version",
    "gitBranch",
    "slug",
    "agentId",
    "entrypoint",
];

/// Where a new record goes.
#[derive(Debug)]
pub struct Place<'a> {
    pub uuid: &'a str,
    /// `parentUuid` (`None`: null).
    pub parent: Option<String>,
    /// The neighbour whose envelope is copied.
    pub template: Option<Value>,
    pub timestamp: Value,
}

fn start(place: &Place, logical_parent: Option<Option<String>>) -> Map<String, Value> {
    let mut obj = Map::new();
    let uuid = |u: Option<String>| u.map_or(Value::Null, Value::String);
    obj.insert("parentUuid".into(), uuid(place.parent.clone()));
    if let Some(l) = logical_parent {
        obj.insert("logicalParentUuid".into(), uuid(l));
    }
    if let Some(Value::Object(tpl)) = &place.template {
        for key in ENVELOPE {
            if let Some(v) = tpl.get(key) {
                obj.insert(key.to_string(), v.clone());
            }
        }
    }
    obj
}

/// A `system` `compact_boundary` record: a new root (`parentUuid: null`) whose
/// `logicalParentUuid` keeps the summarized history reachable.
pub fn boundary(place: &Place, logical_parent: Option<String>, pre_tokens: u64) -> Value {
    let mut obj = start(place, Some(logical_parent));
    obj.insert("type".into(), json!("system"));
    obj.insert("subtype".into(), json!("compact_boundary"));
    obj.insert("content".into(), json!("Conversation compacted"));
    obj.insert("isMeta".into(), json!(false));
    obj.insert("timestamp".into(), place.timestamp.clone());
    obj.insert("uuid".into(), json!(place.uuid));
    obj.insert("level".into(), json!("info"));
    obj.insert(
        "compactMetadata".into(),
        json!({"trigger": "manual", "preTokens": pre_tokens}),
    );
    Value::Object(obj)
}

/// A user record (an `isCompactSummary` one for a compaction summary) or, for an assistant
/// message, an assistant record shaped like Claude Code's synthetic ones.
pub fn message(place: &Place, m: &NewMessage, summary: bool) -> Value {
    let mut obj = start(place, None);
    if m.role == Role::Assistant && !summary {
        obj.insert("type".into(), json!("assistant"));
        obj.insert(
            "message".into(),
            json!({
                "id": format!("msg_ctxctl_{}", place.uuid.replace('-', "")),
                "type": "message",
                "role": "assistant",
                "model": SYNTHETIC_MODEL,
                "content": [{"type": "text", "text": m.text}],
                "stop_reason": "end_turn",
                "stop_sequence": null,
                "usage": {"input_tokens": 0, "output_tokens": 0},
            }),
        );
    } else {
        obj.insert("type".into(), json!("user"));
        obj.insert("message".into(), json!({"role": "user", "content": m.text}));
    }
    if summary {
        obj.insert("isVisibleInTranscriptOnly".into(), json!(true));
        obj.insert("isCompactSummary".into(), json!(true));
    }
    obj.insert("uuid".into(), json!(place.uuid));
    obj.insert("timestamp".into(), place.timestamp.clone());
    if !m.meta.is_empty() {
        obj.insert("ctxctl".into(), Value::Object(m.meta.clone()));
    }
    Value::Object(obj)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place<'a>(tpl: &'a Value, parent: Option<&str>) -> Place<'a> {
        Place {
            uuid: "u-1",
            parent: parent.map(str::to_string),
            template: Some(tpl.clone()),
            timestamp: json!("2026-01-01T00:00:00.000Z"),
        }
    }

    #[test]
    fn boundary_copies_the_envelope_in_claude_codes_order() {
        let tpl = json!({"type":"user","sessionId":"s","isSidechain":false,"cwd":"/w","other":1});
        let b = boundary(&place(&tpl, Some("ignored")), Some("p".into()), 42);
        let keys: Vec<&str> = b.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "parentUuid",
                "logicalParentUuid",
                "isSidechain",
                "cwd",
                "sessionId",
                "type",
                "subtype",
                "content",
                "isMeta",
                "timestamp",
                "uuid",
                "level",
                "compactMetadata"
            ]
        );
        assert_eq!(
            b["compactMetadata"],
            json!({"trigger":"manual","preTokens":42})
        );
        assert_eq!(b["parentUuid"], json!("ignored"));
    }

    #[test]
    fn summaries_are_user_records_with_ctxctl_metadata() {
        let tpl = json!({"sessionId":"s"});
        let mut meta = Map::new();
        meta.insert("compact_boundary".into(), json!(true));
        let m = NewMessage {
            role: Role::Assistant,
            text: "sum".into(),
            meta,
        };
        let v = message(&place(&tpl, Some("p")), &m, true);
        assert_eq!(v["type"], "user");
        assert_eq!(v["message"], json!({"role":"user","content":"sum"}));
        assert_eq!(
            (
                v["isCompactSummary"].clone(),
                v["ctxctl"]["compact_boundary"].clone()
            ),
            (json!(true), json!(true))
        );
        let plain = NewMessage {
            meta: Map::new(),
            ..m
        };
        let v = message(&place(&tpl, None), &plain, false);
        assert_eq!(v["message"]["model"], SYNTHETIC_MODEL);
        assert!(v["parentUuid"].is_null() && v.get("ctxctl").is_none());
    }
}
