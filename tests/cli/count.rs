use crate::support::{fixture, s, sample, TestEnv};

const HELLO: &str = r#"[{"role":"user","content":"hello world"}]"#;

#[test]
fn counts_a_known_message_exactly() {
    let env = TestEnv::new();
    let f = env.write("hello.json", HELLO);
    // 3 (framing) + 1 ("user") + 2 ("hello world") + 3 (reply priming)
    let run = env.run(&["count", s(&f), "--model", "gpt-4o", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.json();
    assert_eq!(v["total_tokens"], 9);
    let file = &v["files"][0];
    assert_eq!(file["tokens"], 9);
    assert_eq!(file["format"], "openai");
    assert_eq!(file["tokenizer"], "o200k_base");
    assert_eq!(file["by_role"]["user"], 6);
    assert!(file.get("per_message").is_none());
}

#[test]
fn per_message_and_roles_add_up() {
    let env = TestEnv::new();
    for name in ["openai-chat.json", "anthropic-messages.json", "plain.jsonl"] {
        let run = env.run(&["count", s(&sample(name)), "--per-message", "--json"]);
        assert_eq!(run.code, 0, "{name}: {run:?}");
        let file = &run.json()["files"][0];
        let per: u64 = file["per_message"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["tokens"].as_u64().unwrap())
            .sum();
        let roles: u64 = file["by_role"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert_eq!(per + 3, file["tokens"].as_u64().unwrap(), "{name}");
        assert_eq!(roles, per, "{name}");
        assert!(file["tokens"].as_u64().unwrap() > 1000, "{name}");
    }
}

#[test]
fn same_conversation_counts_alike_in_openai_json_and_jsonl() {
    let env = TestEnv::new();
    let a = env
        .run(&["count", s(&sample("openai-chat.json")), "--json"])
        .json();
    let b = env
        .run(&["count", s(&sample("plain.jsonl")), "--json"])
        .json();
    assert_eq!(a["files"][0]["tokens"], b["files"][0]["tokens"]);
    assert_eq!(b["files"][0]["format"], "jsonl");
}

#[test]
fn several_files_and_stdin_and_total() {
    let env = TestEnv::new();
    let f = env.write("hello.json", HELLO);
    let run = env.run_stdin(
        &["count", s(&f), "-", "--model", "gpt-4o", "--json"],
        Some(HELLO.as_bytes()),
    );
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.json();
    assert_eq!(v["files"].as_array().unwrap().len(), 2);
    assert_eq!(v["files"][1]["path"], "<stdin>");
    assert_eq!(v["total_tokens"], 18);
}

#[test]
fn recursive_walks_directories() {
    let env = TestEnv::new();
    env.write("d/a.json", HELLO);
    env.write(
        "d/sub/b.jsonl",
        "{\"role\":\"user\",\"content\":\"hello world\"}\n",
    );
    env.write("d/notes.txt", "not a session");
    let run = env.run(&["count", "-r", "d", "--model", "gpt-4o", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.json()["files"].as_array().unwrap().len(), 2);
}

#[test]
fn tokenizers_can_be_chosen() {
    let env = TestEnv::new();
    let f = env.write("hello.json", r#"[{"role":"user","content":"abcdefgh"}]"#);
    let run = env.run(&["count", s(&f), "--tokenizer", "approx", "--json"]);
    // 3 + ceil(4/4)=1 ("user") + 2 + 3
    assert_eq!(run.json()["total_tokens"], 9, "{run:?}");
    let run = env.run(&["count", s(&f), "--tokenizer", "nope"]);
    assert_eq!(run.code, 2, "{run:?}");
    insta::assert_snapshot!("unknown_tokenizer", env.snap(&run));
}

#[test]
fn claude_models_are_labelled_estimates() {
    let env = TestEnv::new();
    let run = env.run(&["count", s(&sample("anthropic-messages.json")), "--json"]);
    let file = &run.json()["files"][0];
    assert_eq!(file["model"], "claude-sonnet-4-5");
    assert_eq!(file["exact"], false);
    assert_eq!(file["tokenizer"], "cl100k_base");
    assert_eq!(file["factor"], 1.2);
    let human = env.run(&["count", s(&sample("anthropic-messages.json"))]);
    insta::assert_snapshot!("human", env.snap(&human));
    // The factor scales each message's cl100k_base count; an explicit tokenizer has none.
    let plain = env
        .run(&[
            "count",
            s(&sample("anthropic-messages.json")),
            "--tokenizer",
            "cl100k_base",
            "--per-message",
            "--json",
        ])
        .json();
    let scaled = env
        .run(&[
            "count",
            s(&sample("anthropic-messages.json")),
            "--per-message",
            "--json",
        ])
        .json();
    assert_eq!(plain["files"][0]["factor"], 1.0);
    let want: u64 = plain["files"][0]["per_message"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["tokens"].as_u64().unwrap() as f64 * 1.2).ceil() as u64)
        .sum::<u64>()
        + 3;
    assert_eq!(scaled["total_tokens"].as_u64().unwrap(), want);
}

#[test]
fn empty_session_is_zero_tokens() {
    let env = TestEnv::new();
    let f = env.write("empty.json", "[]");
    let run = env.run(&["count", s(&f), "--model", "gpt-4o", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.json()["total_tokens"], 0);
}

#[test]
fn provider_fixtures_are_counted() {
    let env = TestEnv::new();
    for rel in [
        "openai-chat/swe-agent_function_calling_simple.traj.json",
        "openai-chat/swe-agent_marshmallow-1867_function_calling.traj.json",
        "anthropic-messages/claude-code_v1.0.6_request_main_loop_tool_use.json",
        "anthropic-messages/claude-code_v1.0.6_request_compact_summary.json",
    ] {
        let p = fixture(rel);
        let run = env.run(&["count", s(&p), "--json"]);
        assert_eq!(run.code, 0, "{rel}: {run:?}");
        assert!(run.json()["total_tokens"].as_u64().unwrap() > 100, "{rel}");
    }
}

#[test]
fn cached_counts_equal_fresh_counts_and_skip_the_tokenizer() {
    let env = TestEnv::new();
    let f = sample("openai-chat.json");
    let fresh = env.run(&["count", s(&f), "--per-message", "--json", "--no-cache"]);
    let dir = std::path::PathBuf::from(env.run(&["cache", "path"]).stdout.trim());
    let (counts, log) = (dir.join("token-counts.bin"), dir.join("token-counts.log"));
    assert!(!dir.exists(), "--no-cache wrote the cache");
    let cold = env.run(&["count", s(&f), "--per-message", "--json", "-v"]);
    assert!(
        cold.stderr.contains("o200k_base tokenizer built"),
        "{cold:?}"
    );
    assert!(log.exists(), "a few counts are logged");
    let warm = env.run(&["count", s(&f), "--per-message", "--json", "-v"]);
    assert!(
        warm.stderr.contains("o200k_base tokenizer not needed"),
        "{warm:?}"
    );
    assert_eq!(fresh.stdout, cold.stdout);
    assert_eq!(fresh.stdout, warm.stdout);
    // An appended message is the only one tokenized; totals still match a fresh count.
    let text = std::fs::read_to_string(sample("plain.jsonl")).unwrap();
    let grown = env.write(
        "grown.jsonl",
        format!("{text}{{\"role\":\"user\",\"content\":\"one more thing\"}}\n"),
    );
    let a = env.run(&["count", s(&grown), "--json"]).json();
    let b = env
        .run(&["count", s(&grown), "--json", "--no-cache"])
        .json();
    assert_eq!(a["total_tokens"], b["total_tokens"]);
    // Broken cache files are ignored and replaced.
    std::fs::write(&counts, b"garbage").unwrap();
    std::fs::write(&log, b"garbage garbage garbage garbage").unwrap();
    let again = env.run(&["count", s(&f), "--per-message", "--json"]);
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(again.stdout, fresh.stdout);
    let clear = env.run(&["cache", "clear"]);
    assert_eq!(clear.code, 0);
    assert!(!counts.exists() && !log.exists());
}

#[test]
fn warm_stats_take_tool_counts_from_the_cache_and_equal_fresh_stats() {
    let env = TestEnv::new();
    // A session with tool calls and results (several tools, one error).
    let f = fixture("openai-chat/swe-agent_marshmallow-1867_function_calling.traj.json");
    let fresh = env.run(&["stats", s(&f), "--json", "--no-cache"]);
    assert_eq!(fresh.code, 0, "{fresh:?}");
    assert!(
        !fresh.file()["tools"].as_array().unwrap().is_empty(),
        "{fresh:?}"
    );
    let cold = env.run(&["stats", s(&f), "--json", "-v"]);
    assert!(cold.stderr.contains("tokenizer built"), "{cold:?}");
    let warm = env.run(&["stats", s(&f), "--json", "-v"]);
    assert!(
        warm.stderr.contains("tokenizer not needed"),
        "a warm stats tokenized again: {warm:?}"
    );
    assert_eq!(cold.stdout, fresh.stdout);
    assert_eq!(warm.stdout, fresh.stdout);
}

#[test]
fn human_tables_by_role_per_message_and_total() {
    let env = TestEnv::new();
    let f = env.write("hello.json", HELLO);
    let plain = sample("plain.jsonl");
    for (name, extra) in [
        ("plain", vec![]),
        ("by_role", vec!["--by-role"]),
        ("per_message", vec!["--per-message"]),
    ] {
        let mut args = vec!["count", s(&f), s(&plain), "--model", "gpt-4o"];
        args.extend(extra);
        let run = env.run(&args);
        assert_eq!(run.code, 0, "{run:?}");
        insta::assert_snapshot!(name, env.snap(&run));
    }
    // No model given: the warning names the assumed default.
    let run = env.run(&["count", s(&f)]);
    insta::assert_snapshot!("no_model", env.snap(&run));
}

/// Colour changes nothing but the colour: the coloured output, its escapes taken out, is
/// the plain one column for column (a count was padded with its escapes counted).
#[test]
fn colour_keeps_the_columns_aligned() {
    let env = TestEnv::new();
    let dir = crate::support::s(&crate::support::repo().join("sample-sessions")).to_string();
    let escapes = regex::Regex::new("\x1b\\[[0-9;]*m").unwrap();
    for args in [vec!["count", "-r", &dir], vec!["doctor"]] {
        let plain = env.run(&[&args[..], &["--color", "never"]].concat());
        let coloured = env.run(&[&args[..], &["--color", "always"]].concat());
        assert!(
            coloured.stdout.contains('\x1b'),
            "{args:?}: no colour: {coloured:?}"
        );
        assert_eq!(
            escapes.replace_all(&coloured.stdout, ""),
            plain.stdout,
            "{args:?}"
        );
    }
}
