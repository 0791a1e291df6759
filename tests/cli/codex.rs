//! Codex 0.169 rollouts through the real binary: the window Codex recorded, its refused
//! requests, the records a rewrite appends, reasoning kept with its response, stats.

use std::fs;
use std::path::PathBuf;

use serde_json::{json, Value};

use crate::support::{fixture, s, TestEnv};

const TASKS: &str = "realclients/codex/realclient_v0.169_rollout_tasks.jsonl";
const OWN: &str = "realclients/codex/realclient_v0.169_rollout_self_compacted.jsonl";

fn copy(env: &TestEnv, rel: &str) -> (PathBuf, Vec<u8>) {
    let bytes = fs::read(fixture(rel)).unwrap();
    (env.write("rollout.jsonl", &bytes), bytes)
}

fn records(bytes: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(bytes)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// What Codex 0.169 appends when the provider refuses a request as too large.
fn refused(bytes: &[u8]) -> Vec<u8> {
    let last = records(bytes).last().unwrap()["ordinal"].as_u64().unwrap();
    let failure = [
        json!({"timestamp": "2026-11-23T21:00:00.000Z", "ordinal": last + 1, "type": "event_msg",
            "payload": {"type": "token_count", "info": {"total_token_usage": {"input_tokens": 1,
            "output_tokens": 0, "total_tokens": 258400}, "last_token_usage": {"input_tokens": 0,
            "output_tokens": 0, "total_tokens": 258400}, "model_context_window": 258400}}}),
        json!({"timestamp": "2026-11-23T21:00:00.000Z", "ordinal": last + 2, "type": "event_msg",
            "payload": {"type": "task_complete", "error": {"message": "Codex ran out of room",
            "codex_error_info": "context_window_exceeded"}}}),
    ];
    let mut out = bytes.to_vec();
    for f in failure {
        out.extend_from_slice(f.to_string().as_bytes());
        out.push(b'\n');
    }
    out
}

#[test]
fn check_uses_the_window_codex_recorded() {
    let env = TestEnv::new();
    let (file, _) = copy(&env, TASKS);
    let run = env.run(&["check", s(&file), "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.file();
    assert_eq!(v["context_window"], 258_400, "{v}");
    assert_eq!(v["status"], "ok");
    assert!(v["effective_limit"].as_u64().unwrap() <= 258_400);
}

#[test]
fn a_refused_request_is_over_and_compact_if_needed_rescues_it() {
    let env = TestEnv::new();
    let (file, bytes) = copy(&env, TASKS);
    let failed = refused(&bytes);
    fs::write(&file, &failed).unwrap();
    let run = env.run(&["check", s(&file)]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stdout.starts_with("over"), "{run:?}");
    assert!(run.stdout.contains("refused"), "{run:?}");

    let run = env.run(&["compact", s(&file), "--if-needed", "--in-place", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.json();
    assert_eq!(v["compacted"], true, "{v}");
    assert!(v["compacted_tokens"].as_u64() < v["original_tokens"].as_u64());
    let out = fs::read(&file).unwrap();
    assert!(out.starts_with(&failed), "original lines kept");
    // Numbered on from the final record, and what Codex writes after its compactions.
    let added = records(&out[failed.len()..]);
    let ordinals: Vec<u64> = added
        .iter()
        .map(|r| r["ordinal"].as_u64().unwrap())
        .collect();
    let last = records(&failed).last().unwrap()["ordinal"]
        .as_u64()
        .unwrap();
    assert_eq!(ordinals, (last + 1..last + 5).collect::<Vec<_>>());
    let kinds: Vec<&str> = added.iter().map(|r| r["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["compacted", "world_state", "turn_context", "event_msg"]
    );
    let history = added[0]["payload"]["replacement_history"]
        .as_array()
        .unwrap();
    let starts = |p: &str| {
        history
            .iter()
            .filter(|i| {
                i["content"][0]["text"]
                    .as_str()
                    .is_some_and(|t| t.starts_with(p))
            })
            .count()
    };
    assert_eq!(starts("<skills_instructions>"), 1);
    assert_eq!(
        starts("<environment_context>"),
        1,
        "Codex's context is kept once"
    );

    let run = env.run(&["check", s(&file), "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.file()["status"], "ok");
}

#[test]
fn smart_trims_keep_reasoning_with_its_response_and_restore_is_exact() {
    let env = TestEnv::new();
    let (file, bytes) = copy(&env, TASKS);
    let run = env.run(&[
        "trim",
        s(&file),
        "--strategy",
        "smart",
        "--keep-first",
        "3",
        "--keep-last",
        "30",
        "--in-place",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let run = env.run(&["check", s(&file), "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.file()["problems"], json!([]));

    fs::write(&file, &bytes).unwrap();
    let run = env.run(&[
        "compact",
        s(&file),
        "--tail-tokens",
        "4000",
        "--in-place",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let id = run.json()["archive_id"].as_str().unwrap().to_string();
    let run = env.run(&["archive", "restore", &id]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        fs::read(&file).unwrap() == bytes,
        "restore gives the bytes back"
    );
}

#[test]
fn check_reports_a_reasoning_item_without_its_response() {
    let env = TestEnv::new();
    let line = |ty: &str, p: Value| json!({"timestamp": "t", "type": ty, "payload": p}).to_string();
    let user = |t: &str| json!({"type":"message","role":"user","content":[{"type":"input_text","text":t}]});
    let text = [
        line("session_meta", json!({"id": "x"})),
        line("response_item", user("go")),
        line(
            "response_item",
            json!({"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAA"}),
        ),
        line("response_item", user("and now?")),
    ]
    .join("\n");
    let file = env.write("lone.jsonl", text + "\n");
    let run = env.run(&["check", s(&file), "--model", "gpt-5.5"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stdout
            .contains("reasoning item without the output it was produced with"),
        "{run:?}"
    );
}

#[test]
fn stats_count_failed_commands_and_codex_compactions() {
    let env = TestEnv::new();
    let (file, _) = copy(&env, TASKS);
    let run = env.run(&["stats", s(&file), "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.file();
    let errors: u64 = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["errors"].as_u64().unwrap())
        .sum();
    assert_eq!(errors, 2, "two commands exited 1: {v}");
    assert_eq!(v["context_window"], 258_400);

    let (file, _) = copy(&env, OWN);
    let v = env.run(&["stats", s(&file), "--json"]).file();
    let by: Vec<&str> = v["compactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["by"].as_str().unwrap())
        .collect();
    assert_eq!(by, ["codex"], "{v}");
}

/// A rewrite of a rollout in place appends to it (issue #43: the file is never copied to be
/// rewritten), its archive says how to take the file back to what it was, and `archive
/// restore` gives the original back byte for byte; a file changed since is refused.
#[test]
fn rewrites_in_place_append_and_restore_byte_for_byte() {
    let env = TestEnv::new();
    let (file, bytes) = copy(&env, TASKS);
    let lines = bytes.iter().filter(|&&b| b == b'\n').count();
    let run = env.run(&[
        "compact",
        s(&file),
        "--tail-tokens",
        "4000",
        "--in-place",
        "--json",
        "-vv",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("bytes appended"), "{run:?}");
    let id = run.json()["archive_id"].as_str().unwrap().to_string();
    let out = fs::read(&file).unwrap();
    assert!(
        out.len() > bytes.len() && out.starts_with(&bytes),
        "appended"
    );
    let kinds: Vec<Value> = records(&out[bytes.len()..])
        .iter()
        .map(|r| r["type"].clone())
        .collect();
    assert_eq!(kinds[0], "compacted", "{kinds:?}");
    let run = env.run(&["archive", "restore", &id]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(fs::read(&file).unwrap() == bytes, "compaction undone");

    let run = env.run(&[
        "trim",
        s(&file),
        "--strategy",
        "fifo",
        "--max-tokens",
        "8000",
        "--in-place",
        "--json",
        "-vv",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("bytes appended"), "{run:?}");
    let id = run.json()["archive_id"].as_str().unwrap().to_string();
    let out = fs::read(&file).unwrap();
    assert!(
        out.len() > bytes.len() && out.starts_with(&bytes),
        "appended"
    );
    // The undo script: the original's lines, copied from the file as the trim wrote it.
    let run = env.run(&["archive", "show", &id, "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let undo = run.json()["undo"].clone();
    assert_eq!(
        undo["steps"],
        json!([{"copy": {"from": 0, "n": lines}}]),
        "{undo}"
    );
    assert_eq!(undo["original_len"], bytes.len());
    assert_eq!(undo["written_len"], out.len());
    // Changed since the trim: refused, the file left as it is.
    let changed = [
        &out[..],
        b"{\"timestamp\":\"t\",\"type\":\"event_msg\",\"payload\":{}}\n",
    ]
    .concat();
    fs::write(&file, &changed).unwrap();
    let run = env.run(&["archive", "restore", &id]);
    assert_ne!(run.code, 0, "{run:?}");
    assert!(
        run.stderr.contains("no longer what the trim wrote"),
        "{run:?}"
    );
    assert!(fs::read(&file).unwrap() == changed);
    fs::write(&file, &out).unwrap();
    let run = env.run(&["archive", "restore", &id]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(fs::read(&file).unwrap() == bytes, "trim undone");
}
