use crate::support::{s, TestEnv};

/// Runs `count` on a file with `content` and returns the run; asserts exit 2, one error line
/// naming the file, no panic.
fn bad(name: &str, content: &[u8]) -> crate::support::Run {
    let env = TestEnv::new();
    let f = env.write(name, content);
    let run = env.run(&["count", s(&f), "--model", "gpt-4o"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stdout.is_empty(), "{run:?}");
    let errors: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("error:"))
        .collect();
    assert_eq!(errors.len(), 1, "{run:?}");
    assert!(errors[0].contains(name), "{run:?}");
    assert!(!run.stderr.contains("panicked"), "{run:?}");
    run
}

#[test]
fn malformed_json_names_line_and_column() {
    let run = bad(
        "broken.json",
        b"{\n  \"messages\": [\n    {\"role\": \"user\", \"content\": }\n  ]\n}\n",
    );
    assert!(run.stderr.contains("line 3, column"), "{run:?}");
}

#[test]
fn malformed_jsonl_names_the_line() {
    let run = bad("broken.jsonl", b"{\"role\":\"user\",\"content\":\"a\"}\n{\"role\": oops}\n{\"role\":\"user\",\"content\":\"b\"}\n");
    assert!(run.stderr.contains("line 2"), "{run:?}");
}

#[test]
fn message_without_role() {
    let run = bad(
        "norole.json",
        br#"{"messages":[{"role":"user","content":"a"},{"content":"b"}]}"#,
    );
    assert!(
        run.stderr.contains("messages[1]") && run.stderr.contains("role"),
        "{run:?}"
    );
}

#[test]
fn content_of_the_wrong_type() {
    let run = bad("content.json", br#"[{"role":"user","content":42}]"#);
    assert!(
        run.stderr
            .contains("[0].content: expected a string, null or a list"),
        "{run:?}"
    );
}

#[test]
fn empty_file() {
    let run = bad("empty.json", b"");
    assert!(run.stderr.contains("empty"), "{run:?}");
    let run = bad("blank.jsonl", b"\n  \n");
    assert!(run.stderr.contains("empty"), "{run:?}");
}

#[test]
fn invalid_utf8() {
    let run = bad(
        "latin1.json",
        b"[{\"role\":\"user\",\"content\":\"caf\xe9\"}]",
    );
    assert!(
        run.stderr.contains("invalid UTF-8 at line 1, column 31"),
        "{run:?}"
    );
}

#[test]
fn not_json_at_all() {
    let run = bad("notes.json", b"# my notes\n");
    assert!(run.stderr.contains("cannot tell the format"), "{run:?}");
    assert!(run.stderr.contains("hint: pass --format"), "{run:?}");
}

#[test]
fn a_directory_or_missing_file() {
    let env = TestEnv::new();
    std::fs::create_dir(env.path().join("dir.json")).unwrap();
    let run = env.run(&["count", "dir.json"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("dir.json: is a directory"), "{run:?}");
    let run = env.run(&["count", "nowhere.json"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("nowhere.json: No such file"), "{run:?}");
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
    assert_eq!(env.run(&["count"]).code, 2);
    assert_eq!(env.run(&["frobnicate"]).code, 2);
    assert_eq!(env.run(&["check", "x.json", "--threshold", "abc"]).code, 2);
}

#[test]
fn bad_config_names_file_and_key() {
    let env = TestEnv::new();
    let cfg = env.write("c.toml", "treshold = 0.5\n");
    let f = env.write("a.json", "[]");
    let run = env.run(&["count", s(&f), "--config", s(&cfg)]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains("c.toml") && run.stderr.contains("treshold"),
        "{run:?}"
    );
    // --no-config ignores it.
    assert_eq!(
        env.run(&["count", s(&f), "--config", s(&cfg), "--no-config"])
            .code,
        0
    );
}
