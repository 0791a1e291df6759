//! The next request is the same figure before and after a rewrite (issue #41): what `trim`
//! and `compact` report as the next request is what `check` says of the file they wrote
//! (within 1%), and `check` after a rewrite never says more than before it. Run over real
//! agents' sessions (the realclient captures and real users' sessions), whose provider usage
//! a rewrite makes stale: the hidden part measured before is carried over in the cache.

use serde_json::Value;

use crate::support::{fixture, s, TestEnv};

/// Sessions that record their provider's usage: Claude Code 2.1.197 and 2.1.332, Codex
/// 0.169 and 0.171 captures, and real users' Claude Code and Codex sessions.
const SESSIONS: [&str; 8] = [
    "realclients/claude-code/realclient_v2.1.197_session.jsonl",
    "realclients/claude-code-2.1.332/auto-compacted-twice.jsonl",
    "realclients/codex/realclient_v0.169_rollout_tasks.jsonl",
    "realclients/codex-0.171.0/rollout-tasks-abc.jsonl",
    "wild/claude-code/chiphuyen__sniffly__fed8ce56-bc79-401f-a83e-af084253362f.jsonl",
    "wild/claude-code/4thehalibit__omarchy-backup__44ef5cbf-9cc3-4f7b-ac40-337a4d39713b.jsonl",
    "wild/codex/EdofEngland__code_butler__rollout-2025-11-24T13-02-00-019ab73e-8c11-7ad2-b604-5987891db560.jsonl",
    "wild/codex/LAF-US__IDAHO-VAULT__rollout-2026-03-23T01-39-29-019d19a2-6ff2-7cf3-a8e7-16f38b9dee35.jsonl",
];

/// Every trim strategy, with the options that make it remove or shorten something.
const STRATEGIES: [&[&str]; 7] = [
    &["--strategy", "fifo"],
    &["--strategy", "sliding-window", "--window", "4"],
    &[
        "--strategy",
        "smart",
        "--keep-first",
        "1",
        "--keep-last",
        "4",
    ],
    &["--strategy", "selective", "--keep-roles", "user"],
    &["--strategy", "tool-results", "--max-result-tokens", "40"],
    &["--strategy", "mask-tool-results", "--keep-recent", "1"],
    &[
        "--strategy",
        "composite",
        "--chain",
        "mask-tool-results,smart,fifo",
    ],
];

/// `check --json`'s (next request, its source) for `file`.
fn check(env: &TestEnv, file: &str, extra: &[&str]) -> (u64, String) {
    let mut args = vec!["check", "--json", file];
    args.extend_from_slice(extra);
    let run = env.run(&args);
    assert!(run.code == 0 || run.code == 1, "{run:?}");
    let f = run.file();
    (
        f["next_request_tokens"].as_u64().unwrap(),
        f["next_request_source"].as_str().unwrap().to_string(),
    )
}

/// A copy of the fixture `rel` in `env`, named `name`.
fn copy(env: &TestEnv, rel: &str, name: &str) -> String {
    let to = env.path().join(name);
    std::fs::copy(fixture(rel), &to).unwrap();
    s(&to).to_string()
}

/// Runs the rewrite `args` (with `--json`) and returns its reported next request.
fn rewrite(env: &TestEnv, args: &[&str]) -> Option<u64> {
    let mut all = args.to_vec();
    all.push("--json");
    let run = env.run(&all);
    assert_eq!(run.code, 0, "{args:?}: {run:?}");
    let v: Value = run.json();
    v["next_request_tokens"].as_u64()
}

/// The two properties, for one rewrite: `reported` (what the rewrite said) against the
/// next check of what it wrote, and that check against the one `before` it. Returns
/// whether the figure was carried over.
fn agree(what: &str, before: (u64, String), reported: u64, after: (u64, String)) -> bool {
    let (a, r) = (after.0 as f64, reported as f64);
    assert!(
        (a - r).abs() <= 0.01 * r,
        "{what}: the rewrite reported {reported}, the next check says {} ({}); before: {} ({})",
        after.0,
        after.1,
        before.0,
        before.1
    );
    assert!(
        after.0 <= before.0,
        "{what}: check says {} ({}) after the rewrite, {} ({}) before",
        after.0,
        after.1,
        before.0,
        before.1
    );
    // Where the file still has live usage (nothing was changed), that is what counts;
    // otherwise the hidden part measured before the rewrite is.
    assert!(
        after.1 == "carried" || after.0 == before.0,
        "{what}: {after:?} after, {before:?} before"
    );
    after.1 == "carried"
}

#[test]
fn trims_report_what_the_next_check_says() {
    let env = TestEnv::new();
    let mut carried = 0;
    for rel in SESSIONS {
        for strategy in STRATEGIES {
            let what = format!("{rel} {strategy:?}");
            // In place, on a copy.
            let f = copy(&env, rel, "s.jsonl");
            let before = check(&env, &f, &[]);
            let mut args = vec!["trim", f.as_str(), "--in-place"];
            args.extend_from_slice(strategy);
            let reported = rewrite(&env, &args).unwrap();
            carried += usize::from(agree(&what, before.clone(), reported, check(&env, &f, &[])));
            // To another file.
            let out = s(&env.path().join("out.jsonl")).to_string();
            let f = copy(&env, rel, "s.jsonl");
            let mut args = vec!["trim", f.as_str(), "-o", out.as_str()];
            args.extend_from_slice(strategy);
            let reported = rewrite(&env, &args).unwrap();
            carried += usize::from(agree(&what, before, reported, check(&env, &out, &[])));
        }
    }
    // Most rewrites change the session (the rest leave it, and its usage, as it was).
    assert!(
        carried >= SESSIONS.len() * STRATEGIES.len() / 2,
        "{carried}"
    );
}

#[test]
fn compactions_report_what_the_next_check_says() {
    let env = TestEnv::new();
    let mut compacted = 0;
    for rel in SESSIONS {
        let out = s(&env.path().join("out.jsonl")).to_string();
        let f = copy(&env, rel, "s.jsonl");
        let before = check(&env, &f, &[]);
        let args = ["compact", f.as_str(), "--tail-tokens", "300"];
        let mut to_out = args.to_vec();
        to_out.extend(["-o", out.as_str()]);
        let Some(reported) = rewrite(&env, &to_out) else {
            // Not compacted (the summary would outweigh what it replaces): nothing written.
            assert!(!env.path().join("out.jsonl").exists(), "{rel}");
            continue;
        };
        assert!(agree(rel, before.clone(), reported, check(&env, &out, &[])));
        compacted += 1;
        let mut in_place = args.to_vec();
        in_place.push("--in-place");
        let reported = rewrite(&env, &in_place).unwrap();
        assert!(agree(rel, before, reported, check(&env, &f, &[])));
        std::fs::remove_file(&out).unwrap();
    }
    assert!(compacted >= SESSIONS.len() - 1, "{compacted}");
}

#[test]
fn without_the_cache_the_prior_stays() {
    let env = TestEnv::new();
    let rel = SESSIONS[1];
    let trim = ["--strategy", "tool-results", "--max-result-tokens", "40"];
    // A rewrite under --no-cache leaves nothing to carry over.
    let f = copy(&env, rel, "s.jsonl");
    rewrite(
        &env,
        &["trim", &f, "--in-place", "--strategy", "fifo", "--no-cache"],
    );
    assert_ne!(check(&env, &f, &[]).1, "carried");
    // A check under --no-cache does not read what a rewrite carried over.
    let f = copy(&env, rel, "s.jsonl");
    let mut args = vec!["trim", f.as_str(), "--in-place"];
    args.extend(trim);
    rewrite(&env, &args);
    assert_ne!(check(&env, &f, &["--no-cache"]).1, "carried");
    assert_eq!(check(&env, &f, &[]).1, "carried");
}

/// A Claude Code compaction writes a `compact_boundary`, and `check` on the result measures
/// the hidden part on the reports before it (`compacted`): with or without the cache, the
/// next check says what the compaction reported. The compaction used to report the
/// original's latest-report overhead (17.9% more on this capture; on a 160 MB transcript
/// grown from it, 3.2M where the check said 18K).
#[test]
fn a_claude_code_compaction_reports_what_a_check_without_the_cache_says() {
    let env = TestEnv::new();
    let f = copy(&env, SESSIONS[0], "s.jsonl");
    let out = s(&env.path().join("out.jsonl")).to_string();
    let args = ["compact", &f, "--tail-tokens", "1000", "-o", &out];
    let reported = rewrite(&env, &args).expect("compacted");
    let uncached = check(&env, &out, &["--no-cache"]);
    assert_eq!(uncached.1, "compacted");
    let cached = check(&env, &out, &[]);
    for (after, how) in [(uncached, "without"), (cached, "with")] {
        let (a, r) = (after.0 as f64, reported as f64);
        assert!(
            (a - r).abs() <= 0.01 * r,
            "{how} the cache: reported {reported}, check says {after:?}"
        );
    }
}

/// A rewrite of a file an earlier rewrite wrote keeps the hidden part carried over to it:
/// each rewrite in a row reports what the next check says, and no check says more than
/// the one before (the second rewrite used to fall back to the prior, and report it).
#[test]
fn rewrites_in_a_row_keep_the_carried_figure() {
    let env = TestEnv::new();
    let f = copy(&env, SESSIONS[4], "s.jsonl");
    let mut before = check(&env, &f, &[]);
    let rewrites: [&[&str]; 4] = [
        &[
            "trim",
            "--strategy",
            "tool-results",
            "--max-result-tokens",
            "40",
        ],
        &["compact", "--tail-tokens", "300"],
        &[
            "trim",
            "--strategy",
            "mask-tool-results",
            "--keep-recent",
            "1",
        ],
        &["trim", "--strategy", "sliding-window", "--window", "2"],
    ];
    for rewrite_args in rewrites {
        let mut args = rewrite_args.to_vec();
        args.extend([f.as_str(), "--in-place"]);
        let reported = rewrite(&env, &args).unwrap();
        let after = check(&env, &f, &[]);
        assert!(agree(&format!("{args:?}"), before, reported, after.clone()));
        before = after;
    }
}

/// A Claude Code session its agent compacted has no report since; `check` measures its
/// hidden part on the reports before the agent's boundary (`compacted`). A compaction of
/// it carries that figure to what it writes: the next check used to fall back to the
/// prior, a quarter below what the compaction reported.
#[test]
fn a_compaction_of_an_agent_compacted_session_carries_its_hidden_part() {
    let env = TestEnv::new();
    let rel = "realclients/claude-code/realclient_v2.1.197_self_compacted.jsonl";
    let f = copy(&env, rel, "s.jsonl");
    let before = check(&env, &f, &[]);
    assert_eq!(before.1, "compacted");
    let out = s(&env.path().join("out.jsonl")).to_string();
    let reported = rewrite(&env, &["compact", &f, "--tail-tokens", "300", "-o", &out]).unwrap();
    assert!(agree(rel, before, reported, check(&env, &out, &[])));
}
