//! Flags are validated: absurd budgets are usage errors naming the flag, and strategy
//! options the chosen strategy never reads are warned about.

use crate::support::{s, sample, Run, TestEnv};

/// The stderr of usage errors, one block per command line, as a snapshot shows them.
fn usage_errors(env: &TestEnv, runs: &[(String, Run)]) -> String {
    let mut out = String::new();
    for (args, run) in runs {
        assert_eq!(run.code, 2, "{args}: {run:?}");
        assert_eq!(run.stdout, "", "{args}: {run:?}");
        out.push_str(&format!("$ {args}\n{}\n", env.redact(&run.stderr)));
    }
    out
}

/// Runs `args` (the session [`sample`] `openai-chat.json` as `FILE`), keyed by its words.
fn run_args(env: &TestEnv, args: &[&str]) -> (String, Run) {
    let f = sample("openai-chat.json");
    let all: Vec<&str> = args
        .iter()
        .map(|a| if *a == "FILE" { s(&f) } else { a })
        .collect();
    (args.join(" "), env.run(&all))
}

#[test]
fn a_zero_window_is_a_usage_error_naming_the_flag() {
    let env = TestEnv::new();
    let runs = [
        run_args(&env, &["check", "FILE", "--max-tokens", "0"]),
        run_args(&env, &["compact", "FILE", "--max-tokens", "0", "--dry-run"]),
        run_args(
            &env,
            &[
                "trim",
                "FILE",
                "--strategy",
                "fifo",
                "--max-tokens",
                "0",
                "-o",
                "-",
            ],
        ),
    ];
    insta::assert_snapshot!(usage_errors(&env, &runs));
}

#[test]
fn negative_and_absurd_numbers_are_usage_errors_naming_the_flag() {
    let env = TestEnv::new();
    let mut runs = Vec::new();
    for (flag, value) in [
        ("--max-tokens", "-5"),
        ("--max-tokens", "5000000000"),
        ("--reserved", "-1"),
        ("--reserve-output", "99999999999"),
        ("--threshold", "-0.5"),
    ] {
        runs.push(run_args(&env, &["check", "FILE", flag, value]));
    }
    for (flag, value) in [("--window", "-3"), ("--keep-last", "-1")] {
        let args = [
            "trim",
            "FILE",
            "--strategy",
            "sliding-window",
            flag,
            value,
            "-o",
            "-",
        ];
        runs.push(run_args(&env, &args));
    }
    runs.push(run_args(
        &env,
        &["compact", "FILE", "--tail-tokens", "-300", "--dry-run"],
    ));
    // Each names its flag first.
    insta::assert_snapshot!(usage_errors(&env, &runs));
}

#[test]
fn reserves_larger_than_the_window_are_refused() {
    let env = TestEnv::new();
    let f = sample("openai-chat.json");
    let runs = [
        run_args(
            &env,
            &[
                "check",
                "FILE",
                "--max-tokens",
                "1000",
                "--reserved",
                "5000",
            ],
        ),
        run_args(&env, &["check", "FILE", "--reserve-output", "999999999"]),
    ];
    insta::assert_snapshot!(usage_errors(&env, &runs));
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
    insta::assert_snapshot!("ignored", env.redact(&run.stderr));
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
    insta::assert_snapshot!("read", env.redact(&run.stderr));
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
    insta::assert_snapshot!(
        "claude_code_detail",
        env.redact(check("agent claude-code")["detail"].as_str().unwrap())
    );
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
    insta::assert_snapshot!("unreachable", env.snap(&run));
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
