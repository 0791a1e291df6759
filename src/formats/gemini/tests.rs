//! The Gemini CLI codec on a real session (Gemini CLI 0.61.0, `tests/formats/gemini-cli`):
//! one tool call, three resumes, one compression of Gemini's own.

use serde_json::{json, Map, Value};

use super::*;
use crate::formats::{read as read_any, write as write_any};
use crate::session::{Message, NewMessage, Part, Role};

const RUN_A: &str = include_str!("../../../tests/formats/gemini-cli/input.jsonl");

fn texts(s: &Session) -> Vec<String> {
    s.messages.iter().map(Message::text).collect()
}

fn summary(id: &str) -> Item {
    let mut meta = Map::new();
    meta.insert("compact_boundary".into(), json!(true));
    meta.insert("compact_id".into(), json!(id));
    Item::Insert(NewMessage {
        role: Role::User,
        text: "<summary>\nread notes.txt\n</summary>".into(),
        meta,
    })
}

#[test]
fn the_log_replays_to_what_gemini_sends() {
    let s = read_any(RUN_A.as_bytes(), None).unwrap();
    assert_eq!(s.format, Format::Gemini);
    assert_eq!(s.model.as_deref(), Some("gemini-2.5-flash"));
    assert_eq!(s.warnings, Vec::<String>::new());
    let t = texts(&s);
    assert_eq!(t.len(), 11, "{t:#?}");
    assert!(t[0].starts_with("<session_context>") && s.messages[0].injected);
    assert_eq!(s.messages[1].compact.as_ref().unwrap().by, "gemini-cli");
    assert_eq!(t[2], history::ACK);
    assert_eq!(
        s.messages[4].call_ids().collect::<Vec<_>>(),
        ["read_file__read_file_1795464881641_0"]
    );
    assert!(s.messages[5].has_tool_results());
    assert_eq!(t[9], "One more check please.");
    assert_eq!(write_any(&s, &s.keep_all()).unwrap(), RUN_A.as_bytes());
}

#[test]
fn before_any_checkpoint_results_are_sent_twice_in_one_message() {
    let first: String = RUN_A.split_inclusive('\n').take(11).collect();
    let s = read(first).unwrap();
    let roles: Vec<Role> = s.messages.iter().map(|m| m.role).collect();
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
    let results = &s.messages[3];
    assert_eq!(
        results.result_ids().count(),
        2,
        "the _response turn and the recorded copy"
    );
    assert_eq!(results.origin, crate::session::Origin::Records(vec![6, 7]));
    // Shortening the result edits both copies; the history is written in checkpoint form.
    let edit = Item::Edit {
        index: 3,
        edits: vec![crate::session::PartEdit::ResultText {
            call_id: "read_file__read_file_1795464871386_0".into(),
            text: "[cut]".into(),
        }],
    };
    let items = [
        Item::Keep(0),
        Item::Keep(1),
        Item::Keep(2),
        edit,
        Item::Keep(4),
    ];
    let out = write_any(&s, &items).unwrap();
    let again = read_any(&out, None).unwrap();
    assert_eq!(again.messages.len(), 5);
    assert_eq!(again.messages[3].parts.len(), 2);
    assert!(again.messages[3].parts.iter().all(|p| p.text() == "[cut]"));
    let last: Value =
        serde_json::from_str(String::from_utf8(out).unwrap().lines().last().unwrap()).unwrap();
    let recs = last["$set"]["messages"].as_array().unwrap();
    let ids: Vec<&str> = recs.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "d04923d38bb0f6017037e74183378ef4",
            "ac569127-c6ba-4379-a862-08937a6795a5",
            "af6a7106-3dba-486f-8a01-9c3ca7809177",
            "af6a7106-3dba-486f-8a01-9c3ca7809177_response",
            "953f84ee-2749-485f-a4d4-4d17786c7089",
            "f7af17ef-61ca-40bb-bd55-99972b9b5ddc"
        ]
    );
    assert!(recs[2].get("toolCalls").is_none());
    assert_eq!(recs[2]["content"][1]["functionCall"]["name"], "read_file");
}

#[test]
fn a_compaction_appends_one_checkpoint_and_restore_cuts_it_off() {
    let s = read(RUN_A).unwrap();
    let mut items = vec![Item::Keep(0), summary("c-1")];
    items.extend((7..11).map(Item::Keep));
    let out = write_any(&s, &items).unwrap();
    assert!(out.starts_with(RUN_A.as_bytes()), "earlier bytes are kept");
    let added = &out[RUN_A.len()..];
    assert_eq!(added.iter().filter(|&&b| b == b'\n').count(), 1, "one line");
    let c = read_any(&out, None).unwrap();
    assert_eq!(c.format, Format::Gemini);
    let t = texts(&c);
    assert_eq!(t.len(), 7);
    assert_eq!(t[2], history::ACK);
    assert_eq!(
        c.messages[1].compact.as_ref().unwrap().id.as_deref(),
        Some("c-1")
    );
    assert_eq!(c.messages[3].id, s.messages[7].id, "kept ids unchanged");
    assert_ne!(c.messages[2].id, s.messages[2].id, "fresh ids for the ack");
    // archive restore: the archived records in place of the summary.
    let archived = json!({"id": "x", "type": "user", "content": "old"});
    let mut back = vec![Item::Keep(0), Item::InsertRecord(archived.into())];
    back.extend((2..7).map(Item::Keep));
    assert_eq!(write_any(&c, &back).unwrap(), RUN_A.as_bytes());
    // Once Gemini CLI has resumed the session, cutting it off would lose turns: refused.
    let mut resumed = out.clone();
    resumed.extend_from_slice(b"{\"$set\":{\"lastUpdated\":\"2026-11-24T00:00:00.000Z\"}}\n");
    let r = read_any(&resumed, None).unwrap();
    let e = write_any(&r, &back).unwrap_err().to_string();
    assert!(e.contains("after the compaction"), "{e}");
}

#[test]
fn thoughts_and_images_are_read() {
    let text = [
        json!({"sessionId": "s", "projectHash": "h", "startTime": "t", "lastUpdated": "t", "kind": "main"}),
        json!({"id": "u", "timestamp": "t", "type": "user", "content": [{"text": "look"}, {"inlineData": {"mimeType": "image/png", "data": "AAAA"}}]}),
        json!({"id": "g", "timestamp": "t", "type": "gemini", "content": "ok", "thoughts": [{"subject": "", "description": "hmm"}]}),
    ]
    .map(|v| v.to_string())
    .join("\n");
    let s = read_any(text.as_bytes(), None).unwrap();
    assert_eq!(s.model.as_deref(), Some(DEFAULT_MODEL));
    assert_eq!(
        s.messages[0].parts[1],
        Part::Image {
            media_type: Some("image/png".into())
        }
    );
    assert_eq!(
        s.messages[1].parts,
        [Part::Thinking("hmm".into()), Part::Text("ok".into())]
    );
}

#[test]
fn json_chat_files_are_read_with_their_recorded_usage_and_not_rewritten() {
    let chat = json!({
        "sessionId": "s", "projectHash": "h", "startTime": "t", "lastUpdated": "t",
        "messages": [
            {"id": "u1", "timestamp": "t", "type": "user", "content": [{"text": "list"}]},
            {"id": "g1", "timestamp": "t", "type": "gemini", "content": "", "model": "gemini-2.5-pro",
             "tokens": {"input": 9000, "output": 5, "cached": 0},
             "toolCalls": [{"id": "c1", "name": "ls", "args": {}, "status": "success",
                            "result": [{"functionResponse": {"id": "c1", "name": "ls", "response": {"output": "a"}}}]}]},
            {"id": "g2", "timestamp": "t", "type": "gemini", "content": "done", "model": "gemini-2.5-pro",
             "tokens": {"input": 9100, "output": 3, "cached": 8000}},
            {"id": "i1", "timestamp": "t", "type": "info", "content": "note"}
        ]
    });
    let text = serde_json::to_string_pretty(&chat).unwrap();
    let s = read_any(text.as_bytes(), None).unwrap();
    assert_eq!(s.format, Format::Gemini);
    assert_eq!(s.model.as_deref(), Some("gemini-2.5-pro"));
    let roles: Vec<Role> = s.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::User, Role::Assistant]
    );
    // The latest report is the anchor: the final answer's request ended after the call
    // and its result; the earlier report is kept for calibration.
    let u = s.reported_usage.as_ref().unwrap();
    assert_eq!((u.input_tokens, u.request_end), (9100, Some(3)));
    assert_eq!(u.earlier, [(1, 9000)]);
    let e = write_any(&s, &[]).unwrap_err().to_string();
    assert!(e.contains(".json chat file"), "{e}");
}
