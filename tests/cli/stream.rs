//! Read-only commands stream JSON documents, plain JSONL (src/ops/json_stream.rs) and
//! agents' JSONL sessions (src/ops/agent_stream.rs and the routes it hands to); what
//! they print must be what reading the file whole prints. `--format` makes ctxctl read
//! the file whole (the streamed path only takes detected files), so each command is run
//! both ways and the outputs compared byte for byte; `-v` shows which way was taken.

use crate::support::{fixture, sample, TestEnv};

/// A session large enough to come in many blocks: user turns, tool calls and their
/// results (one an error, one never answered), in the shape `scripts/gen-session.py`
/// writes.
pub fn big_session(messages: usize) -> serde_json::Value {
    let mut msgs = vec![serde_json::json!({"role": "system", "content": "You are terse."})];
    let mut i = 0;
    while msgs.len() < messages {
        i += 1;
        msgs.push(serde_json::json!({"role": "user", "content": format!("Question {i}: {}", "why is the sky blue? ".repeat(i % 50))}));
        let id = format!("call_{i:06}");
        let tool = ["read", "grep", "bash"][i % 3];
        msgs.push(serde_json::json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": id, "type": "function", "function": {"name": tool, "arguments": format!("{{\"path\":\"src/{i}.rs\"}}")}}
        ]}));
        if i % 97 != 0 {
            msgs.push(serde_json::json!({"role": "tool", "tool_call_id": id, "content": format!("fn f{i}() {{ {} }}", "let x = 1; ".repeat(i % 200))}));
        }
        msgs.push(serde_json::json!({"role": "assistant", "content": format!("Answer {i} \"quoted\" \\ é ✓ {}", "word ".repeat(i % 120))}));
    }
    serde_json::json!({"model": "gpt-4o", "messages": msgs, "tools": [{"type": "function", "function": {"name": "read"}}]})
}

/// `args` on `path`, streamed and read whole (as `format`): the two runs' output, and
/// whether the first was streamed.
fn both_ways(env: &TestEnv, args: &[&str], path: &str, format: &str) {
    let mut streamed: Vec<&str> = args.to_vec();
    streamed.push(path);
    let mut whole = streamed.clone();
    whole.extend(["--format", format]);
    let a = env.run(&streamed);
    let b = env.run(&whole);
    assert_eq!(
        format!("{a:?}"),
        format!("{b:?}"),
        "{args:?} on {path}: streamed ≠ whole"
    );
    let mut verbose = streamed.clone();
    verbose.push("-v");
    if !verbose.contains(&"--no-cache") {
        verbose.push("--no-cache");
    }
    let v = env.run(&verbose);
    assert!(
        v.stderr.contains("(streamed)"),
        "{args:?} on {path} was not streamed:\n{v:?}"
    );
}

const COMMANDS: &[&[&str]] = &[
    &["count"],
    &["count", "--json", "--per-message", "--no-cache"],
    &["count", "--by-role", "--per-message"],
    &["count", "--tsv"],
    &["check", "--allow-unknown-model"],
    &["check", "--json", "--no-cache", "--allow-unknown-model"],
    &["stats"],
    &["stats", "--json", "--no-cache"],
    &["stats", "--tsv"],
];

#[test]
fn streamed_output_is_the_whole_files_output() {
    let env = TestEnv::new();
    let cases = [
        (
            fixture("anthropic-messages/claude-code_v1.0.6_request_main_loop_tool_use.json"),
            "anthropic",
        ),
        (
            fixture("openai-chat/swe-agent_marshmallow-1867_function_calling.traj.json"),
            "openai",
        ),
        (sample("openai-chat.json"), "openai"),
        (sample("anthropic-messages.json"), "anthropic"),
        (sample("plain.jsonl"), "jsonl"),
    ];
    for (path, format) in &cases {
        // Copied in: check keeps digests by path, and a fixture is never written.
        let name = path.file_name().unwrap().to_str().unwrap();
        let copy = env.write(name, std::fs::read(path).unwrap());
        let copy = copy.to_str().unwrap();
        for args in COMMANDS {
            both_ways(&env, args, copy, format);
        }
    }
}

#[test]
fn a_session_of_many_blocks_streams_as_it_reads_whole() {
    let env = TestEnv::new();
    let doc = big_session(5_000);
    let compact = env.write("big.json", serde_json::to_string(&doc).unwrap());
    let pretty = env.write("pretty.json", serde_json::to_string_pretty(&doc).unwrap());
    let lines: String = doc["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| format!("{m}\r\n"))
        .collect();
    let jsonl = env.write("big.jsonl", format!("\n{lines}\n\n"));
    // Many blocks (of 256 KiB) of records.
    assert!(std::fs::metadata(&compact).unwrap().len() > 3 << 19);
    let commands: &[&[&str]] = &[
        &["count", "--by-role", "--per-message"],
        &["check", "--json", "--no-cache"],
        &["stats"],
        &["stats", "--json", "--no-cache"],
    ];
    for (path, format) in [(&compact, "openai"), (&pretty, "openai"), (&jsonl, "jsonl")] {
        for args in commands {
            both_ways(&env, args, path.to_str().unwrap(), format);
        }
    }
}

#[test]
fn what_is_not_streamed_reads_whole_with_the_same_errors() {
    let env = TestEnv::new();
    // Broken after many good records: the whole-file reader's error, with its place.
    let doc = big_session(3000);
    let mut text = serde_json::to_string(&doc).unwrap();
    let at = text.rfind("},{\"role\"").unwrap();
    text.insert(at + 1, ',');
    let bad = env.write("bad.json", &text);
    let r = env.run(&["count", bad.to_str().unwrap()]);
    let whole = env.run(&["count", bad.to_str().unwrap(), "--format", "openai"]);
    assert_eq!(r.code, 2, "{r:?}");
    assert_eq!(format!("{r:?}"), format!("{whole:?}"));
    // A JSONL file whose last line is cut short (an agent still writing) is read whole,
    // with its warning.
    let cut = env.write(
        "cut.jsonl",
        "{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"assistant\",\"content\":\"b\"}\n{\"role\":\"us",
    );
    let r = env.run(&["count", cut.to_str().unwrap(), "-v"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stderr.contains("incomplete last line"), "{r:?}");
    assert!(!r.stderr.contains("(streamed)"), "{r:?}");
    // A model named after the list that needs another tokenizer than the default: read
    // whole, counted with the right one.
    let late = env.write(
        "late.json",
        "{\"messages\":[{\"role\":\"user\",\"content\":\"hello there\"}],\"model\":\"gpt-4\"}",
    );
    let r = env.run(&["count", late.to_str().unwrap(), "--json"]);
    assert_eq!(r.file()["tokenizer"], "cl100k_base", "{r:?}");
}

/// Every command on a copy of fixture `rel`, and `count` on it cut short in its last line
/// (the agent still writing: the same warning), streamed and read whole as `format`.
fn fixture_both_ways(env: &TestEnv, rel: &str, format: &str) {
    let path = fixture(rel);
    let text = std::fs::read_to_string(&path).unwrap();
    let name = path.file_name().unwrap().to_str().unwrap();
    text_both_ways(env, name, &text, format);
}

/// [`fixture_both_ways`] on `text`, written as `name`.
fn text_both_ways(env: &TestEnv, name: &str, text: &str, format: &str) {
    let copy = env.write(name, text);
    for args in COMMANDS {
        both_ways(env, args, copy.to_str().unwrap(), format);
    }
    let mut end = text.trim_end().len() - 10;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = env.write(&format!("cut-{name}"), &text[..end]);
    both_ways(env, &["count", "--json"], cut.to_str().unwrap(), format);
}

#[test]
fn claude_code_transcripts_stream_as_they_read_whole() {
    let env = TestEnv::new();
    let cases = [
        "realclients/claude-code-2.1.332/auto-compacted-twice.jsonl",
        "realclients/claude-code/realclient_v2.1.197_subagent.jsonl",
        "claude-code/spotter_compact_boundary_excerpt_L1222-1300.jsonl",
    ];
    for rel in cases {
        fixture_both_ways(&env, rel, "claude-code");
    }
    // A record the reader refuses: read whole, its error with its place.
    let good = std::fs::read_to_string(fixture(
        "realclients/claude-code/realclient_v2.1.197_session.jsonl",
    ))
    .unwrap();
    let at = good.find("\"type\":\"assistant\"").unwrap();
    let line = good[..at].rfind('\n').unwrap() + 1;
    let bad = format!("{}[1]\n{}", &good[..line], &good[line..]);
    let bad = env.write("bad.jsonl", bad);
    let r = env.run(&["count", bad.to_str().unwrap()]);
    let whole = env.run(&["count", bad.to_str().unwrap(), "--format", "claude-code"]);
    assert_eq!(r.code, 2, "{r:?}");
    assert_eq!(format!("{r:?}"), format!("{whole:?}"));
}

#[test]
fn codex_rollouts_stream_as_they_read_whole() {
    let env = TestEnv::new();
    let cases = [
        "realclients/codex-0.171.0/rollout-self-compacted.jsonl",
        "codex/acidicsoil_rollout_v0.58.0_cli.jsonl",
    ];
    for rel in cases {
        fixture_both_ways(&env, rel, "codex");
    }
    // An active item the reader refuses: read whole, its error with its place.
    let good = std::fs::read_to_string(fixture(
        "realclients/codex/realclient_v0.169_rollout_tasks.jsonl",
    ))
    .unwrap();
    let bad = format!(
        "{good}{}\n",
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","content":[]}}"#
    );
    let bad = env.write("bad-rollout.jsonl", bad);
    let r = env.run(&["count", bad.to_str().unwrap()]);
    let whole = env.run(&["count", bad.to_str().unwrap(), "--format", "codex"]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(
        r.stderr
            .contains("payload: expected a message with a \"role\""),
        "{r:?}"
    );
    assert_eq!(format!("{r:?}"), format!("{whole:?}"));
}

#[test]
fn gemini_cli_logs_and_goose_sessions_stream_as_they_read_whole() {
    let env = TestEnv::new();
    for rel in [
        "gemini-cli/run-a/session-2026-11-23T20-14-f3111096.jsonl",
        "gemini-cli/run-0-title-and-headless-compress/session-2026-11-23T20-13-3e7d6094.jsonl",
        "gemini-cli/run-b-with-resume-stub/session-2026-11-23T20-23-897a9d3d.jsonl",
    ] {
        fixture_both_ways(&env, rel, "gemini-cli");
    }
    let goose = crate::shared::goose_session_from_recording();
    text_both_ways(&env, "goose-session.jsonl", &goose, "goose");
    // A message the reader refuses: read whole, its error with its place.
    let bad = format!(
        "{goose}{}\n",
        r#"{"role":"user","created":1,"content":"x"}"#
    );
    let bad = env.write("bad-goose.jsonl", bad);
    let r = env.run(&["count", bad.to_str().unwrap()]);
    let whole = env.run(&["count", bad.to_str().unwrap(), "--format", "goose"]);
    assert_eq!(r.code, 2, "{r:?}");
    assert_eq!(format!("{r:?}"), format!("{whole:?}"));
}
