use crate::support::{s, TestEnv};

/// Runs `count` on a file with `content`; asserts exit 2 and one error line (a hint may
/// follow), and returns the run as a snapshot shows it (the error must name the file and
/// the place).
fn bad(name: &str, content: &[u8]) -> String {
    let env = TestEnv::new();
    let f = env.write(name, content);
    let run = env.run(&["count", s(&f), "--model", "gpt-4o"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stdout.is_empty(), "{run:?}");
    let errors = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("ctxctl: error: "));
    assert_eq!(errors.count(), 1, "{run:?}");
    env.snap(&run)
}

#[test]
fn malformed_json_names_line_and_column() {
    insta::assert_snapshot!(bad(
        "broken.json",
        b"{\n  \"messages\": [\n    {\"role\": \"user\", \"content\": }\n  ]\n}\n",
    ));
}

#[test]
fn malformed_jsonl_names_the_line() {
    insta::assert_snapshot!(bad("broken.jsonl", b"{\"role\":\"user\",\"content\":\"a\"}\n{\"role\": oops}\n{\"role\":\"user\",\"content\":\"b\"}\n"));
}

#[test]
fn message_without_role() {
    insta::assert_snapshot!(bad(
        "norole.json",
        br#"{"messages":[{"role":"user","content":"a"},{"content":"b"}]}"#,
    ));
}

#[test]
fn content_of_the_wrong_type() {
    insta::assert_snapshot!(bad("content.json", br#"[{"role":"user","content":42}]"#));
}

#[test]
fn empty_file() {
    insta::assert_snapshot!("empty_json", bad("empty.json", b""));
    insta::assert_snapshot!("blank_jsonl", bad("blank.jsonl", b"\n  \n"));
}

#[test]
fn invalid_utf8() {
    insta::assert_snapshot!(bad(
        "latin1.json",
        b"[{\"role\":\"user\",\"content\":\"caf\xe9\"}]",
    ));
}

#[test]
fn not_json_at_all() {
    insta::assert_snapshot!(bad("notes.json", b"# my notes\n"));
}

#[test]
fn a_directory_or_missing_file() {
    let env = TestEnv::new();
    std::fs::create_dir(env.path().join("dir.json")).unwrap();
    let run = env.run(&["count", "dir.json"]);
    assert_eq!(run.code, 2, "{run:?}");
    insta::assert_snapshot!("directory", env.snap(&run));
    let run = env.run(&["count", "nowhere.json"]);
    assert_eq!(run.code, 2);
    insta::assert_snapshot!("missing_file", env.snap(&run));
}

#[test]
fn a_bad_file_does_not_stop_the_others() {
    let env = TestEnv::new();
    let good = env.write("good.json", r#"[{"role":"user","content":"hello world"}]"#);
    let run = env.run(&["count", "bad.json", s(&good), "--model", "gpt-4o", "--json"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(run.json()["total_tokens"], 9);
}

#[test]
fn usage_errors_exit_2() {
    let env = TestEnv::new();
    for (name, args) in [
        ("usage_no_file", vec!["count"]),
        ("usage_unknown_command", vec!["frobnicate"]),
        (
            "usage_bad_threshold",
            vec!["check", "x.json", "--threshold", "abc"],
        ),
    ] {
        let run = env.run(&args);
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        insta::assert_snapshot!(name, env.snap(&run));
    }
}

#[test]
fn bad_config_names_file_and_key() {
    let env = TestEnv::new();
    let cfg = env.write("c.toml", "treshold = 0.5\n");
    let f = env.write("a.json", "[]");
    let run = env.run(&["count", s(&f), "--config", s(&cfg)]);
    assert_eq!(run.code, 2, "{run:?}");
    insta::assert_snapshot!(env.snap(&run));
    // --no-config ignores it.
    assert_eq!(
        env.run(&["count", s(&f), "--config", s(&cfg), "--no-config"])
            .code,
        0
    );
}

/// A data directory ctxctl cannot write names the session and says where the directory is
/// set; an output that cannot be written names the file, never the temp file beside it.
#[test]
fn unwritable_places_name_the_session_or_the_file_and_not_a_temp_file() {
    let env = TestEnv::new();
    let f = env.write(
        "plain.jsonl",
        std::fs::read(crate::support::sample("plain.jsonl")).unwrap(),
    );
    // Something in the way of the locks' directory (as root, permissions stop nothing).
    let data = env.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(data.join("locks"), "in the way").unwrap();
    let data = crate::support::s(&data);
    let run = env.run(&[
        "trim",
        crate::support::s(&f),
        "--strategy",
        "fifo",
        "--max-tokens",
        "500",
        "--model",
        "gpt-4o",
        "--in-place",
    ]);
    let run_with = |args: &[&str]| {
        let mut cmd = env.command(args);
        cmd.env("CTXCTL_DATA_DIR", data);
        crate::support::Run::from(cmd.output().unwrap())
    };
    assert_eq!(run.code, 0, "the default data directory works: {run:?}");
    let locked = run_with(&[
        "compact",
        crate::support::s(&f),
        "--tail-tokens",
        "300",
        "--model",
        "gpt-4o",
        "--in-place",
    ]);
    assert_eq!(locked.code, 2, "{locked:?}");
    insta::assert_snapshot!("lock", env.snap(&locked));
    let out = env.path().join("no-such-dir/out.jsonl");
    let written = run_with(&[
        "trim",
        crate::support::s(&f),
        "--strategy",
        "fifo",
        "--max-tokens",
        "500",
        "--model",
        "gpt-4o",
        "-o",
        crate::support::s(&out),
    ]);
    assert_eq!(written.code, 2, "{written:?}");
    // The error names the output, not the temp file beside it.
    insta::assert_snapshot!("output", env.snap(&written));
}
