//! Hostile input for the read-only commands (`count`, `check`, `stats`): every case ends in
//! a clear error (exit 2, one line naming the file and the place) or a documented tolerant
//! behaviour, never a panic, and never a change to the input file (its hash is compared).

use std::path::{Path, PathBuf};

use crate::support::{s, Run, TestEnv};

const COMMANDS: [&str; 3] = ["count", "check", "stats"];

/// Fast, offline counting for every run here.
const OPTS: [&str; 4] = ["--model", "gpt-4o", "--tokenizer", "approx"];

/// The content hash of a file (`None` when it cannot be read).
fn hash(path: &Path) -> Option<u128> {
    std::fs::read(path)
        .ok()
        .map(|b| xxhash_rust::xxh3::xxh3_128(&b))
}

/// Runs `command` on `file` with `extra` arguments: no panic, and the file unchanged.
fn run_on(env: &TestEnv, command: &str, file: &Path, extra: &[&str]) -> Run {
    let before = hash(file);
    let mut args = vec![command, s(file)];
    args.extend(OPTS);
    args.extend(extra);
    let run = env.run(&args);
    assert!(
        !run.stderr.contains("panicked") && run.code != 101,
        "{command} panicked: {run:?}"
    );
    assert_eq!(hash(file), before, "{command} changed {}", file.display());
    run
}

/// All three commands on `file`; each must fail with exit 2 and the same one line on
/// stderr. Returns that line as a snapshot shows it (it must name the file and the place).
fn rejected(env: &TestEnv, file: &Path) -> String {
    let mut first: Option<Run> = None;
    for command in COMMANDS {
        let run = run_on(env, command, file, &[]);
        assert_eq!(run.code, 2, "{command}: {run:?}");
        assert!(run.stdout.is_empty(), "{command}: {run:?}");
        assert_eq!(run.stderr.lines().count(), 1, "{command}: {run:?}");
        if let Some(first) = &first {
            assert_eq!(run.stderr, first.stderr, "{command}");
        }
        first.get_or_insert(run);
    }
    env.redact(&first.unwrap().stderr)
}

/// [`rejected`] for each of `files`, as one snapshot: a line per file.
fn all_rejected(env: &TestEnv, files: &[PathBuf]) -> String {
    files.iter().map(|f| rejected(env, f)).collect()
}

/// All three commands on `file`; each must succeed. Returns the `count --json` output.
fn accepted(env: &TestEnv, file: &Path) -> serde_json::Value {
    for command in ["check", "stats"] {
        let run = run_on(env, command, file, &[]);
        assert!(run.code == 0 || run.code == 1, "{command}: {run:?}");
        assert!(!run.stdout.is_empty(), "{command}: {run:?}");
    }
    let run = run_on(env, "count", file, &["--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.json();
    v["files"][0].clone()
}

/// Like [`accepted`], also returning stderr (warnings) of a plain `count`, as a snapshot
/// shows it.
fn accepted_with_warnings(env: &TestEnv, file: &Path) -> (serde_json::Value, String) {
    let v = accepted(env, file);
    let run = run_on(env, "count", file, &[]);
    (v, env.redact(&run.stderr))
}

#[test]
fn truncated_json_document() {
    let env = TestEnv::new();
    let f = env.write(
        "cut.json",
        "{\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"hello\"},\n    {\"role\": \"assis",
    );
    insta::assert_snapshot!(rejected(&env, &f));
}

/// One complete record per agent format, and the message count it gives.
fn agent_sessions() -> Vec<(&'static str, String, u64)> {
    let claude = [
        r#"{"parentUuid":null,"isSidechain":false,"sessionId":"s","type":"user","uuid":"u1","timestamp":"t","message":{"role":"user","content":"hi there"}}"#,
        r#"{"parentUuid":"u1","isSidechain":false,"sessionId":"s","type":"assistant","uuid":"a1","timestamp":"t","message":{"id":"m1","model":"claude-x","role":"assistant","content":[{"type":"text","text":"hello"}]}}"#,
    ];
    let codex = [
        r#"{"timestamp":"t","type":"session_meta","payload":{"id":"x","instructions":"be brief"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi there"}]}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hello"}]}}"#,
    ];
    let goose = [
        r#"{"working_dir":"/x","description":"d","message_count":2}"#,
        r#"{"id":null,"role":"user","created":1,"content":[{"type":"text","text":"hi there"}]}"#,
        r#"{"id":null,"role":"assistant","created":2,"content":[{"type":"text","text":"hello"}]}"#,
    ];
    let plain = [
        r#"{"role":"user","content":"hi there"}"#,
        r#"{"role":"assistant","content":"hello"}"#,
    ];
    vec![
        ("jsonl", plain.join("\n") + "\n", 2),
        ("claude-code", claude.join("\n") + "\n", 2),
        ("codex", codex.join("\n") + "\n", 3),
        ("goose", goose.join("\n") + "\n", 2),
    ]
}

#[test]
fn truncated_last_line_is_read_around_in_every_jsonl_format() {
    let env = TestEnv::new();
    let mut all_warnings = String::new();
    for (format, text, messages) in agent_sessions() {
        let whole = env.write(&format!("{format}-whole.jsonl"), &text);
        let v = accepted(&env, &whole);
        assert_eq!(v["format"], format, "{v}");
        assert_eq!(v["messages"], messages, "{format}: {v}");
        // An agent caught mid-write: half of a record, no newline.
        let cut = env.write(
            &format!("{format}-cut.jsonl"),
            format!("{text}{{\"type\":\"response_item\",\"payload\":{{\"text\":\"hal"),
        );
        let (v, warnings) = accepted_with_warnings(&env, &cut);
        assert_eq!(v["format"], format, "{v}");
        assert_eq!(v["messages"], messages, "{format}: {v}");
        all_warnings.push_str(&warnings);
    }
    // Each names the line after the whole records: the incomplete last one.
    insta::assert_snapshot!(all_warnings);
}

#[test]
fn a_broken_line_that_is_not_the_last_is_an_error_in_every_jsonl_format() {
    let env = TestEnv::new();
    let mut files = Vec::new();
    for (format, text, _) in agent_sessions() {
        let mut lines: Vec<&str> = text.lines().collect();
        let broken = &lines[1][..lines[1].len() / 2];
        lines[1] = broken;
        files.push(env.write(&format!("{format}-mid.jsonl"), lines.join("\n") + "\n"));
    }
    // Each names line 2.
    insta::assert_snapshot!(all_rejected(&env, &files));
}

#[test]
fn invalid_utf8_names_line_and_column() {
    let env = TestEnv::new();
    let f = env.write(
        "latin1.jsonl",
        b"{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"user\",\"content\":\"caf\xe9\"}\n",
    );
    insta::assert_snapshot!("latin1", rejected(&env, &f));
    // A character cut in half at the very end (an agent mid-write) is also invalid UTF-8.
    let f = env.write(
        "cut-char.jsonl",
        b"{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"user\",\"content\":\"caf\xc3",
    );
    insta::assert_snapshot!("cut_char", rejected(&env, &f));
}

#[test]
fn a_bom_is_ignored() {
    let env = TestEnv::new();
    let cases = [
        (
            "a.json",
            r#"[{"role":"user","content":"hello world"}]"#.to_string(),
        ),
        ("a.jsonl", agent_sessions()[0].1.clone()),
        ("c.jsonl", agent_sessions()[1].1.clone()),
    ];
    for (name, text) in cases {
        let plain = env.write(&format!("plain-{name}"), &text);
        let bom = env.write(&format!("bom-{name}"), format!("\u{feff}{text}"));
        let (a, b) = (accepted(&env, &plain), accepted(&env, &bom));
        assert_eq!(a["tokens"], b["tokens"], "{name}");
        assert_eq!(a["messages"], b["messages"], "{name}");
        assert_eq!(a["format"], b["format"], "{name}");
    }
}

#[test]
fn crlf_lines_read_like_lf_lines() {
    let env = TestEnv::new();
    let mut cases: Vec<(String, String)> = agent_sessions()
        .into_iter()
        .map(|(f, t, _)| (format!("{f}.jsonl"), t))
        .collect();
    cases.push((
        "pretty.json".into(),
        "{\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"hi\"}\n  ]\n}\n".into(),
    ));
    for (name, text) in cases {
        let lf = env.write(&format!("lf-{name}"), &text);
        let crlf = env.write(&format!("crlf-{name}"), text.replace('\n', "\r\n"));
        let (a, b) = (accepted(&env, &lf), accepted(&env, &crlf));
        assert_eq!(a["tokens"], b["tokens"], "{name}");
        assert_eq!(a["messages"], b["messages"], "{name}");
        assert_eq!(a["format"], b["format"], "{name}");
    }
}

#[test]
fn empty_directory_missing_files() {
    let env = TestEnv::new();
    let f = env.write("empty.jsonl", b"");
    let dir = env.path().join("dir.json");
    std::fs::create_dir(&dir).unwrap();
    let gone = env.path().join("gone.json");
    insta::assert_snapshot!(all_rejected(&env, &[f, dir, gone]));
}

#[cfg(unix)]
#[test]
#[allow(clippy::print_stderr)] // says why the assertion was skipped
fn permission_denied() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    let f = env.write("secret.json", r#"[{"role":"user","content":"hi"}]"#);
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read(&f).is_ok() {
        // Root reads it anyway: the commands must still work and leave it alone.
        eprintln!("permission_denied: running as root, mode 000 does not stop reads; checking only that nothing breaks");
        accepted(&env, &f);
    } else {
        // Not a snapshot: root (which some CI runs as) never gets here.
        let line = rejected(&env, &f);
        assert!(
            line.starts_with("ctxctl: error: [TMP]/secret.json: ")
                && line.contains("Permission denied"),
            "{line}"
        );
    }
    let mode = std::fs::metadata(&f).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0, "the mode was changed");
}

#[test]
fn deeply_nested_json_is_an_error_not_a_stack_overflow() {
    let env = TestEnv::new();
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let d = deep(100_000);
    let cases = [
        ("deep.json", d.clone()),
        ("deep-array.json", format!("[{d}]")),
        (
            "deep-content.json",
            format!(r#"{{"messages":[{{"role":"user","content":{d}}}]}}"#),
        ),
        (
            "deep.jsonl",
            format!("{{\"role\":\"user\",\"content\":\"a\"}}\n{{\"role\":\"user\",\"content\":{d}}}\n"),
        ),
        (
            "deep-claude.jsonl",
            format!(
                "{}{{\"type\":\"user\",\"uuid\":\"u2\",\"parentUuid\":\"u1\",\"sessionId\":\"s\",\"message\":{d}}}\n",
                agent_sessions()[1].1
            ),
        ),
        (
            "deep-codex.jsonl",
            format!(
                "{}{{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{d}}}\n",
                agent_sessions()[2].1
            ),
        ),
        (
            "deep-goose.jsonl",
            format!(
                "{}{{\"id\":null,\"role\":\"user\",\"created\":3,\"content\":{d}}}\n",
                agent_sessions()[3].1
            ),
        ),
    ];
    let files: Vec<PathBuf> = cases
        .iter()
        .map(|(name, text)| env.write(name, text))
        .collect();
    // Each names the line (and the column where it can) and the recursion limit.
    insta::assert_snapshot!("each_format", all_rejected(&env, &files));
    // The same, forced through each reader with --format.
    let f = env.path().join("deep.jsonl");
    let mut forced = String::new();
    for format in [
        "openai",
        "anthropic",
        "jsonl",
        "claude-code",
        "codex",
        "goose",
    ] {
        let run = run_on(&env, "count", &f, &["--format", format]);
        assert_eq!(run.code, 2, "{format}: {run:?}");
        forced.push_str(&format!("--format {format}: {}", env.redact(&run.stderr)));
    }
    insta::assert_snapshot!("forced_format", forced);
}

#[test]
fn numbers_beyond_f64_and_i64_are_read() {
    let env = TestEnv::new();
    let f = env.write(
        "numbers.json",
        r#"{"temperature":1e999999,"seed":123456789012345678901234567890,"messages":[{"role":"user","content":"hi","n":-0.000000000000000000000000000001e-400}]}"#,
    );
    let v = accepted(&env, &f);
    assert_eq!(v["messages"], 1, "{v}");
}

#[test]
fn duplicate_keys_last_one_wins() {
    let env = TestEnv::new();
    let f = env.write(
        "dup.jsonl",
        "{\"role\":\"user\",\"content\":\"a\",\"role\":\"assistant\"}\n",
    );
    let v = accepted(&env, &f);
    assert!(v["by_role"]["assistant"].as_u64().unwrap() > 0, "{v}");
    assert_eq!(v["by_role"]["user"], 0, "{v}");
}

#[test]
fn unknown_roles_count_as_user_with_a_warning() {
    let env = TestEnv::new();
    let f = env.write(
        "roles.json",
        r#"[{"role":"wizard","content":"abracadabra"},{"role":"user","content":"hi"}]"#,
    );
    let (v, warnings) = accepted_with_warnings(&env, &f);
    assert_eq!(v["messages"], 2, "{v}");
    assert_eq!(v["by_role"]["assistant"], 0, "{v}");
    insta::assert_snapshot!(warnings);
}

#[test]
fn tool_results_for_unknown_calls_are_reported_by_check() {
    let env = TestEnv::new();
    let f = env.write(
        "orphan.json",
        r#"[{"role":"user","content":"run it"},{"role":"tool","tool_call_id":"nope","content":"out"}]"#,
    );
    let v = accepted(&env, &f);
    assert_eq!(v["messages"], 2, "{v}");
    let run = run_on(&env, "check", &f, &["--json"]);
    let problems = run.file()["problems"].clone();
    assert_eq!(
        problems,
        serde_json::json!(["message 1: tool result for unknown call \"nope\""]),
        "{run:?}"
    );
}

/// A session of one user message holding `mb` megabytes of text.
fn one_huge_message(env: &TestEnv, mb: usize) -> PathBuf {
    let path = env.path().join("huge.json");
    let mut text = String::with_capacity(mb * 1_000_000 + 64);
    text.push_str(r#"[{"role":"user","content":""#);
    let word = "lorem ipsum dolor sit amet ";
    while text.len() < mb * 1_000_000 {
        text.push_str(word);
    }
    text.push_str(r#""}]"#);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_single_large_message() {
    // 100 MB with CTXCTL_BIG_TESTS=1; 8 MB otherwise, to keep the suite fast.
    let mb = if big_tests() { 100 } else { 8 };
    let env = TestEnv::new();
    let f = one_huge_message(&env, mb);
    let v = accepted(&env, &f);
    assert_eq!(v["messages"], 1, "{v}");
    let tokens = v["tokens"].as_u64().unwrap();
    // approx is ceil(chars / 4) plus framing.
    assert!(tokens >= (mb as u64 * 1_000_000) / 4, "{v}");
}

fn big_tests() -> bool {
    std::env::var_os("CTXCTL_BIG_TESTS").is_some_and(|v| v == "1")
}

/// Writes `mb` megabytes of plain JSONL, about 1 KB a line. Returns the path and the number
/// of lines.
fn big_jsonl(dir: &Path, mb: usize) -> (PathBuf, u64) {
    use std::io::Write;
    let path = dir.join("big.jsonl");
    let mut w = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&path).unwrap());
    let body = "lorem ipsum dolor sit amet ".repeat(36);
    let (mut written, mut lines) = (0usize, 0u64);
    while written < mb << 20 {
        let role = if lines % 2 == 0 { "user" } else { "assistant" };
        let line = format!("{{\"role\":\"{role}\",\"content\":\"{lines} {body}\"}}\n");
        w.write_all(line.as_bytes()).unwrap();
        written += line.len();
        lines += 1;
    }
    w.flush().unwrap();
    (path, lines)
}

/// Runs the binary with `args`, polling its peak resident memory (VmHWM in
/// /proc/<pid>/status) until it exits. Returns the run and the peak in bytes.
fn run_measured(env: &TestEnv, args: &[&str]) -> (Run, u64) {
    use std::process::Stdio;
    let mut child = env
        .command(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    loop {
        if let Ok(text) = std::fs::read_to_string(&status) {
            let hwm = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
            if let Some(kb) = hwm {
                peak = peak.max(kb * 1024);
            }
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let out = child.wait_with_output().unwrap();
    let run = Run::from(out);
    (run, peak)
}

/// A big JSONL file is counted whole, and the count's peak memory stays within twice the
/// file's size. 1 GB with CTXCTL_BIG_TESTS=1 (CTXCTL_BIG_TESTS_MB changes the size); 16 MB
/// otherwise. The figures are printed (run with --nocapture to see them).
#[cfg(target_os = "linux")]
#[test]
#[allow(clippy::print_stderr)] // reports the figures
fn a_big_file_is_counted_in_bounded_memory() {
    let mb = if big_tests() {
        std::env::var("CTXCTL_BIG_TESTS_MB")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(1024)
    } else {
        16
    };
    let env = TestEnv::new();
    let (f, lines) = big_jsonl(env.path(), mb);
    let size = std::fs::metadata(&f).unwrap().len();
    let before = hash(&f);
    let mut args = vec!["count", s(&f), "--json", "--no-cache"];
    args.extend(OPTS);
    let (run, peak) = run_measured(&env, &args);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.json()["files"][0]["messages"], lines, "{run:?}");
    assert_eq!(hash(&f), before);
    eprintln!(
        "big file: {size} bytes, {lines} lines, peak RSS {peak} bytes ({:.2}x the file)",
        peak as f64 / size as f64
    );
    assert!(peak > 0, "could not read the child's VmHWM");
    // A fixed allowance covers the binary and its tables, which dominate on small files.
    let allowance = 64 << 20;
    assert!(
        peak <= 2 * size + allowance,
        "peak RSS {peak} is more than twice the file size {size}"
    );
}
