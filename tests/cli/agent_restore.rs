//! `archive restore` undoes a compaction of a Claude Code, Codex or goose session: byte for
//! byte when nothing was appended since, and keeping what the agent appended otherwise.

use std::fs;
use std::path::{Path, PathBuf};

use ctxctl::formats;
use ctxctl::session::{Part, Role};
use serde_json::{json, Value};

use crate::shared::goose_session_from_recording;
use crate::support::{fixture, s, TestEnv};

/// A session's messages as the model sees them.
fn messages(bytes: &[u8]) -> Vec<(Role, Vec<Part>)> {
    formats::read(bytes, None)
        .unwrap()
        .messages
        .into_iter()
        .map(|m| (m.role, m.parts))
        .collect()
}

/// Compacts `file` in place, keeping `tail` tokens; returns the archive id.
fn compact(env: &TestEnv, file: &Path, tail: &str) -> String {
    let run = env.run(&[
        "compact",
        s(file),
        "--in-place",
        "--tail-tokens",
        tail,
        "--json",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.json();
    assert_eq!(v["compacted"], true, "{}: {v}", file.display());
    v["archive_id"].as_str().unwrap().to_string()
}

fn restore(env: &TestEnv, id: &str) {
    let run = env.run(&["archive", "restore", id, "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.json()["restored"], true);
}

/// A copy of `src` under a plain name in the test directory.
fn copy(env: &TestEnv, name: &str, bytes: &[u8]) -> PathBuf {
    env.write(name, bytes)
}

/// A goose session holding its messages twice: the recorded exchange alone is smaller than
/// any summary of it, and compact does not apply a compaction that grows a session.
fn twice_over(session: &str) -> String {
    let mut lines = session.lines();
    let meta = lines.next().unwrap_or_default();
    let msgs: Vec<&str> = lines.collect();
    let mut out = String::from(meta);
    for l in msgs.iter().chain(&msgs) {
        out.push('\n');
        out.push_str(l);
    }
    out.push('\n');
    out
}

fn cases() -> Vec<(&'static str, Vec<u8>, &'static str)> {
    let f = |rel: &str| fs::read(fixture(rel)).unwrap();
    vec![
        ("cc-tools", f("claude-code/spotter_tool_heavy.jsonl"), "300"),
        // (spotter_short_v2.1.38.jsonl is too small for any summary to shrink it: compact
        // leaves it alone, see claude_tree.rs.)
        (
            "cc-2.1.197",
            f("realclients/claude-code/realclient_v2.1.197_session.jsonl"),
            "1500",
        ),
        (
            "cc-task",
            f("claude-code/spotter_task_parent_with_agent_progress.jsonl"),
            "2000",
        ),
        (
            "cc-boundary",
            f("claude-code/spotter_compact_boundary_excerpt_L1222-1300.jsonl"),
            "100",
        ),
        (
            "cc-sidechain",
            f("claude-code/spotter_subagent_sidechain_agent-aac57f5.jsonl"),
            "500",
        ),
        (
            "codex-cli",
            f("codex/acidicsoil_rollout_v0.58.0_cli.jsonl"),
            "2000",
        ),
        (
            "codex-compacted",
            f("codex/localpush_rollout_v0.104_compaction_excerpt_L1+L1750-1830.jsonl"),
            "100",
        ),
        (
            "codex-desktop",
            f("codex/localpush_rollout_v0.104_desktop_redacted.jsonl"),
            "100",
        ),
        (
            "goose-recording",
            twice_over(&goose_session_from_recording()).into_bytes(),
            "20",
        ),
    ]
}

#[test]
fn restore_undoes_agent_compactions_byte_for_byte() {
    let env = TestEnv::new();
    for (name, orig, tail) in cases() {
        let file = copy(&env, &format!("{name}.jsonl"), &orig);
        let id = compact(&env, &file, tail);
        let compacted = fs::read(&file).unwrap();
        assert_ne!(compacted, orig, "{name}: the compaction changed nothing");
        assert_ne!(messages(&compacted), messages(&orig), "{name}");
        restore(&env, &id);
        let restored = fs::read(&file).unwrap();
        assert_eq!(messages(&restored), messages(&orig), "{name}: messages");
        assert!(
            restored == orig,
            "{name}: the bytes differ from the original"
        );
    }
}

/// A message as each agent would append it after resuming the compacted session.
fn appended(name: &str, compacted: &[u8]) -> String {
    let text = std::str::from_utf8(compacted).unwrap();
    let records: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    if name.starts_with("cc-") {
        // Claude Code links the new prompt to the live leaf (the last conversation record).
        let leaf = records
            .iter()
            .rev()
            .find(|v| matches!(v["type"].as_str(), Some("user" | "assistant")))
            .unwrap();
        json!({"parentUuid": leaf["uuid"], "isSidechain": leaf["isSidechain"],
            "userType": "external", "sessionId": leaf["sessionId"], "type": "user",
            "message": {"role": "user", "content": "one more thing"},
            "uuid": "0b7cc5a4-5d0e-4c38-9d54-b2d1f43c1a77", "timestamp": "2026-03-01T00:00:00.000Z"})
        .to_string()
    } else if name.starts_with("codex-") {
        json!({"timestamp": "2026-03-01T00:00:00.000Z", "type": "response_item",
            "payload": {"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": "one more thing"}]}})
        .to_string()
    } else {
        json!({"id": null, "role": "user", "created": 1_800_000_000,
            "content": [{"type": "text", "text": "one more thing"}],
            "metadata": {"userVisible": true, "agentVisible": true}})
        .to_string()
    }
}

#[test]
fn restore_keeps_what_the_agent_appended_after_the_compaction() {
    let env = TestEnv::new();
    for (name, orig, tail) in cases() {
        let file = copy(&env, &format!("{name}.jsonl"), &orig);
        let id = compact(&env, &file, tail);
        let mut text = fs::read_to_string(&file).unwrap();
        let extra = appended(name, text.as_bytes());
        text.push_str(&extra);
        text.push('\n');
        fs::write(&file, &text).unwrap();
        restore(&env, &id);
        let restored = fs::read(&file).unwrap();
        // What the file would be had the compaction never happened.
        let mut never = orig.clone();
        never.extend(format!("{extra}\n").bytes());
        assert_eq!(messages(&restored), messages(&never), "{name}: messages");
        assert_eq!(
            messages(&restored).last().unwrap().1,
            [Part::Text("one more thing".into())],
            "{name}"
        );
        assert!(restored == never, "{name}: the bytes differ");
    }
}

#[test]
fn codex_restore_after_fresh_usage_appends_the_restored_history() {
    // Usage Codex reported after the compaction describes the compacted history: removing
    // the `compacted` record would make it look current, so the restored history is
    // appended as a new `compacted` record instead.
    let env = TestEnv::new();
    let orig = fs::read(fixture("codex/acidicsoil_rollout_v0.58.0_cli.jsonl")).unwrap();
    let file = copy(&env, "codex-usage.jsonl", &orig);
    let id = compact(&env, &file, "2000");
    let mut text = fs::read_to_string(&file).unwrap();
    let extra = appended("codex-", text.as_bytes());
    let usage = json!({"timestamp": "2026-03-01T00:00:01.000Z", "type": "event_msg",
        "payload": {"type": "token_count", "info": {"last_token_usage":
            {"input_tokens": 1234, "output_tokens": 5}}}});
    text += &format!("{extra}\n{usage}\n");
    fs::write(&file, &text).unwrap();
    restore(&env, &id);
    let restored = fs::read_to_string(&file).unwrap();
    assert!(
        restored.starts_with(&text),
        "nothing already written changes"
    );
    // Read as one history: what a message counts can depend on what follows it (Codex's
    // reasoning of a turn a later user message closed is no longer sent).
    let mut never = orig.clone();
    never.extend(format!("{extra}\n").bytes());
    assert_eq!(messages(restored.as_bytes()), messages(&never));
    let s = formats::read(restored.as_bytes(), None).unwrap();
    assert_eq!(
        s.reported_usage, None,
        "the usage before the rewrite is stale"
    );
}

#[test]
fn twice_compacted_agent_sessions_are_restored_newest_first() {
    let env = TestEnv::new();
    let f = |rel: &str| fs::read(fixture(rel)).unwrap();
    let cases = [
        ("cc", f("claude-code/spotter_tool_heavy.jsonl")),
        ("codex", f("codex/acidicsoil_rollout_v0.58.0_cli.jsonl")),
    ];
    for (name, orig) in cases {
        let file = copy(&env, &format!("{name}.jsonl"), &orig);
        let first = compact(&env, &file, "2000");
        let once = fs::read(&file).unwrap();
        let second = compact(&env, &file, "300");
        let run = env.run(&["archive", "restore", &first]);
        assert_eq!(run.code, 2, "{run:?}");
        assert!(
            run.stderr
                .contains(&format!("run `ctxctl archive restore {second}` first")),
            "{name}: {run:?}"
        );
        restore(&env, &second);
        assert!(fs::read(&file).unwrap() == once, "{name}: second undone");
        restore(&env, &first);
        assert!(fs::read(&file).unwrap() == orig, "{name}: first undone");
    }
}

#[test]
fn the_restore_report_counts_tokens_as_count_does() {
    // A Claude session: its estimates are scaled (×1.2), and the report must be too.
    let env = TestEnv::new();
    let f = copy(
        &env,
        "claude.jsonl",
        &fs::read(fixture("claude-code/spotter_tool_heavy.jsonl")).unwrap(),
    );
    let before = env.run(&["count", s(&f), "--json"]).json()["total_tokens"].clone();
    let id = compact(&env, &f, "300");
    let compacted = env.run(&["count", s(&f), "--json"]).json()["total_tokens"].clone();
    let run = env.run(&["archive", "restore", &id, "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.json();
    assert_eq!(v["original_tokens"], compacted, "{v}");
    assert_eq!(v["restored_tokens"], before, "{v}");
}
