//! `ctxctl grep` over a home laid out as the agents lay it out: a Claude Code session the
//! agent compacted itself (records before its `compact_boundary`), a Codex rollout with a
//! `compacted` record, and a Claude Code session compacted by `ctxctl compact --in-place`
//! (its originals in ctxctl's archive). Every match must say where it lives.

use crate::support::{fixture, s, TestEnv};

const CC_SELF: &str = "11111111-2222-3333-4444-000000000001";
const CC_CTXCTL: &str = "11111111-2222-3333-4444-000000000002";
const PROJECT: &str = "home/.claude/projects/-tmp-proj";

fn home() -> TestEnv {
    let env = TestEnv::new();
    let copy = |from: &str, to: &str| {
        env.write(to, std::fs::read(fixture(from)).unwrap());
    };
    copy(
        "realclients/claude-code-2.1.332/cc-self-compacted.jsonl",
        &format!("{PROJECT}/{CC_SELF}.jsonl"),
    );
    copy(
        "realclients/codex-0.171.0/rollout-self-compacted.jsonl",
        "home/.codex/sessions/2026/11/27/rollout-2026-11-27T14-56-00-aaaa.jsonl",
    );
    copy(
        "realclients/claude-code/realclient_v2.1.197_session.jsonl",
        &format!("{PROJECT}/{CC_CTXCTL}.jsonl"),
    );
    let session = env
        .home()
        .join(format!(".claude/projects/-tmp-proj/{CC_CTXCTL}.jsonl"));
    let run = env.run(&[
        "compact",
        "--in-place",
        "--include-live",
        "--tail-tokens",
        "500",
        s(&session),
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    env
}

#[test]
fn claude_codes_own_compaction_is_found_and_labelled() {
    let env = home();
    let run = env.run(&["grep", "-F", "[p03]", "--agent", "claude-code"]);
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!(env.snap(&run));
}

#[test]
fn codex_history_before_its_compacted_record_is_found_and_labelled() {
    let env = home();
    let run = env.run(&["grep", "TASK-K", "--agent", "codex", "-C", "1"]);
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!(env.snap(&run));
}

#[test]
fn copilots_own_compaction_is_found_and_labelled() {
    // A log Copilot CLI compacted itself (`/compact`): the events before its
    // `session.compaction_complete` stay in the file but are no longer sent.
    let env = TestEnv::new();
    env.write(
        "home/.copilot/session-state/0ee0651e/events.jsonl",
        std::fs::read("tests/formats/copilot-cli/compacted-by-copilot/input.jsonl").unwrap(),
    );
    let run = env.run(&[
        "grep",
        "-F",
        "migration note",
        "--agent",
        "copilot-cli",
        "--role",
        "tool",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!(env.snap(&run));
}

#[test]
fn an_archive_made_by_compact_is_searched_and_says_how_to_restore() {
    let env = home();
    let run = env.run(&["grep", "-i", "UNITTEST FILE", "--role", "user"]);
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!(env.snap(&run));
    let lines: Vec<serde_json::Value> = env
        .run(&["grep", "-i", "unittest file", "--role", "user", "--json"])
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let places: Vec<&str> = lines.iter().filter_map(|l| l["place"].as_str()).collect();
    assert!(places.contains(&"archived"), "{lines:?}");
    let archived = lines.iter().find(|l| l["place"] == "archived").unwrap();
    let id = archived["archive_id"].as_str().unwrap();
    assert_eq!(archived["restore"], format!("ctxctl archive restore {id}"));
    // The restore it names works.
    for l in &lines {
        let errors = crate::json_schema::errors_against("grep_line", l);
        assert!(errors.is_empty(), "{l}: {errors:?}");
    }
    let back = env.run(&["archive", "restore", id]);
    assert_eq!(back.code, 0, "{back:?}");
}

#[test]
fn files_counts_and_json_lines() {
    let env = home();
    let l = env.run(&["grep", "-l", "-F", "[p01]"]);
    let c = env.run(&["grep", "-c", "-F", "[p01]"]);
    let j = env.run(&["grep", "--json", "-w", "TASK-M"]);
    let lj = env.run(&["grep", "--json", "-l", "-F", "[p01]"]);
    for l in j.stdout.lines().chain(lj.stdout.lines()) {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        let errors = crate::json_schema::errors_against("grep_line", &v);
        assert!(errors.is_empty(), "{l}: {errors:?}");
    }
    insta::assert_snapshot!(format!(
        "{}\n{}\n{}",
        env.snap(&l),
        env.snap(&c),
        env.snap(&j)
    ));
}

#[test]
fn message_text_not_json_syntax_is_searched() {
    let env = TestEnv::new();
    let line = serde_json::json!({"type":"user","message":{"role":"user",
        "content":"he said \"ship it\"\nthen left"}});
    let f = env.write("s.jsonl", format!("{line}\n"));
    let run = env.run(&["grep", "-F", "said \"ship it\"\nthen", s(&f)]);
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!(env.snap(&run));
    // The file holds `\"` and `\n`: the escaped form is not the text.
    let escaped = env.run(&["grep", "-F", r#"\"ship"#, s(&f)]);
    assert_eq!((escaped.code, escaped.stdout.as_str()), (1, ""));
    // Keys are JSON syntax, not text.
    let key = env.run(&["grep", "content", s(&f)]);
    assert_eq!((key.code, key.stdout.as_str()), (1, ""));
}

#[test]
fn exit_codes_follow_grep() {
    let env = home();
    let none = env.run(&["grep", "no such words anywhere"]);
    assert_eq!((none.code, none.stdout.as_str()), (1, ""), "{none:?}");
    let bad = env.run(&["grep", "("]);
    let missing = env.run(&["grep", "x", "/nonexistent/session.jsonl"]);
    insta::assert_snapshot!(format!("{}\n{}", env.snap(&bad), env.snap(&missing)));
}

#[test]
fn tool_outputs_are_named_by_their_call_and_filtered_by_tool() {
    let env = home();
    let tools = |args: &[&str]| -> Vec<(String, String)> {
        let mut a = vec![
            "grep",
            "--json",
            "ModuleNotFoundError",
            "--agent",
            "claude-code",
        ];
        a.extend_from_slice(args);
        env.run(&a)
            .stdout
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|v| v["type"] == "match")
            .map(|v| (v["role"].to_string(), v["tool"].to_string()))
            .collect()
    };
    let all = tools(&[]);
    assert!(
        all.contains(&("\"tool\"".into(), "\"Bash\"".into())),
        "{all:?}"
    );
    // The same tool outputs, read eagerly, when the tool filters.
    let bash = tools(&["--tool", "bash"]);
    let expected: Vec<_> = all
        .iter()
        .filter(|(_, t)| t == "\"Bash\"")
        .cloned()
        .collect();
    assert_eq!(bash, expected);
    assert!(tools(&["--tool", "Read"]).is_empty());
}

#[test]
fn a_session_of_an_agents_database_is_read_by_its_format() {
    let env = TestEnv::new();
    let db = env.write(
        "oc/opencode.db",
        std::fs::read(fixture("opencode/opencode.db")).unwrap(),
    );
    let run = env.run(&["grep", "--json", "-F", "release notes", s(&db)]);
    assert_eq!(run.code, 0, "{run:?}");
    let first: serde_json::Value =
        serde_json::from_str(run.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(first["agent"], "opencode");
    assert!(
        first["session"].as_str().unwrap().starts_with("ses_"),
        "{first}"
    );
    // The database's own JSON columns are not text.
    let key = env.run(&["grep", "-F", "tokens_input", s(&db)]);
    assert_eq!((key.code, key.stdout.as_str()), (1, ""), "{key:?}");
}
