//! The bundled sample sessions: one per supported format, each detected as its format,
//! structurally sound, and written back byte for byte by a trim that removes nothing.

use crate::support::{repo, s, sample, TestEnv};

/// Every file in sample-sessions/ and the format ctxctl must detect in it.
const SAMPLES: [(&str, &str); 6] = [
    ("openai-chat.json", "openai"),
    ("anthropic-messages.json", "anthropic"),
    ("plain.jsonl", "jsonl"),
    ("claude-code.jsonl", "claude-code"),
    ("codex.jsonl", "codex"),
    ("goose.jsonl", "goose"),
];

#[test]
fn every_sample_is_listed_here() {
    let mut names: Vec<String> = std::fs::read_dir(repo().join("sample-sessions"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let mut listed: Vec<String> = SAMPLES.iter().map(|(n, _)| n.to_string()).collect();
    listed.sort();
    assert_eq!(names, listed, "sample-sessions/ and SAMPLES differ");
}

#[test]
fn samples_are_detected_as_their_format() {
    let env = TestEnv::new();
    for (name, format) in SAMPLES {
        let run = env.run(&["count", s(&sample(name)), "--json"]);
        assert_eq!(run.code, 0, "{name}: {run:?}");
        let file = &run.json()["files"][0];
        assert_eq!(file["format"], format, "{name}");
        assert!(file["messages"].as_u64().unwrap() >= 10, "{name}: {file}");
    }
}

#[test]
fn samples_have_no_structural_problems() {
    let env = TestEnv::new();
    for (name, _) in SAMPLES {
        let run = env.run(&["check", s(&sample(name)), "--json"]);
        assert_eq!(run.code, 0, "{name}: {run:?}");
        let v = run.file();
        assert_eq!(v["status"], "ok", "{name}: {v}");
        assert_eq!(v["problems"], serde_json::json!([]), "{name}: {v}");
    }
}

#[test]
fn a_trim_that_removes_nothing_leaves_each_sample_byte_identical() {
    let env = TestEnv::new();
    for (name, _) in SAMPLES {
        let out = env.path().join(format!("out-{name}"));
        let run = env.run(&[
            "trim",
            s(&sample(name)),
            "--strategy",
            "fifo",
            "--max-tokens",
            "10000000",
            "-o",
            s(&out),
            "--json",
        ]);
        assert_eq!(run.code, 0, "{name}: {run:?}");
        assert_eq!(run.json()["removed_messages"], 0, "{name}");
        let before = std::fs::read(sample(name)).unwrap();
        let after = std::fs::read(&out).unwrap();
        assert!(
            before == after,
            "{name}: the rewrite differs from the input"
        );
    }
}

/// The agent samples carry what makes those formats hard: a Claude Code response split over
/// several records, Codex reasoning with encrypted content, a goose metadata line, and
/// provider-reported usage that `count` shows beside its own figure.
#[test]
fn agent_samples_exercise_their_formats_tricky_parts() {
    let text = |name: &str| std::fs::read_to_string(sample(name)).unwrap();
    let claude = text("claude-code.jsonl");
    let ids: Vec<&str> = claude
        .lines()
        .filter_map(|l| l.split("\"id\":\"msg_").nth(1))
        .map(|rest| &rest[..22])
        .collect();
    let first = ids[0];
    assert!(ids.iter().filter(|i| **i == first).count() >= 3, "{ids:?}");
    assert!(claude.contains("\"type\":\"thinking\"") && claude.contains("\"toolUseResult\""));
    let codex = text("codex.jsonl");
    assert!(codex.contains("\"encrypted_content\":\"gAAAA"));
    assert!(codex.starts_with("{\"timestamp\"") && codex.contains("\"type\":\"session_meta\""));
    let goose = text("goose.jsonl");
    assert!(goose.starts_with("{\"working_dir\":"));
    assert!(goose.contains("\"toolRequest\"") && goose.contains("\"toolResponse\""));

    let env = TestEnv::new();
    for name in ["claude-code.jsonl", "codex.jsonl", "goose.jsonl"] {
        let v = env.run(&["count", s(&sample(name)), "--json"]).json();
        let reported = &v["files"][0]["reported"];
        assert!(
            reported["input_tokens"].as_u64().unwrap() > 0,
            "{name}: {v}"
        );
    }
    // One API response split over three records counts as one assistant message.
    let v = env
        .run(&[
            "count",
            s(&sample("claude-code.jsonl")),
            "--per-message",
            "--json",
        ])
        .json();
    let roles: Vec<&str> = v["files"][0]["per_message"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(&roles[..3], ["user", "assistant", "user"], "{roles:?}");
}

/// scripts/make-samples.py, run in a scratch copy, writes exactly the checked-in samples (so
/// they can be regenerated, and nobody edits one by hand without the script).
#[test]
#[allow(clippy::print_stderr)] // says loudly when python3 is missing and nothing was checked
fn make_samples_reproduces_the_samples() {
    let env = TestEnv::new();
    let scripts = env.path().join("scripts");
    std::fs::create_dir_all(&scripts).unwrap();
    for name in ["make-samples.py", "agent_samples.py"] {
        std::fs::copy(repo().join("scripts").join(name), scripts.join(name)).unwrap();
    }
    let out = match std::process::Command::new("python3")
        .arg(scripts.join("make-samples.py"))
        .output()
    {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!("python3 not found: make_samples_reproduces_the_samples checked nothing");
            return;
        }
        Err(e) => panic!("python3: {e}"),
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (name, _) in SAMPLES {
        let made = std::fs::read(env.path().join("sample-sessions").join(name)).unwrap();
        let kept = std::fs::read(sample(name)).unwrap();
        assert!(
            made == kept,
            "sample-sessions/{name} differs from what scripts/make-samples.py writes"
        );
    }
}

/// scripts/gen-session.py (the benchmarks' session generator) answers --help, refuses a
/// missing size, and writes a session ctxctl reads.
#[test]
#[allow(clippy::print_stderr)] // says loudly when python3 is missing and nothing was checked
fn gen_session_has_help_and_writes_a_session() {
    let env = TestEnv::new();
    let script = repo().join("scripts/gen-session.py");
    let py = |args: &[&str]| {
        std::process::Command::new("python3")
            .arg(&script)
            .args(args)
            .current_dir(env.path())
            .output()
    };
    let help = match py(&["--help"]) {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!(
                "python3 not found: gen_session_has_help_and_writes_a_session checked nothing"
            );
            return;
        }
        Err(e) => panic!("python3: {e}"),
    };
    assert!(help.status.success(), "{help:?}");
    assert!(String::from_utf8_lossy(&help.stdout).contains("TOKENS"));
    let bare = py(&[]).unwrap();
    assert_eq!(bare.status.code(), Some(2), "{bare:?}");
    assert!(String::from_utf8_lossy(&bare.stderr).contains("required"));
    let made = py(&["3000", "g.jsonl", "--seed", "1"]).unwrap();
    assert!(made.status.success(), "{made:?}");
    let run = env.run(&["count", "g.jsonl", "--model", "gpt-4o", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.file()["tokens"].as_u64().unwrap() > 1000, "{run:?}");
}
