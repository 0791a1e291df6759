//! Gemini CLI JSONL logs (src/ops/gemini_stream.rs: the log replayed over an index of
//! offsets, the live records read again and counted a batch at a time) and goose JSONL
//! sessions (src/ops/goose_stream.rs: one pass) stream with the whole reader's figures:
//! on the real Gemini CLI logs in `shared/fixtures/`, the goose session made of a real
//! recording, and edge cases made of them (a truncated last line, CRLF, a BOM, blank
//! lines, messages replaced by id, checkpoints, rewinds).

use std::path::Path;

use ctxctl::ops::counted;
use ctxctl::ops::{agent_stream, load};
use ctxctl::session::Format;
use serde_json::{json, Value};

use super::{context, figures, files, support, WANTS};

/// `text` written to `dir/name`, streamed and read whole with each of [`WANTS`]: the
/// figures equal, the format `format`.
fn same(dir: &Path, name: &str, text: &str, format: Format) {
    let cache = tempfile::tempdir().unwrap();
    let ctx = context(cache.path());
    let bar = indicatif::ProgressBar::hidden();
    let file = dir.join(format!("{}.jsonl", name.replace([' ', ','], "_")));
    std::fs::write(&file, text).unwrap();
    for wants in WANTS {
        let got = agent_stream::tally(&ctx, &file, wants, &bar)
            .unwrap_or_else(|| panic!("{name}: not streamed"));
        let whole = load::load_for_reading(&ctx, &file).unwrap();
        assert_eq!(whole.session.format, format, "{name}");
        let want = counted::of_loaded(&ctx, whole, wants, None);
        assert_eq!(figures(&got), figures(&want), "{name}: streamed ≠ whole");
    }
}

/// The variants every case is checked as: as is, CRLF line ends, a BOM, blank lines, no
/// last newline, and the last line cut short.
fn variants(text: &str) -> Vec<(&'static str, String)> {
    let body = text.trim_end_matches('\n');
    let last = body.rfind('\n').map_or(0, |i| i + 1);
    let mut cut = last + (body.len() - last) / 2;
    while !body.is_char_boundary(cut) {
        cut -= 1;
    }
    vec![
        ("as is", text.to_string()),
        ("crlf", text.replace('\n', "\r\n")),
        ("bom", format!("\u{feff}{text}")),
        ("blank lines", text.replace('\n', "\n\n  \n")),
        ("no last newline", body.to_string()),
        ("truncated", body[..cut].to_string()),
    ]
}

fn lines(v: &[&Value]) -> String {
    v.iter().map(|v| v.to_string() + "\n").collect()
}

fn msg(id: &str, ty: &str, content: Value) -> Value {
    let time = format!("2026-11-23T20:14:{:02}.000Z", id.len());
    json!({"id": id, "timestamp": time, "type": ty, "content": content})
}

/// Gemini CLI logs of every shape the replay knows.
fn gemini_cases() -> Vec<(&'static str, String)> {
    let meta = json!({"sessionId": "s", "projectHash": "h", "startTime": "t",
        "lastUpdated": "t", "kind": "main"});
    let ctx = msg(
        "ctx",
        "user",
        json!([{"text": "<session_context>\nenv\n</session_context>"}]),
    );
    let result = json!([{"functionResponse": {"id": "c1", "name": "read_file",
        "response": {"output": "DATA"}}}]);
    let mut call = msg("g1", "gemini", json!("reading"));
    call["model"] = json!("gemini-2.5-flash");
    call["tokens"] = json!({"input": 150, "output": 20});
    call["toolCalls"] =
        json!([{"id": "c1", "name": "read_file", "args": {"p": "a"}, "result": result}]);
    let mut pending = call.clone();
    pending["toolCalls"][0]
        .as_object_mut()
        .unwrap()
        .remove("result");
    pending["tokens"] = json!({"input": 140, "output": 10});
    let recorded = msg("u2", "user", result.clone());
    let mut answer = msg("g2", "gemini", json!("It says DATA."));
    answer["tokens"] = json!({"input": 190, "output": 5});
    answer["model"] = json!("gemini-2.5-pro");
    let set = |m: &[&Value]| json!({"$set": {"messages": m, "lastUpdated": "u"}});
    let ask = msg("u1", "user", json!([{"text": "What does it say?"}]));
    let other = msg("u3", "user", json!("and then?"));
    let odd = msg(
        "g3",
        "gemini",
        json!([{"text": "t", "thought": true}, {"mystery": 1}]),
    );
    let touch = json!({"$set": {"lastUpdated": "v"}});
    vec![
        (
            "replaced by id",
            lines(&[
                &meta, &ctx, &ask, &pending, &touch, &call, &recorded, &answer,
            ]),
        ),
        (
            "a checkpoint, then replaced",
            lines(&[
                &meta,
                &ask,
                &answer,
                &set(&[&ctx, &ask, &pending, &ctx]),
                &call,
                &recorded,
                &answer,
            ]),
        ),
        (
            "rewound",
            lines(&[
                &meta,
                &ctx,
                &ask,
                &call,
                &recorded,
                &answer,
                &json!({"$rewindTo": "u2"}),
                &other,
                &odd,
            ]),
        ),
        (
            "rewound to nothing",
            lines(&[
                &meta,
                &ask,
                &call,
                &json!({"$rewindTo": "nope"}),
                &other,
                &answer,
            ]),
        ),
        (
            "only a checkpoint",
            lines(&[&meta, &set(&[&ctx, &ask, &call, &recorded, &answer])]),
        ),
        (
            "no model named",
            lines(&[&meta, &ask, &msg("g9", "gemini", json!("hi"))]),
        ),
    ]
}

#[test]
fn gemini_logs_stream_as_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures: Vec<_> = (files(&support::fixtures_dir()).into_iter())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .filter(|p| p.to_string_lossy().contains("gemini"))
        .collect();
    assert!(fixtures.len() >= 4, "{fixtures:?}");
    let mut cases: Vec<(String, String)> = (fixtures.iter())
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(p).unwrap())
        })
        .collect();
    cases.extend((gemini_cases().into_iter()).map(|(n, t)| (n.to_string(), t)));
    let mut checked = 0;
    for (name, text) in cases {
        // A log of one line is read whole.
        if text.lines().filter(|l| !l.trim().is_empty()).count() < 2 {
            continue;
        }
        for (variant, text) in variants(&text) {
            same(
                dir.path(),
                &format!("{name} {variant}"),
                &text,
                Format::Gemini,
            );
            checked += 1;
        }
    }
    assert!(checked >= 6 * 10, "{checked}");
}

/// goose sessions: the one made of a real recording, and shapes the reader knows.
fn goose_cases() -> Vec<(&'static str, String)> {
    let real = support::goose_session_from_recording();
    let meta = json!({"working_dir": "/w", "description": "d", "message_count": 4,
        "input_tokens": 120, "output_tokens": 9});
    let text = |id: Value, role: &str, t: &str| json!({"id": id, "role": role, "created": 1, "content": [{"type": "text", "text": t}]});
    let mut hidden = text(json!(null), "user", "old");
    hidden["metadata"] = json!({"userVisible": true, "agentVisible": false});
    let call = json!({"id": "m1", "role": "assistant", "created": 2, "content": [
        {"type": "text", "text": "ok"},
        {"type": "toolRequest", "id": "t1", "toolCall": {"status": "success",
            "value": {"name": "shell", "arguments": {"cmd": "ls"}}}}]});
    let result = json!({"id": null, "role": "user", "created": 3, "content": [
        {"type": "toolResponse", "id": "t1", "toolResult": {"status": "success",
            "value": [{"type": "text", "text": "a.txt"}]}},
        {"type": "mystery"}]});
    let marker = text(json!(null), "user", "[3 messages omitted]");
    let stray = json!({"note": "no role"});
    vec![
        ("real recording", real.clone()),
        ("hidden and shown", lines(&[&meta, &hidden, &call, &result])),
        (
            "rewritten by ctxctl",
            lines(&[&meta, &hidden, &call, &result, &marker]),
        ),
        ("no metadata", lines(&[&call, &result, &stray])),
        ("recording with a stray line", format!("{real}{stray}\n")),
    ]
}

#[test]
fn goose_sessions_stream_as_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in goose_cases() {
        for (variant, text) in variants(&text) {
            same(
                dir.path(),
                &format!("{name} {variant}"),
                &text,
                Format::Goose,
            );
        }
    }
}

#[test]
fn a_log_the_whole_reader_refuses_is_left_to_it() {
    let cache = tempfile::tempdir().unwrap();
    let ctx = context(cache.path());
    let bar = indicatif::ProgressBar::hidden();
    let dir = tempfile::tempdir().unwrap();
    let (_, gemini) = gemini_cases().swap_remove(0);
    let (_, goose) = goose_cases().swap_remove(1);
    for (name, text, bad) in [
        (
            "gemini: a non-string id",
            &gemini,
            r#"{"id":7,"type":"user"}"#,
        ),
        (
            "gemini: a checkpoint, no list",
            &gemini,
            r#"{"$set":{"messages":{}}}"#,
        ),
        (
            "gemini: a rewind to no id",
            &gemini,
            r#"{"$rewindTo":null}"#,
        ),
        ("gemini: a broken line", &gemini, r#"{"id": nope}"#),
        (
            "goose: content, no list",
            &goose,
            r#"{"role":"user","content":"x"}"#,
        ),
        ("goose: a line, no object", &goose, "[1, 2]"),
    ] {
        let mut lines: Vec<&str> = text.lines().collect();
        lines.insert(2, bad);
        let file = dir.path().join("bad.jsonl");
        std::fs::write(&file, lines.join("\n")).unwrap();
        assert!(
            agent_stream::tally(&ctx, &file, WANTS[0], &bar).is_none(),
            "{name}: streamed"
        );
        assert!(load::load_for_reading(&ctx, &file).is_err(), "{name}");
    }
}
