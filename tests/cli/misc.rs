use crate::support::{s, sample, TestEnv};

#[test]
fn stats_shows_roles_tools_largest_and_usage() {
    let env = TestEnv::new();
    let run = env.run(&["stats", s(&sample("openai-chat.json"))]);
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!(env.snap(&run));
    let v = env
        .run(&["stats", s(&sample("openai-chat.json")), "--json"])
        .file();
    assert_eq!(v["tools"][0]["name"], "run_command");
    assert_eq!(v["tools"][0]["calls"], 4);
    assert_eq!(v["largest"].as_array().unwrap().len(), 5);
    let first = v["largest"][0]["tokens"].as_u64().unwrap();
    assert!(v["largest"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["tokens"].as_u64().unwrap() <= first));
    assert_eq!(v["messages_by_role"]["tool"], 7);
}

#[test]
fn models_lists_and_filters() {
    let env = TestEnv::new();
    let run = env.run(&["models", "claude-3-opus", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let rows = run.json();
    let opus = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"].as_str().unwrap().starts_with("claude-3-opus"))
        .unwrap()
        .clone();
    assert_eq!(opus["context_window"], 200000);
    assert_eq!(opus["max_output_tokens"], 4096);
    let all = env.run(&["models", "--json"]).json();
    assert!(all.as_array().unwrap().len() > 200);
    let human = env.run(&["models", "claude-3-opus"]);
    assert_eq!(human.code, 0, "{human:?}");
    insta::assert_snapshot!("models_claude_3_opus", env.snap(&human));
    let none = env.run(&["models", "no-such-model-xyz"]);
    assert_eq!(none.code, 1);
    insta::assert_snapshot!("models_none", env.snap(&none));
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

#[test]
fn config_shows_sources_and_never_the_key() {
    let env = TestEnv::new()
        .env("CTXCTL_MODEL", "gpt-4o-mini")
        .env("CTXCTL_LLM_API_KEY", "sk-secret-123456");
    let run = env.run(&["config"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(!run.stdout.contains("sk-secret-123456"), "{run:?}");
    // The first column's width depends on the temp dir's path: see `snap_unaligned`.
    insta::assert_snapshot!("config", env.snap_unaligned(&run));
    let path = env.run(&["config", "path"]);
    insta::assert_snapshot!("config_path", env.snap(&path));
    let cfg = env.write("c.toml", "threshold = 0.6\n[llm]\nmodel = \"small\"\n");
    let run = env.run(&["config", "--config", s(&cfg), "--model", "gpt-5"]);
    insta::assert_snapshot!("config_file_and_flag", env.snap_unaligned(&run));
}

#[test]
fn completions_for_every_shell() {
    let env = TestEnv::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let run = env.run(&["completions", shell]);
        assert_eq!(run.code, 0, "{shell}");
        assert!(run.stdout.contains("ctxctl"), "{shell}");
    }
}

/// Every shell's script offers the values of `--strategy`, `--format`, `--summarizer` and
/// `--compress` (elvish and PowerShell through the table ctxctl adds to clap_complete's
/// scripts), and the checked-in scripts are these (tests/cli/generated.rs).
#[test]
fn completions_offer_option_values_in_every_shell() {
    let env = TestEnv::new();
    let strategies = [
        "fifo",
        "sliding-window",
        "smart",
        "selective",
        "composite",
        "tool-results",
        "mask-tool-results",
    ];
    let formats: Vec<&str> = ctxctl::session::Format::all().map(|f| f.name()).collect();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = env.run(&["completions", shell]).stdout;
        for value in strategies.iter().chain(&formats) {
            assert!(script.contains(value), "{shell}: no {value}");
        }
        for value in ["offline", "llm", "zstd"] {
            assert!(script.contains(value), "{shell}: no {value}");
        }
    }
    let elvish = env.run(&["completions", "elvish"]).stdout;
    assert!(
        elvish.contains("&'--summarizer'= ['offline' 'llm']")
            && elvish.contains("var previous = $words[-2]"),
        "{elvish}"
    );
    let ps = env.run(&["completions", "powershell"]).stdout;
    assert!(
        ps.contains("'--summarizer' = @('offline', 'llm')")
            && ps.contains("[CompletionResultType]::ParameterValue, $_)"),
        "{ps}"
    );
}

#[test]
fn cache_path_and_clear() {
    let env = TestEnv::new();
    let run = env.run(&["cache", "path"]);
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!("path", env.snap(&run));
    let run = env.run(&["cache", "clear"]);
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!("clear_empty", env.snap(&run));
    let f = env.write("a.json", r#"[{"role":"user","content":"hello world"}]"#);
    assert_eq!(env.run(&["count", s(&f), "--model", "gpt-4o"]).code, 0);
    let dir = env.home().join(".cache/ctxctl");
    assert!(dir.exists(), "count wrote no cache");
    let run = env.run(&["cache", "clear"]);
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!("clear", env.snap(&run));
    assert!(!dir.join("token-counts.log").exists());
}
