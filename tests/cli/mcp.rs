//! `ctxctl mcp` spoken to over its stdin and stdout as an agent speaks to it: initialize,
//! the initialized notification, tools/list, then `recall` of a fact that survives only
//! before Claude Code's own compaction boundary, and `context_status`.

use serde_json::{json, Value};

use crate::support::{archive_ids, fixture, TestEnv};

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

const ID: &str = "11111111-2222-3333-4444-000000000001";
const SESSION: &str =
    "home/.claude/projects/-home-dev-proj/11111111-2222-3333-4444-000000000001.jsonl";

/// The fixture session in Claude Code's store of the project; its path.
fn claude_session(env: &TestEnv) -> std::path::PathBuf {
    env.write(
        SESSION,
        std::fs::read(fixture(
            "realclients/claude-code-2.1.332/cc-self-compacted.jsonl",
        ))
        .unwrap(),
    )
}

fn archived(env: &TestEnv) -> usize {
    fn count(dir: &std::path::Path) -> usize {
        std::fs::read_dir(dir).map_or(0, |rd| {
            rd.flatten()
                .map(|e| match e.path().is_dir() {
                    true => count(&e.path()),
                    false => 1,
                })
                .sum()
        })
    }
    count(&env.data_dir().join("archives"))
}

/// `tools/list`'s names and the result of one `compact_session` call.
fn compact_call(env: &TestEnv, extra: &[&str], arguments: Value) -> (Vec<String>, Value) {
    let input: String = [
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}),
        json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
        json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"compact_session","arguments":arguments}}),
    ]
    .iter()
    .map(|m| format!("{m}\n"))
    .collect();
    let run = env.run_stdin(&[&["mcp"], extra].concat(), Some(input.as_bytes()));
    assert_eq!(run.code, 0, "{run:?}");
    let out: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let names = out[1]["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    (names, out[2]["result"].clone())
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap()
}

#[test]
fn compact_session_is_offered_only_when_the_user_allows_it() {
    let env = TestEnv::new();
    let file = claude_session(&env);
    let before = std::fs::read(&file).unwrap();
    let (names, result) = compact_call(&env, &["--project", PROJECT], json!({"session": ID}));
    assert_eq!(names, vec!["recall", "context_status"]);
    assert_eq!(result["isError"], true, "{result}");
    // The tool names --allow-compact.
    insta::assert_snapshot!(env.redact(text(&result)));
    assert_eq!(std::fs::read(&file).unwrap(), before);
    assert_eq!(archived(&env), 0);
}

#[test]
fn compact_session_compacts_a_session_no_agent_uses_archiving_it_first() {
    let env = TestEnv::new();
    let file = claude_session(&env);
    let before = std::fs::read(&file).unwrap();
    let (names, result) = compact_call(
        &env,
        &["--project", PROJECT, "--allow-compact"],
        json!({"session": ID, "tail_tokens": 200}),
    );
    assert_eq!(names, vec!["recall", "context_status", "compact_session"]);
    assert_eq!(result["isError"], false, "{result}");
    assert!(
        text(&result).starts_with(&format!("Compacted {}", file.display())),
        "{result}"
    );
    let after = std::fs::read(&file).unwrap();
    assert_ne!(after, before);
    // ctxctl's boundary and summary are now in the file (one more boundary).
    let boundaries = |b: &[u8]| {
        String::from_utf8_lossy(b)
            .matches("compact_boundary")
            .count()
    };
    assert!(boundaries(&after) > boundaries(&before));
    assert_eq!(archived(&env), 1, "the originals are archived");
    // The summary names what it replaced; `archive ls` finds the archive, as after the command.
    assert_eq!(archive_ids(&env), [format!("{ID}/1")]);
}

#[test]
fn compact_session_refuses_the_callers_own_session_which_is_live() {
    // Claude Code tells the server the project and the calling session in its environment.
    let env = TestEnv::new()
        .env("CLAUDE_PROJECT_DIR", PROJECT)
        .env("CLAUDE_CODE_SESSION_ID", ID);
    let file = claude_session(&env);
    let before = std::fs::read(&file).unwrap();
    let (_, result) = compact_call(&env, &["--allow-compact"], json!({"session": ID}));
    assert_eq!(result["isError"], true, "{result}");
    insta::assert_snapshot!(env.redact(text(&result)));
    assert_eq!(std::fs::read(&file).unwrap(), before);
    assert_eq!(archived(&env), 0);
}

#[cfg(target_os = "linux")]
#[test]
fn compact_session_refuses_a_session_another_process_is_writing() {
    let env = TestEnv::new();
    let file = claude_session(&env);
    let before = std::fs::read(&file).unwrap();
    let ready = env.path().join("ready");
    let mut writer = std::process::Command::new("sh")
        .args([
            "-c",
            &format!("exec 3>>{SESSION}; touch ready; exec sleep 60"),
        ])
        .current_dir(env.path())
        .stdin(std::process::Stdio::null())
        .spawn()
        .unwrap();
    while !ready.exists() {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let (_, result) = compact_call(
        &env,
        &["--project", PROJECT, "--allow-compact"],
        json!({"session": file.display().to_string()}),
    );
    writer.kill().unwrap();
    writer.wait().unwrap();
    assert_eq!(result["isError"], true, "{result}");
    let t = text(&result).replace(&format!(" {} ", writer.id()), " [PID] ");
    insta::assert_snapshot!(env.redact(&t));
    assert_eq!(std::fs::read(&file).unwrap(), before);
    assert_eq!(archived(&env), 0);
}
