//! `compact` over several files and `-r DIR` for cron: only what needs it, in place, one
//! report per file; a session that changes meanwhile is skipped, never clobbered.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::batch::{paths, session};
use crate::support::{s, sample, Run, TestEnv};

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
    let v = run.json()["files"].clone();
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
fn compact_while_appending(env: &TestEnv, files: &[&Path], changed: &Path, extra: &[&str]) -> Run {
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
    Run {
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
    let v = run.json()["files"].clone();
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
fn a_single_session_changed_meanwhile_is_read_again() {
    let env = TestEnv::new();
    let plain = fs::read(sample("plain.jsonl")).unwrap();
    let a = env.write("a.jsonl", &plain);
    let run = compact_while_appending(&env, &[&a], &a, &[]);
    // One file with --in-place: ctxctl reads it again and compacts what it holds now (a
    // second change would be an error; tests/cli/race.rs).
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr
            .contains("changed while ctxctl was working on it; reading it again"),
        "{run:?}"
    );
    let out = fs::read_to_string(&a).unwrap();
    assert!(
        out.lines().count() < plain.split(|b| *b == b'\n').count(),
        "{out}"
    );
    assert!(
        out.trim_end().ends_with("the agent is still writing\"}"),
        "the appended line is kept: {out}"
    );
    // The first pass's archive was taken back; the second pass's stays.
    assert_eq!(
        fs::read_dir(env.data_dir().join("archives/a"))
            .unwrap()
            .count(),
        1
    );
    // Batch of one that got nothing done: an error too.
    let b = env.write("d/b.jsonl", &plain);
    let run = compact_while_appending(&env, &[], &b, &["-r", "d"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("skipped: d/b.jsonl"), "{run:?}");
}

/// Sets `path`'s modification time to `secs_before` the tests' clock (`CTXCTL_NOW`).
fn modified_before_now(path: &Path, secs_before: u64) {
    // 2026-01-02T03:04:05Z, the CTXCTL_NOW of every TestEnv.
    let now = std::time::UNIX_EPOCH + Duration::from_secs(1_767_323_045);
    let f = fs::File::options().append(true).open(path).unwrap();
    f.set_modified(now - Duration::from_secs(secs_before))
        .unwrap();
}

#[test]
fn a_session_written_moments_ago_is_left_to_its_agent_unless_include_live() {
    let env = TestEnv::new();
    let (big, small) = cron_dir(&env);
    let other = env.write("cron/other.jsonl", fs::read(&big).unwrap());
    modified_before_now(&big, 10);
    modified_before_now(&other, 3600);
    modified_before_now(&small, 5);
    let before = fs::read(&big).unwrap();
    let run = env.run(&[CRON, &["--json"]].concat());
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr
            .contains("skipped: cron/big.jsonl written 10s ago"),
        "{run:?}"
    );
    assert_eq!(
        fs::read(&big).unwrap(),
        before,
        "the live session is untouched"
    );
    let v = run.json()["files"].clone();
    assert_eq!(
        paths(&v),
        vec!["cron/big.jsonl", "cron/other.jsonl", "cron/small.jsonl"]
    );
    assert_eq!(
        (&v[0]["skipped"], &v[0]["compacted"]),
        (&true.into(), &false.into()),
        "{v}"
    );
    assert!(
        v[0]["reason"].as_str().unwrap().contains("--include-live"),
        "{v}"
    );
    assert_eq!(v[1]["compacted"], true, "an old session is compacted: {v}");
    // --include-live takes it; so does a config that turns the window off.
    let run = env.run(&[CRON, &["--include-live"]].concat());
    assert_eq!(run.code, 0, "{run:?}");
    assert_ne!(fs::read(&big).unwrap(), before, "{run:?}");
    let env = TestEnv::new();
    let (big, _) = cron_dir(&env);
    modified_before_now(&big, 10);
    let cfg = env.write("c.toml", "[compact]\nlive_secs = 0\n");
    let run = env.run(&[CRON, &["--config", s(&cfg)]].concat());
    assert_eq!(run.code, 0, "{run:?}");
    assert!(!run.stderr.contains("skipped"), "{run:?}");
}

/// A session another process holds open for writing (an agent with its transcript open)
/// is left alone too, however old its last write (Linux: /proc).
#[cfg(target_os = "linux")]
#[test]
fn a_session_held_open_for_writing_is_left_to_its_agent() {
    let env = TestEnv::new();
    let (big, small) = cron_dir(&env);
    let before = fs::read(&big).unwrap();
    let ready = env.path().join("ready");
    // The stand-in agent opens the file for appending and keeps it open.
    let mut agent = std::process::Command::new("sh")
        .args(["-c", "exec 3>>cron/big.jsonl; touch ready; exec sleep 60"])
        .current_dir(env.path())
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !ready.exists() && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    modified_before_now(&big, 3600);
    modified_before_now(&small, 3600);
    let run = env.run(CRON);
    let with_flag = env.run(&[CRON, &["--include-live"]].concat());
    agent.kill().unwrap();
    agent.wait().unwrap();
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr
            .contains(&format!("held open for writing by process {}", agent.id())),
        "{run:?}"
    );
    assert_eq!(with_flag.code, 0, "{with_flag:?}");
    assert_ne!(fs::read(&big).unwrap(), before, "{with_flag:?}");
}
