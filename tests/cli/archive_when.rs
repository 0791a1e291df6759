//! When a rewrite files an archive: only when it replaces its input. `-o FILE` (and the
//! store) leaves the input as it is, so `compact` and `trim` alike archive nothing.

use std::fs;

use crate::support::{archives, s, sample, TestEnv};

/// Runs `args` on a copy of the plain sample; returns the copy's path.
fn copy(env: &TestEnv) -> std::path::PathBuf {
    env.write("plain.jsonl", fs::read(sample("plain.jsonl")).unwrap())
}

#[test]
fn compact_and_trim_to_another_file_archive_nothing_and_leave_the_input() {
    let env = TestEnv::new();
    let f = copy(&env);
    let before = fs::read(&f).unwrap();
    let out = env.path().join("out.jsonl");
    let run = env.run(&[
        "compact",
        s(&f),
        "--model",
        "gpt-4o",
        "--tail-tokens",
        "300",
        "-o",
        s(&out),
        "--json",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.json();
    assert_eq!(v["archive"], serde_json::Value::Null, "{run:?}");
    assert_eq!(v["archive_id"], serde_json::Value::Null, "{run:?}");
    assert!(archives(&env, "plain").is_empty());
    // The summary does not point at an archive that does not exist.
    let text = fs::read_to_string(&out).unwrap();
    assert!(
        text.contains("not archived") && !text.contains("archives/"),
        "{text}"
    );
    let run = env.run(&[
        "trim",
        s(&f),
        "--strategy",
        "fifo",
        "--model",
        "gpt-4o",
        "--max-tokens",
        "600",
        "-o",
        s(&out),
        "--json",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.json()["archive_id"], serde_json::Value::Null, "{run:?}");
    assert!(archives(&env, "plain").is_empty());
    assert_eq!(fs::read(&f).unwrap(), before);
    assert!(!env.data_dir().join("archives").join("plain").exists());
}

#[test]
fn a_dry_run_to_another_file_says_it_would_not_archive() {
    let env = TestEnv::new();
    let f = copy(&env);
    let args = [
        "compact",
        s(&f),
        "--model",
        "gpt-4o",
        "--tail-tokens",
        "300",
        "--dry-run",
    ];
    let elsewhere = env.run(&[&args[..], &["-o", "out.jsonl"]].concat());
    assert_eq!(elsewhere.code, 1, "{elsewhere:?}");
    let middle = |run: &crate::support::Run| {
        let line = run.stdout.lines().find(|l| l.starts_with("middle"));
        line.unwrap_or_else(|| panic!("{run:?}")).to_string()
    };
    assert!(middle(&elsewhere).ends_with("  summarize"), "{elsewhere:?}");
    let in_place = env.run(&[&args[..], &["--in-place"]].concat());
    assert!(
        middle(&in_place).ends_with("summarize and archive"),
        "{in_place:?}"
    );
}

#[test]
fn compact_and_trim_in_place_both_archive() {
    let env = TestEnv::new();
    let f = copy(&env);
    let run = env.run(&[
        "trim",
        s(&f),
        "--strategy",
        "fifo",
        "--model",
        "gpt-4o",
        "--max-tokens",
        "900",
        "--in-place",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(archives(&env, "plain").len(), 1);
    let run = env.run(&[
        "compact",
        s(&f),
        "--model",
        "gpt-4o",
        "--tail-tokens",
        "200",
        "--in-place",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(archives(&env, "plain").len(), 2);
}

#[test]
fn both_help_texts_state_the_rule() {
    let env = TestEnv::new();
    for cmd in ["compact", "trim"] {
        let run = env.run(&[cmd, "--help"]);
        assert_eq!(run.code, 0, "{run:?}");
        let help = run.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            help.contains("the input is left as it is, so nothing is archived")
                && help
                    .contains("-o FILE and the store leave the input as it is and archive nothing"),
            "{cmd}: {help}"
        );
    }
}
