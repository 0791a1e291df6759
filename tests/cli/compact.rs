use std::fs;
use std::path::{Path, PathBuf};

use crate::http::{openai_answer, Server};
use crate::support::{s, sample, Run, TestEnv};

/// The archive file name every compaction gets under the fixed `CTXCTL_NOW`.
const STAMP: &str = "20260102T030405Z";

fn copy_sample(env: &TestEnv, name: &str) -> std::path::PathBuf {
    env.write(name, fs::read(sample(name)).unwrap())
}

fn compact(env: &TestEnv, args: &[&str]) -> Run {
    let mut all = vec!["compact", "--model", "gpt-4o"];
    all.extend_from_slice(args);
    env.run(&all)
}

fn count(env: &TestEnv, path: &Path) -> u64 {
    let run = env.run(&["count", s(path), "--model", "gpt-4o", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    run.json()["total_tokens"].as_u64().unwrap()
}

#[cfg(unix)]
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn compacts_into_the_store_without_an_archive_and_in_place_with_one() {
    let env = TestEnv::new();
    let f = copy_sample(&env, "openai-chat.json");
    let before = fs::read(&f).unwrap();
    let counted = count(&env, &f);
    // Into the store: the input keeps every message, so nothing is archived.
    let run = compact(&env, &[s(&f), "--tail-tokens", "300", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.json();
    let data = env.data_dir();
    assert_eq!(v["output"], s(&data.join("sessions/openai-chat.json")));
    assert_eq!(v["archive"], serde_json::Value::Null, "{v}");
    assert_eq!(fs::read(&f).unwrap(), before, "the input is untouched");
    assert!(!data.join("archives/openai-chat").exists());
    // In place: archived first.
    let run = compact(
        &env,
        &[s(&f), "--tail-tokens", "300", "--json", "--in-place"],
    );
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.json();
    assert_eq!(v["compacted"], true);
    let original = v["original_tokens"].as_u64().unwrap();
    let compacted = v["compacted_tokens"].as_u64().unwrap();
    assert_eq!(original, counted);
    assert!(compacted < original, "{v}");
    let ratio = v["compaction_ratio"].as_f64().unwrap();
    assert!(
        (ratio - compacted as f64 / original as f64).abs() < 1e-4,
        "{v}"
    );
    let moved = v["compacted_messages"].as_u64().unwrap();
    assert!(moved > 0);
    assert_eq!(moved + v["retained_messages"].as_u64().unwrap(), 27);

    let out = f.clone();
    let archive = data.join(format!("archives/openai-chat/compact-{STAMP}-1.json.zst"));
    assert_eq!(v["output"], s(&out));
    assert_eq!(v["archive"], s(&archive));
    assert_eq!(v["archive_id"], "openai-chat/1");
    // The reported count is what `count` says of the result.
    assert_eq!(count(&env, &out), compacted);
    // The summary (a compact boundary) names the archive; the tail follows it.
    insta::assert_snapshot!(env.redact(&fs::read_to_string(&out).unwrap()));
    let a: serde_json::Value = crate::support::read_archive(&archive);
    assert_eq!(a["records"].as_array().unwrap().len() as u64, moved);
    assert_eq!(a["summarizer"], "offline");
    assert_eq!(a["model"], "gpt-4o");
    assert_eq!(a["tokens"]["original"], original);
    assert_eq!(a["source"], s(&f));
    #[cfg(unix)]
    {
        assert_eq!(mode(&archive), 0o600);
        assert_eq!(mode(archive.parent().unwrap()), 0o700);
        assert_eq!(mode(&data.join("archives")), 0o700);
    }
}

#[test]
fn the_human_report_names_tokens_archive_and_output() {
    let env = TestEnv::new();
    let f = copy_sample(&env, "plain.jsonl");
    let run = compact(&env, &[s(&f), "--tail-tokens", "300", "--in-place"]);
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!(env.snap(&run));
}

#[test]
fn dry_run_shows_the_partition_and_summary_and_writes_nothing() {
    let env = TestEnv::new();
    let f = copy_sample(&env, "plain.jsonl");
    let run = compact(
        &env,
        &[s(&f), "--tail-tokens", "300", "--dry-run", "--json"],
    );
    assert_eq!(run.code, 1, "{run:?}");
    let v = run.json();
    assert_eq!(v["dry_run"], true);
    let p = &v["partition"];
    assert_eq!(p["head"]["start"], 0);
    assert_eq!(p["head"]["end"], p["middle"]["start"]);
    assert_eq!(p["middle"]["end"], p["tail"]["start"]);
    assert_eq!(p["tail"]["end"], 27);
    assert!(p["tail"]["tokens"].as_u64().unwrap() >= 300);
    assert_eq!(p["middle"]["messages"], v["compacted_messages"]);
    insta::assert_snapshot!("dry_run_summary", v["summary"].as_str().unwrap());
    assert_eq!(v["recall"], 1.0, "{v}");
    assert!(!env.data_dir().exists(), "nothing written");

    let human = compact(&env, &[s(&f), "--tail-tokens", "300", "--dry-run"]);
    assert_eq!(human.code, 1, "{human:?}");
    insta::assert_snapshot!(env.snap(&human));
}

#[test]
fn if_needed_compacts_at_exactly_the_threshold_and_not_below() {
    let env = TestEnv::new();
    // The conversation without a request body's tools: its next request is its messages.
    let f = copy_sample(&env, "plain.jsonl");
    let t = count(&env, &f);
    let limit = |n: u64| n.to_string();
    let args = |max: &str| {
        vec![
            "compact",
            "--model",
            "gpt-4o",
            s(&f),
            "--if-needed",
            "--threshold",
            "0.5",
            "--reserve-output",
            "0",
            "--tail-tokens",
            "300",
            "--json",
            "--max-tokens",
        ]
        .into_iter()
        .map(str::to_string)
        .chain([max.to_string()])
        .collect::<Vec<_>>()
    };
    let below = limit(2 * t + 1);
    let run = env.run(&args(&below).iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.json();
    assert_eq!(v["compacted"], false);
    for k in [
        "original_tokens",
        "compacted_tokens",
        "compacted_messages",
        "retained_messages",
    ] {
        assert_eq!(v[k], 0, "{k}: {v}");
    }
    assert!(v["archive"].is_null() && v["output"].is_null(), "{v}");
    assert!(!env.data_dir().exists(), "nothing written");

    let exact = limit(2 * t);
    let run = env.run(&args(&exact).iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.json()["compacted"], true, "{run:?}");
}

#[test]
fn nothing_to_compact_when_the_tail_holds_everything() {
    let env = TestEnv::new();
    let f = copy_sample(&env, "anthropic-messages.json");
    let run = compact(&env, &[s(&f), "--tail-tokens", "1000000", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.json()["compacted"], false);
    assert!(!env.data_dir().exists());
    let human = compact(&env, &[s(&f), "--tail-ratio", "1"]);
    assert_eq!(human.code, 0, "{human:?}");
    insta::assert_snapshot!(env.snap(&human));
}

#[test]
fn in_place_replaces_the_input_and_restore_finds_it_again() {
    let env = TestEnv::new();
    let f = copy_sample(&env, "anthropic-messages.json");
    let before = fs::read(&f).unwrap();
    let run = compact(
        &env,
        &[s(&f), "--in-place", "--tail-tokens", "300", "--json"],
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.json()["output"], s(&f));
    assert_ne!(fs::read(&f).unwrap(), before);
    assert!(
        !env.data_dir().join("sessions").exists(),
        "not copied to the store"
    );
    let run = env.run(&[
        "archive",
        "restore",
        "anthropic-messages/1",
        "--model",
        "gpt-4o",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(fs::read(&f).unwrap(), before);
}

#[test]
fn name_compacts_the_stored_session_in_place_and_carries_summaries_forward() {
    let env = TestEnv::new();
    let f = copy_sample(&env, "plain.jsonl");
    assert_eq!(compact(&env, &[s(&f), "--tail-tokens", "300"]).code, 0);
    let stored = env.data_dir().join("sessions/plain.jsonl");
    // The agent goes on after the first compaction.
    let mut text = fs::read_to_string(&stored).unwrap();
    text.push_str("{\"role\":\"user\",\"content\":\"Next, bump the version to 2.1.\"}\n");
    text.push_str("{\"role\":\"assistant\",\"content\":\"Done: setup.cfg now says 2.1.\"}\n");
    fs::write(&stored, &text).unwrap();
    let run = compact(&env, &["--name", "plain", "--tail-tokens", "30", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.json();
    assert_eq!(v["output"], s(&stored));
    // The first compaction went into the store (no archive); this one replaces it.
    assert_eq!(v["archive_id"], "plain/1");
    assert!(env
        .data_dir()
        .join(format!("archives/plain/compact-{STAMP}-1.json.zst"))
        .exists());
    // One compact boundary whose summary carries the first one forward, then the tail.
    let now = fs::read_to_string(&stored).unwrap();
    assert_eq!(now.matches("compact_boundary").count(), 1, "{now}");
    insta::assert_snapshot!(env.redact(&now));
}

#[test]
fn an_archive_that_cannot_be_written_stops_in_place_and_a_new_output_needs_none() {
    let env = TestEnv::new();
    let f = copy_sample(&env, "plain.jsonl");
    let before = fs::read(&f).unwrap();
    // A file where the session's archive directory should be.
    fs::create_dir_all(env.data_dir().join("archives")).unwrap();
    fs::write(env.data_dir().join("archives/plain"), "in the way").unwrap();
    let run = compact(&env, &[s(&f), "--in-place", "--tail-tokens", "300"]);
    assert_eq!(run.code, 2, "{run:?}");
    insta::assert_snapshot!("in_place", env.snap(&run));
    assert_eq!(fs::read(&f).unwrap(), before);

    let out = env.path().join("out.jsonl");
    let run = compact(
        &env,
        &[s(&f), "-o", s(&out), "--tail-tokens", "300", "--json"],
    );
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!("new_output", env.snap(&run));
    let v = run.json();
    assert!(v["archive"].is_null(), "{v}");
    assert_eq!(v["compacted"], true);
    // The summary says the compacted messages were not archived.
    insta::assert_snapshot!(
        "new_output_file",
        env.redact(&fs::read_to_string(&out).unwrap())
    );
}

#[test]
fn stdin_to_stdout() {
    let env = TestEnv::new();
    let input = fs::read(sample("plain.jsonl")).unwrap();
    let run = env.run_stdin(
        &[
            "compact",
            "-",
            "-o",
            "-",
            "--model",
            "gpt-4o",
            "--tail-tokens",
            "300",
        ],
        Some(&input),
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.lines().count() < 27, "{run:?}");
    insta::assert_snapshot!(env.snap(&run));
    // Standard input is not replaced: nothing is archived.
    assert!(!env.data_dir().join("archives/stdin").exists());
}

#[test]
fn names_and_missing_sessions_are_usage_errors() {
    let env = TestEnv::new();
    for (name, args) in [
        ("bad_name", vec!["--name", "../etc"]),
        ("unknown_name", vec!["--name", "nope"]),
        ("no_input", vec![]),
    ] {
        let run = compact(&env, &args);
        assert_eq!(run.code, 2, "{run:?}");
        insta::assert_snapshot!(name, env.snap(&run));
    }
}

#[cfg(unix)]
#[test]
fn a_held_lock_is_announced_and_times_out() {
    let env = TestEnv::new().env("CTXCTL_LOCK_TIMEOUT", "1");
    let f = copy_sample(&env, "plain.jsonl");
    let dir = env.data_dir().join("locks");
    fs::create_dir_all(&dir).unwrap();
    let lock = fs::File::create(dir.join("plain.lock")).unwrap();
    lock.lock().unwrap();
    let run = compact(&env, &[s(&f), "--tail-tokens", "300"]);
    assert_eq!(run.code, 2, "{run:?}");
    insta::assert_snapshot!(env.snap(&run));
    assert!(!env.data_dir().join("sessions").exists());
    drop(lock);
    assert_eq!(compact(&env, &[s(&f), "--tail-tokens", "300"]).code, 0);
}

const KEY: &str = "sk-cli-SECRET-42";

fn llm_env(server: &Server, provider: &str) -> TestEnv {
    let base = match provider {
        "openai" => format!("{}/v1", server.url),
        _ => server.url.clone(),
    };
    TestEnv::new()
        .env("CTXCTL_LLM_PROVIDER", provider)
        .env("CTXCTL_LLM_BASE_URL", &base)
        .env("CTXCTL_LLM_MODEL", "summarizer-small")
        .env("CTXCTL_LLM_API_KEY", KEY)
}

#[test]
fn the_llm_summarizer_talks_to_an_openai_compatible_server() {
    let server = Server::start(vec![openai_answer("LLM SUMMARY: fixed the Decimal sum.")]);
    let env = llm_env(&server, "openai");
    let f = copy_sample(&env, "plain.jsonl");
    let run = compact(
        &env,
        &[
            s(&f),
            "--summarizer",
            "llm",
            "--instructions",
            "Keep file paths.",
            "--tail-tokens",
            "300",
            "--json",
            "--in-place",
        ],
    );
    assert_eq!(run.code, 0, "{run:?}");
    // The summary is the server's answer.
    insta::assert_snapshot!(
        "openai_output",
        env.redact(&fs::read_to_string(&f).unwrap())
    );
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let (head, body) = crate::http::split_request(&reqs[0]);
    insta::assert_snapshot!("openai_request_head", head);
    assert_eq!(body["model"], "summarizer-small");
    let prompt = body.to_string();
    for wanted in ["Keep file paths.", "tool_call run_command("] {
        assert!(prompt.contains(wanted), "no {wanted}: {prompt}");
    }
    let a = env.run(&["archive", "show", "plain/1", "--json"]).json();
    assert_eq!(a["summarizer"], "llm");
}

#[test]
fn the_llm_summarizer_talks_to_an_anthropic_server() {
    let answer = r#"{"content":[{"type":"text","text":"CLAUDE SUMMARY"}]}"#;
    let server = Server::start(vec![(200, answer.to_string())]);
    let env = llm_env(&server, "anthropic");
    let f = copy_sample(&env, "anthropic-messages.json");
    let run = compact(
        &env,
        &[s(&f), "--summarizer", "llm", "--tail-tokens", "300"],
    );
    assert_eq!(run.code, 0, "{run:?}");
    let (head, _) = crate::http::split_request(&server.requests()[0]);
    insta::assert_snapshot!("anthropic_request_head", head);
    let out = fs::read_to_string(env.data_dir().join("sessions/anthropic-messages.json")).unwrap();
    // The summary is the server's answer.
    insta::assert_snapshot!("anthropic_output", env.redact(&out));
}

#[test]
fn a_failing_summarizer_exits_3_changes_nothing_and_never_shows_the_key() {
    let echo = format!(r#"{{"error":{{"message":"Incorrect API key provided: {KEY}"}}}}"#);
    for (replies, retries, name) in [
        (vec![(401, echo)], "2", "http_401"),
        (
            vec![(500, "down".to_string()), (503, "still down".to_string())],
            "1",
            "http_503",
        ),
        (vec![openai_answer("")], "0", "empty_summary"),
    ] {
        let n = replies.len();
        let server = Server::start(replies);
        let env = llm_env(&server, "openai");
        let f = copy_sample(&env, "plain.jsonl");
        let before = fs::read(&f).unwrap();
        let run = compact(
            &env,
            &[
                s(&f),
                "--summarizer",
                "llm",
                "--retries",
                retries,
                "--in-place",
                "--tail-tokens",
                "300",
            ],
        );
        assert_eq!(run.code, 3, "{run:?}");
        assert!(!format!("{run:?}").contains(KEY), "{run:?}");
        insta::assert_snapshot!(name, env.snap(&run));
        assert_eq!(fs::read(&f).unwrap(), before);
        assert!(!env
            .data_dir()
            .join("archives/plain")
            .join(format!("compact-{STAMP}-1.json.zst"))
            .exists());
        assert_eq!(server.requests().len(), n, "{run:?}");
    }
}

#[test]
fn the_llm_summarizer_needs_a_model() {
    let env = TestEnv::new();
    let f = copy_sample(&env, "plain.jsonl");
    let run = compact(&env, &[s(&f), "--summarizer", "llm"]);
    assert_eq!(run.code, 2, "{run:?}");
    insta::assert_snapshot!(env.snap(&run));
}

/// `compact --dry-run` and the real run agree on whether a session is compacted and on the
/// exit status (1 and 0 when it would be, 0 and 0 when not: a result that would not be
/// smaller is not written, and the dry run says so too), on every sample and every real
/// agent session, at tails from tiny to larger than the session.
#[test]
fn dry_run_and_the_real_run_agree_on_every_session() {
    let env = TestEnv::new();
    let mut files: Vec<PathBuf> = fs::read_dir(crate::support::repo().join("sample-sessions"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    for dir in [
        "realclients/claude-code",
        "realclients/claude-code-2.1.332",
        "realclients/codex",
        "realclients/codex-0.171.0",
        "wild/claude-code",
        "wild/codex",
    ] {
        let Some(fixtures) = crate::shared::try_fixtures_dir() else {
            break;
        };
        for e in fs::read_dir(fixtures.join(dir))
            .into_iter()
            .flatten()
            .flatten()
        {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "jsonl")
                && !p.to_string_lossy().contains("subagent")
            {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut compared = 0;
    for (i, f) in files.iter().enumerate() {
        for tail in ["20", "300", "3000"] {
            let base = [
                "compact",
                s(f),
                "--tail-tokens",
                tail,
                "--json",
                "--include-live",
            ];
            let dry = env.run(&[&base[..], &["--dry-run"]].concat());
            let out = env.path().join(format!(
                "out-{i}-{tail}{}",
                if s(f).ends_with(".json") {
                    ".json"
                } else {
                    ".jsonl"
                }
            ));
            let real = env.run(&[&base[..], &["-o", s(&out)]].concat());
            if real.code == 2 {
                // Unreadable for a rewrite (e.g. a format ctxctl only reads): both say so.
                assert_eq!(dry.code, 2, "{f:?} {tail}: {dry:?} {real:?}");
                continue;
            }
            // One file's dry run prints its document alone.
            let one = |run: &Run| {
                let v = run.json();
                match v["files"].as_array() {
                    Some(files) => files[0].clone(),
                    None => v,
                }
            };
            let (d, r) = (one(&dry), one(&real));
            assert_eq!(
                d["compacted"], r["compacted"],
                "{f:?} --tail-tokens {tail}:\n{dry:?}\n{real:?}"
            );
            let compacted = r["compacted"] == true;
            assert_eq!(
                (dry.code, real.code),
                (i32::from(compacted), 0),
                "{f:?} {tail}"
            );
            compared += 1;
        }
    }
    assert!(compared >= 30, "{compared}");
}
