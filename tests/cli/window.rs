//! Issue #16: the window the agent uses, where it came from, and the one predicted
//! next-request figure every command measures a session by.

use serde_json::Value;

use crate::support::{fixture, s, sample, TestEnv};

/// `count --json`'s entry for one file.
fn counted(env: &TestEnv, args: &[&str]) -> Value {
    let mut all = vec!["count", "--json"];
    all.extend_from_slice(args);
    let run = env.run(&all);
    assert_eq!(run.code, 0, "{run:?}");
    run.json()["files"][0].clone()
}

#[test]
fn windows_are_the_agents_own_and_say_where_they_came_from() {
    let env = TestEnv::new();
    let cases = [
        // Claude Code ran opus-4-6 at 200K (it auto-compacted at preTokens 167094).
        ("claude-code/spotter_tool_heavy.jsonl", 200_000, "agent"),
        (
            "claude-code/spotter_compact_boundary_excerpt_L1222-1300.jsonl",
            200_000,
            "agent",
        ),
        (
            "claude-code/spotter_subagent_sidechain_agent-aac57f5.jsonl",
            200_000,
            "agent",
        ),
        // Claude Code 2.1.197 ran its default opus-4-8 as claude-opus-4-8[1m].
        (
            "realclients/claude-code/realclient_v2.1.197_session.jsonl",
            1_000_000,
            "agent",
        ),
        // Codex records the window it uses.
        (
            "codex/acidicsoil_rollout_v0.58.0_cli.jsonl",
            258_400,
            "recorded",
        ),
        (
            "codex/localpush_rollout_v0.104_desktop_redacted.jsonl",
            258_400,
            "recorded",
        ),
        // A request body: the API's window for the model.
        (
            "anthropic-messages/claude-code_v1.0.6_request_main_loop_tool_use.json",
            200_000,
            "registry",
        ),
    ];
    for (rel, window, source) in cases {
        let f = fixture(rel);
        let c = counted(&env, &[s(&f)]);
        assert_eq!(c["context_window"], window, "{rel}: {c}");
        assert_eq!(c["context_window_source"], source, "{rel}: {c}");
        let run = env.run(&["check", s(&f), "--json"]);
        let v = run.file();
        assert_eq!(v["context_window"], window, "{rel}: {v}");
        assert_eq!(v["context_window_source"], source, "{rel}: {v}");
        assert_eq!(v["tokens"], c["tokens"], "{rel}: {v}");
        assert_eq!(v["next_request_tokens"], c["next_request_tokens"], "{rel}");
    }
}

#[test]
fn the_1m_suffix_aliases_and_the_flag_choose_the_window() {
    let env = TestEnv::new();
    let f = fixture("claude-code/spotter_tool_heavy.jsonl");
    let c = counted(&env, &[s(&f), "--model", "claude-opus-4-6[1m]"]);
    assert_eq!(
        (
            c["context_window"].as_u64(),
            c["context_window_source"].as_str()
        ),
        (Some(1_000_000), Some("agent")),
        "{c}"
    );
    let c = counted(&env, &[s(&f), "--model", "sonnet"]);
    assert_eq!(c["context_window"], 200_000, "{c}");
    let run = env.run(&["check", s(&f), "--model", "opus", "--json"]);
    assert!(!run.stderr.contains("unknown model"), "{run:?}");
    let run = env.run(&["check", s(&f), "--max-tokens", "50000", "--json"]);
    let v = run.file();
    assert_eq!(
        (
            v["context_window"].as_u64(),
            v["context_window_source"].as_str()
        ),
        (Some(50_000), Some("flag")),
        "{v}"
    );
    let c = counted(&env, &[s(&sample("openai-chat.json")), "--model", "haiku"]);
    assert_eq!(c["model"], "haiku");
    assert_eq!(c["context_window_source"], "registry", "{c}");
}

#[test]
fn an_empty_model_is_a_usage_error() {
    let env = TestEnv::new();
    let run = env.run(&["count", s(&sample("openai-chat.json")), "--model", ""]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stdout.is_empty(), "{run:?}");
}

#[test]
fn the_next_request_adds_the_agents_hidden_part() {
    let env = TestEnv::new();
    let f = sample("claude-code.jsonl");
    let c = counted(&env, &[s(&f)]);
    let messages = c["tokens"].as_u64().unwrap();
    let reported = c["reported"]["input_tokens"].as_u64().unwrap();
    let next = c["next_request_tokens"].as_u64().unwrap();
    assert!(next >= reported && next > messages * 5, "{c}");
    assert!(
        ["reported", "calibrated"].contains(&c["next_request_source"].as_str().unwrap()),
        "{c}"
    );
    let c = counted(&env, &[s(&sample("plain.jsonl")), "--model", "gpt-4o"]);
    assert_eq!(c["next_request_tokens"], c["tokens"]);
    assert_eq!(c["next_request_source"], "tokenizer");
    // The same conversation as a request body also sends its tool definitions.
    let body = counted(&env, &[s(&sample("openai-chat.json")), "--model", "gpt-4o"]);
    assert_eq!(body["tokens"], c["tokens"]);
    assert!(body["next_request_tokens"].as_u64() > c["next_request_tokens"].as_u64());
}

#[test]
fn request_body_tools_are_counted() {
    let env = TestEnv::new();
    let f = fixture("anthropic-messages/claude-code_v1.0.6_request_main_loop_tool_use.json");
    let c = counted(&env, &[s(&f)]);
    let tools = c["next_request_tokens"].as_u64().unwrap() - c["tokens"].as_u64().unwrap();
    // 17 tool schemas, ~11K tokens.
    assert!(tools > 8_000, "{c}");
    assert_eq!(c["next_request_source"], "estimate");
}

#[test]
fn check_and_compact_if_needed_agree() {
    // The case: check said `compact` while compact --if-needed said "below".
    let env = TestEnv::new();
    let f = env.write(
        "cc.jsonl",
        std::fs::read(sample("claude-code.jsonl")).unwrap(),
    );
    for threshold in ["0.03", "0.5"] {
        let run = env.run(&["check", s(&f), "--threshold", threshold, "--json"]);
        let v = run.file();
        let needs = v["status"] != "ok";
        assert_eq!(run.code, i32::from(needs), "{run:?}");
        let run = env.run(&[
            "compact",
            s(&f),
            "--if-needed",
            "--threshold",
            threshold,
            "--dry-run",
            "--json",
            "--tail-tokens",
            "300",
        ]);
        let out = run.json();
        let below = out["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("below the threshold"));
        assert_eq!(
            below, !needs,
            "threshold {threshold}: check {v}, compact {out}"
        );
    }
}

#[test]
fn a_rewrite_reports_the_next_request() {
    let env = TestEnv::new();
    let f = env.write(
        "cc.jsonl",
        std::fs::read(sample("claude-code.jsonl")).unwrap(),
    );
    let before = counted(&env, &[s(&f)]);
    let hidden =
        before["next_request_tokens"].as_u64().unwrap() - before["tokens"].as_u64().unwrap();
    let run = env.run(&[
        "compact",
        s(&f),
        "--tail-tokens",
        "300",
        "--in-place",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.json();
    let reported = v["next_request_tokens"].as_u64().unwrap();
    // What `check` says of the result without the cache (the hidden part measured before
    // the compaction boundary ctxctl wrote), and never more than the hidden part the
    // latest report measured plus what is left.
    let after = counted(&env, &[s(&f), "--no-cache"]);
    assert_eq!(
        reported,
        after["next_request_tokens"].as_u64().unwrap(),
        "{v}"
    );
    assert!(
        reported <= hidden + v["compacted_tokens"].as_u64().unwrap(),
        "{v}"
    );
}
