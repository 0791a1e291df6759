//! Every real session in `shared/fixtures/` reads and writes back byte for byte; trims and
//! compactions of the agent transcripts (Claude Code, Codex, goose) read again, keep tool
//! pairs, keep untouched lines and give new records the fields the agent needs.

mod support;

use ctxctl::formats;
use ctxctl::session::{self, Format};
use support::{fixture, fixtures_in};

/// The format each fixture directory of sessions holds.
const DIRS: [(&str, Format); 8] = [
    ("claude-code", Format::ClaudeCode),
    ("codex", Format::Codex),
    ("realclients/codex", Format::Codex),
    ("anthropic-messages", Format::Anthropic),
    ("openai-chat", Format::OpenAi),
    ("gemini-cli/run-a", Format::Gemini),
    ("gemini-cli/run-b-with-resume-stub", Format::Gemini),
    (
        "gemini-cli/run-0-title-and-headless-compress",
        Format::Gemini,
    ),
];

#[test]
fn every_fixture_reads_and_writes_back_unchanged() {
    let mut seen = 0;
    for (dir, format) in DIRS {
        for path in fixtures_in(dir) {
            let bytes = std::fs::read(&path).unwrap();
            let s = formats::read(&bytes, None).unwrap_or_else(|e| panic!("{path:?}: {e}"));
            assert_eq!(s.format, format, "{path:?} detected as {}", s.format);
            assert!(!s.messages.is_empty(), "{path:?}: no messages");
            let out = formats::write(&s, &s.keep_all()).unwrap();
            assert!(out == bytes, "{path:?}: keep-all rewrite differs");
            seen += 1;
        }
    }
    assert!(seen >= 15, "only {seen} fixtures found");
}

/// A captured Claude Code 2.1.197 transcript (`fixtures/realclients/claude-code/`).
fn real_claude(name: &str) -> (Vec<u8>, session::Session) {
    let bytes = fixture(&format!(
        "realclients/claude-code/realclient_v2.1.197_{name}.jsonl"
    ));
    let s = formats::read(&bytes, None).unwrap();
    assert_eq!(s.format, Format::ClaudeCode, "{name}");
    assert_eq!(
        s.warnings,
        Vec::<String>::new(),
        "{name}: 2.1.x records read cleanly"
    );
    let out = formats::write(&s, &s.keep_all()).unwrap();
    assert!(out == bytes, "{name}: keep-all rewrite differs");
    (bytes, s)
}

/// The records of a transcript as JSON values.
fn records(bytes: &[u8]) -> Vec<serde_json::Value> {
    std::str::from_utf8(bytes)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn claude_code_2_1_sessions_are_read_as_claude_code_sends_them() {
    let (bytes, s) = real_claude("session");
    let recs = records(&bytes);
    // Every tool call of the file is on the thread (no branches), every attachment is a
    // system message, and the failed-call and bookkeeping records are no messages.
    let calls: usize = s.messages.iter().map(|m| m.call_ids().count()).sum();
    let in_file = recs
        .iter()
        .filter(|r| r["type"] == "assistant")
        .filter(|r| r["message"]["content"][0]["type"] == "tool_use")
        .count();
    assert_eq!(calls, in_file);
    let attachments = recs.iter().filter(|r| r["type"] == "attachment").count();
    let system = s
        .messages
        .iter()
        .filter(|m| m.role == session::Role::System)
        .count();
    assert_eq!((system, attachments > 0), (attachments, true));
    assert_eq!(session::pairs::problems(&s.messages), vec![]);

    let (_, sub) = real_claude("subagent");
    assert!(sub.messages.len() >= 2);
}

#[test]
fn claude_codes_own_compaction_includes_the_segment_it_preserved() {
    let (bytes, s) = real_claude("self_compacted");
    let recs = records(&bytes);
    let boundary = recs
        .iter()
        .find(|r| r["subtype"] == "compact_boundary")
        .unwrap();
    let seg = &boundary["compactMetadata"]["preservedSegment"];
    let tail = recs.iter().find(|r| r["uuid"] == seg["tailUuid"]).unwrap();
    let preserved = tail["message"]["content"][0]["text"].as_str().unwrap();
    // Summary first, the preserved assistant turn right after it, then what followed the
    // summary, file re-reads included.
    assert_eq!(s.messages[0].compact.as_ref().unwrap().by, "claude-code");
    assert_eq!(s.messages[1].role, session::Role::Assistant);
    assert!(
        s.messages[1].text().contains(preserved),
        "{:?}",
        s.messages[1]
    );
    assert_eq!(
        s.messages[1].id.as_ref(),
        seg["headUuid"].as_str().map(str::to_string).as_ref()
    );
    assert!(s
        .messages
        .iter()
        .any(|m| m.role == session::Role::System && m.text().contains("row 300")));
    // The usage recorded before the compaction described the longer context.
    assert_eq!(s.reported_usage, None);
}

#[test]
fn recordings_and_event_streams_are_clear_errors() {
    for dir in ["goose", "openhands"] {
        for path in fixtures_in(dir) {
            let bytes = std::fs::read(&path).unwrap();
            let e = formats::read(&bytes, None).unwrap_err().to_string();
            assert!(e.contains("not a conversation session"), "{path:?}: {e}");
        }
    }
    let e = formats::read(
        &fixture("goose/goose_scenario_recording_basic_greeting.json"),
        None,
    )
    .unwrap_err();
    assert!(e.to_string().contains("goose scenario recording"), "{e}");
}

/// Per assistant message of a Claude Code session: `(index, prompt tokens, output tokens)`
/// as the provider reported them (one API response counted once).
fn claude_usages(s: &session::Session) -> Vec<(usize, u64, u64)> {
    let session::Document::Lines(doc) = &s.doc else {
        panic!("not lines")
    };
    let mut out = Vec::new();
    for (i, m) in s.messages.iter().enumerate() {
        if m.role != session::Role::Assistant {
            continue;
        }
        let mut best: Option<(u64, u64)> = None;
        for &line in m.origin.records() {
            let v: serde_json::Value = serde_json::from_str(doc.line(line)).unwrap();
            if v["message"]["model"] == "<synthetic>" {
                continue;
            }
            let u = &v["message"]["usage"];
            let n = |k: &str| u[k].as_u64().unwrap_or(0);
            let input =
                n("input_tokens") + n("cache_read_input_tokens") + n("cache_creation_input_tokens");
            if input > 0 {
                let out_tokens = best.map_or(0, |b| b.1).max(n("output_tokens"));
                best = Some((input, out_tokens));
            }
        }
        out.extend(best.map(|(a, b)| (i, a, b)));
    }
    out
}

/// How far a cl100k_base count of the active context is from what Anthropic reported.
/// `cargo test --test agent_fixtures -- --nocapture claude_usage` prints the figures:
/// per file the last reported prompt against ctxctl's count of the messages before it, the
/// first call's difference (system prompt and tools, which transcripts do not hold), and
/// the growth of the reported prompt between calls against the count of what was added in
/// between (where the hidden part cancels out).
#[test]
#[allow(clippy::print_stdout)] // the figures are this test's output
fn claude_usage_against_cl100k() {
    use ctxctl::tokens::{Counter, Encoding, Tokenizer};
    let counter = Counter::new(Tokenizer::new(Encoding::Cl100kBase).unwrap());
    let (mut all_reported, mut all_counted) = (0u64, 0u64);
    println!("file | calls | last prompt reported / cl100k | first-call overhead | growth reported / cl100k = ratio");
    for path in fixtures_in("claude-code") {
        let s = formats::read(&std::fs::read(&path).unwrap(), None).unwrap();
        let per = counter.messages(&s);
        let usages = claude_usages(&s);
        let last = s
            .reported_usage
            .clone()
            .expect("Claude Code sessions report usage");
        let at = last.after_message.unwrap();
        assert_eq!(usages.last().map(|u| u.0), Some(at), "{path:?}");
        let counted = Counter::total(&per[..at]) as u64;
        assert!(
            counted < last.input_tokens,
            "{path:?}: the transcript counts more ({counted}) than the prompt that was sent ({})",
            last.input_tokens
        );
        let (first, first_in, _) = usages[0];
        let overhead = first_in as i64 - Counter::total(&per[..first]) as i64;
        let (mut grown, mut added_all) = (0u64, 0u64);
        for w in usages.windows(2) {
            let ((i, a, _), (j, b, _)) = (w[0], w[1]);
            let added: usize = per[i..j].iter().sum();
            if b > a && added > 0 {
                grown += b - a;
                added_all += added as u64;
            }
        }
        all_reported += grown;
        all_counted += added_all;
        println!(
            "{} | {} | {} / {} | {} | {} / {} = {:.2}",
            path.file_name().unwrap().to_string_lossy(),
            usages.len(),
            last.input_tokens,
            counted,
            overhead,
            grown,
            added_all,
            grown as f64 / added_all.max(1) as f64
        );
    }
    assert!(all_counted > 0);
    println!(
        "all files: prompt growth reported {all_reported}, cl100k {all_counted}, ratio {:.3}",
        all_reported as f64 / all_counted as f64
    );
}

#[test]
fn detection_from_the_layout_agrees_with_full_detection() {
    let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&samples)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    for dir in [
        "claude-code",
        "codex",
        "anthropic-messages",
        "openai-chat",
        "goose",
        "openhands",
    ] {
        files.extend(fixtures_in(dir));
    }
    let mut checked = 0;
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        let body = text.trim_start_matches('\u{feff}');
        let full = formats::detect(body).map_err(|e| e.to_string());
        let read = formats::read(&bytes, None).map(|s| s.format);
        match (&full, &read) {
            (Ok(f), Ok(r)) => assert_eq!(f, r, "{path:?}"),
            (Err(_), Err(_)) => {}
            _ => panic!("{path:?}: detect says {full:?}, read says {read:?}"),
        }
        checked += 1;
    }
    assert!(checked > 15, "only {checked} files");
}

/// What ctxctl reads from the rollouts the real Codex 0.169 wrote.
#[test]
fn codex_0_169_rollouts_read_as_codex_sends_them() {
    use ctxctl::session::{pairs, Part, Role};
    let tasks = formats::read(
        &fixture("realclients/codex/realclient_v0.169_rollout_tasks.jsonl"),
        None,
    )
    .unwrap();
    // The window Codex used, not the catalog's.
    assert_eq!(tasks.agent_limits.window, Some(258_400));
    assert!(!tasks.agent_limits.overflow);
    // Codex's injected environment is context, not the user's first request.
    let injected: Vec<usize> = (0..tasks.messages.len())
        .filter(|&i| tasks.messages[i].injected)
        .collect();
    assert_eq!(injected.len(), 1);
    assert!(tasks.messages[injected[0]]
        .text()
        .starts_with("<environment_context>"));
    let first = tasks
        .messages
        .iter()
        .find(|m| m.role == Role::User && !m.injected)
        .unwrap();
    assert!(first.text().starts_with("TASK-A"), "{}", first.text());
    // Reasoning costs what the provider billed (8 tokens per response here) while its turn
    // is open; a turn closed by a later user message sends none of it again (0).
    let billed: Vec<Option<usize>> = tasks
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::Opaque { tokens, .. } => Some(*tokens),
            _ => None,
        })
        .collect();
    let open = billed
        .iter()
        .position(|t| *t == Some(8))
        .unwrap_or(billed.len());
    assert!(
        billed.len() >= 20
            && open > 0
            && open < billed.len()
            && billed[..open].iter().all(|t| *t == Some(0))
            && billed[open..].iter().all(|t| *t == Some(8)),
        "{billed:?}"
    );
    // Two commands exited 1; every call came with a reasoning item; nothing is broken.
    let errors = tasks
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter(|p| matches!(p, Part::ToolResult { is_error: true, .. }))
        .count();
    assert_eq!(errors, 2);
    assert!(tasks.messages.iter().any(|m| m.needs_reasoning));
    assert!(pairs::problems(&tasks.messages).is_empty());
    // Each reasoning item is one unit with the items of its response.
    for u in pairs::units(&tasks.messages) {
        let last = &tasks.messages[u.end - 1];
        assert!(!pairs::is_reasoning(last), "unit {u:?} ends with reasoning");
    }

    let own = formats::read(
        &fixture("realclients/codex/realclient_v0.169_rollout_self_compacted.jsonl"),
        None,
    )
    .unwrap();
    let summaries: Vec<&str> = own
        .messages
        .iter()
        .filter_map(|m| m.compact.as_ref().map(|c| c.by))
        .collect();
    assert_eq!(summaries, ["codex"], "Codex's own compaction summary");
}

/// Claude Code 2.1.332 and Codex 0.171.0 (new record types, attachments and fields) read,
/// write back byte for byte, and a trim keeps their bookkeeping records verbatim.
#[test]
fn the_newest_captured_releases_round_trip() {
    let counter =
        ctxctl::Counter::new(ctxctl::tokens::Tokenizer::new(ctxctl::Encoding::Approx).unwrap());
    let mut seen = 0;
    for (dir, format) in [
        ("realclients/claude-code-2.1.332", Format::ClaudeCode),
        ("realclients/codex-0.171.0", Format::Codex),
    ] {
        for path in fixtures_in(dir) {
            if path.extension().is_none_or(|x| x != "jsonl") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let s = formats::read(&bytes, None).unwrap_or_else(|e| panic!("{path:?}: {e}"));
            assert_eq!(s.format, format, "{path:?}");
            assert!(s.warnings.is_empty(), "{path:?}: {:?}", s.warnings);
            assert!(
                formats::write(&s, &s.keep_all()).unwrap() == bytes,
                "{path:?}"
            );
            let counts = counter.messages(&s);
            let budget = ctxctl::Counter::total(&counts) / 2;
            let opts = ctxctl::TrimOptions::default();
            let plan = ctxctl::plan_trim(
                &s,
                &counts,
                &counter,
                ctxctl::StrategyKind::Fifo,
                &opts,
                budget,
            )
            .unwrap();
            let out = formats::write(&s, &plan.items).unwrap();
            let input: std::collections::HashSet<&str> =
                std::str::from_utf8(&bytes).unwrap().lines().collect();
            let bookkeeping = [
                "api-request",
                "api-request-blob",
                "api-request-shape",
                "atis-latch",
                "tools-used",
                "cost-state",
            ];
            if format == Format::Codex {
                // Codex rollouts are rewritten by appending: every byte before stays.
                assert!(out.starts_with(&bytes), "{path:?}: not appended to");
                seen += 1;
                continue;
            }
            let mut kept = 0;
            for line in std::str::from_utf8(&out).unwrap().lines() {
                let r: serde_json::Value = serde_json::from_str(line).unwrap();
                if bookkeeping.iter().any(|b| r["type"] == *b) {
                    assert!(input.contains(line), "{path:?}: rewritten: {line:.120}");
                    kept += 1;
                }
            }
            assert!(kept > 0, "{path:?}: no bookkeeping record kept");
            seen += 1;
        }
    }
    assert!(seen >= 5, "only {seen}");
}
