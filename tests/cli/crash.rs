//! Crash safety: a rewrite stopped at each of its steps, by an error (the run cleans up)
//! or by a kill (`CTXCTL_TEST_FAIL_AT=STEP:kill` exits at once; a real SIGKILL too), leaves
//! the old session or the new one, and an archive that is complete or absent; the temp
//! files a kill leaves behind go on the next run in that directory.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::procs::{spawn, wait_for_file};
use crate::support::{s, Run, TestEnv};

const TEMP: &str = ".ctxctl-tmp-";

fn chat(n: usize) -> String {
    crate::support::jsonl_chat(n)
}

/// Every file below `dir`, recursively.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(files(&p));
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn is_temp(p: &Path) -> bool {
    p.file_name().unwrap().to_string_lossy().starts_with(TEMP)
}

/// The complete archives under the data directory, each checked to be whole: it parses,
/// and holds as many records as it says it archived.
fn complete_archives(env: &TestEnv) -> Vec<PathBuf> {
    let all = files(&env.data_dir().join("archives"));
    let archives: Vec<PathBuf> = all.into_iter().filter(|p| !is_temp(p)).collect();
    for a in &archives {
        let v: Value = serde_json::from_slice(&crate::support::archive_bytes(a))
            .unwrap_or_else(|e| panic!("{}: a half-written archive: {e}", a.display()));
        let records = v["records"].as_array().unwrap().len() as u64;
        assert_eq!(Some(records), v["messages"].as_u64(), "{}", a.display());
    }
    archives
}

/// Temp files under the test directory (the session's directory and the data directory).
fn temps(env: &TestEnv) -> Vec<PathBuf> {
    files(env.path())
        .into_iter()
        .filter(|p| is_temp(p))
        .collect()
}

fn age(paths: &[PathBuf]) {
    let old = SystemTime::now() - Duration::from_secs(3600);
    for p in paths {
        fs::File::options()
            .write(true)
            .open(p)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
}

/// A command replacing a session, and the file it replaces.
struct Case {
    name: &'static str,
    args: Vec<String>,
    session: PathBuf,
}

fn cases(env: &TestEnv) -> Vec<Case> {
    let file = env.write("work/chat.jsonl", chat(40));
    let stored = env.data_dir().join("sessions/kept.jsonl");
    fs::create_dir_all(stored.parent().unwrap()).unwrap();
    fs::write(&stored, chat(40)).unwrap();
    let f = s(&file).to_string();
    let strs = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        Case {
            name: "trim --in-place",
            args: strs(&[
                "trim",
                &f,
                "--strategy",
                "fifo",
                "--max-tokens",
                "200",
                "--in-place",
            ]),
            session: file.clone(),
        },
        Case {
            name: "compact --in-place",
            args: strs(&["compact", &f, "--tail-tokens", "100", "--in-place"]),
            session: file.clone(),
        },
        Case {
            name: "compact --name",
            args: strs(&["compact", "--name", "kept", "--tail-tokens", "100"]),
            session: stored,
        },
    ]
}

fn run(env: &TestEnv, case: &Case, fail_at: Option<&str>) -> Run {
    let mut args: Vec<&str> = case.args.iter().map(String::as_str).collect();
    args.extend(["--model", "gpt-4o", "--tokenizer", "approx"]);
    let mut cmd = env.command(&args);
    if let Some(step) = fail_at {
        cmd.env("CTXCTL_TEST_FAIL_AT", step);
    }
    let out = cmd.output().unwrap();
    Run::from(out)
}

/// What each injected failure leaves: (step, archive kept, temp file left behind).
const STEPS: [(&str, bool, bool); 8] = [
    ("archive-write", false, false),
    ("after-archive", false, false),
    ("write", false, false),
    ("before-rename", false, false),
    // A kill cleans nothing up: the archive of a rewrite that never landed stays (complete,
    // and `archive restore` refuses it: the session holds no summary with its id).
    ("archive-write:kill", false, true),
    ("after-archive:kill", true, false),
    ("write:kill", true, true),
    ("before-rename:kill", true, true),
];

#[test]
fn a_rewrite_stopped_at_any_step_leaves_the_old_session_and_no_half_file() {
    // What each failure says: what failed (CTXCTL_TEST_FAIL_AT), and once the archive is
    // written, that replacing or writing the session failed.
    let mut errors = String::new();
    for (step, archive_kept, temp_left) in STEPS {
        let env = TestEnv::new();
        for case in cases(&env) {
            let what = format!("{} at {step}", case.name);
            let before = fs::read(&case.session).unwrap();
            let archives_before = complete_archives(&env).len();
            let r = run(&env, &case, Some(step));
            if step.ends_with(":kill") {
                assert_eq!(r.code, 137, "{what}: {r:?}");
            } else {
                assert_eq!(r.code, 2, "{what}: {r:?}");
                errors.push_str(&format!("{what}:\n{}", env.redact(&r.stderr)));
            }
            // The old session, byte for byte.
            assert_eq!(fs::read(&case.session).unwrap(), before, "{what}");
            let archives = complete_archives(&env).len() - archives_before;
            assert_eq!(archives, usize::from(archive_kept), "{what}");
            let left = temps(&env);
            assert_eq!(left.len(), usize::from(temp_left), "{what}: {left:?}");

            // The next run in those directories removes the (stale) leftovers and lands.
            age(&left);
            let r = run(&env, &case, None);
            assert_eq!(r.code, 0, "{what}, then again: {r:?}");
            assert_eq!(temps(&env), Vec::<PathBuf>::new(), "{what}, then again");
            let after = fs::read(&case.session).unwrap();
            assert!(after.len() < before.len(), "{what}: the new session");
            complete_archives(&env);
            // Put the session back for the next case that uses the same file.
            fs::write(&case.session, &before).unwrap();
        }
    }
    insta::assert_snapshot!(errors);
}

#[test]
fn a_fresh_temp_file_of_another_run_is_left_alone() {
    let env = TestEnv::new();
    let f = env.write("chat.jsonl", chat(40));
    let stale = env.write(&format!("{TEMP}stale"), "half a session");
    let live = env.write(&format!("{TEMP}live"), "another run is writing this");
    age(std::slice::from_ref(&stale));
    let r = env.run(&[
        "trim",
        s(&f),
        "--strategy",
        "fifo",
        "--max-tokens",
        "200",
        "--model",
        "gpt-4o",
        "--tokenizer",
        "approx",
        "--in-place",
    ]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        !stale.exists(),
        "a stale temp file beside the session is removed"
    );
    assert!(
        live.exists(),
        "a recent one may belong to a run in progress"
    );
}

#[cfg(unix)]
#[test]
fn a_real_kill_before_the_replace_leaves_the_old_session_a_whole_archive_and_a_free_lock() {
    let env = TestEnv::new().env("CTXCTL_LOCK_TIMEOUT", "5");
    let f = env.write("chat.jsonl", chat(40));
    let before = fs::read(&f).unwrap();
    let marker = env.path().join("pause");
    let mut cmd = env.command(&[
        "compact",
        s(&f),
        "--tail-tokens",
        "100",
        "--model",
        "gpt-4o",
        "--tokenizer",
        "approx",
        "--in-place",
    ]);
    cmd.env("CTXCTL_TEST_PAUSE_BEFORE_REPLACE", &marker);
    let mut child = spawn(cmd);
    wait_for_file(&marker);
    child.kill();
    let r = child.finish();
    assert_eq!(r.code, -1, "killed by a signal: {r:?}");
    assert_eq!(fs::read(&f).unwrap(), before);
    assert_eq!(complete_archives(&env).len(), 1);
    // The lock died with the process: the next run does not wait for it.
    let r = env.run(&[
        "compact",
        s(&f),
        "--tail-tokens",
        "100",
        "--model",
        "gpt-4o",
        "--tokenizer",
        "approx",
        "--in-place",
    ]);
    assert_eq!(r.code, 0, "{r:?}");
    // No wait for the lock; the second archive.
    insta::assert_snapshot!(env.snap(&r));
    assert_eq!(complete_archives(&env).len(), 2);
}

/// Found by the `trim` fuzz target: a trim that leaves no message wrote a 0-byte JSONL
/// file, which no reader (ctxctl's included, so not `archive restore` either) accepts.
#[test]
fn a_trim_that_would_leave_no_message_writes_nothing() {
    let env = TestEnv::new();
    let lines = "{\"role\":\"assistant\",\"content\":\"hello there\"}\n{\"role\":\"assistant\",\"content\":\"more\"}\n";
    for name in ["only-replies.jsonl", "only-replies.json"] {
        let body = if name.ends_with(".json") {
            format!("[{}]", lines.trim_end().replace('\n', ","))
        } else {
            lines.to_string()
        };
        let f = env.write(name, &body);
        let r = env.run(&[
            "trim",
            s(&f),
            "--strategy",
            "fifo",
            "--max-tokens",
            "1",
            "--model",
            "gpt-4o",
            "--tokenizer",
            "approx",
            "--in-place",
        ]);
        assert_eq!(r.code, 2, "{name}: {r:?}");
        insta::assert_snapshot!(name, env.snap(&r));
        assert_eq!(fs::read_to_string(&f).unwrap(), body, "{name}");
        assert_eq!(complete_archives(&env), Vec::<PathBuf>::new());
    }
}

/// A result going to a new file (`-o FILE`, the store) is written beside it and files no
/// archive (the input is left as it is): a failure on the way, or a result found no
/// smaller, leaves neither it nor a temp file nor an archive.
#[test]
fn a_new_file_written_beside_its_destination_lands_whole_or_not_at_all() {
    let env = TestEnv::new();
    let f = env.write("work/chat.jsonl", chat(40));
    let before = fs::read(&f).unwrap();
    let out = env.path().join("out/new.jsonl");
    fs::create_dir_all(out.parent().unwrap()).unwrap();
    let stored = env.data_dir().join("sessions/chat.jsonl");
    let compact = |dest: &[&str], step: Option<&str>| {
        let mut args = vec!["compact", s(&f), "--tail-tokens", "100"];
        args.extend(dest);
        args.extend(["--model", "gpt-4o", "--tokenizer", "approx"]);
        let mut cmd = env.command(&args);
        if let Some(step) = step {
            cmd.env("CTXCTL_TEST_FAIL_AT", step);
        }
        let out = cmd.output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // The store's directory is there from the first run on: the result is staged in it.
    let (code, err) = compact(&[], None);
    assert_eq!(code, Some(0), "{err}");
    assert!(stored.is_file(), "{err}");
    fs::remove_file(&stored).unwrap();
    let archived = complete_archives(&env).len();
    assert_eq!(archived, 0, "nothing archived");
    let mut errors = String::new();
    for step in ["write", "before-rename"] {
        for (dest, target) in [(&["-o", s(&out)][..], &out), (&[][..], &stored)] {
            let what = format!("{dest:?} at {step}");
            let (code, err) = compact(dest, Some(step));
            assert_eq!(code, Some(2), "{what}: {err}");
            errors.push_str(&env.redact(&format!("{what}:\n{err}")));
            assert!(!target.exists(), "{what}: nothing lands");
            assert_eq!(temps(&env), Vec::<PathBuf>::new(), "{what}");
            assert_eq!(
                complete_archives(&env).len(),
                archived,
                "{what}: archive removed"
            );
            assert_eq!(fs::read(&f).unwrap(), before, "{what}");
        }
    }
    // Each says what failed (CTXCTL_TEST_FAIL_AT).
    insta::assert_snapshot!("failed", errors);
    let (code, err) = compact(&["-o", s(&out)], None);
    assert_eq!(code, Some(0), "{err}");
    assert!(fs::read(&out).unwrap().len() < before.len());
    assert_eq!(complete_archives(&env).len(), archived);
    assert_eq!(temps(&env), Vec::<PathBuf>::new());

    // A result no smaller: nothing written, nothing staged, no store directory made.
    let env = TestEnv::new();
    let f = env.write(
        "s.jsonl",
        "{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\":\"assistant\",\"content\":\"hello\"}\n\
         {\"role\":\"user\",\"content\":\"ok\"}\n{\"role\":\"assistant\",\"content\":\"bye\"}\n",
    );
    let out = env.path().join("small.jsonl");
    let mut said = String::new();
    for dest in [&["-o", s(&out)][..], &[][..]] {
        let mut args = vec!["compact", s(&f), "--tail-tokens", "1", "--model", "gpt-4o"];
        args.extend(dest);
        let run = env.run(&args);
        assert_eq!(run.code, 0, "{run:?}");
        said.push_str(&env.redact(&run.stderr));
        assert!(!out.exists(), "{run:?}");
        assert!(!env.data_dir().join("sessions").exists(), "{run:?}");
        assert_eq!(temps(&env), Vec::<PathBuf>::new(), "{run:?}");
    }
    insta::assert_snapshot!("not_smaller", said);
}
