//! Many files at once (`FILE...`, `-r DIR`): parallel, yet reported in input order exactly
//! as one-by-one runs would; bad files reported without stopping the others; no progress
//! bar off a terminal; `compact -r` for cron, skipping sessions that change meanwhile.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::{s, sample, TestEnv};

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
fn session(seed: usize, n: usize) -> String {
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

fn paths(v: &serde_json::Value) -> Vec<String> {
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
    let lines: Vec<&str> = human.stdout.lines().collect();
    assert_eq!(lines.len(), files.len() + 1, "{human:?}");
    for (line, f) in lines.iter().zip(&want) {
        assert!(line.contains(f.as_str()), "{line} / {f}");
    }
    assert!(lines[files.len()].contains("total (10 files)"), "{human:?}");
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
    assert!(run.stderr.contains("s02-broken.json"), "{run:?}");
    let want: Vec<String> = files.iter().map(|f| rel(&env, f)).collect();
    assert_eq!(paths(&run.json()), want);
    // Human mode: the error comes between the lines of the files around it.
    let human = env.run(&["check", "-r", "d"]);
    assert_eq!(human.code, 2, "{human:?}");
    assert_eq!(human.stdout.lines().count(), files.len(), "{human:?}");
}

#[test]
fn check_keeps_the_worst_exit_code_and_stats_the_input_order() {
    let env = TestEnv::new();
    let files = sessions(&env, "d", 6);
    let ok = env.run(&["check", "-r", "d", "--json"]);
    assert_eq!(ok.code, 0, "{ok:?}");
    // s00 has 400 messages: over a small limit; the others are not.
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
    let statuses: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses[0], "over", "{v}");
    assert!(statuses[1..].contains(&"ok"), "{v}");
    let stats = env.run(&["stats", "-r", "d", "--json"]);
    assert_eq!(stats.code, 0, "{stats:?}");
    let want: Vec<String> = files.iter().map(|f| rel(&env, f)).collect();
    assert_eq!(paths(&stats.json()), want);
    for (f, got) in files.iter().zip(stats.json().as_array().unwrap()) {
        let one = env.run(&["stats", &rel(&env, f), "--json"]).json();
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
    // Only the two reports, one line each.
    assert_eq!(run.stderr.lines().count(), 2, "{run:?}");
    assert!(
        run.stderr.lines().all(|l| l.starts_with("compacted c/")),
        "{run:?}"
    );
    assert!(
        !run.stderr.contains('\r') && !run.stderr.contains('\x1b'),
        "{run:?}"
    );
    assert!(fs::read_to_string(f).unwrap().contains("compact"));
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

/// `dir` with a session that needs compaction and one that does not.
fn cron_dir(env: &TestEnv) -> (PathBuf, PathBuf) {
    let big = env.write("cron/big.jsonl", fs::read(sample("plain.jsonl")).unwrap());
    let small = env.write(
        "cron/small.jsonl",
        "{\"role\":\"user\",\"content\":\"hello\"}\n{\"role\":\"assistant\",\"content\":\"hi\"}\n",
    );
    (big, small)
}

const CRON: &[&str] = &[
    "compact",
    "--model",
    "gpt-4o",
    "--if-needed",
    "--in-place",
    "-r",
    "cron",
    "--max-tokens",
    "2000",
    "--reserve-output",
    "0",
    "--threshold",
    "0.5",
    "--tail-tokens",
    "300",
];

#[test]
fn compact_r_if_needed_in_place_compacts_only_what_needs_it() {
    let env = TestEnv::new();
    let (big, small) = cron_dir(&env);
    let small_before = fs::read(&small).unwrap();
    let run = env.run(&[CRON, &["--json"]].concat());
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.json();
    assert_eq!(paths(&v), vec!["cron/big.jsonl", "cron/small.jsonl"]);
    assert_eq!(v[0]["compacted"], true, "{v}");
    assert_eq!(v[0]["skipped"], false, "{v}");
    assert_eq!(v[0]["output"], "cron/big.jsonl");
    assert_ne!(
        fs::read(&big).unwrap(),
        fs::read(sample("plain.jsonl")).unwrap()
    );
    assert_eq!(v[1]["compacted"], false, "{v}");
    assert!(
        v[1]["reason"]
            .as_str()
            .unwrap()
            .contains("below the threshold"),
        "{v}"
    );
    assert_eq!(fs::read(&small).unwrap(), small_before);
    assert!(env.data_dir().join("archives/big").exists());
    assert!(!env.data_dir().join("archives/small").exists());
    // A second run finds nothing to do; human mode says so, one line per file, in order.
    let again = env.run(CRON);
    assert_eq!(again.code, 0, "{again:?}");
    let lines: Vec<&str> = again.stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{again:?}");
    assert!(
        lines[0].starts_with("cron/big.jsonl: below the threshold"),
        "{again:?}"
    );
    assert!(
        lines[1].starts_with("cron/small.jsonl: below the threshold"),
        "{again:?}"
    );
}

#[test]
fn compact_of_several_files_refuses_what_only_fits_one() {
    let env = TestEnv::new();
    let a = env.write("x/s.json", session(1, 4));
    let b = env.write("y/s.json", session(2, 4));
    for (args, needle) in [
        (
            vec![s(&a), s(&b), "--name", "n"],
            "--name names one session",
        ),
        (
            vec![s(&a), s(&b), "-o", "out.json"],
            "-o writes one session",
        ),
        (vec![s(&a), s(&b)], "would both be stored as session s"),
        (vec!["-r", "x", "--name", "n"], "cannot be used with"),
    ] {
        let run = env.run(&[&["compact", "--model", "gpt-4o"][..], &args].concat());
        assert_eq!(run.code, 2, "{run:?}");
        assert!(run.stderr.contains(needle), "{needle}: {run:?}");
    }
    assert!(!env.data_dir().exists(), "nothing written");
}

/// Runs `compact --in-place` on `files` while holding every replacement until `changed`
/// has been archived, then appends a line to `changed` and lets the run finish.
fn compact_while_appending(
    env: &TestEnv,
    files: &[&Path],
    changed: &Path,
    extra: &[&str],
) -> crate::support::Run {
    let marker = env.write("hold-marker", "");
    let mut args = vec![
        "compact",
        "--model",
        "gpt-4o",
        "--in-place",
        "--tail-tokens",
        "300",
    ];
    args.extend(files.iter().map(|f| s(f)));
    args.extend_from_slice(extra);
    let child = env
        .command(&args)
        .env("CTXCTL_TEST_HOLD_BEFORE_REPLACE", s(&marker))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The archive of `changed` exists once ctxctl has read, summarized and archived it; it
    // then holds before its last check.
    let stem = changed.file_stem().unwrap().to_str().unwrap();
    let archives = env.data_dir().join("archives").join(stem);
    let deadline = Instant::now() + Duration::from_secs(120);
    while fs::read_dir(&archives).map_or(true, |mut d| d.next().is_none()) {
        assert!(Instant::now() < deadline, "ctxctl never archived {stem}");
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut text = fs::read_to_string(changed).unwrap();
    text.push_str("{\"role\":\"user\",\"content\":\"the agent is still writing\"}\n");
    fs::write(changed, &text).unwrap();
    fs::remove_file(&marker).unwrap();
    let out = child.wait_with_output().unwrap();
    crate::support::Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn a_session_changed_during_a_batch_is_skipped_never_clobbered() {
    let env = TestEnv::new();
    let plain = fs::read(sample("plain.jsonl")).unwrap();
    let a = env.write("a.jsonl", &plain);
    let b = env.write("b.jsonl", &plain);
    let c = env.write("c.jsonl", &plain);
    let run = compact_while_appending(&env, &[&a, &b, &c], &a, &["--json"]);
    assert_eq!(run.code, 0, "skipping is not an error for cron: {run:?}");
    assert!(
        run.stderr.contains(&format!(
            "skipped: {} changed while ctxctl was working on it",
            s(&a)
        )),
        "{run:?}"
    );
    // The agent's version is kept as it wrote it, and no archive describes a compaction
    // that never happened.
    let mut grown = plain.clone();
    grown.extend_from_slice(b"{\"role\":\"user\",\"content\":\"the agent is still writing\"}\n");
    assert_eq!(fs::read(&a).unwrap(), grown);
    assert_eq!(
        fs::read_dir(env.data_dir().join("archives/a"))
            .unwrap()
            .count(),
        0
    );
    let v = run.json();
    assert_eq!(paths(&v), vec![s(&a), s(&b), s(&c)]);
    assert_eq!(
        (&v[0]["skipped"], &v[0]["compacted"]),
        (&true.into(), &false.into()),
        "{v}"
    );
    for (entry, f) in v.as_array().unwrap()[1..].iter().zip([&b, &c]) {
        assert_eq!(entry["compacted"], true, "{v}");
        assert_ne!(fs::read(f).unwrap(), plain, "{} compacted", f.display());
    }
}

#[test]
fn a_single_session_changed_meanwhile_is_an_error_and_left_alone() {
    let env = TestEnv::new();
    let plain = fs::read(sample("plain.jsonl")).unwrap();
    let a = env.write("a.jsonl", &plain);
    let run = compact_while_appending(&env, &[&a], &a, &[]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr
            .contains("changed while ctxctl was working on it"),
        "{run:?}"
    );
    assert!(run.stderr.contains("nothing was replaced"), "{run:?}");
    assert!(fs::read(&a).unwrap().len() > plain.len());
    assert_eq!(
        fs::read_dir(env.data_dir().join("archives/a"))
            .unwrap()
            .count(),
        0
    );
    // Batch of one that got nothing done: an error too.
    let b = env.write("d/b.jsonl", &plain);
    let run = compact_while_appending(&env, &[], &b, &["-r", "d"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("skipped: d/b.jsonl"), "{run:?}");
}

/// `f` relative to the test dir (the runs' working directory), as ctxctl shows it.
fn rel(env: &TestEnv, f: &Path) -> String {
    f.strip_prefix(env.path()).unwrap().display().to_string()
}
