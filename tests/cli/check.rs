use crate::support::{s, sample, TestEnv};

fn session_of(env: &TestEnv, words: usize) -> std::path::PathBuf {
    let text = "word ".repeat(words);
    env.write(
        "s.json",
        format!(r#"[{{"role":"user","content":"{text}"}}]"#),
    )
}

#[test]
fn effective_limit_follows_the_formula() {
    let env = TestEnv::new();
    let f = session_of(&env, 10);
    let run = env.run(&[
        "check",
        s(&f),
        "--max-tokens",
        "100000",
        "--reserve-output",
        "4096",
        "--reserved",
        "1000",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.file();
    assert_eq!(v["effective_limit"], 94904);
    assert_eq!(v["context_window"], 100000);
    assert_eq!(v["max_output_tokens"], 4096);
    assert_eq!(v["reserved"], 1000);
    assert_eq!(v["status"], "ok");
    assert_eq!(v["threshold"], 0.8);
    let tokens = v["next_request_tokens"].as_i64().unwrap();
    assert_eq!(v["remaining"].as_i64().unwrap(), 94904 - tokens);
    assert!(v["problems"].as_array().unwrap().is_empty());
}

#[test]
fn statuses_and_exit_codes() {
    let env = TestEnv::new();
    let f = session_of(&env, 200);
    let tokens = env
        .run(&["check", s(&f), "--json", "--max-tokens", "100000"])
        .file()["next_request_tokens"]
        .as_u64()
        .unwrap();
    // Window just big enough that usage is between threshold and limit.
    let window = (tokens as f64 / 0.9) as u64;
    let run = env.run(&[
        "check",
        s(&f),
        "--max-tokens",
        &window.to_string(),
        "--reserve-output",
        "0",
        "--json",
    ]);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(run.file()["status"], "compact");
    // The advice on stderr says how much of the effective limit is used.
    insta::assert_snapshot!("compact_status", env.snap(&run));
    let run = env.run(&[
        "check",
        s(&f),
        "--max-tokens",
        &(tokens - 1).to_string(),
        "--reserve-output",
        "0",
        "--json",
    ]);
    assert_eq!(run.code, 1);
    assert_eq!(run.file()["status"], "over");
    let run = env.run(&[
        "check",
        s(&f),
        "--max-tokens",
        &(tokens * 2).to_string(),
        "--reserve-output",
        "0",
        "--threshold",
        "0.5",
        "--json",
    ]);
    assert_eq!(
        run.file()["status"],
        "compact",
        "exactly at the threshold triggers"
    );
    assert_eq!(run.code, 1);
}

#[test]
fn known_model_limits() {
    let env = TestEnv::new();
    let f = session_of(&env, 5);
    let v = env
        .run(&["check", s(&f), "--model", "claude-3-opus", "--json"])
        .file();
    assert_eq!(v["context_window"], 200000);
    assert_eq!(v["max_output_tokens"], 4096);
    assert_eq!(v["effective_limit"], 200000 - 4096);
}

#[test]
fn an_unknown_model_is_refused_unless_allowed() {
    let env = TestEnv::new();
    let f = session_of(&env, 5);
    // A typo would check against made-up limits: a usage error with the close matches.
    let run = env.run(&["check", s(&f), "--model", "claude-3-opuss", "--json"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(run.stdout, "", "nothing on stdout: {run:?}");
    insta::assert_snapshot!("unknown_model_refused", env.snap(&run));
    let typo = TestEnv::new().env("CTXCTL_MODEL", "gpt-4oo");
    let run = typo.run(&["check", s(&session_of(&typo, 5))]);
    assert_eq!(run.code, 2, "{run:?}");
    // The error says where the model came from.
    insta::assert_snapshot!("unknown_model_from_env", typo.snap(&run));
    // Asked for, the default limits are used with a warning.
    let run = env.run(&[
        "check",
        s(&f),
        "--model",
        "claude-3-opuss",
        "--allow-unknown-model",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!("unknown_model_allowed", env.snap(&run));
    // A model the session names is not the user's typo: it is not refused.
    let named = env.write(
        "named.json",
        r#"{"model":"my-own-model","messages":[{"role":"user","content":"hi"}]}"#,
    );
    let run = env.run(&["check", s(&named)]);
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!("unknown_model_of_the_session", env.snap(&run));
}

#[test]
fn structural_problems_fail_the_check() {
    let env = TestEnv::new();
    let f = env.write(
        "broken.json",
        r#"[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_9","content":"orphan"}]"#,
    );
    let run = env.run(&["check", s(&f), "--model", "gpt-4o", "--json"]);
    assert_eq!(run.code, 1, "{run:?}");
    insta::assert_snapshot!(env.snap(&run));
}

#[test]
fn several_files_give_an_array_and_the_worst_code() {
    let env = TestEnv::new();
    let good = session_of(&env, 5);
    let run = env.run(&[
        "check",
        s(&good),
        s(&sample("openai-chat.json")),
        "missing.json",
        "--json",
    ]);
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(run.json()["files"].as_array().unwrap().len(), 3);
    assert_eq!(run.json()["files"][2]["path"], "missing.json");
    let human = env.run(&[
        "check",
        s(&good),
        s(&sample("openai-chat.json")),
        "missing.json",
    ]);
    assert_eq!(human.code, 2, "{human:?}");
    insta::assert_snapshot!(env.snap(&human));
}

#[test]
fn threshold_from_env_and_config() {
    let env = TestEnv::new().env("CTXCTL_THRESHOLD", "0.3");
    let f = session_of(&env, 5);
    assert_eq!(
        env.run(&["check", s(&f), "--json"]).file()["threshold"],
        0.3
    );
    let env = TestEnv::new();
    let f = session_of(&env, 5);
    let cfg = env.write("c.toml", "threshold = 0.6\n");
    assert_eq!(
        env.run(&["check", s(&f), "--config", s(&cfg), "--json"])
            .file()["threshold"],
        0.6
    );
    assert_eq!(
        env.run(&[
            "check",
            s(&f),
            "--config",
            s(&cfg),
            "--threshold",
            "0.7",
            "--json"
        ])
        .file()["threshold"],
        0.7
    );
}

#[test]
fn reported_usage_is_used_until_ctxctl_rewrites_the_history() {
    let fixture = crate::support::fixture("claude-code/spotter_tool_heavy.jsonl");
    let env = TestEnv::new();
    let f = env.write("cc.jsonl", std::fs::read(fixture).unwrap());
    let before = env.run(&["check", s(&f), "--json"]).file();
    let counted = env.run(&["count", s(&f), "--json"]).json();
    // The agent's own figure (system prompt and tools included) beats ctxctl's count.
    assert!(
        before["next_request_tokens"].as_u64() > counted["total_tokens"].as_u64(),
        "{before}"
    );
    let run = env.run(&["compact", s(&f), "--tail-tokens", "500", "--in-place"]);
    assert_eq!(run.code, 0, "{run:?}");
    let after = env.run(&["check", s(&f), "--json", "--no-cache"]).file();
    let recount = env.run(&["count", s(&f), "--json"]).json();
    // Stale usage is ignored: without the hidden part the compaction carried over (count
    // cache off), ctxctl's count plus the hidden part the reports before the compaction's
    // boundary measured (not the agent's prior), never above the figure before.
    let next = after["next_request_tokens"].as_u64().unwrap();
    let recounted = recount["total_tokens"].as_u64().unwrap();
    assert_eq!(after["next_request_source"], "compacted", "{after}");
    assert_ne!(
        next,
        recounted + crate::agent_usage::prior_of(&f),
        "stale usage ignored"
    );
    assert!(next > recounted, "{after}");
    assert!(
        next <= before["next_request_tokens"].as_u64().unwrap(),
        "{after}"
    );
    // With the cache, the hidden part measured before the compaction is carried over, and
    // the figure never exceeds the one before.
    let carried = env.run(&["check", s(&f), "--json"]).file();
    assert_eq!(carried["next_request_source"], "carried");
    assert!(
        carried["next_request_tokens"].as_u64() <= before["next_request_tokens"].as_u64(),
        "{carried}"
    );
    assert!(recount["files"][0].get("reported").is_none());
}

/// Runs `check` on `f` with `args` and `-v`, returning (code, stdout, stderr without the
/// debug lines).
fn check_v(env: &TestEnv, f: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["check", s(f), "-v"];
    all.extend_from_slice(args);
    let run = env.run(&all);
    let shown: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| !l.starts_with("ctxctl: [debug]"))
        .collect();
    (run.code, run.stdout.clone(), shown.join("\n"))
}

#[test]
fn a_session_checked_again_unchanged_is_answered_from_its_digest() {
    let env = TestEnv::new();
    let digests = env.home().join(".cache/ctxctl/digests");
    // A problem (an orphan tool result) and a reading warning (a truncated last line).
    let broken = env.write(
        "broken.jsonl",
        "{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\":\"tool\",\"tool_call_id\":\"call_9\",\"content\":\"orphan\"}\n{\"role\":\"user\",\"cont",
    );
    let files = [
        sample("openai-chat.json"),
        sample("claude-code.jsonl"),
        sample("codex.jsonl"),
        broken,
    ];
    for f in &files {
        let cold = env.run(&["check", s(f), "-vv"]);
        assert!(!cold.stderr.contains("from its digest"), "{cold:?}");
        for args in [&["--json"][..], &[][..]] {
            let fresh = check_v(&env, f, &[args, &["--no-cache"]].concat());
            let warm = env.run(&[&["check", s(f), "-vv"], args].concat());
            assert!(
                warm.stderr.contains("counts from its digest")
                    && !warm.stderr.contains("tokenizer built"),
                "{f:?}: {warm:?}"
            );
            let warm = check_v(&env, f, args);
            assert_eq!(fresh, warm, "{f:?} {args:?}");
        }
    }
    // The problem, and the reading warning given again.
    let (code, out, err) = check_v(&env, &files[3], &[]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("broken_from_the_digest", env.redact(&format!("{out}{err}")));

    // Another model (another tokenizer or scale) does not take the digest's counts.
    for model in ["gpt-4", "claude-sonnet-4"] {
        let fresh = check_v(&env, &files[0], &["--json", "--no-cache", "--model", model]);
        let run = env.run(&["check", s(&files[0]), "-vv", "--model", model]);
        assert!(!run.stderr.contains("from its digest"), "{run:?}");
        assert_eq!(
            check_v(&env, &files[0], &["--json", "--model", model]),
            fresh
        );
    }

    // A changed file is read again; a broken digest is ignored.
    let grown = env.write(
        "grown.jsonl",
        std::fs::read_to_string(sample("plain.jsonl")).unwrap(),
    );
    check_v(&env, &grown, &[]);
    std::fs::OpenOptions::new()
        .append(true)
        .open(&grown)
        .and_then(|mut f| {
            use std::io::Write;
            f.write_all(b"{\"role\":\"user\",\"content\":\"and one more thing to say\"}\n")
        })
        .unwrap();
    let fresh = check_v(&env, &grown, &["--json", "--no-cache"]);
    assert_eq!(check_v(&env, &grown, &["--json"]), fresh);
    for entry in std::fs::read_dir(&digests).unwrap() {
        std::fs::write(entry.unwrap().path(), b"{broken").unwrap();
    }
    assert_eq!(check_v(&env, &grown, &["--json"]), fresh);
    assert_eq!(check_v(&env, &grown, &["--json"]), fresh);

    // `cache clear` removes the digests too; `--no-cache` writes none.
    assert_eq!(env.run(&["cache", "clear"]).code, 0);
    assert!(!digests.exists());
    check_v(&env, &files[0], &["--no-cache"]);
    assert!(!digests.exists());
}

/// How a warm `check -vv` of `f` found it unchanged: `Some(true)` unread (its stat identity
/// vouched for it), `Some(false)` hashed, `None` not unchanged at all.
fn unchanged_how(env: &TestEnv, f: &std::path::Path) -> Option<bool> {
    let run = env.run(&["check", s(f), "-vv"]);
    let line = run.stderr.lines().find(|l| l.contains("unchanged since"))?;
    Some(line.contains("not read"))
}

#[test]
fn an_old_unchanged_session_is_answered_unread_and_a_rewrite_is_still_seen() {
    let env = TestEnv::new();
    let f = env.write(
        "old.jsonl",
        "{\"role\":\"user\",\"content\":\"aaaa aaaa\"}\n",
    );
    // Checked at once: its times are within the margin of the digest, so it is hashed.
    check_v(&env, &f, &[]);
    assert_eq!(unchanged_how(&env, &f), Some(false));
    // Its times old enough (the change time cannot be set back; wait past the margin): the
    // hashed check re-stamps the digest, and the next one reads nothing.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    assert_eq!(unchanged_how(&env, &f), Some(false));
    assert_eq!(unchanged_how(&env, &f), Some(true));
    let fresh = check_v(&env, &f, &["--json", "--no-cache"]);
    assert_eq!(check_v(&env, &f, &["--json"]), fresh);
    // Rewritten with the same length, its modification time put back: the change time
    // moved, so it is read again and the new text counted.
    let mtime = std::fs::metadata(&f).unwrap().modified().unwrap();
    std::fs::write(&f, "{\"role\":\"user\",\"content\":\"b b b b b\"}\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&f)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    assert_eq!(std::fs::metadata(&f).unwrap().modified().unwrap(), mtime);
    let fresh_now = check_v(&env, &f, &["--json", "--no-cache"]);
    assert_ne!(fresh_now, fresh, "the rewrite changes the count");
    assert_eq!(check_v(&env, &f, &["--json"]), fresh_now);
}

/// `check` of `f` with the cache, as (exit code, stdout, stderr without debug lines), and
/// whether it read the file from where its digest ended.
fn check_cached(
    env: &TestEnv,
    f: &std::path::Path,
    args: &[&str],
) -> ((i32, String, String), bool) {
    let mut all = vec!["check", s(f), "-vv", "--json"];
    all.extend_from_slice(args);
    let run = env.run(&all);
    let resumed = run.stderr.contains("grown since its last check");
    let shown: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| !l.starts_with("ctxctl: [debug]"))
        .collect();
    ((run.code, run.stdout.clone(), shown.join("\n")), resumed)
}

#[test]
fn a_grown_session_is_read_from_where_its_last_check_ended() {
    let env = TestEnv::new();
    let user = |i: usize| serde_json::json!({"role": "user", "content": format!("question {i}: {}", "why ".repeat(i % 7))});
    let call = |id: &str| serde_json::json!({"role": "assistant", "content": null, "tool_calls": [{"id": id, "type": "function", "function": {"name": "ls", "arguments": "{\"path\": \".\"}"}}]});
    let result = |id: &str| serde_json::json!({"role": "tool", "tool_call_id": id, "content": "a.txt\nb.txt"});
    let wizard = serde_json::json!({"role": "wizard", "content": "odd"});
    // Each step: the records so far, and whether the check should read from the last end.
    // The session grows record by record; each step checks a prefix of it, and says whether
    // the check should read from where the last one ended.
    let all = [
        user(0),
        call("c1"),
        result("c1"),
        user(1),
        result("zz"),
        wizard,
        user(2),
    ];
    let mut edited = all.to_vec();
    edited[0] = user(9);
    let steps: Vec<(Vec<serde_json::Value>, bool)> = vec![
        (all[..2].to_vec(), false),
        // The call made before is answered now: no problem left.
        (all[..4].to_vec(), true),
        // An orphan result and an unknown role among the new records.
        (all[..6].to_vec(), true),
        // Read with warnings: the next check reads it whole.
        (all.to_vec(), false),
        // An earlier record changed: read whole.
        (edited, false),
    ];
    type Render = fn(&[serde_json::Value]) -> String;
    let docs: [(&str, Render); 4] = [
        ("pretty.json", |r| {
            serde_json::to_string_pretty(&serde_json::json!({"model": "gpt-4o", "messages": r}))
                .unwrap()
                + "\n"
        }),
        ("compact.json", |r| serde_json::to_string(r).unwrap()),
        ("model-after.json", |r| {
            serde_json::to_string(&serde_json::json!({"messages": r, "model": "gpt-4"})).unwrap()
        }),
        ("plain.jsonl", |r| {
            let mut out = String::new();
            for (i, v) in r.iter().enumerate() {
                let mut v = v.clone();
                if i == 1 {
                    v["model"] = "gpt-4".into();
                }
                out += &format!("{v}\n");
            }
            out
        }),
    ];
    for (name, render) in docs {
        for (k, (records, resumes)) in steps.iter().enumerate() {
            let f = env.write(name, render(records));
            let fresh = check_v(&env, &f, &["--json", "--no-cache"]);
            let (cached, resumed) = check_cached(&env, &f, &[]);
            assert_eq!(cached, fresh, "{name} step {k}");
            assert_eq!(resumed, *resumes, "{name} step {k}: {cached:?}");
        }
    }
    // Counted for another model before: not reused.
    let f = env.write(
        "m.jsonl",
        "{\"role\":\"user\",\"content\":\"hello there\"}\n",
    );
    check_cached(&env, &f, &["--model", "gpt-4"]);
    std::fs::write(&f, "{\"role\":\"user\",\"content\":\"hello there\"}\n{\"role\":\"assistant\",\"content\":\"hi\"}\n").unwrap();
    let fresh = check_v(&env, &f, &["--json", "--no-cache", "--model", "gpt-4o"]);
    let (cached, resumed) = check_cached(&env, &f, &["--model", "gpt-4o"]);
    assert_eq!(cached, fresh);
    assert!(!resumed);
    // Growth that changes how the whole file reads: the model named after the messages
    // (another tokenizer, with warnings from the new records), or the format detected
    // (Anthropic's `max_tokens` appended): read whole, as a fresh run reads it.
    let u = r#"{"role":"user","content":"hello"}"#;
    let a = r#"{"role":"assistant","content":"hi"}"#;
    let cases = [
        (
            "model.json",
            format!(r#"{{"messages":[{u},{a}],"model":"gpt-4o"}}"#),
            format!(
                r#"{{"messages":[{u},{a},{{"role":"wizard","content":"x"}}],"model":"claude-sonnet-4-5"}}"#
            ),
        ),
        (
            "flip.json",
            format!(r#"{{"system":{{"note":"x"}},"messages":[{u}]}}"#),
            format!(r#"{{"system":{{"note":"x"}},"messages":[{u},{a}],"max_tokens":100}}"#),
        ),
    ];
    for (name, before, after) in cases {
        let f = env.write(name, before);
        check_cached(&env, &f, &[]);
        let f = env.write(name, after);
        let fresh = check_v(&env, &f, &["--json", "--no-cache"]);
        let (cached, resumed) = check_cached(&env, &f, &[]);
        assert_eq!(cached, fresh, "{name}");
        assert!(!resumed, "{name}");
    }
    // Anthropic: a system prompt before the messages is part of what was read before; one
    // after them is not, so such a file is read whole.
    for (name, before) in [("sys-first.json", true), ("sys-last.json", false)] {
        let doc = |n: usize| {
            let msgs: Vec<_> = (0..n)
                .map(|i| serde_json::json!({"role": if i % 2 == 0 {"user"} else {"assistant"}, "content": [{"type": "text", "text": format!("turn {i}")}]}))
                .collect();
            if before {
                format!(
                    r#"{{"system":"be brief","messages":{}}}"#,
                    serde_json::to_string(&msgs).unwrap()
                )
            } else {
                format!(
                    r#"{{"messages":{},"system":"be brief"}}"#,
                    serde_json::to_string(&msgs).unwrap()
                )
            }
        };
        let f = env.write(name, doc(2));
        check_cached(&env, &f, &[]);
        let f = env.write(name, doc(5));
        let fresh = check_v(&env, &f, &["--json", "--no-cache"]);
        let (cached, resumed) = check_cached(&env, &f, &[]);
        assert_eq!(cached, fresh, "{name}");
        assert_eq!(resumed, before, "{name}");
    }
}

/// Records of a long OpenAI session: text, with a tool call answered now and then.
fn openai_record(i: usize) -> serde_json::Value {
    match i % 10 {
        3 => {
            serde_json::json!({"role": "assistant", "content": null, "tool_calls": [{"id": format!("c{i}"), "type": "function", "function": {"name": "ls", "arguments": "{}"}}]})
        }
        4 => {
            serde_json::json!({"role": "tool", "tool_call_id": format!("c{}", i - 1), "content": "a.txt"})
        }
        _ => {
            serde_json::json!({"role": if i.is_multiple_of(2) { "user" } else { "assistant" }, "content": format!("message {i}: {}", "words ".repeat(i % 13))})
        }
    }
}

/// Records of a long Anthropic session (a bare list: its blocks tell the format).
fn anthropic_record(i: usize) -> serde_json::Value {
    match i % 10 {
        3 => {
            serde_json::json!({"role": "assistant", "content": [{"type": "tool_use", "id": format!("t{i}"), "name": "ls", "input": {}}]})
        }
        4 => {
            serde_json::json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": format!("t{}", i - 1), "content": "a.txt"}]})
        }
        _ => {
            serde_json::json!({"role": if i.is_multiple_of(2) { "user" } else { "assistant" }, "content": format!("message {i}: {}", "words ".repeat(i % 13))})
        }
    }
}

#[test]
fn a_long_grown_session_is_read_once_from_its_point_as_a_cold_check_reads_it() {
    let env = TestEnv::new();
    type Render = fn(&[serde_json::Value]) -> String;
    type Record = fn(usize) -> serde_json::Value;
    // Past the records (32) and lines (64) detection looks at, so that most old records are
    // stood in for when the grown file is read.
    let docs: [(&str, Record, Render); 6] = [
        ("compact.json", openai_record, |r| {
            serde_json::to_string(&serde_json::json!({"model": "gpt-4o", "messages": r})).unwrap()
        }),
        ("pretty.json", openai_record, |r| {
            serde_json::to_string_pretty(&serde_json::json!({"model": "gpt-4o", "messages": r}))
                .unwrap()
                + "\n"
        }),
        ("anthropic.json", anthropic_record, |r| {
            serde_json::to_string(r).unwrap()
        }),
        ("system.json", anthropic_record, |r| {
            serde_json::to_string_pretty(
                &serde_json::json!({"system": "be brief", "max_tokens": 100, "messages": r}),
            )
            .unwrap()
        }),
        ("extras-after.json", openai_record, |r| {
            serde_json::to_string(&serde_json::json!({"messages": r, "tools": [{"type": "function", "function": {"name": "ls"}}]})).unwrap()
        }),
        ("blanks.jsonl", openai_record, |r| {
            let mut out = String::new();
            for (i, v) in r.iter().enumerate() {
                out += &format!("{v}\n");
                if i % 9 == 0 {
                    out += "\n";
                }
            }
            out
        }),
    ];
    for (name, record, render) in docs {
        let all: Vec<serde_json::Value> = (0..100).map(record).collect();
        let mut odd = all[..95].to_vec();
        odd.push(serde_json::json!({"role": "wizard", "content": "odd"}));
        let mut early = all.clone();
        early[5] = record(9);
        let mut late = all.clone();
        late[60] = record(9);
        // Each step: the records, and whether the check reads from where the last ended.
        let steps: Vec<(Vec<serde_json::Value>, bool)> = vec![
            (all[..80].to_vec(), false),
            (all[..90].to_vec(), true),
            // A call made before, answered in the new part; an unknown role (a warning).
            (odd, true),
            (all[..70].to_vec(), false),
            (all[..85].to_vec(), true),
            // An old record changed, among the ones stood in for, or among the first ones.
            (late[..95].to_vec(), false),
            (late.clone(), true),
            (early, false),
        ];
        for (k, (records, resumes)) in steps.iter().enumerate() {
            let f = env.write(name, render(records));
            let fresh = check_v(&env, &f, &["--json", "--no-cache"]);
            let (cached, resumed) = check_cached(&env, &f, &[]);
            assert_eq!(cached, fresh, "{name} step {k}");
            assert_eq!(resumed, *resumes, "{name} step {k}: {cached:?}");
        }
        // Read once, holding the first records and the new ones, not the old ones between.
        let f = env.write(name, render(&all[..90]));
        check_cached(&env, &f, &[]);
        let f = env.write(name, render(&all));
        let run = env.run(&["check", s(&f), "-vv"]);
        let held = run
            .stderr
            .lines()
            .find_map(|l| l.split_once("new messages; ")?.1.split_once(" of its "))
            .map(|(held, _)| held.parse::<u64>().unwrap());
        let len = std::fs::metadata(&f).unwrap().len();
        assert!(
            held.is_some_and(|h| h < len * 9 / 10),
            "{name}: {held:?} of {len}: {run:?}"
        );
    }
}

#[test]
fn human_report_of_each_status_and_a_problem() {
    let env = TestEnv::new();
    let f = session_of(&env, 200);
    let orphan = env.write(
        "orphan.json",
        r#"[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_9","content":"orphan"}]"#,
    );
    // 208 tokens of o200k_base: over 50% of 400 with no reply reserved, over 200 too.
    for (name, max) in [("ok", "100000"), ("compact", "400"), ("over", "200")] {
        let run = env.run(&[
            "check",
            s(&f),
            s(&orphan),
            "--model",
            "gpt-4o",
            "--max-tokens",
            max,
            "--reserve-output",
            "0",
            "--threshold",
            "0.5",
        ]);
        assert_eq!(run.code, 1, "{name}: {run:?}");
        insta::assert_snapshot!(name, env.snap(&run));
    }
}

/// A pre-commit hook gives `check` every staged *.json: `--skip-non-sessions` skips what is
/// no session with a note (exit 0), a broken session still fails, and without the flag the
/// hint names both fixes rather than `--format` alone.
#[test]
fn skip_non_sessions_lets_a_hook_pass_project_json_files() {
    let env = TestEnv::new();
    let pkg = env.write("package.json", r#"{"name":"app","version":"1.0.0"}"#);
    let ts = env.write("tsconfig.json", r#"{"compilerOptions":{"strict":true}}"#);
    let good = env.write("s.jsonl", std::fs::read(sample("plain.jsonl")).unwrap());
    let args = ["check", "--model", "gpt-4o", s(&pkg), s(&ts), s(&good)];
    let plain = env.run(&args);
    assert_eq!(plain.code, 2, "{plain:?}");
    insta::assert_snapshot!("without_the_flag", env.snap(&plain));
    let skipped = env.run(&[&args[..], &["--skip-non-sessions"]].concat());
    assert_eq!(skipped.code, 0, "{skipped:?}");
    insta::assert_snapshot!("with_the_flag", env.snap(&skipped));
    let broken = env.write(
        "broken.json",
        "[{\"role\":\"user\",\"content\":\"hi\"}, {\"role\":",
    );
    let run = env.run(&[
        "check",
        "--model",
        "gpt-4o",
        "--skip-non-sessions",
        s(&pkg),
        s(&broken),
    ]);
    assert_ne!(run.code, 0, "a broken session is not skipped: {run:?}");
}
