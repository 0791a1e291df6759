//! Read-only commands stream Claude Code transcripts (src/ops/agent_stream.rs: the live
//! thread traced over a compact index, the live records fetched and counted a batch at a
//! time) and Codex rollouts (src/ops/codex_stream.rs: the active history planned over the
//! lines' skeletons, its items fetched and counted a batch at a time). These tests hold that route to the whole-file reader's figures (every message's
//! count and role, the pairing problems, previews, tools and largest messages, the
//! reported usage and the next-request prediction, the model, the warnings) on every
//! session file in `shared/fixtures/`, and check that every Claude Code, Codex and Gemini
//! CLI JSONL fixture is taken by it. Gemini CLI and goose JSONL have their own cases in
//! `agent_stream/jsonl.rs`.

#[path = "agent_stream/jsonl.rs"]
mod jsonl;
mod support;

use std::path::{Path, PathBuf};

use ctxctl::config::{Env, Globals, Settings};
use ctxctl::context::Context;
use ctxctl::ops::counted::{self, Counted};
use ctxctl::ops::figures::Wants;
use ctxctl::ops::{agent_stream, load};
use ctxctl::render::Printer;

fn context(cache: &Path) -> Context {
    spilling(cache, None)
}

/// Where a Claude Code transcript's uuids are kept besides the default (a temp file,
/// resolved in one pass for the fixtures): in memory, as where no temp file can be made,
/// and in a temp file resolved 3 hashes a pass (many passes).
const UUID_SPILLS: [&str; 2] = ["memory", "slice:3"];

/// [`context`], with `CTXCTL_TEST_UUID_SPILL` set to `uuids` where given.
fn spilling(cache: &Path, uuids: Option<&str>) -> Context {
    let globals = Globals {
        no_config: true,
        ..Default::default()
    };
    let cache = ("CTXCTL_CACHE_DIR", cache.to_str().unwrap());
    let hook = uuids.map(|u| ("CTXCTL_TEST_UUID_SPILL", u));
    let env = Env::from_pairs(std::iter::once(cache).chain(hook));
    let settings = Settings::resolve(&globals, &env).unwrap();
    Context::new(settings, env, Printer::plain()).unwrap()
}

fn files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// What a read-only command shows of a counted session.
fn figures(t: &Counted) -> String {
    format!(
        "{:?}\n{:?} {:?} {} {} {}\n{:?}\n{:?}\n{} {:?} {:?}\n{:?}\n{:?}",
        t.format,
        t.session_model,
        t.model.name,
        t.model.encoding,
        t.total,
        t.extra_tokens,
        t.usage,
        t.agent_limits,
        t.keeps_counts,
        t.fingerprint,
        t.prediction(),
        t.warnings,
        tally(t),
    )
}

/// The tally's figures; the map of tool names by call id (a hash map, printed in any
/// order) sorted.
fn tally(t: &Counted) -> String {
    let text = format!("{:?}", t.tally);
    // The pairing, kept as every message's shape or checked as the messages were read
    // (Codex, Gemini CLI): the problems it finds.
    let cut = |text: &str| -> Option<String> {
        let from = text.find(", shapes: ")?;
        let to = text.find(", previews: ")?;
        let problems = t.tally.pairing_problems();
        Some(format!(
            "{}, problems: {problems:?}{}",
            &text[..from],
            &text[to..]
        ))
    };
    cut(&text).expect("the tally's shapes and previews")
}

const WANTS: [Wants; 2] = [
    Wants {
        shapes: true,
        tools: true,
        previews: true,
        resume: false,
    },
    Wants {
        shapes: false,
        tools: false,
        previews: false,
        resume: true,
    },
];

#[test]
fn every_fixture_counts_streamed_as_read_whole() {
    let cache = tempfile::tempdir().unwrap();
    let ctx = context(cache.path());
    let spills = UUID_SPILLS.map(|u| spilling(cache.path(), Some(u)));
    let bar = indicatif::ProgressBar::hidden();
    let (mut streamed, mut agent_files, mut codex_files) = (Vec::new(), 0, 0);
    for path in files(&support::fixtures_dir()) {
        let under = |dir: &str| {
            path.components()
                .any(|c| c.as_os_str().to_str().is_some_and(|s| s.starts_with(dir)))
        };
        let is_jsonl = path.extension().is_some_and(|e| e == "jsonl");
        let claude = under("claude-code") && is_jsonl;
        let codex = under("codex") && is_jsonl;
        let gemini = under("gemini") && is_jsonl;
        agent_files += usize::from(claude || codex || gemini);
        codex_files += usize::from(codex);
        for wants in WANTS {
            let Some(got) = agent_stream::tally(&ctx, &path, wants, &bar) else {
                assert!(
                    !(claude || codex || gemini),
                    "{}: an agent transcript not streamed",
                    path.display()
                );
                continue;
            };
            let whole = load::load_for_reading(&ctx, &path).unwrap();
            let want = counted::of_loaded(&ctx, whole, wants, None);
            assert_eq!(
                figures(&got),
                figures(&want),
                "{}: streamed ≠ whole",
                path.display()
            );
            streamed.push(path.clone());
            for (ctx, how) in spills.iter().zip(UUID_SPILLS).filter(|_| claude) {
                let got = agent_stream::tally(ctx, &path, wants, &bar).expect("streamed");
                assert_eq!(
                    figures(&got),
                    figures(&want),
                    "{}: streamed, uuids {how} ≠ whole",
                    path.display()
                );
            }
        }
    }
    assert!(agent_files >= 20, "only {agent_files} agent fixtures");
    assert!(codex_files >= 10, "only {codex_files} Codex fixtures");
    assert_eq!(streamed.len(), 2 * agent_files, "{streamed:#?}");
}

/// `text` cut just before the first response after its last `compact_boundary` (the
/// moment after the agent compacted, before it answered), or `None` without a boundary.
fn cut_after_compaction(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let boundary = lines
        .iter()
        .rposition(|l| l.contains("\"compact_boundary\""))?;
    let answer = (boundary..lines.len())
        .find(|&i| lines[i].contains("\"type\":\"assistant\"") && lines[i].contains("\"usage\""))
        .unwrap_or(lines.len());
    Some(lines[..answer].concat())
}

#[test]
fn a_session_just_compacted_by_its_agent_streams_as_read_whole() {
    let cache = tempfile::tempdir().unwrap();
    let ctx = context(cache.path());
    let spills = UUID_SPILLS.map(|u| spilling(cache.path(), Some(u)));
    let bar = indicatif::ProgressBar::hidden();
    let dir = tempfile::tempdir().unwrap();
    let mut measured = 0;
    for path in files(&support::fixtures_dir()) {
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Some(cut) = cut_after_compaction(&text) else {
            continue;
        };
        let file = dir.path().join(path.file_name().unwrap());
        std::fs::write(&file, cut).unwrap();
        let wants = WANTS[1];
        let Some(got) = agent_stream::tally(&ctx, &file, wants, &bar) else {
            continue;
        };
        let whole = load::load_for_reading(&ctx, &file).unwrap();
        let want = counted::of_loaded(&ctx, whole, wants, None);
        assert_eq!(
            figures(&got),
            figures(&want),
            "{}: streamed ≠ whole",
            path.display()
        );
        // The thread after the boundary: the part before it traced again, resolved again.
        for (ctx, how) in spills.iter().zip(UUID_SPILLS) {
            let again = agent_stream::tally(ctx, &file, wants, &bar).expect("streamed");
            assert_eq!(
                figures(&again),
                figures(&want),
                "{}: streamed, uuids {how} ≠ whole",
                path.display()
            );
        }
        let p = got.prediction();
        if p.source == ctxctl::ops::predict::NextSource::Compacted {
            measured += 1;
            let hidden = got.agent_limits.hidden_before_compaction.unwrap() as usize;
            // The live thread at the session's ratio, where the reports before the
            // boundary calibrate one (the priming tokens as they are).
            let live = match got.agent_limits.ratio_before_compaction {
                Some(r) => {
                    let raw: usize = got.counts().iter().sum();
                    let scale = f64::from(r) / 1e6 / got.model.factor;
                    (raw as f64 * scale).round() as usize + got.total - raw
                }
                None => got.total,
            };
            assert_eq!(p.tokens, live + got.extra_tokens + hidden);
        }
    }
    // The real sessions that compacted (fixtures/wild) give some.
    assert!(
        measured >= 2,
        "only {measured} sessions measured before a compaction"
    );
}

/// A Codex rollout line: `{timestamp, type, payload}`.
fn codex(ty: &str, payload: serde_json::Value) -> String {
    serde_json::json!({"timestamp": "2026-01-01T00:00:00Z", "type": ty, "payload": payload})
        .to_string()
}

fn said(role: &str, text: &str) -> serde_json::Value {
    let kind = if role == "assistant" {
        "output_text"
    } else {
        "input_text"
    };
    serde_json::json!({"type": "message", "role": role, "content": [{"type": kind, "text": text}]})
}

/// Codex rollouts with what the reading of a rollout turns on: compactions of both kinds,
/// billed reasoning kept by a compaction, legacy lines, reports repeated or not numbers,
/// payloads that are not objects, a truncated last line, CRLF, a BOM, blank lines.
fn codex_cases() -> Vec<(&'static str, String)> {
    use serde_json::json;
    let meta = codex(
        "session_meta",
        json!({"id": "s", "cli_version": "0.169.0", "base_instructions": {"text": "be brief"}}),
    );
    let reasoning = |e: &str| json!({"type": "reasoning", "summary": [{"type": "summary_text", "text": "think"}], "encrypted_content": e});
    let call = |id: &str| json!({"type": "function_call", "name": "shell", "arguments": "{}", "call_id": id});
    let output =
        |id: &str, out: &str| json!({"type": "function_call_output", "call_id": id, "output": out});
    let usage = |input: u64, total: u64| {
        codex(
            "event_msg",
            json!({"type": "token_count", "info": {"last_token_usage": {"input_tokens": input, "output_tokens": 7, "reasoning_output_tokens": 30}, "total_token_usage": {"total_tokens": total}, "model_context_window": 272000}}),
        )
    };
    let turn = |items: &[serde_json::Value]| -> Vec<String> {
        items
            .iter()
            .map(|i| codex("response_item", i.clone()))
            .collect()
    };
    let mut base = vec![
        meta.clone(),
        codex("turn_context", json!({"model": "gpt-5.5"})),
    ];
    base.extend(turn(&[
        said("user", "<environment_context>cwd</environment_context>"),
        said("user", "fix the build"),
        reasoning("AAAABBBBCCCC"),
        call("c1"),
    ]));
    base.push(codex(
        "token_usage_record",
        json!({"usage": {"reasoning_output_tokens": 12}}),
    ));
    base.extend(turn(&[
        output("c1", "Process exited with code 2\nOutput:\nerror"),
        reasoning("DDDD"),
        said("assistant", "done"),
    ]));
    base.push(usage(900, 1000));
    base.push(usage(900, 1000));
    base.extend(turn(&[
        said("user", "thanks"),
        json!({"type": "ghost_snapshot"}),
    ]));
    let lines = |v: &[String]| v.join("\n") + "\n";
    let mut cases = vec![("plain", lines(&base))];
    let mut compacted = base.clone();
    // The reasoning billed before stays in the open turn: its bill counts.
    compacted.push(codex(
        "compacted",
        json!({"message": "", "replacement_history": [said("user", "fix the build"), {"type": "compaction", "encrypted_content": "zz"}, said("user", "Another language model started to solve this problem: notes"), 5, reasoning("AAAABBBBCCCC"), call("c1")]}),
    ));
    compacted.extend(turn(&[reasoning("EEEE"), call("c2")]));
    compacted.push(usage(400, 2000));
    cases.push(("compacted, turn open", lines(&compacted)));
    compacted.extend(turn(&[output("c2", "ok"), said("user", "go on")]));
    cases.push(("compacted", lines(&compacted)));
    let mut older = base.clone();
    older.push(codex("compacted", json!({"message": "the summary"})));
    older.extend(turn(&[said("assistant", "after")]));
    older.push(codex("compacted", json!({"message": null})));
    cases.push(("older compactions", lines(&older)));
    let mut odd = vec![
        codex("session_meta", json!("not an object")),
        meta.clone(),
        codex(
            "session_meta",
            json!({"base_instructions": {"text": null}, "instructions": "unused"}),
        ),
        codex("response_item", json!(null)),
        codex(
            "event_msg",
            json!({"type": "token_count", "info": {"last_token_usage": {"input_tokens": 1.0, "output_tokens": 2}}}),
        ),
        codex(
            "event_msg",
            json!({"type": "task_complete", "error": {"codex_error_info": "context_window_exceeded"}}),
        ),
        codex(
            "response_item",
            json!({"type": "message", "role": "critic", "content": "odd role"}),
        ),
        codex("response_item", json!({"type": "mystery", "role": "tool"})),
        r#"{"timestamp":"t","type":"response_item"}"#.to_string(),
    ];
    odd.extend(turn(&[said("user", "hello")]));
    cases.push(("odd records", lines(&odd)));
    let mut cut = base.clone();
    cut.push(r#"{"timestamp":"t","type":"response_item","payload":{"type":"mess"#.to_string());
    cases.push(("truncated", cut.join("\n")));
    cases.push((
        "crlf, bom, blank lines",
        format!("\u{feff}{}\r\n\r\n", base.join("\r\n\n")),
    ));
    let legacy = [
        json!({"id": "x", "timestamp": "t", "instructions": "legacy rules"}),
        json!({"record_type": "state"}),
        said("user", "hi"),
        reasoning("FFFF"),
        call("c3"),
        output("c3", "{\"output\":\"\",\"metadata\":{\"exit_code\":1}}"),
    ];
    cases.push(("legacy", lines(&legacy.map(|v| v.to_string()))));
    let mut unread = base.clone();
    unread.insert(
        3,
        codex("response_item", json!({"type": "message", "content": []})),
    );
    unread.push(codex(
        "compacted",
        json!({"message": "", "replacement_history": [said("user", "kept")]}),
    ));
    cases.push(("a refused item compacted away", lines(&unread)));
    // Codex 0.4x-0.6x record shell outputs as JSON and send them as plain text once the
    // model called the freeform `apply_patch` tool (src/formats/codex/shell_output.rs):
    // the call on a line of its own, in a compaction's history, or not at all.
    let structured = "{\"output\":\"Total output lines: 300\\n\\nline 1\\nline 300\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":1.8}}";
    let patch = json!({"type": "custom_tool_call", "name": "apply_patch", "input": "*** Begin Patch", "call_id": "p1"});
    let mut shell = base.clone();
    shell.extend(turn(&[
        call("c4"),
        output("c4", structured),
        patch.clone(),
        json!({"type": "custom_tool_call_output", "call_id": "p1", "output": structured}),
    ]));
    cases.push(("structured shell outputs, patched", lines(&shell)));
    let mut unpatched = base.clone();
    unpatched.extend(turn(&[call("c4"), output("c4", structured)]));
    cases.push(("structured shell outputs, never patched", lines(&unpatched)));
    let mut history = base.clone();
    history.push(codex(
        "compacted",
        json!({"message": "", "replacement_history": [said("user", "fix the build"), patch, call("c5"), output("c5", structured)]}),
    ));
    cases.push((
        "structured shell outputs, patched before a compaction",
        lines(&history),
    ));
    cases
}

#[test]
fn codex_rollouts_of_every_shape_stream_as_read_whole() {
    let cache = tempfile::tempdir().unwrap();
    let ctx = context(cache.path());
    let bar = indicatif::ProgressBar::hidden();
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in codex_cases() {
        let file = dir
            .path()
            .join(format!("{}.jsonl", name.replace([' ', ','], "_")));
        std::fs::write(&file, &text).unwrap();
        for wants in WANTS {
            let got = agent_stream::tally(&ctx, &file, wants, &bar)
                .unwrap_or_else(|| panic!("{name}: not streamed"));
            let whole = load::load_for_reading(&ctx, &file).unwrap();
            assert_eq!(
                whole.session.format,
                ctxctl::session::Format::Codex,
                "{name}"
            );
            let want = counted::of_loaded(&ctx, whole, wants, None);
            assert_eq!(figures(&got), figures(&want), "{name}: streamed ≠ whole");
        }
    }
}

#[test]
fn a_codex_rollout_the_whole_reader_refuses_is_left_to_it() {
    let cache = tempfile::tempdir().unwrap();
    let ctx = context(cache.path());
    let bar = indicatif::ProgressBar::hidden();
    let dir = tempfile::tempdir().unwrap();
    let (_, plain) = codex_cases().swap_remove(0);
    let mut lines: Vec<&str> = plain.lines().collect();
    let active = codex(
        "response_item",
        serde_json::json!({"type": "message", "content": []}),
    );
    let twice = r#"{"timestamp":"t","type":"turn_context","type":"event_msg","payload":{}}"#;
    for (name, bad, whole_reads) in [
        ("an active message without a role", active.as_str(), false),
        ("a line that is not an object", "[1, 2]", false),
        ("a key given twice", twice, true),
        ("a broken line", "{\"type\": nope}", false),
    ] {
        lines.insert(3, bad);
        let file = dir.path().join("bad.jsonl");
        std::fs::write(&file, lines.join("\n")).unwrap();
        lines.remove(3);
        assert!(
            agent_stream::tally(&ctx, &file, WANTS[0], &bar).is_none(),
            "{name}: streamed"
        );
        assert_eq!(
            load::load_for_reading(&ctx, &file).is_ok(),
            whole_reads,
            "{name}"
        );
    }
}

/// Every Copilot CLI event log of `tests/formats/copilot-cli/` (a real session, one
/// Copilot compacted itself, ctxctl's rewrites of them) and variants of the real one (its
/// last line cut short, a subagent's events and a failed compaction among its own)
/// stream as read whole; a log the whole reader refuses is left to it.
#[test]
fn copilot_cli_logs_stream_as_read_whole() {
    let cache = tempfile::tempdir().unwrap();
    let ctx = context(cache.path());
    let bar = indicatif::ProgressBar::hidden();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/formats/copilot-cli");
    let dir = tempfile::tempdir().unwrap();
    let real = std::fs::read_to_string(root.join("input.jsonl")).unwrap();
    let lines: Vec<&str> = real.lines().collect();
    let mut variants = Vec::new();
    let last = lines[lines.len() - 1];
    variants.push(format!(
        "{}\n{}",
        lines[..lines.len() - 1].join("\n"),
        &last[..last.len() / 2]
    ));
    let mut mixed: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    for l in lines
        .iter()
        .filter(|l| l.contains("\"tool.execution_complete\""))
        .take(1)
    {
        let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
        v["agentId"] = "sub-1".into();
        mixed.insert(3, v.to_string());
    }
    let failed = r#"{"type":"session.compaction_complete","data":{"success":false,"summaryContent":"no"},"id":"c0","parentId":null}"#;
    mixed.insert(2, failed.to_string());
    variants.push(mixed.join("\n") + "\n");
    let mut paths: Vec<PathBuf> = files(&root)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    for (i, v) in variants.iter().enumerate() {
        let p = dir.path().join(format!("variant-{i}.jsonl"));
        std::fs::write(&p, v).unwrap();
        paths.push(p);
    }
    let mut streamed = 0;
    for path in &paths {
        for wants in WANTS {
            let got = agent_stream::tally(&ctx, path, wants, &bar);
            let whole = load::load_for_reading(&ctx, path);
            if path.to_string_lossy().contains("bad-input") {
                assert!(got.is_none() && whole.is_err(), "{}", path.display());
                continue;
            }
            let got = got.unwrap_or_else(|| panic!("{}: not streamed", path.display()));
            let whole = whole.unwrap();
            assert_eq!(whole.session.format, ctxctl::session::Format::Copilot);
            let want = counted::of_loaded(&ctx, whole, wants, None);
            assert_eq!(
                figures(&got),
                figures(&want),
                "{}: streamed ≠ whole",
                path.display()
            );
            streamed += 1;
        }
    }
    assert_eq!(streamed, 2 * (paths.len() - 1), "{paths:#?}");
}

/// Half of a character as JavaScript writes it (`"\ud83d"`) in every agent JSONL fixture
/// that has a `"text":"` string: the streamed route reads it as U+FFFD and warns of it
/// first, as the whole reader does.
#[test]
fn lone_surrogates_stream_as_read_whole() {
    let cache = tempfile::tempdir().unwrap();
    let ctx = context(cache.path());
    let bar = indicatif::ProgressBar::hidden();
    let dir = tempfile::tempdir().unwrap();
    let mut bent = 0;
    for path in files(&support::fixtures_dir()) {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let Some(at) = text.rfind("\"text\":\"") else {
            continue;
        };
        let at = at + "\"text\":\"".len();
        let copy = dir.path().join(format!("{bent}.jsonl"));
        std::fs::write(&copy, format!("{}\\ud83d{}", &text[..at], &text[at..])).unwrap();
        for wants in WANTS {
            let Some(got) = agent_stream::tally(&ctx, &copy, wants, &bar) else {
                continue;
            };
            let whole = load::load_for_reading(&ctx, &copy).unwrap();
            let want = counted::of_loaded(&ctx, whole, wants, None);
            assert_eq!(figures(&got), figures(&want), "{}", path.display());
            let line = text[..at].matches('\n').count() + 1;
            assert_eq!(
                got.agent_limits.lone_surrogates,
                Some((1, line as u32)),
                "{}",
                path.display()
            );
            assert!(
                got.warnings[0].starts_with(&format!("line {line}: 1 lone UTF-16 surrogate")),
                "{}: {:?}",
                path.display(),
                got.warnings
            );
            bent += 1;
        }
    }
    assert!(bent >= 20, "only {bent} streamed");
}
