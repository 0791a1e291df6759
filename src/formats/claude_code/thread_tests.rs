//! The live thread of transcripts Claude Code compacted, once and twice.

use crate::formats::claude_code::read;
use crate::formats::claude_code::thread::Transcript;
use crate::session::LinesDoc;

fn rec(uuid: &str, parent: Option<&str>, body: &str) -> String {
    let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
    format!(r#"{{"parentUuid":{parent},"sessionId":"s","uuid":"{uuid}",{body}}}"#)
}

fn user(uuid: &str, parent: Option<&str>, text: &str) -> String {
    rec(
        uuid,
        parent,
        &format!(r#""type":"user","message":{{"role":"user","content":"{text}"}}"#),
    )
}

fn asst(uuid: &str, parent: &str, text: &str) -> String {
    rec(
        uuid,
        Some(parent),
        &format!(
            r#""type":"assistant","message":{{"id":"m-{uuid}","role":"assistant","model":"claude-x","content":[{{"type":"text","text":"{text}"}}]}}"#
        ),
    )
}

fn boundary(uuid: &str, head: &str, anchor: &str, tail: &str) -> String {
    rec(
        uuid,
        None,
        &format!(
            r#""type":"system","subtype":"compact_boundary","compactMetadata":{{"trigger":"auto","preservedSegment":{{"headUuid":"{head}","anchorUuid":"{anchor}","tailUuid":"{tail}"}}}}"#
        ),
    )
}

fn summary(uuid: &str, parent: &str, text: &str) -> String {
    rec(
        uuid,
        Some(parent),
        &format!(
            r#""type":"user","isCompactSummary":true,"message":{{"role":"user","content":"{text}"}}"#
        ),
    )
}

fn texts(lines: &[String]) -> Vec<String> {
    let s = read(lines.join("\n") + "\n").unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    s.messages.iter().map(|m| m.text()).collect()
}

/// Two compactions in a row: the second boundary's segment starts before the first
/// boundary and runs through the first one's relinked segment, as Claude Code 2.1.332 writes
/// it when a reactive compaction is still too long.
#[test]
fn a_second_segment_runs_through_the_first() {
    let lines = [
        user("u1", None, "p1"),
        asst("a1", "u1", "r1"),
        user("u2", Some("a1"), "p2"),
        asst("a2", "u2", "r2"),
        user("u3", Some("a2"), "p3"),
        boundary("b1", "a1", "s1", "u3"),
        summary("s1", "b1", "summary one"),
        user("x1", Some("s1"), "after one"),
        boundary("b2", "a2", "s2", "x1"),
        summary("s2", "b2", "summary two"),
        asst("a3", "s2", "r3"),
        r#"{"type":"last-prompt","leafUuid":"a3"}"#.to_string(),
    ];
    assert_eq!(
        texts(&lines),
        ["summary two", "r2", "p3", "after one", "r3"]
    );
    let doc = LinesDoc::new(lines.join("\n") + "\n");
    let t = Transcript::parse(&doc).unwrap();
    assert_eq!(t.splices.len(), 2);
    assert_eq!(t.splice.as_ref().map(|s| s.boundary), Some(8));
}

#[test]
fn one_segment_follows_its_summary() {
    let lines = [
        user("u1", None, "p1"),
        asst("a1", "u1", "r1"),
        boundary("b1", "a1", "s1", "a1"),
        summary("s1", "b1", "summary"),
        user("c1", Some("s1"), "caveat"),
        r#"{"type":"last-prompt","leafUuid":"c1"}"#.to_string(),
    ];
    assert_eq!(texts(&lines), ["summary", "r1", "caveat"]);
}

#[test]
fn a_segment_that_does_not_reach_its_head_is_a_warning() {
    let lines = [
        user("u1", None, "p1"),
        asst("a1", "u1", "r1"),
        boundary("b1", "u9", "s1", "a1"),
        summary("s1", "b1", "summary"),
    ];
    let s = read(lines.join("\n") + "\n").unwrap();
    assert!(s.warnings[0].contains("not counted"), "{:?}", s.warnings);
    assert_eq!(s.messages.len(), 1);
}

fn answer(uuid: &str, parent: &str, text: &str, input: u64) -> String {
    rec(
        uuid,
        Some(parent),
        &format!(
            r#""type":"assistant","message":{{"id":"m-{uuid}","role":"assistant","model":"claude-x","content":[{{"type":"text","text":"{text}"}}],"usage":{{"input_tokens":3,"cache_read_input_tokens":{input},"output_tokens":5}}}}"#
        ),
    )
}

fn plain_boundary(uuid: &str) -> String {
    rec(
        uuid,
        None,
        r#""type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto"}"#,
    )
}

#[test]
fn a_thread_just_compacted_is_marked_and_its_thread_before_read_back() {
    let lines = [
        user("u1", None, "first"),
        answer("a1", "u1", "one", 20_000),
        user("u2", Some("a1"), "second"),
        answer("a2", "u2", "two", 30_000),
        plain_boundary("b"),
        summary("s", "b", "what happened"),
    ];
    let text = lines.join("\n") + "\n";
    let s = read(text.clone()).unwrap();
    // No report describes the thread after the boundary (line 5).
    assert!(s.reported_usage.is_none());
    assert_eq!(s.agent_limits.compacted_at, Some(4));
    let doc = LinesDoc::new(text.clone());
    let (held, u, _) = super::super::before_compaction(&doc, 4).unwrap();
    // The latest report before the boundary, the messages its request held, and the
    // earlier report (the hidden part is measured at the earliest).
    assert_eq!((u.input_tokens, u.request_end), (30_003, Some(3)));
    assert_eq!(u.earlier, vec![(1, 20_003)]);
    assert_eq!(held.len(), 3);
    // Once the agent answers after the boundary, its report is the live usage.
    let answered = text + &answer("a3", "s", "three", 9_000) + "\n";
    let s = read(answered).unwrap();
    assert_eq!(s.agent_limits.compacted_at, None);
    assert_eq!(s.reported_usage.unwrap().input_tokens, 9_003);
}

#[test]
fn an_excerpt_is_not_measured_before_its_compaction() {
    // The thread before the boundary starts at a parent the file does not hold.
    let lines = [
        user("u1", Some("gone"), "first"),
        answer("a1", "u1", "one", 20_000),
        plain_boundary("b"),
        summary("s", "b", "what happened"),
    ];
    let text = lines.join("\n") + "\n";
    assert_eq!(
        read(text.clone()).unwrap().agent_limits.compacted_at,
        Some(2)
    );
    assert!(super::super::before_compaction(&LinesDoc::new(text), 2).is_none());
}

#[test]
fn the_lines_before_a_boundary_read_in_place_are_those_lines_read_alone() {
    // A blank line, a compaction, and a truncated last line the prefix never reaches.
    let lines = [
        user("u1", None, "one"),
        String::new(),
        asst("a1", "u1", "two"),
        boundary("b1", "u1", "a1", "a1"),
        summary("s1", "b1", "gist"),
        asst("a2", "s1", "three"),
        r#"{"parentUuid":"a2","uuid":"x"#.to_string(),
    ];
    let doc = LinesDoc::new(lines.join("\n"));
    for end in 0..doc.lines.len() {
        let alone = LinesDoc::new(doc.text[..doc.lines[end].start].to_string());
        let (a, b) = (
            Transcript::parse_before(&doc, end).unwrap(),
            Transcript::parse(&alone).unwrap(),
        );
        let heads = |t: &Transcript| -> Vec<_> {
            (t.recs.iter())
                .map(|r| (r.line, r.uuid.clone(), r.parent.clone()))
                .collect()
        };
        assert_eq!(heads(&a), heads(&b), "end {end}");
        assert_eq!(
            (a.order, a.leaf, a.cut_short),
            (b.order, b.leaf, b.cut_short)
        );
        assert_eq!((a.truncated_tail, a.warnings), (None, b.warnings));
    }
    // Every line: the truncated last one is tolerated as the whole reader tolerates it.
    let all = Transcript::parse_before(&doc, usize::MAX).unwrap();
    assert_eq!(all.truncated_tail, Some(6));
}

#[test]
fn heads_keep_uuids_types_and_rare_keys_as_the_file_has_them() {
    let canonical = "0f3c6a1e-9b2d-4c8e-a7f1-23456789abcd";
    let lines = [
        format!(
            r#"{{"type":"user","uuid":"{canonical}","parentUuid":null,"message":{{"role":"user","content":"hi"}}}}"#
        ),
        format!(r#"{{"type":"odd-kind","uuid":"X1","parentUuid":"{canonical}","leafUuid":"X1"}}"#),
    ];
    let t = Transcript::parse(&LinesDoc::new(lines.join("\n"))).unwrap();
    let (a, b) = (&t.recs[0], &t.recs[1]);
    assert_eq!(
        a.uuid.as_ref().map(|u| u.to_string()).as_deref(),
        Some(canonical)
    );
    assert_eq!((a.parent.as_ref(), a.ty()), (None, "user"));
    assert!(a.rare().is_null() && a.rare().get("leafUuid").is_none());
    assert_eq!(b.ty(), "odd-kind");
    assert_eq!(
        b.parent.as_ref().map(|u| u.to_string()).as_deref(),
        Some(canonical)
    );
    assert_eq!(
        b.rare().get("leafUuid").and_then(|v| v.as_str()),
        Some("X1")
    );
    assert_eq!(
        (t.rec_of(canonical), t.rec_of("X1"), t.file_parent(1)),
        (Some(0), Some(1), Some(0))
    );
    assert_eq!(
        t.rec_of(&canonical.to_uppercase()),
        None,
        "another spelling, another uuid"
    );
    // A rewrite parses a head a record: kept small, a 160 MB transcript's 313K take 45 MB.
    assert!(std::mem::size_of::<crate::formats::claude_code::thread::Head>() <= 144);
}
