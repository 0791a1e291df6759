//! Agent releases ctxctl was not made for are visible: `check -v` names the version that
//! wrote a file and the record types ctxctl does not know, and `doctor` lists the versions
//! found in the user's homes against the verified ones. Every record type of the Claude
//! Code 2.1.332 and Codex 0.171.0 captures is known.

use crate::support::{fixture, s, Run, TestEnv};

/// The stderr of `run` without its debug lines (sizes, timings of the cache), redacted.
fn said(env: &TestEnv, run: &Run) -> String {
    let lines: Vec<&str> = (run.stderr.lines())
        .filter(|l| !l.starts_with("ctxctl: [debug]"))
        .collect();
    env.redact(&lines.join("\n"))
}

/// The 2.1.332 capture as a later release might write it: a new record type and version.
fn drifted() -> String {
    let text =
        std::fs::read_to_string(fixture("realclients/claude-code-2.1.332/session.jsonl")).unwrap();
    text.replace("\"type\":\"cost-state\"", "\"type\":\"brand-new-record\"")
        .replace("\"type\":\"date\"", "\"type\":\"hologram\"")
        .replace("\"version\":\"2.1.332\"", "\"version\":\"2.1.400\"")
}

#[test]
fn check_v_names_the_release_and_what_it_wrote_that_ctxctl_does_not_know() {
    let env = TestEnv::new();
    let file = env.write("drift.jsonl", drifted());
    let run = env.run(&["check", "-v", s(&file)]);
    assert_eq!(run.code, 0, "{run:?}");
    // The release (newer than verified), the unknown record and attachment types.
    insta::assert_snapshot!("drifted", said(&env, &run));
    // Without -v nothing is said, and the unknown records are kept byte for byte.
    let quiet = env.run(&["check", s(&file)]);
    insta::assert_snapshot!("quiet", env.snap(&quiet));
    // The captured releases: each names its release, and nothing unknown or not counted.
    let mut captures = String::new();
    for captured in [
        "realclients/claude-code-2.1.332/session.jsonl",
        "realclients/claude-code-2.1.332/auto-compacted-twice.jsonl",
        "realclients/claude-code-2.1.332/cc-self-compacted.jsonl",
        "realclients/codex-0.171.0/rollout-tasks-abc.jsonl",
        "realclients/codex-0.171.0/rollout-self-compacted.jsonl",
    ] {
        let run = env.run(&["check", "-v", s(&fixture(captured))]);
        assert!(run.code <= 1, "{captured}: {run:?}");
        captures.push_str(&format!("{}\n", said(&env, &run)));
    }
    insta::assert_snapshot!("captures", captures);
}

#[test]
fn doctor_lists_the_agent_versions_in_the_home() {
    let env = TestEnv::new();
    let projects = env.home().join(".claude/projects/-w");
    std::fs::create_dir_all(&projects).unwrap();
    std::fs::copy(
        fixture("realclients/claude-code-2.1.332/session.jsonl"),
        projects.join("a.jsonl"),
    )
    .unwrap();
    let v = env.run(&["doctor", "--json"]).json();
    let check = |v: &serde_json::Value, name: &str| {
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["check"] == name)
            .unwrap_or_else(|| panic!("{name}: {v}"))
            .clone()
    };
    let line = check(&v, "agent claude-code versions");
    assert_eq!(line["status"], "ok", "{line}");
    assert_eq!(
        line["detail"], "2.1.332 (1 file); verified 2.1.197–2.1.332",
        "{line}"
    );
    std::fs::write(projects.join("b.jsonl"), drifted()).unwrap();
    let run = env.run(&["doctor", "--json"]);
    assert_eq!(run.code, 0, "a warning, not a failure: {run:?}");
    let line = check(&run.json(), "agent claude-code versions");
    assert_eq!(line["status"], "warn", "{line}");
    insta::assert_snapshot!(line["detail"].as_str().unwrap());
}
