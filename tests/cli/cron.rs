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
    insta::assert_snapshot!("small_reason", v[1]["reason"].as_str().unwrap());
    assert_eq!(fs::read(&small).unwrap(), small_before);
    assert!(env.data_dir().join("archives/big").exists());
    assert!(!env.data_dir().join("archives/small").exists());
    // A second run finds nothing to do; human mode says so in one line, and -v names
    // each file, in order.
    let again = env.run(CRON);
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(
        again.stderr,
        "2 sessions examined: 0 compacted, 2 left as they were, 0 skipped as live, 0 errors\n"
    );
    let again = env.run(&[CRON, &["-v"]].concat());
    let lines: Vec<&str> = again
        .stderr
        .lines()
        .filter(|l| l.contains("below the threshold"))
        .collect();
    assert_eq!(lines.len(), 2, "{again:?}");
    assert!(
        lines[0].starts_with("ctxctl: [debug] cron/big.jsonl: below the threshold"),
        "{again:?}"
    );
    assert!(
        lines[1].starts_with("ctxctl: [debug] cron/small.jsonl: below the threshold"),
        "{again:?}"
    );
}

#[test]
fn compact_of_several_files_refuses_what_only_fits_one() {
    let env = TestEnv::new();
    let a = env.write("x/s.json", session(1, 4));
    let b = env.write("y/s.json", session(2, 4));
    let mut errors = String::new();
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
        errors.push_str(&format!("{needle}:\n{}\n", env.redact(&run.stderr)));
    }
    insta::assert_snapshot!(errors);
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
    Run::from(out)
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
    insta::assert_snapshot!(env.redact(&run.stderr));
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
    insta::assert_snapshot!("read_again", env.redact(&run.stderr));
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
    insta::assert_snapshot!("batch_of_one", env.redact(&run.stderr));
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
    insta::assert_snapshot!("live", env.redact(&run.stderr));
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
    insta::assert_snapshot!("live_reason", v[0]["reason"].as_str().unwrap());
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
    insta::assert_snapshot!("live_secs_0", env.redact(&run.stderr));
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
    let stderr = run.stderr.replace(&format!(" {} ", agent.id()), " [PID] ");
    insta::assert_snapshot!(env.redact(&stderr));
    assert_eq!(with_flag.code, 0, "{with_flag:?}");
    assert_ne!(fs::read(&big).unwrap(), before, "{with_flag:?}");
}

/// The nightly line `compact --help` documents (its command, without the five time
/// fields), checked to be the README's too.
fn nightly_line(env: &TestEnv) -> String {
    let help = env.run(&["compact", "--help"]).stdout;
    let line = help
        .lines()
        .find(|l| l.contains("ctxctl compact --all"))
        .expect("compact --help gives the nightly line")
        .trim()
        .to_string();
    let readme = fs::read_to_string(crate::support::repo().join("README.md")).unwrap();
    assert!(readme.contains(&line), "README lacks {line:?}");
    let man = fs::read_to_string(crate::support::repo().join("man/ctxctl-compact.1")).unwrap();
    assert!(man.contains("compact \\-\\-all \\-\\-if\\-needed \\-\\-in\\-place \\-q"));
    line.split_whitespace()
        .skip(5)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs `command` as cron does: `/bin/sh -c` with only HOME, LOGNAME, SHELL and a short
/// PATH, the binary where the line says it is.
fn as_cron(home: &Path, command: &str) -> Run {
    let bin = home.join(".cargo/bin");
    fs::create_dir_all(&bin).unwrap();
    let link = bin.join("ctxctl");
    if !link.exists() {
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_ctxctl"), &link).unwrap();
    }
    let out = std::process::Command::new("/bin/sh")
        .args(["-c", command])
        .env_clear()
        .env("HOME", home)
        .env("LOGNAME", "you")
        .env("SHELL", "/bin/sh")
        .env("PATH", "/usr/bin:/bin")
        .current_dir(home)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    Run::from(out)
}

/// An hour before the real clock (cron runs without CTXCTL_NOW).
fn an_hour_ago(p: &Path) {
    let f = fs::File::options().append(true).open(p).unwrap();
    f.set_modified(std::time::SystemTime::now() - Duration::from_secs(3600))
        .unwrap();
}

#[test]
fn the_documented_nightly_line_is_quiet_on_a_quiet_night_and_says_what_it_compacted() {
    let env = TestEnv::new();
    let command = nightly_line(&env);
    let home = env.home();
    // A home with no agent at all: nothing to say.
    let run = as_cron(&home, &command);
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (0, "", ""),
        "{run:?}"
    );
    // Claude Code only (no ~/.codex): a healthy session, a quiet night.
    let session =
        home.join(".claude/projects/-home-you-shop/d93e3082-ad22-40cf-b10b-b53b83ced403.jsonl");
    fs::create_dir_all(session.parent().unwrap()).unwrap();
    fs::copy(sample("claude-code.jsonl"), &session).unwrap();
    an_hour_ago(&session);
    let before = fs::read(&session).unwrap();
    let run = as_cron(&home, &command);
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (0, "", ""),
        "{run:?}"
    );
    assert_eq!(fs::read(&session).unwrap(), before);
    // The session needs compaction: one line says so, nothing else.
    let config = home.join(".config/ctxctl/config.toml");
    fs::create_dir_all(config.parent().unwrap()).unwrap();
    fs::write(&config, "threshold = 0.01\n[compact]\ntail_tokens = 300\n").unwrap();
    let run = as_cron(&home, &command);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout, "", "{run:?}");
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{run:?}");
    assert!(
        lines[0].starts_with(&format!("compacted {}", session.display())),
        "{run:?}"
    );
    assert_ne!(fs::read(&session).unwrap(), before);
    // Its archive is compressed by default.
    let archives = home.join(".local/share/ctxctl/archives");
    let filed: Vec<_> = walkdir(&archives);
    assert_eq!(filed.len(), 1, "{filed:?}");
    assert!(
        filed[0].to_string_lossy().ends_with(".json.zst"),
        "{filed:?}"
    );
}

fn walkdir(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walkdir(&p));
        } else if !p.to_string_lossy().ends_with(".lock") {
            out.push(p);
        }
    }
    out
}

/// Without -q: one line per session acted on or skipped, and one summary line; the
/// healthy sessions are counted, not listed. A missing root is a warning only.
#[test]
fn a_batch_ends_with_one_summary_line_and_a_missing_root_is_only_a_warning() {
    let env = TestEnv::new();
    let (big, small) = cron_dir(&env);
    modified_before_now(&big, 3600);
    modified_before_now(&small, 3600);
    let run = env.run(&[CRON, &["-r", "no-such-dir"]].concat());
    assert_eq!(run.code, 0, "{run:?}");
    // The warning, the compacted session (not the other) and the one summary line.
    insta::assert_snapshot!(env.redact(&run.stderr));
    // Nothing matches the filters: exit 0, and with -q not a word.
    let run = env.run(&[CRON, &["--since", "1s", "-q"]].concat());
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
}
