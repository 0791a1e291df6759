//! Bounding and tracking the archive store: `archive rm`, `archive prune`, restore marks,
//! `-o` naming the input, odd file names and symlinks.

use std::fs;

use crate::support::{s, sample, TestEnv};

fn compact_in_place(env: &TestEnv, f: &std::path::Path) {
    let run = env.run(&[
        "compact",
        s(f),
        "--in-place",
        "--model",
        "gpt-4o",
        "--tail-tokens",
        "300",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
}

fn ids(env: &TestEnv) -> Vec<String> {
    let v = env.run(&["archive", "ls", "--json"]).json();
    v.as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn rm_checks_every_id_first_and_removes_the_file() {
    let env = TestEnv::new();
    let f = env.write("plain.jsonl", fs::read(sample("plain.jsonl")).unwrap());
    compact_in_place(&env, &f);
    let path = env.run(&["archive", "ls", "--json"]).json()[0]["path"]
        .as_str()
        .unwrap()
        .to_string();
    // A typo among the ids removes nothing.
    let run = env.run(&["archive", "rm", "plain/1", "plain/9"]);
    assert_eq!(run.code, 2, "{run:?}");
    insta::assert_snapshot!("typo", env.snap(&run));
    assert!(fs::metadata(&path).is_ok());
    let run = env.run(&["archive", "rm", "plain/1", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.json();
    assert_eq!(v["removed"][0]["id"], "plain/1");
    assert!(v["bytes"].as_u64().unwrap() > 0);
    assert!(fs::metadata(&path).is_err());
    assert!(ids(&env).is_empty());
    let run = env.run(&["archive", "restore", "plain/1"]);
    assert_eq!(run.code, 2, "{run:?}");
}

#[test]
fn prune_keeps_the_newest_per_session_and_respects_age() {
    // Plain archives: a compressed one's size moves with its random compaction id.
    let mut env = TestEnv::new().env("CTXCTL_ARCHIVE_COMPRESS", "none");
    // Three compactions of the same session (a fresh copy each time, as a cron job would
    // meet a session that grew again).
    for (i, day) in ["2026-01-01", "2026-01-05", "2026-01-09"]
        .iter()
        .enumerate()
    {
        env.set("CTXCTL_NOW", &format!("{day}T00:00:00Z"));
        let f = env.write("long.jsonl", crate::support::jsonl_chat(60));
        let run = env.run(&[
            "compact",
            s(&f),
            "--in-place",
            "--model",
            "gpt-4o",
            "--tail-tokens",
            "200",
        ]);
        assert_eq!(run.code, 0, "compaction {i}: {run:?}");
    }
    assert_eq!(ids(&env), ["long/1", "long/2", "long/3"]);
    env.set("CTXCTL_NOW", "2026-01-10T00:00:00Z");
    // A dry run lists and exits 1, removing nothing.
    let run = env.run(&[
        "archive",
        "prune",
        "--keep",
        "1",
        "--older-than",
        "7d",
        "--dry-run",
    ]);
    assert_eq!(run.code, 1, "{run:?}");
    // long/1 only: long/2 is not older than 7 days.
    insta::assert_snapshot!("dry_run", env.snap(&run));
    assert_eq!(ids(&env).len(), 3);
    let run = env.run(&["archive", "prune", "--keep", "1"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(ids(&env), ["long/3"]);
    // Nothing left to prune.
    let run = env.run(&["archive", "prune", "--keep", "1", "--dry-run"]);
    assert_eq!(run.code, 0, "{run:?}");
    // A bad duration and a missing limit are usage errors.
    let run = env.run(&["archive", "prune", "--older-than", "soon"]);
    assert_eq!(run.code, 2, "{run:?}");
    insta::assert_snapshot!("bad_duration", env.snap(&run));
    let run = env.run(&["archive", "prune"]);
    assert_eq!(run.code, 2, "{run:?}");
    insta::assert_snapshot!("no_limit", env.snap(&run));
}

#[test]
fn a_restored_archive_is_marked_and_not_restored_twice() {
    // Plain archives: a compressed one's size moves with its random compaction id.
    let env = TestEnv::new().env("CTXCTL_ARCHIVE_COMPRESS", "none");
    let original = fs::read(sample("plain.jsonl")).unwrap();
    let f = env.write("plain.jsonl", &original);
    compact_in_place(&env, &f);
    let run = env.run(&["archive", "restore", "plain/1"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(fs::read(&f).unwrap(), original);
    let v = env.run(&["archive", "ls", "--json"]).json();
    assert_eq!(v[0]["restored"]["timestamp"], "2026-01-02T03:04:05Z");
    assert!(v[0]["restored"]["into"]
        .as_str()
        .unwrap()
        .ends_with("plain.jsonl"));
    let human = env.run(&["archive", "ls"]);
    insta::assert_snapshot!("ls", env.snap(&human));
    let run = env.run(&["archive", "restore", "plain/1"]);
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!("again", env.snap(&run));
    assert_eq!(fs::read(&f).unwrap(), original, "nothing written");
}

#[test]
fn output_naming_the_input_is_an_archived_in_place_rewrite() {
    let env = TestEnv::new();
    let original = fs::read(sample("openai-chat.json")).unwrap();
    let f = env.write("chat.json", &original);
    let run = env.run(&[
        "trim",
        s(&f),
        "-o",
        s(&f),
        "--strategy",
        "fifo",
        "--max-tokens",
        "900",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_ne!(fs::read(&f).unwrap(), original);
    assert_eq!(ids(&env), ["chat/1"], "the trim was archived");
    let run = env.run(&["archive", "restore", "chat/1"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(fs::read(&f).unwrap(), original);
}

#[test]
fn odd_file_names_get_distinct_archive_sessions() {
    let env = TestEnv::new();
    let body = fs::read(sample("plain.jsonl")).unwrap();
    for name in ["my chat.jsonl", "my+chat.jsonl", "mý chat.jsonl"] {
        let f = env.write(name, &body);
        compact_in_place(&env, &f);
    }
    let got = ids(&env);
    assert_eq!(got.len(), 3, "{got:?}");
    assert!(got.iter().all(|i| !i.starts_with("stdin")), "{got:?}");
}

#[cfg(unix)]
#[test]
fn in_place_through_a_symlink_keeps_the_link() {
    let env = TestEnv::new();
    let real = env.write("real.jsonl", fs::read(sample("plain.jsonl")).unwrap());
    let link = env.path().join("link.jsonl");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    compact_in_place(&env, &link);
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_ne!(
        fs::read(&real).unwrap(),
        fs::read(sample("plain.jsonl")).unwrap()
    );
}
