//! A rewrite of a large file whose plan reads no text counts each message as it is parsed
//! and drops its text there (src/ops/load.rs, `load_counting`); standard input is read
//! whole, as it always was. Both ways must write the same bytes and report the same
//! figures, whatever the format, strategy, model and budget.

use crate::stream::big_session;
use crate::support::{s, TestEnv};
use std::path::Path;

/// The session as an OpenAI document, as plain JSONL and as an Anthropic request body, each
/// over the 1 MiB from which a rewrite reads this way.
fn sessions(env: &TestEnv) -> Vec<std::path::PathBuf> {
    let doc = big_session(2400);
    let messages = doc["messages"].as_array().unwrap();
    let jsonl: String = messages.iter().map(|m| format!("{m}\n")).collect();
    let mut anthropic = vec![];
    for (i, m) in messages.iter().enumerate().skip(1) {
        let text = m["content"].as_str().unwrap_or("…").to_string();
        let (role, content) = match m["role"].as_str().unwrap() {
            "user" => ("user", serde_json::json!(text)),
            "assistant" if m["tool_calls"].is_array() => (
                "assistant",
                serde_json::json!([
                    {"type": "tool_use", "id": format!("t{i}"), "name": "read", "input": {"path": "x"}}
                ]),
            ),
            "assistant" => (
                "assistant",
                serde_json::json!([{"type": "text", "text": text}]),
            ),
            _ => (
                "user",
                serde_json::json!([
                    {"type": "tool_result", "tool_use_id": format!("t{}", i - 1), "content": text}
                ]),
            ),
        };
        anthropic.push(serde_json::json!({"role": role, "content": content}));
    }
    let anthropic = serde_json::json!({
        "model": "claude-sonnet-4-5", "system": "You are terse.", "max_tokens": 1024,
        "messages": anthropic
    });
    let files = vec![
        env.write(
            "big-openai.json",
            serde_json::to_string_pretty(&doc).unwrap(),
        ),
        env.write("big-lines.jsonl", jsonl),
        env.write("big-anthropic.json", anthropic.to_string()),
    ];
    // Omission markers, which plans tell by their text: a smart trim's output, and a JSONL
    // file whose last user message is a marker (not the user's turn a trim protects).
    let marked = env.path().join("marked.json");
    let r = env.run(&[
        "trim",
        s(&files[0]),
        "--strategy",
        "smart",
        "--keep-first",
        "3",
        "--keep-last",
        "1900",
        "-o",
        s(&marked),
    ]);
    assert_eq!(r.code, 0, "{r:?}");
    let mut last = std::fs::read_to_string(&files[1]).unwrap();
    last.push_str("{\"role\":\"user\",\"content\":\"[12 messages omitted]\"}\n");
    last.push_str("{\"role\":\"assistant\",\"content\":\"Noted.\"}\n");
    let files = [files, vec![marked, env.write("marker-last.jsonl", last)]].concat();
    for f in &files {
        assert!(
            std::fs::metadata(f).unwrap().len() > 1 << 20,
            "{f:?} too small"
        );
    }
    files
}

#[test]
fn a_large_file_trims_as_standard_input_does() {
    let env = TestEnv::new();
    // (plan, whether it reads text)
    let plans: &[(&[&str], bool)] = &[
        (&["--strategy", "fifo", "--max-tokens", "60000"], false),
        (
            &["--strategy", "fifo", "--max-tokens", "150000", "--pin", "7"],
            false,
        ),
        (&["--strategy", "sliding-window", "--window", "40"], false),
        (
            &[
                "--strategy",
                "selective",
                "--keep-roles",
                "user",
                "--max-tokens",
                "90000",
            ],
            false,
        ),
        (
            &[
                "--strategy",
                "composite",
                "--chain",
                "smart,fifo",
                "--max-tokens",
                "80000",
            ],
            false,
        ),
        (
            &[
                "--strategy",
                "smart",
                "--keep-first",
                "3",
                "--keep-last",
                "50",
            ],
            false,
        ),
        // Only the protected messages fit: which user message is the last turn decides.
        (&["--strategy", "fifo", "--max-tokens", "10"], false),
        // Plans that read text take the other way; the same output all the same.
        (
            &[
                "--strategy",
                "fifo",
                "--max-tokens",
                "60000",
                "--pin",
                "/Question 12:/",
            ],
            true,
        ),
        (
            &["--strategy", "tool-results", "--max-result-tokens", "40"],
            true,
        ),
    ];
    for file in sessions(&env) {
        let bytes = std::fs::read(&file).unwrap();
        for (k, (plan, reads_text)) in plans.iter().enumerate() {
            // Without --model the file's own (or the default) model; a Claude model's
            // counts are estimates, scaled.
            let models: &[&[&str]] = match k {
                0 | 5 | 6 => &[&[], &["--model", "claude-sonnet-4-5"]],
                _ => &[&[]],
            };
            for model in models {
                let mut args = vec!["trim", s(&file), "-o", "-", "--no-cache"];
                args.extend_from_slice(plan);
                args.extend_from_slice(model);
                let a = env.run(&args);
                args[1] = "-";
                let b = env.run_stdin(&args, Some(&bytes));
                assert_eq!(a.code, b.code, "{args:?}: {a:?}");
                assert!(a.stdout == b.stdout, "{args:?} on {file:?}: output differs");
                assert_eq!(
                    a.stderr.replace(s(&file), "<stdin>"),
                    b.stderr,
                    "{args:?} on {file:?}"
                );
                args[1] = s(&file);
                args.push("-v");
                let v = env.run(&args);
                let counted = v.stderr.contains("counted as parsed");
                assert_eq!(counted, !reads_text, "{args:?}: {}", v.stderr);
            }
        }
    }
}

#[test]
fn a_trim_in_place_read_this_way_restores_byte_for_byte() {
    let env = TestEnv::new();
    for file in sessions(&env) {
        let before = std::fs::read(&file).unwrap();
        let args = [
            "trim",
            s(&file),
            "--strategy",
            "fifo",
            "--max-tokens",
            "50000",
            "--in-place",
        ];
        let r = env.run(&args);
        assert_eq!(r.code, 0, "{r:?}");
        assert!(std::fs::read(&file).unwrap().len() < before.len());
        let stem = file.file_stem().unwrap().to_str().unwrap();
        let r = env.run(&["archive", "restore", &format!("{stem}/1")]);
        assert_eq!(r.code, 0, "{r:?}");
        assert!(
            std::fs::read(&file).unwrap() == before,
            "{file:?} not restored"
        );
    }
}

/// A large file's compaction takes each message's facts as it is parsed and drops its text
/// there (src/cli/compact/one.rs, `load_observing`): the same partition and summary as
/// standard input read whole, and as the way that keeps the text (`--redact`, which changes
/// nothing in a session without secrets).
#[test]
fn a_large_file_compacts_as_standard_input_does() {
    let env = TestEnv::new();
    for file in sessions(&env) {
        let bytes = std::fs::read(&file).unwrap();
        for tail in ["2000", "30000"] {
            let mut args = vec![
                "compact",
                s(&file),
                "--dry-run",
                "--json",
                "--no-cache",
                "--tail-tokens",
                tail,
            ];
            let a = env.run(&args);
            assert_eq!(a.code, 1, "{args:?}: {a:?}");
            let doc: serde_json::Value = serde_json::from_str(&a.stdout).unwrap();
            assert!(doc["summary"].as_str().unwrap().len() > 100, "{doc}");
            args[1] = "-";
            // The summary message names the archive, filed under the file's stem or
            // `stdin`: its figure is the one thing that differs.
            let figures = |mut v: serde_json::Value| {
                let o = v.as_object_mut().unwrap();
                o.remove("compacted_tokens");
                o.remove("compaction_ratio");
                v
            };
            let b = env.run_stdin(&args, Some(&bytes));
            assert_eq!(
                figures(doc.clone()),
                figures(b.json()),
                "{args:?} on {file:?}: differs from stdin"
            );
            args[1] = s(&file);
            args.push("--redact");
            let c = env.run(&args);
            assert_eq!(doc, c.json(), "{args:?} on {file:?}: differs from --redact");
        }
    }
}

/// A large file compacted in place: its originals are archived while the summary is made,
/// and `archive restore` brings the file back byte for byte.
#[test]
fn a_large_compaction_in_place_restores_byte_for_byte() {
    let env = TestEnv::new();
    for file in sessions(&env) {
        let before = std::fs::read(&file).unwrap();
        let r = env.run(&[
            "compact",
            s(&file),
            "--tail-tokens",
            "3000",
            "--no-cache",
            "--in-place",
        ]);
        assert_eq!(r.code, 0, "{r:?}");
        let after = std::fs::read_to_string(&file).unwrap();
        assert!(after.len() < before.len() / 4, "{file:?}: {r:?}");
        let stem = file.file_stem().unwrap().to_str().unwrap();
        let id = format!("{stem}/1");
        let shown = env.run(&["archive", "show", &id, "--json"]);
        assert_eq!(shown.code, 0, "{shown:?}");
        let archived: serde_json::Value = serde_json::from_str(&shown.stdout).unwrap();
        assert!(
            after.contains(
                archived["summary"]
                    .as_str()
                    .unwrap()
                    .lines()
                    .next()
                    .unwrap()
            ),
            "{file:?}: the archive's summary is not the one written"
        );
        let r = env.run(&["archive", "restore", &id]);
        assert_eq!(r.code, 0, "{r:?}");
        assert!(
            std::fs::read(&file).unwrap() == before,
            "{file:?} not restored"
        );
        // Nothing but the archive and its restore mark is left in the store.
        let dir = env.data_dir().join("archives").join(stem);
        let names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !n.starts_with("compact-"))
            .collect();
        assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
    }
}

/// A JSON document's compaction streams it as `count` does (src/ops/json_reread.rs): its text
/// is never held, and the file is read again around the summarized records, which go to
/// the archive as they are read. It writes what the whole-document read (`--format`, which
/// the streamed read leaves to it) writes, and archives the same records.
#[test]
fn a_streamed_compaction_writes_what_a_whole_read_writes() {
    let env = TestEnv::new();
    // Masks what differs between two compactions: their id and archive number.
    let masked = |text: &str| {
        let id = regex::Regex::new(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
            .unwrap();
        let seq =
            regex::Regex::new(r"(compact-[0-9TZ]+-)\d+|compaction \d+|(compact_seq.{1,3})\d+")
                .unwrap();
        seq.replace_all(&id.replace_all(text, "ID"), "$1$2N")
            .into_owned()
    };
    let files = sessions(&env);
    for (k, file) in files.iter().enumerate() {
        let format = match file.extension().and_then(|e| e.to_str()) {
            Some("json") if k == 2 => "anthropic",
            Some("json") => "openai",
            _ => continue,
        };
        let stem = file.file_stem().unwrap().to_str().unwrap();
        // Each compacted in place (archived first), one copy streamed, one read whole.
        let mut shown = Vec::new();
        for tail in ["2000", "30000"] {
            let streamed = env.path().join(format!("{stem}-{tail}-streamed.json"));
            let whole = env.path().join(format!("{stem}-{tail}-whole.json"));
            std::fs::copy(file, &streamed).unwrap();
            std::fs::copy(file, &whole).unwrap();
            let mut args = vec![
                "compact",
                s(&streamed),
                "--tail-tokens",
                tail,
                "--no-cache",
                "-v",
                "--in-place",
            ];
            let a = env.run(&args);
            assert_eq!(a.code, 0, "{a:?}");
            assert!(a.stderr.contains("streamed"), "{args:?}: {}", a.stderr);
            args[1] = s(&whole);
            args.extend(["--format", format]);
            let b = env.run(&args);
            assert_eq!(b.code, 0, "{b:?}");
            assert!(!b.stderr.contains("streamed"), "{args:?}: {}", b.stderr);
            let (a, b) = (
                std::fs::read_to_string(&streamed).unwrap(),
                std::fs::read_to_string(&whole).unwrap(),
            );
            assert!(a.len() * 4 < std::fs::metadata(file).unwrap().len() as usize);
            let stems = |p: &Path| p.file_stem().unwrap().to_str().unwrap().to_string();
            let (a, b) = (
                a.replace(&stems(&streamed), "STEM"),
                b.replace(&stems(&whole), "STEM"),
            );
            assert!(
                masked(&a) == masked(&b),
                "{file:?} tail {tail}: outputs differ"
            );
            // Both archives hold the same records, as they were in the file.
            for copy in [&streamed, &whole] {
                let id = format!("{}/1", stems(copy));
                let run = env.run(&["archive", "show", &id, "--json"]);
                assert_eq!(run.code, 0, "{run:?}");
                shown.push(run.json());
            }
        }
        for pair in shown.chunks(2) {
            assert_eq!(pair[0]["records"], pair[1]["records"], "{file:?}");
            assert!(pair[0]["records"].as_array().unwrap().len() > 100);
        }
    }
}
