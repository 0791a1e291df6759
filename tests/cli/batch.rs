//! Many files at once (`FILE...`, `-r DIR`): parallel, yet reported in input order exactly
//! as one-by-one runs would; bad files reported without stopping the others; a progress
//! bar on a terminal only. `compact -r` is in cron.rs.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::support::{sample, TestEnv};

const WORDS: &[&str] = &[
    "the",
    "context",
    "window",
    "tool",
    "result",
    "fn",
    "main()",
    "error:",
    "path/to/file.rs",
    "42",
    "tokens",
    "résumé",
    "naïve",
    "🙂",
    "compact",
    "archive",
    "{\"k\": [1, 2]}",
    "λ",
];

/// A chat session of `n` messages whose text depends on `seed` (so each file differs).
pub fn session(seed: usize, n: usize) -> String {
    let mut x = seed as u64 * 2_654_435_761 + 1;
    let mut msgs = vec![serde_json::json!({"role": "system", "content": "You are terse."})];
    for i in 0..n {
        let len = 5 + (x % 60) as usize;
        let text: Vec<&str> = (0..len)
            .map(|_| {
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                WORDS[(x >> 33) as usize % WORDS.len()]
            })
            .collect();
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        msgs.push(serde_json::json!({"role": role, "content": text.join(" ")}));
    }
    serde_json::to_string_pretty(&serde_json::json!({"model": "gpt-4o", "messages": msgs})).unwrap()
}

/// `dir/` with sessions of uneven sizes, so that files finish out of order; returns them
/// in the order `-r` walks them (sorted).
fn sessions(env: &TestEnv, dir: &str, count: usize) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = (0..count)
        .map(|i| {
            let n = if i % 3 == 0 { 400 } else { 3 + i };
            env.write(&format!("{dir}/sub{}/s{i:02}.json", i % 2), session(i, n))
        })
        .collect();
    files.sort();
    files
}

pub fn paths(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn count_of_many_files_equals_one_by_one_runs_in_input_order() {
    let env = TestEnv::new();
    let files = sessions(&env, "d", 10);
    let all = env.run(&["count", "-r", "d", "--json", "--no-cache"]);
    assert_eq!(all.code, 0, "{all:?}");
    let v = all.json();
    let want: Vec<String> = files.iter().map(|f| rel(&env, f)).collect();
    assert_eq!(paths(&v["files"]), want);
    let mut total = 0;
    for (f, got) in files.iter().zip(v["files"].as_array().unwrap()) {
        let one = env
            .run(&["count", &rel(&env, f), "--json", "--no-cache"])
            .json();
        assert_eq!(&one["files"][0], got, "{}", f.display());
        total += got["tokens"].as_u64().unwrap();
    }
    assert_eq!(v["total_tokens"], total);
    // Human output: one line per file in the same order, then the total.
    let human = env.run(&["count", "-r", "d", "--no-cache"]);
    assert_eq!(human.stdout.lines().count(), files.len() + 1, "{human:?}");
    insta::assert_snapshot!("count_r", env.snap(&human));
}

#[test]
fn cached_and_uncached_batch_counts_are_identical() {
    let env = TestEnv::new();
    sessions(&env, "d", 8);
    let args = ["count", "-r", "d", "--json", "--per-message"];
    let fresh = env.run(&[&args[..], &["--no-cache"]].concat());
    let cold = env.run(&args);
    let warm = env.run(&[&args[..], &["-v"]].concat());
    assert_eq!(fresh.code, 0, "{fresh:?}");
    assert_eq!(fresh.stdout, cold.stdout);
    assert_eq!(fresh.stdout, warm.stdout);
    assert!(
        warm.stderr.contains("tokenizer not needed"),
        "a warm batch run tokenizes nothing: {warm:?}"
    );
}

#[test]
fn a_bad_file_is_reported_in_its_place_and_the_others_still_run() {
    let env = TestEnv::new();
    let files = sessions(&env, "d", 6);
    env.write("d/sub0/s02-broken.json", "{\"messages\": [");
    let run = env.run(&["check", "-r", "d", "--json"]);
    assert_eq!(run.code, 2, "{run:?}");
    insta::assert_snapshot!("stderr", env.redact(&run.stderr));
    // The broken file keeps its place in `files`, with its error.
    let mut want: Vec<String> = files.iter().map(|f| rel(&env, f)).collect();
    want.insert(2, "d/sub0/s02-broken.json".into());
    want.sort();
    let v = run.json();
    assert_eq!(paths(&v["files"]), want);
    let broken = want.iter().position(|p| p == "d/sub0/s02-broken.json");
    let failed = &v["files"][broken.unwrap()];
    insta::assert_snapshot!("error", env.redact(failed["error"].as_str().unwrap()));
    // Human mode: the error comes between the lines of the files around it.
    let human = env.run(&["check", "-r", "d"]);
    assert_eq!(human.code, 2, "{human:?}");
    assert_eq!(human.stdout.lines().count(), files.len(), "{human:?}");
    insta::assert_snapshot!("check_r_with_a_bad_file", env.snap(&human));
}

#[test]
fn check_keeps_the_worst_exit_code_and_stats_the_input_order() {
    let env = TestEnv::new();
    let files = sessions(&env, "d", 6);
    let ok = env.run(&["check", "-r", "d", "--json"]);
    assert_eq!(ok.code, 0, "{ok:?}");
    // s00 and s03 have 400 messages: over a small limit; the others are not (-r walks
    // sub0/ then sub1/, so s03 is fifth).
    let tight = env.run(&[
        "check",
        "-r",
        "d",
        "--json",
        "--max-tokens",
        "3000",
        "--reserve-output",
        "0",
    ]);
    assert_eq!(tight.code, 1, "{tight:?}");
    let v = tight.json();
    let statuses: Vec<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses[0], "over", "{v}");
    insta::assert_snapshot!(statuses.join("\n"));
    let stats = env.run(&["stats", "-r", "d", "--json"]);
    assert_eq!(stats.code, 0, "{stats:?}");
    let want: Vec<String> = files.iter().map(|f| rel(&env, f)).collect();
    assert_eq!(paths(&stats.json()["files"]), want);
    for (f, got) in files.iter().zip(stats.json()["files"].as_array().unwrap()) {
        let one = env.run(&["stats", &rel(&env, f), "--json"]).file();
        assert_eq!(&one, got);
    }
}

#[test]
fn no_progress_bar_off_a_terminal() {
    let env = TestEnv::new();
    sessions(&env, "d", 12);
    for cmd in ["count", "check", "stats"] {
        let run = env.run(&[cmd, "-r", "d", "--model", "gpt-4o"]);
        assert_eq!(run.code, 0, "{run:?}");
        assert!(run.stderr.is_empty(), "{cmd}: {run:?}");
        assert!(
            !run.stdout.contains('\r') && !run.stdout.contains('\x1b'),
            "{run:?}"
        );
    }
    let f = env.write("c/a.jsonl", fs::read(sample("plain.jsonl")).unwrap());
    env.write("c/b.jsonl", fs::read(sample("plain.jsonl")).unwrap());
    let run = env.run(&[
        "compact",
        "--model",
        "gpt-4o",
        "-r",
        "c",
        "--in-place",
        "--tail-tokens",
        "300",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    // Only the two reports, two lines each (what was done and the summary's recall), and
    // the batch's summary line.
    assert_eq!(run.stderr.lines().count(), 5, "{run:?}");
    assert!(
        !run.stderr.contains('\r') && !run.stderr.contains('\x1b'),
        "{run:?}"
    );
    insta::assert_snapshot!("compact_r", env.redact(&run.stderr));
    insta::assert_snapshot!("compacted", env.redact(&fs::read_to_string(f).unwrap()));
}

#[cfg(target_os = "linux")]
#[test]
fn the_progress_bar_shows_on_a_terminal() {
    // util-linux `script` runs the command on a pseudo-terminal: the same run that prints
    // nothing on stderr above draws a bar there (so the test above can fail).
    let env = TestEnv::new();
    sessions(&env, "d", 12);
    let cmd = format!(
        "{} check -r d --model gpt-4o > out.txt",
        env!("CARGO_BIN_EXE_ctxctl")
    );
    let mut script = std::process::Command::new("script");
    script.env_clear();
    for (k, v) in env.command(&[]).get_envs() {
        if let Some(v) = v {
            script.env(k, v);
        }
    }
    script
        .env("TERM", "xterm")
        .args(["-qec", &cmd, "/dev/null"])
        .current_dir(env.path())
        .stdin(Stdio::null());
    let Ok(run) = script.output() else {
        #[allow(clippy::print_stderr)]
        {
            eprintln!("`script` is not installed; skipping");
        }
        return;
    };
    let tty = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{tty}");
    assert!(tty.contains("checking ["), "no bar on a terminal: {tty:?}");
    // The reports themselves still went to stdout, whole.
    let out = fs::read_to_string(env.path().join("out.txt")).unwrap();
    assert_eq!(out.lines().count(), 12, "{out}");
}

/// `f` relative to the test dir (the runs' working directory), as ctxctl shows it.
fn rel(env: &TestEnv, f: &Path) -> String {
    f.strip_prefix(env.path()).unwrap().display().to_string()
}

/// A batch's warnings name the file they are about, and a file with hundreds of problems
/// lists the first 20 and counts the rest (`--json` keeps every one).
#[test]
fn batch_warnings_name_their_file_and_problems_are_capped() {
    let env = TestEnv::new();
    let dir = env.path().join("batch");
    std::fs::create_dir_all(&dir).unwrap();
    let mut broken = vec![r#"{"role":"user","content":"hi"}"#.to_string()];
    for i in 0..45 {
        broken.push(format!(
            r#"{{"role":"tool","tool_call_id":"call_{i}","content":"orphan"}}"#
        ));
    }
    std::fs::write(dir.join("a-broken.json"), format!("[{}]", broken.join(","))).unwrap();
    std::fs::write(
        dir.join("b-unknown.jsonl"),
        "{\"role\":\"user\",\"content\":\"hi\",\"model\":\"made-up-model\"}\n",
    )
    .unwrap();
    let run = env.run(&["check", "-r", crate::support::s(&dir)]);
    assert_eq!(run.code, 1, "{run:?}");
    insta::assert_snapshot!(env.snap(&run));
    let json = env.run(&["check", "-r", crate::support::s(&dir), "--json"]);
    let files = json.json()["files"].clone();
    assert_eq!(
        files[0]["problems"].as_array().unwrap().len(),
        45,
        "{json:?}"
    );
}
