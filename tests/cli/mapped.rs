//! A large agent transcript is mapped from its file for a rewrite rather than read into
//! memory (issue #43). Forced onto small files here (`CTXCTL_TEST_MAP_FROM=0`), every
//! rewrite of a Codex rollout writes, archives and restores exactly what it does from the
//! file read whole; a rollout holding a lone surrogate is read, not mapped, and mended;
//! one Codex appends to while it is mapped is read again, what Codex wrote kept.

use std::fs;
use std::io::Write as _;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::{archive_bytes, archives, fixture, s, sample, Run, TestEnv};

/// Codex rollouts of each kind: 0.169's paginated ones, one Codex compacted itself, the
/// bundled sample, and a legacy one (rewritten line by line).
const ROLLOUTS: [&str; 3] = [
    "realclients/codex/realclient_v0.169_rollout_tasks.jsonl",
    "realclients/codex/realclient_v0.169_rollout_self_compacted.jsonl",
    "codex/acidicsoil_rollout_v0.58.0_cli.jsonl",
];

/// What one environment made of `bytes`: each output file, report and archive, the
/// environment's own directory and the compactions' random ids masked.
fn rewrites(env: &TestEnv, bytes: &[u8]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mask = |text: &[u8]| {
        let text = String::from_utf8_lossy(text).replace(&env.path().display().to_string(), "ENV");
        // Compaction ids are random: `"compact_id":"…"` (also pretty-printed).
        let mut masked = String::with_capacity(text.len());
        let mut rest = text.as_str();
        while let Some(at) = rest.find("\"compact_id\":") {
            let (head, tail) = rest.split_at(at + "\"compact_id\":".len());
            masked.push_str(head);
            let tail = tail.trim_start();
            let end = tail[1..].find('"').map_or(tail.len(), |e| e + 2);
            masked.push_str("\"ID\"");
            rest = &tail[end..];
        }
        masked.push_str(rest);
        masked
    };
    let file = env.write("s.jsonl", bytes);
    for (name, args) in [
        (
            "trim",
            &["trim", "--strategy", "fifo", "--max-tokens", "1000"][..],
        ),
        ("compact", &["compact", "--max-tokens", "1000"][..]),
    ] {
        let o = env.path().join(format!("{name}.jsonl"));
        let run = env.run(&[args, &["--json", "-o", s(&o), s(&file)]].concat());
        assert_eq!(run.code, 0, "{name}: {run:?}");
        out.push((format!("{name} -o"), mask(&fs::read(&o).unwrap())));
        out.push((format!("{name} -o report"), mask(run.stdout.as_bytes())));
        // In place, then restored: the file after each, the archive and the reports.
        let run = env.run(&[args, &["--json", "--in-place", s(&file)]].concat());
        assert_eq!(run.code, 0, "{name} --in-place: {run:?}");
        out.push((
            format!("{name} --in-place"),
            mask(&fs::read(&file).unwrap()),
        ));
        out.push((
            format!("{name} --in-place report"),
            mask(run.stdout.as_bytes()),
        ));
        let id = run.json()["archive_id"].as_str().map(str::to_string);
        let id = id.unwrap_or_else(|| panic!("{name} --in-place archived: {run:?}"));
        let run = env.run(&["archive", "restore", &id, "--json"]);
        assert_eq!(run.code, 0, "{name} restore: {run:?}");
        out.push((format!("{name} restored"), mask(&fs::read(&file).unwrap())));
        out.push((
            format!("{name} restore report"),
            mask(run.stdout.as_bytes()),
        ));
    }
    for a in archives(env, "s") {
        out.push((a.display().to_string(), mask(&archive_bytes(&a))));
    }
    out
}

#[test]
fn a_mapped_codex_rollout_is_rewritten_as_one_read_whole() {
    let texts = ROLLOUTS
        .iter()
        .map(|rel| (rel.to_string(), fs::read(fixture(rel)).unwrap()))
        .chain([(
            "sample".to_string(),
            fs::read(sample("codex.jsonl")).unwrap(),
        )]);
    for (name, bytes) in texts {
        let read = TestEnv::new();
        let mapped = TestEnv::new().env("CTXCTL_TEST_MAP_FROM", "0");
        // The mapped way is the one taken.
        let probe = mapped.write("probe.jsonl", &bytes);
        let o = mapped.path().join("probe-out.jsonl");
        let run = mapped.run(&[
            "trim",
            "--strategy",
            "fifo",
            "--max-tokens",
            "2000",
            "-vv",
            "-o",
            s(&o),
            s(&probe),
        ]);
        assert_eq!(run.code, 0, "{name}: {run:?}");
        assert!(
            run.stderr.contains("mapped from the file"),
            "{name}: {run:?}"
        );
        let (a, b) = (rewrites(&read, &bytes), rewrites(&mapped, &bytes));
        assert_eq!(a.len(), b.len(), "{name}");
        assert!(a.len() > 12, "{name}: archives made");
        for ((what, x), (_, y)) in a.iter().zip(&b) {
            let what = what.replace(&read.path().display().to_string(), "ENV");
            assert!(x == y, "{name}: {what} differs when mapped");
        }
        // Restored byte for byte, both ways.
        assert_eq!(
            fs::read(read.path().join("s.jsonl")).unwrap(),
            bytes,
            "{name}"
        );
        assert_eq!(
            fs::read(mapped.path().join("s.jsonl")).unwrap(),
            bytes,
            "{name}"
        );
    }
}

#[test]
fn a_codex_rollout_with_a_lone_surrogate_is_read_not_mapped_and_mended() {
    let env = TestEnv::new().env("CTXCTL_TEST_MAP_FROM", "0");
    let text = fs::read_to_string(sample("codex.jsonl")).unwrap();
    let key = "\"text\":\"The CI run";
    let at = text.find(key).unwrap() + "\"text\":\"".len();
    let bent = format!("{}\\ud83d{}", &text[..at], &text[at..]);
    let file = env.write("s.jsonl", &bent);
    let run = env.run(&["trim", "--strategy", "fifo", "--in-place", "-vv", s(&file)]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(!run.stderr.contains("mapped from the file"), "{run:?}");
    assert!(
        run.stderr
            .contains("s.jsonl: wrote 1 lone UTF-16 surrogate escape(s) as U+FFFD"),
        "{run:?}"
    );
    let after = fs::read_to_string(&file).unwrap();
    assert!(
        after.starts_with(&bent.replace("\\ud83d", "\\ufffd")),
        "mended, every other byte kept"
    );
    // The pair half is gone: the file reads without a word.
    let run = env.run(&["check", s(&file)]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(!run.stderr.contains("surrogate"), "{run:?}");
}

#[test]
fn a_mapped_rollout_codex_appends_to_meanwhile_is_read_again_and_kept() {
    let env = TestEnv::new().env("CTXCTL_TEST_MAP_FROM", "0");
    let bytes = fs::read(sample("codex.jsonl")).unwrap();
    let file = env.write("s.jsonl", &bytes);
    let marker = env.write("hold-marker", "");
    let child = env
        .command(&[
            "compact",
            "--in-place",
            "--tail-tokens",
            "300",
            "-vv",
            s(&file),
        ])
        .env("CTXCTL_TEST_HOLD_BEFORE_REPLACE", s(&marker))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Once the originals are archived, ctxctl holds before its last check of the file.
    let deadline = Instant::now() + Duration::from_secs(120);
    while archives(&env, "s").is_empty() {
        assert!(
            Instant::now() < deadline,
            "ctxctl never archived the rollout"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    // Codex appends a turn to the mapped file meanwhile.
    let line = br#"{"timestamp":"2026-01-02T03:04:06Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"the agent is still writing"}]}}"#;
    let mut f = fs::File::options().append(true).open(&file).unwrap();
    f.write_all(line).unwrap();
    f.write_all(b"\n").unwrap();
    drop(f);
    fs::remove_file(&marker).unwrap();
    let run = Run::from(child.wait_with_output().unwrap());
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("mapped from the file"), "{run:?}");
    assert!(run.stderr.contains("reading it again"), "{run:?}");
    // A Codex compaction only appends: the file as Codex left it, then the compaction.
    let mut grown = bytes.clone();
    grown.extend_from_slice(line);
    grown.push(b'\n');
    let after = fs::read(&file).unwrap();
    assert!(
        after.starts_with(&grown),
        "what Codex wrote is kept as it was"
    );
    assert!(after.len() > grown.len(), "compacted: {run:?}");
    // The first pass's archive was taken back; the second's undoes what was written.
    assert_eq!(archives(&env, "s").len(), 1, "{run:?}");
    let run = env.run(&["archive", "restore", "s/1"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        fs::read(&file).unwrap(),
        grown,
        "restored to what Codex wrote"
    );
    let run = env.run(&["check", s(&file)]);
    assert_eq!(run.code, 0, "{run:?}");
}
