//! Unit tests of the Claude Code reader (kept apart: the reader is long enough).

use super::*;
use crate::session::Part;

fn rec(uuid: &str, parent: Option<&str>, ty: &str, extra: &str) -> String {
    let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
    format!(
        r#"{{"parentUuid":{parent},"isSidechain":false,"sessionId":"s","type":"{ty}","uuid":"{uuid}","timestamp":"t"{extra}}}"#
    )
}

fn user(uuid: &str, parent: Option<&str>, text: &str) -> String {
    rec(
        uuid,
        parent,
        "user",
        &format!(r#","message":{{"role":"user","content":"{text}"}}"#),
    )
}

fn assistant(uuid: &str, parent: &str, id: &str, block: &str, out: u64) -> String {
    rec(
        uuid,
        Some(parent),
        "assistant",
        &format!(
            r#","message":{{"model":"claude-x","id":"{id}","role":"assistant","content":[{block}],"usage":{{"input_tokens":1,"cache_read_input_tokens":10,"cache_creation_input_tokens":100,"output_tokens":{out}}}}}"#
        ),
    )
}

fn result(uuid: &str, parent: &str, call: &str) -> String {
    rec(
        uuid,
        Some(parent),
        "user",
        &format!(
            r#","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{call}","content":"ok"}}]}}"#
        ),
    )
}

fn tool(id: &str) -> String {
    format!(r#"{{"type":"tool_use","id":"{id}","name":"Bash","input":{{}}}}"#)
}

#[test]
fn split_response_with_parallel_results_is_one_message() {
    let lines = [
        user("u1", None, "hi"),
        assistant("a1", "u1", "m1", &tool("t1"), 1),
        assistant("a2", "a1", "m1", &tool("t2"), 5),
        result("r1", "a1", "t1"),
        result("r2", "a2", "t2"),
        assistant("a3", "r2", "m2", r#"{"type":"text","text":"done"}"#, 7),
    ];
    let s = read(&(lines.join("\n") + "\n")).unwrap();
    let roles: Vec<Role> = s.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [
            Role::User,
            Role::Assistant,
            Role::User,
            Role::User,
            Role::Assistant
        ]
    );
    assert_eq!(s.messages[1].origin, Origin::Records(vec![1, 2]));
    assert_eq!(s.messages[1].call_ids().collect::<Vec<_>>(), ["t1", "t2"]);
    assert_eq!(s.model.as_deref(), Some("claude-x"));
    let u = s.reported_usage.unwrap();
    assert_eq!(
        (u.input_tokens, u.output_tokens, u.after_message),
        (111, 7, Some(4))
    );
}

#[test]
fn dead_branches_and_history_before_a_boundary_are_not_messages() {
    let boundary = rec(
        "b",
        None,
        "system",
        r#","subtype":"compact_boundary","logicalParentUuid":"u2""#,
    );
    let summary = rec(
        "c",
        Some("b"),
        "user",
        r#","message":{"role":"user","content":"summary"},"isCompactSummary":true"#,
    );
    let lines = [
        user("u1", None, "old"),
        user("x", Some("u1"), "rewound"),
        user("u2", Some("u1"), "kept"),
        boundary,
        summary,
        user("u3", Some("c"), "new"),
        r#"{"type":"last-prompt","leafUuid":"u3"}"#.to_string(),
    ];
    let s = read(lines.join("\n")).unwrap();
    assert_eq!(s.messages.len(), 2);
    assert_eq!(s.messages[0].compact.as_ref().unwrap().by, "claude-code");
    assert_eq!(s.messages[1].parts, vec![Part::Text("new".into())]);
    assert_eq!(s.reported_usage, None);
}

#[test]
fn usage_before_ctxctls_latest_rewrite_is_stale() {
    let marker =
        r#"{"type":"last-prompt","lastPrompt":"hi","leafUuid":"u2","ctxctl":{"rewrite":true}}"#;
    let text = |lines: &[String]| lines.join("\n") + "\n";
    let mut lines = vec![
        user("u1", None, "hi"),
        assistant("a1", "u1", "m1", r#"{"type":"text","text":"x"}"#, 5),
        user("u2", Some("a1"), "more"),
        marker.to_string(),
    ];
    assert_eq!(read(text(&lines)).unwrap().reported_usage, None);
    // The agent resumed and reported again: that is current.
    lines.push(assistant(
        "a2",
        "u2",
        "m2",
        r#"{"type":"text","text":"y"}"#,
        9,
    ));
    let u = read(text(&lines)).unwrap().reported_usage.unwrap();
    assert_eq!((u.output_tokens, u.after_message), (9, Some(3)));
    // A ctxctl summary with no marker after it (older builds): nothing is current.
    let summary = rec(
        "c",
        Some("u2"),
        "user",
        r#","message":{"role":"user","content":"s"},"isCompactSummary":true,"ctxctl":{"compact_boundary":true}"#,
    );
    lines.insert(4, summary);
    assert_eq!(read(text(&lines)).unwrap().reported_usage, None);
}

#[test]
fn a_detached_trailing_system_record_is_not_the_leaf() {
    let notice = rec(
        "n",
        None,
        "system",
        r#","subtype":"informational","content":"x""#,
    );
    let s = read([user("u1", None, "a"), notice].join("\n")).unwrap();
    assert_eq!(s.messages.len(), 1);
}

#[test]
fn leaf_named_by_last_prompt_wins() {
    let lines = [
        user("u1", None, "a"),
        user("u2", Some("u1"), "b"),
        user("u3", Some("u1"), "c"),
        r#"{"type":"last-prompt","leafUuid":"u2"}"#.to_string(),
    ];
    let s = read(lines.join("\n")).unwrap();
    assert_eq!(s.messages.len(), 2);
    assert_eq!(s.messages[1].text(), "b");
}

#[test]
fn missing_parent_and_truncated_tail_are_warnings() {
    let text = format!("{}\n{{\"type\":\"us", user("u1", Some("gone"), "a"));
    let s = read(&text).unwrap();
    assert_eq!(s.messages.len(), 1);
    assert_eq!(s.warnings.len(), 2, "{:?}", s.warnings);
    let Document::Lines(doc) = &s.doc else {
        panic!()
    };
    assert_eq!(doc.truncated_tail, Some(1));
}

#[test]
fn inline_sidechain_records_are_not_the_main_thread() {
    let side = rec(
        "s1",
        Some("u1"),
        "user",
        r#","message":{"role":"user","content":"side"},"isSidechain":true"#,
    )
    .replace(r#""isSidechain":false,"#, "");
    let s = read([user("u1", None, "main"), side].join("\n")).unwrap();
    assert_eq!(s.messages.len(), 1);
    assert_eq!(s.messages[0].text(), "main");
}
