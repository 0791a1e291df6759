//! Flags are validated: absurd budgets are usage errors naming the flag, and strategy
//! options the chosen strategy never reads are warned about.

use crate::support::{s, sample, TestEnv};

#[test]
fn a_zero_window_is_a_usage_error_naming_the_flag() {
    let env = TestEnv::new();
    let f = sample("openai-chat.json");
    for args in [
        &["check", s(&f), "--max-tokens", "0"][..],
        &["compact", s(&f), "--max-tokens", "0", "--dry-run"][..],
    ] {
        let run = env.run(args);
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        assert!(
            run.stderr.contains("--max-tokens"),
            "{args:?}: {}",
            run.stderr
        );
    }
    let run = env.run(&[
        "trim",
        s(&f),
        "--strategy",
        "fifo",
        "--max-tokens",
        "0",
        "-o",
        "-",
    ]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("--max-tokens"), "{}", run.stderr);
}

#[test]
fn negative_and_absurd_numbers_are_usage_errors_naming_the_flag() {
    let env = TestEnv::new();
    let f = sample("openai-chat.json");
    for (flag, value) in [
        ("--max-tokens", "-5"),
        ("--max-tokens", "5000000000"),
        ("--reserved", "-1"),
        ("--reserve-output", "99999999999"),
        ("--threshold", "-0.5"),
    ] {
        let run = env.run(&["check", s(&f), flag, value]);
        assert_eq!(run.code, 2, "{flag} {value}: {run:?}");
        let first = run.stderr.lines().next().unwrap_or_default();
        assert!(first.contains(flag), "{flag} {value}: {}", run.stderr);
        assert_eq!(run.stdout, "");
    }
    for (flag, value) in [("--window", "-3"), ("--keep-last", "-1")] {
        let run = env.run(&[
            "trim",
            s(&f),
            "--strategy",
            "sliding-window",
            flag,
            value,
            "-o",
            "-",
        ]);
        assert_eq!(run.code, 2, "{flag} {value}: {run:?}");
        assert!(run.stderr.contains(flag), "{flag} {value}: {}", run.stderr);
    }
    let run = env.run(&["compact", s(&f), "--tail-tokens", "-300", "--dry-run"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("--tail-tokens"), "{}", run.stderr);
}

#[test]
fn reserves_larger_than_the_window_are_refused() {
    let env = TestEnv::new();
    let f = sample("openai-chat.json");
    let run = env.run(&["check", s(&f), "--max-tokens", "1000", "--reserved", "5000"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("--reserved"), "{}", run.stderr);
    let run = env.run(&["check", s(&f), "--reserve-output", "999999999"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("--reserve-output"), "{}", run.stderr);
    // Reserves that leave room are fine.
    let run = env.run(&[
        "check",
        s(&f),
        "--max-tokens",
        "100000",
        "--reserved",
        "5000",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
}

#[test]
fn strategy_options_the_strategy_ignores_are_warned_about() {
    let env = TestEnv::new();
    let f = sample("openai-chat.json");
    let run = env.run(&[
        "trim",
        s(&f),
        "--strategy",
        "fifo",
        "--keep-first",
        "3",
        "-o",
        "-",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr
            .contains("--keep-first is ignored by --strategy fifo (it applies to smart)"),
        "{}",
        run.stderr
    );
    // Read by a strategy of the chain: no warning.
    let run = env.run(&[
        "trim",
        s(&f),
        "--strategy",
        "composite",
        "--chain",
        "tool-results,smart",
        "--keep-first",
        "1",
        "--max-result-tokens",
        "50",
        "-o",
        "-",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(!run.stderr.contains("ignored"), "{}", run.stderr);
}

#[test]
fn path_subcommands_honour_json() {
    let env = TestEnv::new();
    let v = env.run(&["config", "path", "--json"]).json();
    assert!(v["path"].as_str().unwrap().ends_with("config.toml"), "{v}");
    assert_eq!(v["exists"], false);
    let v = env.run(&["cache", "path", "--json"]).json();
    assert!(v["path"].is_string(), "{v}");
}

#[test]
fn doctor_reports_the_setup_and_fails_on_an_unreachable_endpoint() {
    let mut env = TestEnv::new();
    std::fs::create_dir_all(env.home().join(".claude/projects/-w")).unwrap();
    std::fs::write(env.home().join(".claude/projects/-w/a.jsonl"), "{}\n").unwrap();
    let run = env.run(&["doctor", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.json();
    assert_eq!(v["ok"], true);
    let check = |name: &str| {
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["check"] == name)
            .unwrap_or_else(|| panic!("{name}: {v}"))
            .clone()
    };
    assert_eq!(check("agent claude-code")["status"], "ok");
    assert!(check("agent claude-code")["detail"]
        .as_str()
        .unwrap()
        .contains("1 session files"));
    assert_eq!(check("agent codex")["status"], "info");
    assert_eq!(check("llm")["status"], "info");
    // A configured endpoint is contacted (a connection only, no request): a listening
    // loopback port passes, a closed one fails with exit 1.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    env.set("CTXCTL_LLM_BASE_URL", &url);
    let run = env.run(&["doctor", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    drop(listener);
    let run = env.run(&["doctor"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stdout.contains("does not accept connections"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_missing_config_file_is_reported_once() {
    let env = TestEnv::new();
    let a = sample("openai-chat.json");
    let b = sample("plain.jsonl");
    let by_flag = env.run(&["--config", "nope.toml", "count", s(&a), s(&b)]);
    let by_env = TestEnv::new()
        .env("CTXCTL_CONFIG", "nope.toml")
        .run(&["count", s(&a), s(&b)]);
    for run in [by_flag, by_env] {
        assert_eq!(run.code, 2, "{run:?}");
        assert_eq!(run.stdout, "", "nothing counted: {run:?}");
        assert_eq!(run.stderr.matches("nope.toml").count(), 1, "{run:?}");
        assert_eq!(run.stderr.matches("No such file").count(), 1, "{run:?}");
    }
}

#[test]
fn global_options_go_before_or_after_the_subcommand() {
    let env = TestEnv::new();
    let f = env.write("a.json", r#"[{"role":"user","content":"hello world"}]"#);
    let a = env.run(&["--json", "--model", "gpt-4o", "count", s(&f)]);
    let b = env.run(&["count", s(&f), "--json", "--model", "gpt-4o"]);
    assert_eq!(a.stdout, b.stdout);
    assert_eq!(a.json()["total_tokens"], 9);
}

#[test]
fn quiet_prints_nothing_but_errors() {
    let env = TestEnv::new();
    let run = env.run(&["check", s(&sample("openai-chat.json")), "-q"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.is_empty() && run.stderr.is_empty(), "{run:?}");
}
