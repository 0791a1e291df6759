//! Half of a UTF-16 surrogate pair written as JavaScript writes it (`"\ud83d"`): strict
//! JSON parsers refuse the file; ctxctl reads it as U+FFFD, says so, calls a Claude Code
//! session whose agent sends it as it is broken, and `trim --in-place` writes it mended.

use crate::support::{s, sample, TestEnv};

/// The sample Claude Code transcript with a lone high surrogate at the end of its first
/// tool result, every record naming agent version `version`; the line it is on (1-based).
fn bent(version: &str) -> (String, usize) {
    let text = std::fs::read_to_string(sample("claude-code.jsonl")).unwrap();
    let text = text.replace(
        "\"version\":\"2.1.38\"",
        &format!("\"version\":\"{version}\""),
    );
    let key = "\"type\":\"tool_result\",\"content\":\"";
    let at = text.find(key).unwrap() + key.len();
    let line = text[..at].matches('\n').count() + 1;
    (format!("{}\\ud83d{}", &text[..at], &text[at..]), line)
}

#[test]
fn a_lone_half_is_read_as_the_replacement_character_and_named() {
    let env = TestEnv::new();
    let (text, line) = bent("2.1.38");
    let file = env.write("s.jsonl", &text);
    let whole = env.write("whole.jsonl", text.replace("\\ud83d", "\\ufffd"));
    for command in ["count", "stats"] {
        let run = env.run(&[command, s(&file), "--json"]);
        assert_eq!(run.code, 0, "{run:?}");
        assert_eq!(run.stderr.lines().count(), 1, "{run:?}");
        assert!(
            run.stderr.contains(&format!(
                "s.jsonl: line {line}: 1 lone UTF-16 surrogate escape(s)"
            )),
            "{run:?}"
        );
        // Counted as the same file with U+FFFD in its place.
        let mended = env.run(&[command, s(&whole), "--json"]);
        let strip = |v: serde_json::Value| v.to_string().replace("whole.jsonl", "s.jsonl");
        assert_eq!(strip(run.json()), strip(mended.json()), "{command}");
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text, "read-only");
}

#[test]
fn check_calls_it_broken_where_the_agent_sends_it_as_it_is() {
    let env = TestEnv::new();
    // Claude Code before 2.1.132 sends the half and the API refuses every request.
    let (old, line) = bent("2.1.100");
    let file = env.write("old.jsonl", &old);
    let run = env.run(&["check", s(&file), "--json"]);
    assert_eq!(run.code, 1, "{run:?}");
    let f = run.file();
    assert_eq!(f["status"], "broken");
    let problems = f["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    let p = problems[0].as_str().unwrap();
    assert!(
        p.starts_with(&format!("line {line}: 1 lone UTF-16 surrogate")) && p.contains("trim"),
        "{p}"
    );
    // From 2.1.132 Claude Code mends it as it loads the session: a warning, no problem.
    let (new, _) = bent("2.1.197");
    let file = env.write("new.jsonl", &new);
    let run = env.run(&["check", s(&file), "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.file()["status"], "ok");
    assert!(run.stderr.contains("lone UTF-16 surrogate"), "{run:?}");
}

#[test]
fn trim_in_place_writes_it_mended_and_keeps_every_other_record() {
    // As read into memory, and with the file large enough to be mapped (a mapping cannot be
    // mended in place: such a file is read instead).
    trim_mends(TestEnv::new());
    trim_mends(TestEnv::new().env("CTXCTL_TEST_MAP_FROM", "0"));
}

fn trim_mends(env: TestEnv) {
    let (text, line) = bent("2.1.100");
    let file = env.write("s.jsonl", &text);
    let run = env.run(&["trim", "--strategy", "fifo", "--in-place", s(&file)]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr
            .contains("s.jsonl: wrote 1 lone UTF-16 surrogate escape(s) as U+FFFD"),
        "{run:?}"
    );
    let after = std::fs::read_to_string(&file).unwrap();
    let (before, after): (Vec<&str>, Vec<&str>) = (text.lines().collect(), after.lines().collect());
    assert_eq!(before.len(), after.len());
    for (k, (b, a)) in before.iter().zip(&after).enumerate() {
        if k + 1 == line {
            assert_eq!(*a, b.replace("\\ud83d", "\\ufffd"));
        } else {
            assert_eq!(a, b, "line {}", k + 1);
        }
    }
    let run = env.run(&["check", s(&file)]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.is_empty(), "{run:?}");
    // Nothing else to trim: the mended file is left alone.
    let run = env.run(&["trim", "--strategy", "fifo", "--in-place", s(&file)]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("nothing to trim"), "{run:?}");
}
