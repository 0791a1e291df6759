//! Compressed archives (the default; `--compress none`, `CTXCTL_ARCHIVE_COMPRESS=none` or
//! `[archive] compress = "none"` writes plain ones): written as `.json.zst`, private and
//! smaller, and read by every archive command as plain ones are, alone or mixed with plain
//! archives in one store.

use std::fs;
use std::path::PathBuf;

use crate::support::{s, sample, TestEnv};

const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// Compacts a copy of sample `name` in place (archived first).
fn compact(env: &TestEnv, name: &str) {
    let f = env.write(name, fs::read(sample(name)).unwrap());
    let run = env.run(&[
        "compact",
        "--in-place",
        s(&f),
        "--model",
        "gpt-4o",
        "--tail-tokens",
        "300",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
}

fn archive_files(env: &TestEnv, session: &str) -> Vec<PathBuf> {
    let dir = env.data_dir().join("archives").join(session);
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    v.sort();
    v
}

#[test]
fn zstd_archives_are_smaller_private_and_restore_byte_for_byte() {
    let plain = TestEnv::new().env("CTXCTL_ARCHIVE_COMPRESS", "none");
    compact(&plain, "plain.jsonl");
    let zstd = TestEnv::new();
    compact(&zstd, "plain.jsonl");

    let [p] = &archive_files(&plain, "plain")[..] else {
        panic!("one plain archive")
    };
    let [z] = &archive_files(&zstd, "plain")[..] else {
        panic!("one compressed archive")
    };
    assert!(s(p).ends_with("-1.json"), "{p:?}");
    assert!(s(z).ends_with("-1.json.zst"), "{z:?}");
    let zbytes = fs::read(z).unwrap();
    assert_eq!(zbytes[..4], ZSTD_MAGIC);
    assert!(zbytes.len() < fs::metadata(p).unwrap().len() as usize);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(z), 0o600);
        assert_eq!(mode(z.parent().unwrap()), 0o700);
    }

    // `archive show` reads the same archive out of either file.
    let show = |env: &TestEnv| {
        let run = env.run(&["archive", "show", "plain/1", "--json"]);
        assert_eq!(run.code, 0, "{run:?}");
        let v = run.json();
        // Paths, and the compacted figure (its summary names the archive), differ.
        [
            "id",
            "records",
            "messages",
            "tokens",
            "first_message",
            "original_tokens",
        ]
        .map(|k| v[k].clone())
    };
    assert_eq!(show(&plain), show(&zstd));
    let ls = zstd.run(&["archive", "ls", "--json"]).json();
    assert_eq!(ls[0]["bytes"], zbytes.len() as u64);

    let run = zstd.run(&["archive", "restore", "plain/1", "--model", "gpt-4o"]);
    assert_eq!(run.code, 0, "{run:?}");
    let stored = zstd.path().join("plain.jsonl");
    assert_eq!(
        fs::read(stored).unwrap(),
        fs::read(sample("plain.jsonl")).unwrap()
    );
    // Restored is marked beside the compressed file, as beside a plain one.
    let ls = zstd.run(&["archive", "ls", "--json"]).json();
    assert!(ls[0]["restored"].is_object(), "{ls}");
}

#[test]
fn a_store_mixing_plain_and_compressed_archives_lists_counts_and_prunes_both() {
    let mut env = TestEnv::new().env("CTXCTL_ARCHIVE_COMPRESS", "none");
    compact(&env, "plain.jsonl");
    env.set("CTXCTL_ARCHIVE_COMPRESS", "zstd");
    compact(&env, "plain.jsonl");
    compact(&env, "openai-chat.json");
    let files = archive_files(&env, "plain");
    let names: Vec<String> = files
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(
        names[0].ends_with("-1.json") && names[1].ends_with("-2.json.zst"),
        "{names:?}"
    );

    let ls = crate::json_schema::conforms(&env, "archive_ls", &["archive", "ls"], 0);
    let ids: Vec<&str> = ls
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["openai-chat/1", "plain/1", "plain/2"]);
    for e in ls.as_array().unwrap() {
        let path = PathBuf::from(e["path"].as_str().unwrap());
        assert_eq!(e["bytes"], fs::metadata(&path).unwrap().len(), "{e}");
        assert!(e["messages"].as_u64().unwrap() > 0, "{e}");
    }
    for id in ["plain/1", "plain/2"] {
        let run = env.run(&["archive", "show", id]);
        assert_eq!(run.code, 0, "{run:?}");
    }

    // Compression off again: the next number follows the compressed file's.
    env.set("CTXCTL_ARCHIVE_COMPRESS", "none");
    compact(&env, "plain.jsonl");
    assert!(s(&archive_files(&env, "plain")[2]).ends_with("-3.json"));

    let run = env.run(&["archive", "rm", "plain/2"]);
    assert_eq!(run.code, 0, "{run:?}");
    let run = env.run(&["archive", "prune", "--keep", "1"]);
    assert_eq!(run.code, 0, "{run:?}");
    let left = archive_files(&env, "plain");
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(s(&left[0]).ends_with("-3.json"));
}

#[test]
fn a_bad_compression_setting_is_an_error_and_nothing_is_written() {
    let env = TestEnv::new().env("CTXCTL_ARCHIVE_COMPRESS", "gzip");
    let f = env.write("plain.jsonl", fs::read(sample("plain.jsonl")).unwrap());
    let run = env.run(&[
        "compact",
        s(&f),
        "--model",
        "gpt-4o",
        "--tail-tokens",
        "300",
    ]);
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(run.stderr.lines().count(), 1, "{run:?}");
    assert!(run.stderr.contains("CTXCTL_ARCHIVE_COMPRESS"), "{run:?}");
    assert!(!env.data_dir().join("archives").exists());
    assert!(!env.data_dir().join("sessions").exists());
}

/// `--compress zstd|none` on the command line outranks `CTXCTL_ARCHIVE_COMPRESS` and the
/// config file, for `trim --in-place` and `compact --in-place`, and what it writes restores
/// the session byte for byte.
#[test]
fn the_compress_flag_outranks_env_and_config_and_restores_byte_for_byte() {
    let env = TestEnv::new().env("CTXCTL_ARCHIVE_COMPRESS", "none");
    let cfg = env.write("c.toml", "[archive]\ncompress = \"none\"\n");
    let chat = env.write("chat.jsonl", crate::support::jsonl_chat(40));
    let original = fs::read(&chat).unwrap();
    let common = [
        "--model",
        "gpt-4o",
        "--in-place",
        "--json",
        "--config",
        s(&cfg),
    ];
    let rewrites: [&[&str]; 2] = [
        &[
            "trim",
            s(&chat),
            "--strategy",
            "fifo",
            "--max-tokens",
            "200",
        ],
        &["compact", s(&chat), "--tail-tokens", "100"],
    ];
    for (n, rewrite) in rewrites.iter().enumerate() {
        let args = [*rewrite, &common, &["--compress", "zstd"]].concat();
        let run = env.run(&args);
        assert_eq!(run.code, 0, "{run:?}");
        let archive = PathBuf::from(run.json()["archive"].as_str().unwrap());
        assert!(s(&archive).ends_with(".json.zst"), "{archive:?}");
        assert_eq!(fs::read(&archive).unwrap()[..4], ZSTD_MAGIC);
        assert_ne!(fs::read(&chat).unwrap(), original);
        let id = format!("chat/{}", n + 1);
        let run = env.run(&["archive", "restore", &id, "--model", "gpt-4o"]);
        assert_eq!(run.code, 0, "{run:?}");
        assert_eq!(fs::read(&chat).unwrap(), original, "{id}");
    }
    // `config` says where the choice came from.
    let run = env.run(&["config", "--config", s(&cfg), "--compress", "zstd"]);
    assert!(
        run.stdout
            .lines()
            .any(|l| l.starts_with("archive.compress") && l.ends_with("flag")),
        "{run:?}"
    );

    // And `--compress none` turns compression off that the environment turns on.
    let env = TestEnv::new().env("CTXCTL_ARCHIVE_COMPRESS", "zstd");
    let chat = env.write("chat.jsonl", crate::support::jsonl_chat(40));
    let run = env.run(&[
        "compact",
        s(&chat),
        "--tail-tokens",
        "100",
        "--model",
        "gpt-4o",
        "--in-place",
        "--json",
        "--compress",
        "none",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.json()["archive"].as_str().unwrap().ends_with("-1.json"));
    // A value the flag does not know is a usage error naming the choices.
    let run = env.run(&["compact", s(&chat), "--compress", "gzip"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains("zstd") && run.stderr.contains("none"),
        "{run:?}"
    );
}
