//! Unit tests of the Claude Code writer (kept apart: the writer is long enough).

use serde_json::json;

use super::*;
use crate::formats::{read, write as session_write};
use crate::session::{NewMessage, Role};

fn rec(uuid: &str, parent: Option<&str>, ty: &str, content: Value) -> String {
    json!({"parentUuid": parent, "isSidechain": false, "sessionId": "s", "type": ty,
        "message": {"role": ty, "content": content}, "uuid": uuid, "timestamp": uuid})
    .to_string()
}

/// u1 → a1 → u2 → a2 → u3, then a `last-prompt` naming u3.
fn transcript() -> String {
    let mut lines = vec![
        rec("u1", None, "user", json!("one")),
        rec(
            "a1",
            Some("u1"),
            "assistant",
            json!([{"type":"text","text":"two"}]),
        ),
        rec("u2", Some("a1"), "user", json!("three")),
        rec(
            "a2",
            Some("u2"),
            "assistant",
            json!([{"type":"text","text":"four"}]),
        ),
        rec("u3", Some("a2"), "user", json!("five")),
    ];
    lines.push(r#"{"type":"last-prompt","lastPrompt":"five","leafUuid":"u3"}"#.into());
    lines.join("\n") + "\n"
}

fn parents(out: &[u8]) -> Vec<(String, Value)> {
    std::str::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|v| {
            (
                v["uuid"].as_str().unwrap_or("-").to_string(),
                v["parentUuid"].clone(),
            )
        })
        .collect()
}

/// The last line: ctxctl's rewrite marker.
fn marker(out: &[u8]) -> Value {
    let text = std::str::from_utf8(out).unwrap();
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

fn texts(out: &[u8]) -> Vec<String> {
    read(out, None)
        .unwrap()
        .messages
        .iter()
        .map(|m| m.text())
        .collect()
}

#[test]
fn removed_records_are_bridged() {
    let text = transcript();
    let s = read(text.as_bytes(), None).unwrap();
    let out = session_write(&s, &[Item::Keep(0), Item::Keep(4)]).unwrap();
    let p = parents(&out);
    // u1, u3, Claude Code's last-prompt, ctxctl's marker.
    assert_eq!(p.len(), 4);
    assert_eq!(p[1], ("u3".to_string(), json!("u1")));
    assert_eq!(texts(&out), ["one", "five"]);
    assert_eq!(
        marker(&out),
        json!({"type":"last-prompt","lastPrompt":"five","leafUuid":"u3","sessionId":"s",
            "ctxctl":{"rewrite":true}})
    );
    // Untouched lines are the original bytes.
    let first = text.lines().next().unwrap();
    assert!(std::str::from_utf8(&out).unwrap().starts_with(first));
}

#[test]
fn a_removed_leaf_moves_the_last_prompt() {
    let s = read(transcript().as_bytes(), None).unwrap();
    let out = session_write(&s, &[Item::Keep(0), Item::Keep(1)]).unwrap();
    let lines: Vec<&str> = std::str::from_utf8(&out).unwrap().lines().collect();
    assert_eq!(
        lines[lines.len() - 2],
        r#"{"type":"last-prompt","lastPrompt":"five","leafUuid":"a1"}"#
    );
    assert_eq!(marker(&out)["leafUuid"], "a1");
    assert_eq!(texts(&out), ["one", "two"]);
}

#[test]
fn compaction_starts_a_new_root() {
    let s = read(transcript().as_bytes(), None).unwrap();
    let mut meta = serde_json::Map::new();
    meta.insert("compact_boundary".into(), json!(true));
    meta.insert("compact_id".into(), json!("c1"));
    let summary = NewMessage {
        role: Role::User,
        text: "gist".into(),
        meta,
    };
    let items = [Item::Insert(summary), Item::Keep(3), Item::Keep(4)];
    let out = session_write(&s, &items).unwrap();
    let p = parents(&out);
    // u1 a1 u2 stay as history; boundary; summary; a2 re-threaded; u3; last-prompt;
    // ctxctl's marker.
    assert_eq!(p.len(), 9);
    assert_eq!(
        marker(&out)["ctxctl"],
        json!({"rewrite": true, "compact_id": "c1"})
    );
    assert_eq!(marker(&out)["leafUuid"], "u3");
    let (b, c) = (&p[3], &p[4]);
    assert_eq!(b.1, Value::Null);
    assert_eq!(c.1, json!(b.0));
    assert_eq!(p[5], ("a2".to_string(), json!(c.0)));
    let s2 = read(&out, None).unwrap();
    assert_eq!(texts(&out), ["gist", "four", "five"]);
    assert_eq!(
        s2.messages[0].compact.as_ref().unwrap().id.as_deref(),
        Some("c1")
    );
    let v: Value =
        serde_json::from_str(std::str::from_utf8(&out).unwrap().lines().nth(3).unwrap()).unwrap();
    assert_eq!(v["logicalParentUuid"], "u2");
    assert_eq!(
        v["timestamp"], "u2",
        "the timestamp of the record before it"
    );
}

#[test]
fn edits_change_only_the_message() {
    let lines = [
        rec("u1", None, "user", json!("go")),
        rec(
            "a1",
            Some("u1"),
            "assistant",
            json!([{"type":"tool_use","id":"t1","name":"Bash","input":{}}]),
        ),
        rec(
            "r1",
            Some("a1"),
            "user",
            json!([{"type":"tool_result","tool_use_id":"t1","content":"long output"}]),
        ),
    ];
    let text = lines.join("\n") + "\n";
    let s = read(text.as_bytes(), None).unwrap();
    let edit = PartEdit::ResultText {
        call_id: "t1".into(),
        text: "short".into(),
    };
    let items = [
        Item::Keep(0),
        Item::Keep(1),
        Item::Edit {
            index: 2,
            edits: vec![edit],
        },
    ];
    let out = session_write(&s, &items).unwrap();
    assert_eq!(texts(&out)[2], "short");
    let text = std::str::from_utf8(&out).unwrap();
    assert_eq!(text.lines().take(2).collect::<Vec<_>>(), lines[..2]);
    let bad = PartEdit::ResultText {
        call_id: "zz".into(),
        text: "x".into(),
    };
    let err = session_write(
        &s,
        &[Item::Edit {
            index: 2,
            edits: vec![bad],
        }],
    )
    .unwrap_err();
    assert!(
        matches!(err, WriteError::NoSuchResult { index: 2, .. }),
        "{err}"
    );
}

#[test]
fn the_markers_prompt_is_read_from_the_file_when_the_messages_text_is_gone() {
    // Without a `last-prompt` of Claude Code's, the marker repeats the last user prompt
    // kept: the same whether or not the plan dropped the messages' text.
    let text: String = transcript()
        .lines()
        .take(5)
        .map(|l| format!("{l}\n"))
        .collect();
    let session = read(text.as_bytes(), None).unwrap();
    let items = [Item::Keep(2), Item::Keep(3), Item::Keep(4)];
    let whole = session_write(&session, &items).unwrap();
    let mut released = session;
    released.release_text();
    assert_eq!(released.messages[4].text(), "");
    let out = session_write(&released, &items).unwrap();
    assert_eq!(out, whole);
    let last = std::str::from_utf8(&out).unwrap().lines().last().unwrap();
    let marker: Value = serde_json::from_str(last).unwrap();
    assert_eq!(marker["lastPrompt"], "five");
}
