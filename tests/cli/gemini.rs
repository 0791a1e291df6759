//! Gemini CLI sessions (`~/.gemini/tmp/<project>/chats/`) through the real binary: found
//! by `-r` without the stubs resumes leave, counted, checked, and rewritten by appending
//! one checkpoint line that `archive restore` takes off again.

use std::path::PathBuf;

use serde_json::{json, Value};

use crate::support::{repo, s, TestEnv};

/// The real Gemini CLI 0.61.0 session of `tests/formats/gemini-cli`, grown by two more
/// turns in Gemini's own record shapes: a `read_file` call with a large result (recorded
/// as Gemini does: the call, the call again with its result attached, the result as a
/// user message), then three short exchanges.
fn session() -> String {
    let mut text =
        std::fs::read_to_string(repo().join("tests/formats/gemini-cli/input.jsonl")).unwrap();
    let ts = "2026-11-23T20:15:10.000Z";
    let big: String = (0..400)
        .map(|i| format!("line {i}: release checklist item {i}\n"))
        .collect();
    let response = json!([{"functionResponse": {"id": "read_file_big_0", "name": "read_file",
        "response": {"output": big}}}]);
    let call = json!({"id": "g-big", "timestamp": ts, "type": "gemini", "content": "Reading it.",
        "thoughts": [], "model": "gemini-2.5-flash"});
    let mut called = call.clone();
    called["toolCalls"] = json!([{"id": "read_file_big_0", "name": "read_file",
        "args": {"file_path": "checklist.txt"}, "result": response, "status": "success"}]);
    let lines = [
        json!({"id": "u-big", "timestamp": ts, "type": "user", "content": [{"text": "Read checklist.txt"}]}),
        call,
        called,
        json!({"id": "u-res", "timestamp": ts, "type": "user", "content": response}),
        json!({"id": "g-ans", "timestamp": ts, "type": "gemini", "content": "It has 400 items.", "model": "gemini-2.5-flash"}),
        json!({"id": "u-f1", "timestamp": ts, "type": "user", "content": [{"text": "Is item 3 done?"}]}),
        json!({"id": "g-f1", "timestamp": ts, "type": "gemini", "content": "Not yet.", "model": "gemini-2.5-flash"}),
        json!({"id": "u-f2", "timestamp": ts, "type": "user", "content": [{"text": "And item 4?"}]}),
        json!({"id": "g-f2", "timestamp": ts, "type": "gemini", "content": "Done.", "model": "gemini-2.5-flash"}),
        json!({"id": "u-last", "timestamp": ts, "type": "user", "content": [{"text": "Which one is first?"}]}),
        json!({"id": "g-last", "timestamp": ts, "type": "gemini", "content": "Item 0.", "model": "gemini-2.5-flash"}),
    ];
    for l in lines {
        text.push_str(&l.to_string());
        text.push('\n');
    }
    text
}

/// The session in a Gemini data directory, beside the stub a later-minute resume leaves.
fn install(env: &TestEnv) -> PathBuf {
    let chats = ".gemini/tmp/proj2/chats";
    let stub =
        std::fs::read(repo().join("tests/formats/gemini-cli/resume-stub/input.jsonl")).unwrap();
    env.write(
        &format!("home/{chats}/session-2026-11-23T20-24-f3111096.jsonl"),
        stub,
    );
    env.write(
        &format!("home/{chats}/session-2026-11-23T20-14-f3111096.jsonl"),
        session(),
    )
}

#[test]
fn sessions_are_found_below_the_gemini_directory_without_stubs() {
    let env = TestEnv::new();
    let file = install(&env);
    let run = env.run(&[
        "count",
        "-r",
        "home/.gemini/tmp",
        "--json",
        "--tokenizer",
        "approx",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let files = run.json()["files"].as_array().unwrap().clone();
    assert_eq!(files.len(), 1, "{files:#?}");
    assert_eq!(files[0]["format"], "gemini-cli");
    assert_eq!(files[0]["messages"], 21);
    let run = env.run(&["check", s(&file), "--json", "--tokenizer", "approx"]);
    assert_eq!(run.code, 0, "{run:?}");
    // The model from the log, and its window.
    insta::assert_snapshot!("check", env.snap(&run));
}

fn last_line(bytes: &[u8]) -> Value {
    let text = std::str::from_utf8(bytes).unwrap();
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

#[test]
fn compact_appends_one_checkpoint_that_restore_takes_off() {
    let env = TestEnv::new();
    let file = install(&env);
    let original = std::fs::read(&file).unwrap();
    let run = env.run(&[
        "compact",
        s(&file),
        "--in-place",
        "--tail-tokens",
        "40",
        "--json",
        "--tokenizer",
        "approx",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let id = run.json()["archive_id"].as_str().unwrap().to_string();
    let compacted = std::fs::read(&file).unwrap();
    assert!(compacted.starts_with(&original), "every earlier byte kept");
    let added = &compacted[original.len()..];
    assert_eq!(added.iter().filter(|&&b| b == b'\n').count(), 1);
    let set = &last_line(&compacted)["$set"];
    let ids: Vec<&str> = set["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids[0], "d04923d38bb0f6017037e74183378ef4",
        "the session context first"
    );
    assert_eq!(
        ids[ids.len() - 2..],
        ["u-last", "g-last"],
        "kept ids unchanged"
    );
    assert!(
        !ids.contains(&"g-big"),
        "the big read is summarized: {ids:?}"
    );
    assert!(set["lastUpdated"].is_string());
    let run = env.run(&["count", s(&file), "--json", "--tokenizer", "approx"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.json()["files"][0]["messages"], ids.len());

    let run = env.run(&["archive", "restore", &id]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        std::fs::read(&file).unwrap() == original,
        "restored byte for byte"
    );

    // Compacted again and then resumed by Gemini CLI (which appends): restore refuses and
    // changes nothing.
    let run = env.run(&[
        "compact",
        s(&file),
        "--in-place",
        "--tail-tokens",
        "40",
        "--json",
        "--tokenizer",
        "approx",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let id = run.json()["archive_id"].as_str().unwrap().to_string();
    let mut resumed = std::fs::read(&file).unwrap();
    resumed.extend_from_slice(b"{\"$set\":{\"lastUpdated\":\"2026-11-24T00:00:00.000Z\"}}\n");
    std::fs::write(&file, &resumed).unwrap();
    let run = env.run(&["archive", "restore", &id]);
    assert_eq!(run.code, 2, "{run:?}");
    insta::assert_snapshot!("resumed", env.snap(&run));
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(std::fs::read(&file).unwrap() == resumed, "nothing written");
}

#[test]
fn trim_keeps_calls_with_their_results_and_restore_undoes_it() {
    let env = TestEnv::new();
    let file = install(&env);
    let original = std::fs::read(&file).unwrap();
    let run = env.run(&[
        "trim",
        s(&file),
        "--strategy",
        "fifo",
        "--max-tokens",
        "2000",
        "--in-place",
        "--tokenizer",
        "approx",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let trimmed = std::fs::read(&file).unwrap();
    assert!(trimmed.starts_with(&original));
    let set = &last_line(&trimmed)["$set"];
    let msgs = set["messages"].as_array().unwrap();
    let has = |id: &str| msgs.iter().any(|m| m["id"] == id);
    // The call and both copies of its result go together.
    assert_eq!(has("g-big"), has("g-big_response"));
    assert_eq!(has("g-big"), has("u-res"));
    assert!(!has("g-big"), "the big read is trimmed");
    let run = env.run(&["check", s(&file), "--tokenizer", "approx"]);
    assert_eq!(run.code, 0, "{run:?}");
    let listed = env.run(&["archive", "ls", "--json"]).json();
    let id = listed.as_array().unwrap().last().unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let run = env.run(&["archive", "restore", &id]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        std::fs::read(&file).unwrap() == original,
        "restored byte for byte"
    );
}

/// A Gemini CLI `.json` chat: a question, a response that only calls `update_topic`
/// (reporting `thoughts`), the final answer reporting `answer_input`, then `tail` more
/// messages (a follow-up question, or nothing).
fn topic_chat(thoughts: u64, answer_input: u64, tail: bool) -> String {
    let ts = "2026-11-23T20:15:10.000Z";
    let topic = json!([{"functionResponse": {"id": "update_topic_1", "name": "update_topic",
        "response": {"output": "Current topic: \"Release checklist\""}}}]);
    let mut messages = vec![
        json!({"id": "u1", "timestamp": ts, "type": "user",
            "content": [{"text": "Summarise the release checklist."}]}),
        json!({"id": "g1", "timestamp": ts, "type": "gemini", "content": "Setting the topic.",
            "model": "gemini-2.5-pro",
            "tokens": {"input": 9000, "output": 40, "cached": 0, "thoughts": thoughts, "tool": 0},
            "toolCalls": [{"id": "update_topic_1", "name": "update_topic",
                "args": {"title": "Release checklist"}, "result": topic, "status": "success"}]}),
    ];
    if answer_input > 0 {
        messages.push(json!({"id": "g2", "timestamp": ts, "type": "gemini",
            "content": "The checklist has three open items.", "model": "gemini-2.5-pro",
            "tokens": {"input": answer_input, "output": 12, "cached": 0, "thoughts": 0, "tool": 0}}));
    }
    if tail {
        messages.push(json!({"id": "u2", "timestamp": ts, "type": "user",
            "content": [{"text": "Which one is first?"}]}));
    }
    json!({"sessionId": "0f0f0f0f-1111-2222-3333-444444444444", "projectHash": "ab12",
        "startTime": ts, "lastUpdated": ts, "messages": messages})
    .to_string()
}

fn next_request(env: &TestEnv, name: &str, text: String) -> u64 {
    let file = env.write(&format!("home/.gemini/tmp/p/chats/{name}.json"), text);
    let run = env.run(&["check", s(&file), "--json", "--tokenizer", "approx"]);
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.json();
    assert_eq!(v["files"][0]["next_request_source"], "reported", "{v:#}");
    v["files"][0]["next_request_tokens"].as_u64().unwrap()
}

#[test]
fn the_request_after_an_update_topic_call_carries_the_sessions_thoughts() {
    let env = TestEnv::new();
    // Ending on the response that only set the topic: the next request carries the
    // 1,500 thoughts tokens Gemini reported for it, besides the history.
    let with = next_request(&env, "a", topic_chat(1_500, 0, false));
    let without = next_request(&env, "b", topic_chat(0, 0, false));
    assert_eq!(with, without + 1_500);
    // The answer's report held them; the request after it no longer does: the same
    // figure as a session whose answer reported its history alone.
    let inflated = next_request(&env, "c", topic_chat(1_500, 10_700, true));
    let plain = next_request(&env, "d", topic_chat(0, 9_200, true));
    assert_eq!(inflated, plain);
    // Taken as reported, the answer would have stood 1,500 higher.
    let as_reported = next_request(&env, "e", topic_chat(0, 10_700, true));
    assert_eq!(inflated + 1_500, as_reported);
}
