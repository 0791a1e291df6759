//! `ctxctl mcp` spoken to over its stdin and stdout as an agent speaks to it: initialize,
//! the initialized notification, tools/list, then `recall` of a fact that survives only
//! before Claude Code's own compaction boundary, and `context_status`.

use serde_json::{json, Value};

use crate::support::{fixture, TestEnv};

/// The project the fixture session was recorded in (its records' `cwd`).
const PROJECT: &str = "/home/dev/proj";

fn exchange(env: &TestEnv, messages: &[Value]) -> Vec<Value> {
    let input: String = messages.iter().map(|m| format!("{m}\n")).collect();
    let run = env.run_stdin(&["mcp", "--project", PROJECT], Some(input.as_bytes()));
    assert_eq!(run.code, 0, "{run:?}");
    run.stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn recall_brings_back_what_claude_code_compacted_away() {
    let env = TestEnv::new();
    env.write(
        "home/.claude/projects/-home-dev-proj/11111111-2222-3333-4444-000000000001.jsonl",
        std::fs::read(fixture(
            "realclients/claude-code-2.1.332/cc-self-compacted.jsonl",
        ))
        .unwrap(),
    );
    let out = exchange(
        &env,
        &[
            json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}),
            json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
            json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
            json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"recall","arguments":{"query":"ModuleNotFoundError","max_tokens":400}}}),
            json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"context_status","arguments":{}}}),
            json!({"jsonrpc":"2.0","id":5,"method":"no/such"}),
        ],
    );
    // One answer per request; none for the notification.
    let ids: Vec<i64> = out.iter().map(|m| m["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, vec![1, 2, 3, 4, 5]);
    assert_eq!(out[0]["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(out[0]["result"]["serverInfo"]["name"], "ctxctl");
    let names: Vec<&str> = out[1]["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["recall", "context_status"]);
    let recall = out[2]["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(out[2]["result"]["isError"], false);
    insta::assert_snapshot!(env.redact(recall));
    let status: Value =
        serde_json::from_str(out[3]["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(status["agent"], "claude-code");
    assert!(
        status["next_request_tokens"].as_u64().unwrap() > 0,
        "{status}"
    );
    assert!(status["context_window"].as_u64().unwrap() > 0, "{status}");
    assert_eq!(out[4]["error"]["code"], -32601);
}

#[test]
fn a_line_that_is_not_json_is_a_parse_error_and_the_server_goes_on() {
    let env = TestEnv::new();
    let run = env.run_stdin(
        &["mcp", "--project", PROJECT],
        Some(b"{not json\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n"),
    );
    assert_eq!(run.code, 0, "{run:?}");
    let lines: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["error"]["code"], -32700);
    assert_eq!(lines[1], json!({"jsonrpc":"2.0","id":7,"result":{}}));
}
