//! The next request after a compaction, on synthetic Claude Code transcripts.

use serde_json::json;

use crate::config::Env;
use crate::context::Context;
use crate::ops::predict::NextSource;
use crate::render::Printer;

fn context(cache: &std::path::Path) -> Context {
    let globals = crate::config::Globals {
        no_config: true,
        ..Default::default()
    };
    let env = Env::from_pairs([("CTXCTL_CACHE_DIR", cache.to_str().unwrap())]);
    let settings = crate::config::Settings::resolve(&globals, &env).unwrap();
    Context::new(settings, env, Printer::plain()).unwrap()
}

fn record(uuid: &str, parent: Option<&str>, rest: serde_json::Value) -> String {
    let mut v = json!({
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": "s",
        "version": "2.1.122",
        "isSidechain": false,
        "cwd": "/p",
        "timestamp": "2026-01-01T00:00:00Z",
    });
    for (k, x) in rest.as_object().unwrap() {
        v[k] = x.clone();
    }
    v.to_string()
}

/// Three turns of 1,000 words each, every request reported as 20,000 plus twice the
/// words sent so far (a ratio of about 2 against the tokenizer), then the agent's
/// boundary and its summary (`ctxctl`: marked as ctxctl's compaction marks its own).
fn transcript(summary_meta: Option<serde_json::Value>) -> String {
    let words = "word ".repeat(1_000);
    let mut lines = Vec::new();
    let mut parent: Option<String> = None;
    for k in 0..3u64 {
        let (u, a) = (format!("u{k}"), format!("a{k}"));
        lines.push(record(
            &u,
            parent.as_deref(),
            json!({"type": "user", "message": {"role": "user", "content": words}}),
        ));
        lines.push(record(
            &a,
            Some(&u),
            json!({"type": "assistant", "message": {
                "id": format!("m{k}"), "type": "message", "role": "assistant",
                "model": "claude-sonnet-4-5-20250929",
                "content": [{"type": "text", "text": "ok"}],
                "stop_reason": "end_turn", "stop_sequence": null,
                "usage": {"input_tokens": 20_000 + 2_000 * (k + 1), "output_tokens": 1,
                          "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}}),
        ));
        parent = Some(a);
    }
    lines.push(record(
        "b",
        None,
        json!({"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
               "logicalParentUuid": parent, "compactMetadata": {"trigger": "auto", "preTokens": 26_000}}),
    ));
    let mut summary = json!({"type": "user", "isCompactSummary": true,
        "isVisibleInTranscriptOnly": true,
        "message": {"role": "user", "content": "summary ".repeat(2_000)}});
    if let Some(meta) = summary_meta {
        summary["ctxctl"] = meta;
    }
    lines.push(record("s1", Some("b"), summary));
    lines.join("\n") + "\n"
}

#[test]
fn after_the_agents_boundary_the_summary_counts_at_the_sessions_ratio() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, transcript(None)).unwrap();
    let l = crate::ops::load::load(&ctx, &path).unwrap();
    let p = l.prediction();
    assert_eq!(p.source, NextSource::Compacted);
    let r = p
        .ratio
        .expect("calibrated on the reports before the boundary");
    assert!((1.9..2.05).contains(&r), "ratio {r}");
    let hidden = l.session.agent_limits.hidden_before_compaction.unwrap() as usize;
    // The summary, counted at 1.2 per tokenizer token, at the session's ratio instead.
    let raw: usize = l.counts.iter().sum();
    let priming = l.total - raw;
    let expected = hidden + (raw as f64 * r / 1.2).round() as usize + priming;
    assert_eq!(p.tokens, expected);
    assert!(p.tokens > hidden + l.total + raw / 2, "{p:?}");
}

#[test]
fn after_a_boundary_ctxctl_wrote_the_summary_counts_as_the_compaction_reported_it() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let path = dir.path().join("s.jsonl");
    let meta = json!({"compact_boundary": true});
    std::fs::write(&path, transcript(Some(meta))).unwrap();
    let l = crate::ops::load::load(&ctx, &path).unwrap();
    let p = l.prediction();
    assert_eq!((p.source, p.ratio), (NextSource::Compacted, None));
    let hidden = l.session.agent_limits.hidden_before_compaction.unwrap() as usize;
    assert_eq!(p.tokens, hidden + l.total);
}

#[test]
fn only_records_with_a_ctxctl_key_are_ctxctls() {
    assert!(super::written_by_ctxctl(
        r#"{"type":"user","ctxctl":{"compact_boundary":true}}"#
    ));
    assert!(!super::written_by_ctxctl(
        r#"{"type":"user","message":{"content":"the \"ctxctl\" tool"}}"#
    ));
    assert!(!super::written_by_ctxctl("not json \"ctxctl\""));
}

/// A large document's thread before the boundary is measured through an index of its
/// records (`by_index`), not read whole into messages: the figures are the whole way's,
/// after the agent's boundary and after ctxctl's, with blank lines, a truncated last line
/// and CRLF line ends.
#[test]
fn the_indexed_way_measures_what_the_whole_reader_does() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let own = transcript(None);
    let ctxctls = transcript(Some(json!({"compact_boundary": true})));
    let blank = own.replacen('\n', "\n\n  \n", 2);
    let cut = format!("{own}{{\"type\":\"user\",\"uuid\":\"x");
    let crlf = own.replace('\n', "\r\n");
    for (name, text) in [
        ("own", own),
        ("ctxctl's", ctxctls),
        ("blank", blank),
        ("cut", cut),
        ("crlf", crlf),
    ] {
        let path = dir.path().join(format!("{name}.jsonl"));
        std::fs::write(&path, text).unwrap();
        let l = crate::ops::load::load(&ctx, &path).unwrap();
        let whole = l.session.agent_limits;
        assert!(whole.hidden_before_compaction.is_some(), "{name}");
        let crate::session::Document::Lines(doc) = &l.session.doc else {
            panic!("{name}: a line document")
        };
        let mut indexed = whole;
        indexed.hidden_before_compaction = None;
        indexed.ratio_before_compaction = None;
        super::by_index(&ctx, &l.counter, l.model.factor, doc, &mut indexed)
            .unwrap_or_else(|| panic!("{name}: indexed"));
        assert_eq!(indexed, whole, "{name}");
    }
}
