//! Writers racing: an input that changes while ctxctl works on it (re-read once, then give
//! up without replacing anything), and two ctxctl runs on one session (they take turns on
//! the session's lock and say what they wait for).

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::procs::{spawn, wait_for_file, Spawned};
use crate::support::{archives, s, TestEnv};

fn chat(n: usize) -> String {
    crate::support::jsonl_chat(n)
}

const LATE: &str = r#"{"role":"user","content":"a late message from the agent"}"#;

fn append(path: &Path, line: &str) {
    let mut f = fs::OpenOptions::new().append(true).open(path).unwrap();
    writeln!(f, "{line}").unwrap();
}

fn paused(env: &TestEnv, marker: &Path, args: &[&str]) -> Spawned {
    let mut cmd = env.command(args);
    cmd.env("CTXCTL_TEST_PAUSE_BEFORE_REPLACE", marker);
    spawn(cmd)
}

/// Waits for the paused run's marker (attempt `n`), lets `change` run, then resumes it.
fn at_pause(marker: &Path, n: u32, change: impl FnOnce()) {
    wait_for_file(marker);
    assert_eq!(fs::read_to_string(marker).unwrap(), n.to_string());
    change();
    fs::remove_file(marker).unwrap();
}

fn trim_args(f: &Path) -> Vec<&str> {
    vec![
        "trim",
        s(f),
        "--strategy",
        "fifo",
        "--max-tokens",
        "200",
        "--model",
        "gpt-4o",
        "--tokenizer",
        "approx",
        "--in-place",
        "--json",
    ]
}

#[test]
fn an_in_place_trim_reads_an_input_that_changed_again() {
    let env = TestEnv::new();
    let f = env.write("chat.jsonl", chat(30));
    let marker = env.path().join("pause");
    let run = paused(&env, &marker, &trim_args(&f));
    at_pause(&marker, 1, || append(&f, LATE));
    at_pause(&marker, 2, || {});
    let run = run.finish();
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!(env.redact(&run.stderr));
    // The second pass planned from what the file held then: the late line is kept (it is
    // the last user message) and counted.
    let out = fs::read_to_string(&f).unwrap();
    assert_eq!(out.lines().last(), Some(LATE), "{out}");
    let report = run.json();
    let removed = report["removed_messages"].as_u64().unwrap() as usize;
    assert_eq!(removed + out.lines().count(), 31, "{report}");
    // One archive, from the pass that landed: the first pass's was taken back.
    let files = archives(&env, "chat");
    assert_eq!(files.len(), 1, "{files:?}");
    let a: Value = crate::support::read_archive(&files[0]);
    assert_eq!(a["records"].as_array().unwrap().len(), removed, "{a}");
    assert_eq!(report["archive"].as_str(), Some(s(&files[0])));
}

#[test]
fn an_input_that_changes_twice_is_left_alone() {
    for command in ["trim", "compact"] {
        let env = TestEnv::new();
        let f = env.write("chat.jsonl", chat(30));
        let marker = env.path().join("pause");
        let args = match command {
            "trim" => trim_args(&f),
            _ => vec![
                "compact",
                s(&f),
                "--tail-tokens",
                "100",
                "--model",
                "gpt-4o",
                "--tokenizer",
                "approx",
                "--in-place",
            ],
        };
        let run = paused(&env, &marker, &args);
        at_pause(&marker, 1, || append(&f, LATE));
        at_pause(&marker, 2, || append(&f, LATE));
        let expected = fs::read(&f).unwrap();
        let run = run.finish();
        assert_eq!(run.code, 2, "{command}: {run:?}");
        insta::assert_snapshot!(command, env.redact(&run.stderr));
        assert_eq!(fs::read(&f).unwrap(), expected, "{command}");
        assert_eq!(archives(&env, "chat"), Vec::<PathBuf>::new(), "{command}");
    }
}

fn hold_lock(env: &TestEnv, session: &str) -> fs::File {
    let dir = env.data_dir().join("locks");
    fs::create_dir_all(&dir).unwrap();
    let lock = fs::File::create(dir.join(format!("{session}.lock"))).unwrap();
    lock.lock().unwrap();
    lock
}

#[test]
fn an_in_place_trim_says_it_waits_for_the_lock_and_times_out() {
    let env = TestEnv::new().env("CTXCTL_LOCK_TIMEOUT", "1");
    let f = env.write("chat.jsonl", chat(30));
    let before = fs::read(&f).unwrap();
    let lock = hold_lock(&env, "chat");
    let run = env.run(&trim_args(&f));
    assert_eq!(run.code, 2, "{run:?}");
    insta::assert_snapshot!(env.snap(&run));
    assert_eq!(fs::read(&f).unwrap(), before);
    assert_eq!(archives(&env, "chat"), Vec::<PathBuf>::new());
    drop(lock);
    assert_eq!(env.run(&trim_args(&f)).code, 0);
}

#[test]
fn a_waiting_trim_goes_on_once_the_lock_is_released() {
    let env = TestEnv::new().env("CTXCTL_LOCK_TIMEOUT", "90");
    let f = env.write("chat.jsonl", chat(30));
    let lock = hold_lock(&env, "chat");
    let mut run = spawn(env.command(&trim_args(&f)));
    run.wait_for_stderr("waiting for the lock on");
    // Still waiting: nothing replaced yet.
    assert_eq!(fs::read_to_string(&f).unwrap(), chat(30));
    drop(lock);
    let run = run.finish();
    assert_eq!(run.code, 0, "{run:?}");
    assert!(fs::read_to_string(&f).unwrap().lines().count() < 30);
}

/// The messages of a plain JSONL file, parsed.
fn lines(path: &Path) -> Vec<Value> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn two_compactions_of_one_session_take_turns_and_the_second_sees_the_first() {
    let env = TestEnv::new().env("CTXCTL_LOCK_TIMEOUT", "90");
    let stored = env.data_dir().join("sessions/s.jsonl");
    fs::create_dir_all(stored.parent().unwrap()).unwrap();
    fs::write(&stored, chat(40)).unwrap();
    let original = lines(&stored);
    let args = [
        "compact",
        "--name",
        "s",
        "--tail-tokens",
        "60",
        "--model",
        "gpt-4o",
        "--tokenizer",
        "approx",
    ];
    // A stops before replacing the session, holding its lock.
    let marker = env.path().join("pause");
    let first = paused(&env, &marker, &args);
    wait_for_file(&marker);
    // B read the same session; it waits for A's lock, then finds the session changed,
    // reads it again and compacts A's result.
    let mut second = spawn(env.command(&args));
    second.wait_for_stderr("waiting for the lock on");
    fs::remove_file(&marker).unwrap();
    let first = first.finish();
    assert_eq!(first.code, 0, "{first:?}");
    let second = second.finish();
    assert_eq!(second.code, 0, "{second:?}");
    insta::assert_snapshot!("first", env.redact(&first.stderr));
    // B read it again; from A's result there is nothing left to compact: B leaves it as it
    // is, where without the re-read it would have replaced A's result by its own.
    insta::assert_snapshot!("second", env.redact(&second.stderr));
    assert_eq!(archives(&env, "s").len(), 1);
    let compacted = fs::read_to_string(&stored).unwrap();
    assert!(compacted.lines().count() < 40, "{compacted}");
    // Undoing A gives back the original session.
    let run = env.run(&["archive", "restore", "s/1"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(lines(&stored), original);
}

/// `--in-place` through a symlink whose link is pointed elsewhere while ctxctl works: the
/// file checked is not the one the link names any more, so nothing is replaced.
#[test]
fn a_symlink_swapped_between_check_and_write_is_refused() {
    let env = TestEnv::new();
    let real = env.write("real.jsonl", chat(30));
    let other = env.write("other.jsonl", chat(30));
    let link = env.path().join("link.jsonl");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let (real_before, other_before) = (fs::read(&real).unwrap(), fs::read(&other).unwrap());
    let marker = env.path().join("pause");
    let run = paused(&env, &marker, &trim_args(&link));
    let swap = || {
        fs::remove_file(&link).unwrap();
        std::os::unix::fs::symlink(&other, &link).unwrap();
    };
    at_pause(&marker, 1, swap);
    let run = run.finish();
    assert_eq!(run.code, 2, "{run:?}");
    insta::assert_snapshot!(env.snap(&run));
    assert_eq!(fs::read(&real).unwrap(), real_before, "{run:?}");
    assert_eq!(fs::read(&other).unwrap(), other_before, "{run:?}");
    assert_eq!(
        fs::read_link(&link).unwrap(),
        other,
        "the link is left as it was"
    );
    assert!(archives(&env, "link").is_empty() && archives(&env, "real").is_empty());
}
