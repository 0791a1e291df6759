//! A real `~/.claude` tree: recursive runs skip what is not a session and leave subagent
//! transcripts to their parent; Claude Code's own compaction is read as Claude Code sends
//! it and rescued; compactions that would not shrink a session are not applied.

use std::fs;
use std::path::PathBuf;

use crate::support::{fixture, TestEnv};

const SID: &str = "6f6d54f7-951d-42ac-8933-70040b0f9725";

fn real(name: &str) -> Vec<u8> {
    fs::read(fixture(&format!(
        "realclients/claude-code/realclient_v2.1.197_{name}.jsonl"
    )))
    .unwrap()
}

/// `.claude/` as Claude Code 2.1.197 leaves it: a session, its subagent transcript and
/// metadata, settings, a todo list and an empty file.
fn claude_home(env: &TestEnv) -> PathBuf {
    let proj = ".claude/projects/-home-dev-calc";
    env.write(&format!("{proj}/{SID}.jsonl"), real("session"));
    env.write(
        &format!("{proj}/{SID}/subagents/agent-a1b2.jsonl"),
        real("subagent"),
    );
    env.write(
        &format!("{proj}/{SID}/subagents/agent-a1b2.meta.json"),
        r#"{"agentType":"general-purpose","description":"count","toolUseId":"toolu_1","spawnDepth":1}"#,
    );
    env.write(".claude/settings.json", r#"{"permissions":{"allow":[]}}"#);
    env.write(
        &format!(".claude/todos/{SID}-agent-{SID}.json"),
        r#"[{"content":"x","status":"pending","activeForm":"x"}]"#,
    );
    env.write(&format!("{proj}/empty.jsonl"), "");
    env.path().join(".claude")
}

#[test]
fn recursive_runs_over_a_real_claude_home_skip_what_is_not_a_session() {
    let env = TestEnv::new();
    claude_home(&env);
    let check = env.run(&["check", "-r", ".claude", "--json", "-v"]);
    assert_eq!(check.code, 0, "{check:?}");
    assert_eq!(
        check.stdout.matches("\"path\"").count(),
        1,
        "only the session is checked: {check:?}"
    );
    assert_eq!(
        check.file()["path"],
        format!(".claude/projects/-home-dev-calc/{SID}.jsonl")
    );
    // -v says what was skipped and why: the subagent transcript (part of its parent), the
    // metadata, settings, todo list and empty file.
    let skipped: Vec<&str> = (check.stderr.lines())
        .filter(|l| l.split_once(": skipped (").is_some())
        .collect();
    insta::assert_snapshot!("skipped", env.redact(&skipped.join("\n")));
    // Counting reads the subagent transcript with its parent.
    let count = env.run(&["count", "-r", ".claude", "--json"]);
    assert_eq!(count.code, 0, "{count:?}");
    assert_eq!(
        count.json()["files"].as_array().unwrap().len(),
        2,
        "{count:?}"
    );
    // The README's cron line.
    let before = fs::read(env.path().join(format!(
        ".claude/projects/-home-dev-calc/{SID}/subagents/agent-a1b2.jsonl"
    )))
    .unwrap();
    let cron = env.run(&[
        "compact",
        "--if-needed",
        "--in-place",
        "-r",
        ".claude/projects",
        "--no-progress",
        "-q",
    ]);
    assert_eq!((cron.code, cron.stderr.as_str()), (0, ""), "{cron:?}");
    let after = fs::read(env.path().join(format!(
        ".claude/projects/-home-dev-calc/{SID}/subagents/agent-a1b2.jsonl"
    )))
    .unwrap();
    assert_eq!(before, after);
    // Named explicitly, a subagent transcript is a session of its own.
    let sub = format!(".claude/projects/-home-dev-calc/{SID}/subagents/agent-a1b2.jsonl");
    let one = env.run(&["check", &sub]);
    assert_eq!(one.code, 0, "{one:?}");
}

#[test]
fn claude_codes_own_compaction_is_counted_with_what_it_preserved() {
    let env = TestEnv::new();
    let f = env.write("cc.jsonl", real("self_compacted"));
    let run = env.run(&["count", "cc.jsonl", "--per-message"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.is_empty(), "no warnings: {run:?}");
    // Ten messages, the preserved turn ("All tests pass") among them.
    insta::assert_snapshot!("count", env.snap(&run));
    // A fifo trim leaves what Claude Code preserved in place, and Claude Code no longer
    // splices it in a second time.
    let trim = env.run(&[
        "trim",
        "cc.jsonl",
        "--strategy",
        "fifo",
        "--max-tokens",
        "150",
        "--in-place",
    ]);
    assert_eq!(trim.code, 0, "{trim:?}");
    let again = env.run(&["count", "cc.jsonl", "--per-message"]);
    insta::assert_snapshot!("count_after_trim", env.snap(&again));
    let out = fs::read_to_string(&f).unwrap();
    let boundary: serde_json::Value = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .find(|v: &serde_json::Value| v["subtype"] == "compact_boundary")
        .unwrap();
    assert!(
        boundary["compactMetadata"]
            .get("preservedSegment")
            .is_none(),
        "{boundary}"
    );
}

#[test]
fn a_compaction_that_would_not_shrink_the_session_is_not_applied() {
    let env = TestEnv::new();
    let f = env.write(
        "s.jsonl",
        "{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\":\"assistant\",\"content\":\"hello\"}\n\
         {\"role\":\"user\",\"content\":\"ok\"}\n{\"role\":\"assistant\",\"content\":\"bye\"}\n",
    );
    let before = fs::read(&f).unwrap();
    let run = env.run(&[
        "compact",
        "s.jsonl",
        "--model",
        "gpt-4o",
        "--tail-tokens",
        "1",
        "--in-place",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.json();
    assert_eq!(v["compacted"], false, "{v}");
    insta::assert_snapshot!("reason", v["reason"].as_str().unwrap());
    assert_eq!(fs::read(&f).unwrap(), before, "nothing written");
    assert!(
        !env.data_dir().join("archives/s").exists(),
        "nothing archived"
    );
    // A real short Claude Code session: every summary outweighs what it would replace.
    let short = fs::read(fixture("claude-code/spotter_short_v2.1.38.jsonl")).unwrap();
    let f = env.write("short.jsonl", &short);
    let run = env.run(&["compact", "short.jsonl", "--tail-tokens", "1", "--in-place"]);
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!("short", env.snap(&run));
    assert_eq!(fs::read(&f).unwrap(), short);
}

#[test]
fn the_after_figure_is_a_count_of_the_file_written() {
    let env = TestEnv::new();
    env.write("s.jsonl", real("session"));
    let run = env.run(&[
        "compact",
        "s.jsonl",
        "--tail-tokens",
        "1500",
        "--in-place",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let after = run.json()["compacted_tokens"].as_u64().unwrap();
    let count = env.run(&["count", "s.jsonl", "--json"]);
    assert_eq!(
        count.json()["files"][0]["tokens"].as_u64(),
        Some(after),
        "{count:?}"
    );
    let trim = env.run(&[
        "trim",
        "s.jsonl",
        "--strategy",
        "mask-tool-results",
        "--keep-recent",
        "3",
        "--in-place",
        "--json",
    ]);
    assert_eq!(trim.code, 0, "{trim:?}");
    let after = trim.json()["trimmed_tokens"].as_u64().unwrap();
    let count = env.run(&["count", "s.jsonl", "--json"]);
    assert_eq!(
        count.json()["files"][0]["tokens"].as_u64(),
        Some(after),
        "{count:?}"
    );
}

#[test]
fn compacting_claude_codes_compaction_restores_byte_for_byte() {
    let env = TestEnv::new();
    let f = env.write("cc.jsonl", real("self_compacted"));
    let run = env.run(&[
        "compact",
        "cc.jsonl",
        "--tail-tokens",
        "400",
        "--in-place",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.json();
    assert_eq!(v["compacted"], true, "{v}");
    // The preserved turn went into the summary with the rest of the middle.
    let count = env.run(&["count", "cc.jsonl", "--per-message"]);
    insta::assert_snapshot!("count_after_compact", env.snap(&count));
    let id = v["archive_id"].as_str().unwrap();
    let restore = env.run(&["archive", "restore", id]);
    assert_eq!(restore.code, 0, "{restore:?}");
    assert!(
        fs::read(&f).unwrap() == real("self_compacted"),
        "not the original bytes"
    );
}
