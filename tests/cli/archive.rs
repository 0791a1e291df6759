use std::fs;

use crate::support::{s, sample, TestEnv};

/// Puts sample `name` in the store and compacts it there (`--name`: in place, archived).
fn compact_sample(env: &TestEnv, name: &str) -> std::path::PathBuf {
    let f = env.data_dir().join("sessions").join(name);
    fs::create_dir_all(f.parent().unwrap()).unwrap();
    fs::write(&f, fs::read(sample(name)).unwrap()).unwrap();
    let stem = name.split('.').next().unwrap();
    let run = env.run(&[
        "compact",
        "--name",
        stem,
        "--model",
        "gpt-4o",
        "--tail-tokens",
        "300",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    f
}

#[test]
fn ls_is_empty_at_first() {
    let env = TestEnv::new();
    let run = env.run(&["archive", "ls"]);
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!(env.snap(&run));
    let run = env.run(&["archive", "ls", "--json"]);
    assert_eq!(run.json(), serde_json::json!([]));
}

#[test]
fn ls_lists_every_session_in_order_with_the_contract_fields() {
    // Plain archives: a compressed one's size moves with its random compaction id.
    let env = TestEnv::new().env("CTXCTL_ARCHIVE_COMPRESS", "none");
    compact_sample(&env, "plain.jsonl");
    compact_sample(&env, "openai-chat.json");
    let v = env.run(&["archive", "ls", "--json"]).json();
    let ids: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["openai-chat/1", "plain/1"]);
    let e = &v[1];
    let keys: Vec<&str> = e.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "id",
            "session",
            "seq",
            "timestamp",
            "path",
            "messages",
            "tokens",
            "bytes",
            "restored"
        ]
    );
    assert_eq!(e["session"], "plain");
    assert_eq!(e["seq"], 1);
    assert_eq!(e["timestamp"], "2026-01-02T03:04:05Z");
    let path = std::path::PathBuf::from(e["path"].as_str().unwrap());
    assert_eq!(e["bytes"], fs::metadata(&path).unwrap().len());
    assert!(e["messages"].as_u64().unwrap() > 0 && e["tokens"].as_u64().unwrap() > 0);

    let only = env.run(&["archive", "ls", "plain", "--json"]).json();
    assert_eq!(only.as_array().unwrap().len(), 1);
    let human = env.run(&["archive", "ls"]);
    insta::assert_snapshot!("ls", env.snap(&human));
    let human = env.run(&["archive", "ls", "plain"]);
    insta::assert_snapshot!("ls_plain", env.snap(&human));
}

#[test]
fn show_prints_the_facts_and_the_records() {
    let env = TestEnv::new();
    compact_sample(&env, "plain.jsonl");
    let run = env.run(&["archive", "show", "plain/1"]);
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!(env.snap(&run));
    let v = env.run(&["archive", "show", "plain/1", "--json"]).json();
    assert_eq!(v["id"], "plain/1");
    assert_eq!(
        v["records"].as_array().unwrap().len() as u64,
        v["messages"].as_u64().unwrap()
    );
    assert_eq!(v["records"][0]["role"], "user");
}

#[test]
fn restore_undoes_a_compaction_byte_for_byte_in_every_format() {
    let env = TestEnv::new();
    for name in ["openai-chat.json", "anthropic-messages.json", "plain.jsonl"] {
        compact_sample(&env, name);
        let stored = env.data_dir().join("sessions").join(name);
        assert_ne!(fs::read(&stored).unwrap(), fs::read(sample(name)).unwrap());
        let id = format!("{}/1", name.split('.').next().unwrap());
        let run = env.run(&["archive", "restore", &id, "--model", "gpt-4o", "--json"]);
        assert_eq!(run.code, 0, "{name}: {run:?}");
        let v = run.json();
        assert_eq!(v["restored"], true);
        assert!(
            v["restored_tokens"].as_u64() > v["original_tokens"].as_u64(),
            "{v}"
        );
        assert_eq!(
            fs::read(&stored).unwrap(),
            fs::read(sample(name)).unwrap(),
            "{name}"
        );
        // Restored already: a second restore is a note, not an error.
        let again = env.run(&["archive", "restore", &id, "--model", "gpt-4o"]);
        assert_eq!(again.code, 0, "{again:?}");
        insta::assert_snapshot!(format!("restore_again_{name}"), env.snap(&again));
    }
}

#[test]
fn restore_keeps_messages_added_after_the_compaction() {
    let env = TestEnv::new();
    compact_sample(&env, "plain.jsonl");
    let stored = env.data_dir().join("sessions/plain.jsonl");
    let extra = "{\"role\":\"user\",\"content\":\"one more thing\"}\n";
    let mut text = fs::read_to_string(&stored).unwrap();
    text.push_str(extra);
    fs::write(&stored, text).unwrap();
    let run = env.run(&["archive", "restore", "plain/1", "--model", "gpt-4o"]);
    assert_eq!(run.code, 0, "{run:?}");
    let want = fs::read_to_string(sample("plain.jsonl")).unwrap() + extra;
    assert_eq!(fs::read_to_string(&stored).unwrap(), want);
}

#[test]
fn a_twice_compacted_session_is_restored_newest_first() {
    let env = TestEnv::new();
    compact_sample(&env, "plain.jsonl");
    let stored = env.data_dir().join("sessions/plain.jsonl");
    let run = env.run(&[
        "compact",
        "--name",
        "plain",
        "--model",
        "gpt-4o",
        "--tail-tokens",
        "60",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let run = env.run(&["archive", "restore", "plain/1", "--model", "gpt-4o"]);
    assert_eq!(run.code, 2, "{run:?}");
    insta::assert_snapshot!("restore_older_first", env.snap(&run));
    for id in ["plain/2", "plain/1"] {
        let run = env.run(&["archive", "restore", id, "--model", "gpt-4o"]);
        assert_eq!(run.code, 0, "{id}: {run:?}");
        insta::assert_snapshot!(format!("restore_{}", id.replace('/', "_")), env.snap(&run));
    }
    assert_eq!(
        fs::read(&stored).unwrap(),
        fs::read(sample("plain.jsonl")).unwrap()
    );
}

#[test]
fn restore_dry_run_and_other_outputs_leave_the_session_alone() {
    let env = TestEnv::new();
    compact_sample(&env, "plain.jsonl");
    let stored = env.data_dir().join("sessions/plain.jsonl");
    let compacted = fs::read(&stored).unwrap();
    let run = env.run(&[
        "archive",
        "restore",
        "plain/1",
        "--dry-run",
        "--model",
        "gpt-4o",
    ]);
    assert_eq!(run.code, 1, "{run:?}");
    insta::assert_snapshot!("restore_dry_run", env.snap(&run));
    let out = env.path().join("restored.jsonl");
    let run = env.run(&[
        "archive",
        "restore",
        "plain/1",
        "-o",
        s(&out),
        "--model",
        "gpt-4o",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(fs::read(&stored).unwrap(), compacted);
    assert_eq!(
        fs::read(&out).unwrap(),
        fs::read(sample("plain.jsonl")).unwrap()
    );
    // An explicit FILE to restore into.
    let copy = env.write("copy.jsonl", &compacted);
    let run = env.run(&[
        "archive",
        "restore",
        "plain/1",
        s(&copy),
        "--model",
        "gpt-4o",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        fs::read(&copy).unwrap(),
        fs::read(sample("plain.jsonl")).unwrap()
    );
}

#[test]
fn bad_and_unknown_ids_are_errors() {
    let env = TestEnv::new();
    for (name, args) in [
        ("show_no_seq", vec!["archive", "show", "plain"]),
        ("show_path", vec!["archive", "show", "../x/1"]),
        ("show_unknown", vec!["archive", "show", "plain/1"]),
        ("restore_seq_0", vec!["archive", "restore", "plain/0"]),
        ("ls_hidden_name", vec!["archive", "ls", ".hidden"]),
    ] {
        let run = env.run(&args);
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        insta::assert_snapshot!(name, env.snap(&run));
    }
}

#[test]
fn restore_undoes_a_trim_in_place_byte_for_byte_in_every_format() {
    let env = TestEnv::new();
    for name in [
        "openai-chat.json",
        "anthropic-messages.json",
        "plain.jsonl",
        "claude-code.jsonl",
        "codex.jsonl",
        "goose.jsonl",
    ] {
        let f = env.write(name, fs::read(sample(name)).unwrap());
        let trim = env.run(&[
            "trim",
            s(&f),
            "--strategy",
            "smart",
            "--keep-last",
            "4",
            "--max-tokens",
            "900",
            "--in-place",
            "--tokenizer",
            "approx",
        ]);
        assert_eq!(trim.code, 0, "{name}: {trim:?}");
        let trimmed = fs::read(&f).unwrap();
        assert_ne!(trimmed, fs::read(sample(name)).unwrap(), "{name}");
        let id = format!("{}/1", name.split('.').next().unwrap());
        let run = env.run(&["archive", "restore", &id, "--tokenizer", "approx"]);
        assert_eq!(run.code, 0, "{name}: {run:?}");
        assert_eq!(
            fs::read(&f).unwrap(),
            fs::read(sample(name)).unwrap(),
            "{name}"
        );
        // Restored already: said so, nothing written.
        let again = env.run(&["archive", "restore", &id, "--tokenizer", "approx"]);
        assert_eq!(again.code, 0, "{again:?}");
        assert!(again.stderr.contains("already restored"), "{again:?}");
        // A session changed after the trim (an agent resumed it) is not overwritten.
        fs::write(&f, [trimmed.as_slice(), b"\n"].concat()).unwrap();
        let changed = env.run(&[
            "archive",
            "restore",
            &id,
            "--tokenizer",
            "approx",
            "--force",
        ]);
        assert_eq!(changed.code, 2, "{changed:?}");
        assert!(
            changed.stderr.contains("no longer what the trim wrote"),
            "{changed:?}"
        );
    }
}
