//! Provider-reported usage in agent transcripts is stale once ctxctl rewrites the history
//! (a trim or a compaction), and current again once the agent resumes and reports anew.
//! While it is stale, the next request is ctxctl's count plus the hidden part the rewrite
//! measured and carried over (`carried`), or, with the count cache off, the agent's prior
//! (after a compaction, which writes a boundary: the hidden part measured before it).

use std::fs;
use std::path::Path;

use serde_json::{json, Value};

use ctxctl::formats::read;
use ctxctl::ops::prior::{hidden, CLAUDE_CODE_BY_VERSION, CLAUDE_CODE_MAIN, CODEX, CODEX_TOOLS};
use ctxctl::session::parse_agent_version;

use crate::support::{fixture, s, TestEnv};

/// `check --json`'s figure: the predicted next request.
fn checked(env: &TestEnv, f: &Path) -> u64 {
    let run = env.run(&["check", s(f), "--json"]);
    assert!(run.code == 0 || run.code == 1, "{run:?}");
    run.file()["next_request_tokens"].as_u64().unwrap()
}

/// `check --json --no-cache`'s figure: without what a rewrite carried over, stale usage
/// leaves ctxctl's count plus the agent's prior hidden part.
fn checked_uncached(env: &TestEnv, f: &Path) -> u64 {
    let run = env.run(&["check", s(f), "--json", "--no-cache"]);
    assert!(run.code == 0 || run.code == 1, "{run:?}");
    run.file()["next_request_tokens"].as_u64().unwrap()
}

/// The prior hidden part ctxctl adds to the file `f`: the row of its agent's version.
pub fn prior_of(f: &Path) -> u64 {
    let session = read(&fs::read(f).unwrap(), None).unwrap();
    hidden(session.format, &session.agent_limits) as u64
}

/// The files record their agent's version, and a Codex file's prior is that version's row,
/// not the fallback for an unknown version; a Claude Code file's too (main or subagent).
#[test]
fn the_prior_is_the_one_of_the_recorded_agent_version() {
    let cx = fixture("codex/acidicsoil_rollout_v0.58.0_cli.jsonl");
    let s = read(&fs::read(&cx).unwrap(), None).unwrap();
    assert!(s.agent_limits.agent_version.is_some());
    let fallback = match s.agent_limits.instructions_read {
        true => CODEX_TOOLS,
        false => CODEX,
    };
    assert_ne!(prior_of(&cx), fallback as u64);
    let mut unknown = s.agent_limits;
    unknown.agent_version = None;
    assert_eq!(hidden(s.format, &unknown), fallback);
    unknown.agent_version = parse_agent_version("0.0.1");
    assert_eq!(hidden(s.format, &unknown), fallback);
    let cc = fixture("claude-code/spotter_tool_heavy.jsonl");
    let s = read(&fs::read(&cc).unwrap(), None).unwrap();
    let v = s
        .agent_limits
        .agent_version
        .expect("the transcript records its version");
    let row = CLAUDE_CODE_BY_VERSION.iter().rev().find(|r| r.0 <= v);
    let want = match (row, s.agent_limits.subagent) {
        (Some(r), false) => r.1,
        (Some(r), true) => r.2,
        (None, _) => CLAUDE_CODE_MAIN,
    };
    assert_eq!(prior_of(&cc), want as u64);
    let mut unknown = s.agent_limits;
    unknown.agent_version = None;
    unknown.subagent = false;
    assert_eq!(hidden(s.format, &unknown), CLAUDE_CODE_MAIN);
}

/// `check --json`'s source of the next request.
fn source(env: &TestEnv, f: &Path) -> String {
    let run = env.run(&["check", s(f), "--json"]);
    run.file()["next_request_source"]
        .as_str()
        .unwrap()
        .to_string()
}

/// ctxctl's own estimate (`count --json`).
fn counted(env: &TestEnv, f: &Path) -> u64 {
    let run = env.run(&["count", s(f), "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    run.json()["total_tokens"].as_u64().unwrap()
}

/// ctxctl's count of the last messages of `f` (`responses` of them, or the trailing
/// assistant messages when `None`) plus the reply priming: what the next request holds
/// beyond the reported prompt of the response they are.
fn response_tokens(env: &TestEnv, f: &Path, responses: Option<usize>) -> u64 {
    let run = env.run(&["count", s(f), "--json", "--per-message"]);
    let per: Vec<(String, u64)> = run.json()["files"][0]["per_message"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_string(),
                m["tokens"].as_u64().unwrap(),
            )
        })
        .collect();
    let n = responses.unwrap_or_else(|| {
        per.iter()
            .rev()
            .take_while(|(r, _)| r == "assistant")
            .count()
    });
    per[per.len() - n..].iter().map(|(_, t)| t).sum::<u64>() + 3
}

fn append(f: &Path, record: &Value) {
    let mut text = fs::read_to_string(f).unwrap();
    text.push_str(&format!("{record}\n"));
    fs::write(f, text).unwrap();
}

/// An assistant record as Claude Code appends it on resuming: the leaf's envelope, linked
/// to the leaf, with fresh usage.
fn claude_answer(f: &Path, input: u64, output: u64) -> Value {
    let text = fs::read_to_string(f).unwrap();
    let leaf: Value = text
        .lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| matches!(v["type"].as_str(), Some("user" | "assistant")))
        .unwrap();
    let mut v = leaf.clone();
    v["parentUuid"] = leaf["uuid"].clone();
    v["type"] = json!("assistant");
    v["uuid"] = json!("5f0a3f8e-2b1c-4c53-9d0e-7a1b2c3d4e5f");
    v["message"] = json!({"model": "claude-opus-4-6", "id": "msg_fresh", "type": "message",
        "role": "assistant", "content": [{"type": "text", "text": "resumed"}],
        "usage": {"input_tokens": input, "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 0, "output_tokens": output}});
    v
}

#[test]
fn claude_code_usage_is_stale_after_a_trim_until_the_agent_reports_again() {
    let env = TestEnv::new();
    let orig = fs::read(fixture("claude-code/spotter_tool_heavy.jsonl")).unwrap();
    let trims: [&[&str]; 2] = [
        &["--strategy", "fifo", "--max-tokens", "1500"],
        &["--strategy", "sliding-window", "--window", "4"],
    ];
    for (k, trim) in trims.iter().enumerate() {
        let f = env.write(&format!("cc{k}.jsonl"), &orig);
        let reported = checked(&env, &f);
        assert!(
            reported > counted(&env, &f),
            "the fixture reports its usage"
        );
        let mut args = vec!["trim", s(&f), "--in-place"];
        args.extend_from_slice(trim);
        let run = env.run(&args);
        assert_eq!(run.code, 0, "{run:?}");
        let estimate = counted(&env, &f);
        assert!(
            estimate < reported,
            "{trim:?}: the trim went below the usage"
        );
        assert_eq!(
            checked_uncached(&env, &f),
            estimate + prior_of(&f),
            "{trim:?}: stale usage ignored"
        );
        let carried = checked(&env, &f);
        assert_eq!(source(&env, &f), "carried", "{trim:?}");
        assert!(
            carried > estimate && carried <= reported,
            "{trim:?}: the measured hidden part is carried, never above before: {carried}"
        );
        // Claude Code resumes and reports the trimmed history's size.
        append(&f, &claude_answer(&f, 4321, 12));
        // The next request: the reported prompt, then the answer itself.
        assert_eq!(
            checked(&env, &f),
            4321 + response_tokens(&env, &f, Some(1)),
            "{trim:?}: fresh usage used"
        );
    }
}

#[test]
fn claude_code_usage_reported_after_a_compaction_counts() {
    let env = TestEnv::new();
    let f = env.write(
        "cc.jsonl",
        fs::read(fixture("claude-code/spotter_tool_heavy.jsonl")).unwrap(),
    );
    let run = env.run(&["compact", s(&f), "--tail-tokens", "500", "--in-place"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(source(&env, &f), "carried");
    let carried = checked(&env, &f);
    // The compaction wrote a Claude Code boundary: with the cache off, the hidden part is
    // the one the reports before that boundary measure (at the earliest of them), not the
    // prior, and it comes close to what the rewrite carried (measured at the latest).
    let run = env.run(&["check", s(&f), "--json", "--no-cache"]);
    assert_eq!(run.file()["next_request_source"], "compacted", "{run:?}");
    let uncached = checked_uncached(&env, &f);
    assert_ne!(uncached, counted(&env, &f) + prior_of(&f));
    assert!(
        uncached.abs_diff(carried) * 20 <= carried,
        "{uncached} vs {carried} carried"
    );
    append(&f, &claude_answer(&f, 22345, 6));
    assert_eq!(
        checked(&env, &f),
        22345 + response_tokens(&env, &f, Some(1))
    );
}

#[test]
fn codex_usage_is_stale_after_a_trim_until_codex_reports_again() {
    let env = TestEnv::new();
    let f = env.write(
        "codex.jsonl",
        fs::read(fixture("codex/acidicsoil_rollout_v0.58.0_cli.jsonl")).unwrap(),
    );
    let reported = checked(&env, &f);
    assert_ne!(reported, counted(&env, &f), "the fixture reports its usage");
    let run = env.run(&[
        "trim",
        s(&f),
        "--in-place",
        "--strategy",
        "fifo",
        "--max-tokens",
        "3000",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let estimate = counted(&env, &f);
    assert!(estimate < reported);
    assert_eq!(
        checked_uncached(&env, &f),
        estimate + prior_of(&f),
        "stale usage ignored"
    );
    let carried = checked(&env, &f);
    assert_eq!(source(&env, &f), "carried");
    assert!(carried > estimate && carried <= reported, "{carried}");
    append(
        &f,
        &json!({"timestamp": "2026-03-01T00:00:00.000Z", "type": "event_msg",
            "payload": {"type": "token_count", "info": {"last_token_usage":
                {"input_tokens": 3456, "output_tokens": 7}}}}),
    );
    assert_eq!(
        checked(&env, &f),
        3456 + response_tokens(&env, &f, None),
        "fresh usage used"
    );
}

#[test]
fn restoring_after_the_agent_reported_again_marks_the_usage_stale() {
    // The usage reported after a compaction describes the compacted history; once the
    // originals are back it is stale.
    let env = TestEnv::new();
    let f = env.write(
        "cc.jsonl",
        fs::read(fixture("claude-code/spotter_tool_heavy.jsonl")).unwrap(),
    );
    let run = env.run(&[
        "compact",
        s(&f),
        "--tail-tokens",
        "500",
        "--in-place",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let id = run.json()["archive_id"].as_str().unwrap().to_string();
    append(&f, &claude_answer(&f, 21111, 2));
    assert_eq!(
        checked(&env, &f),
        21111 + response_tokens(&env, &f, Some(1))
    );
    let run = env.run(&["archive", "restore", &id]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(checked_uncached(&env, &f), counted(&env, &f) + prior_of(&f));
    // The restore carries the hidden part the agent's last report measured.
    assert_eq!(source(&env, &f), "carried");
}
