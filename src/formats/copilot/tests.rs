//! Copilot CLI event logs: the real CLI's sessions (1.0.102, captured against a fake
//! provider on 127.0.0.1; `tests/formats/copilot-cli/`) read as `copilot --resume` sends
//! them, and rewrites that keep every untouched line.

use super::*;
use crate::formats::write as session_write;
use crate::session::{NewMessage, Part, Role};

fn fixture(name: &str) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/formats/copilot-cli/");
    std::fs::read_to_string(format!("{path}{name}")).unwrap()
}

#[test]
fn the_real_log_reads_as_copilot_resends_it() {
    let s = read(fixture("input.jsonl")).unwrap();
    let roles: Vec<&str> = s.messages.iter().map(|m| m.role.name()).collect();
    // What `copilot --resume` sent after these three runs (system prompt first).
    assert_eq!(
        roles,
        [
            "system",
            "user",
            "assistant",
            "tool",
            "assistant",
            "user",
            "assistant",
            "user",
            "assistant",
            "tool",
            "assistant"
        ]
    );
    assert_eq!(s.model.as_deref(), Some("gpt-4o"));
    assert_eq!(s.agent_limits.window, Some(64_000));
    let u = s.reported_usage.as_ref().unwrap();
    assert_eq!((u.input_tokens, u.output_tokens), (7_272, 25));
    // The last usage record came before the final answer it produced.
    assert_eq!(u.request_end, Some(10));
    let Part::ToolCall {
        id,
        name,
        arguments,
    } = &s.messages[2].parts[1]
    else {
        panic!("{:?}", s.messages[2].parts)
    };
    assert_eq!((id.as_str(), name.as_str()), ("call_fake_001", "view"));
    assert_eq!(arguments, r#"{"path":"/tmp/cop/proj/notes.txt"}"#);
    // A result carries its tool.execution_start line along.
    assert_eq!(s.messages[3].origin.records().len(), 2);
    // Users' text is what Copilot sends: with its datetime prefix.
    assert!(s.messages[1].parts[0]
        .text()
        .starts_with("<current_datetime>"));
}

#[test]
fn copilots_own_compaction_replaces_what_came_before() {
    let s = read(fixture("compacted-by-copilot/input.jsonl")).unwrap();
    assert_eq!(s.messages.len(), 2);
    let text = s.messages[1].parts[0].text();
    // The text `copilot --resume` sent after /compact: the user messages, then the summary.
    assert!(text
        .starts_with("Some of the conversation history has been summarized to free up context.\n"));
    assert_eq!(text.matches("<user_message>").count(), 3);
    assert!(text.ends_with("Write the migration note under \"Breaking changes\".\n</summary>\n"));
    assert_eq!(s.messages[1].compact.as_ref().unwrap().by, "copilot-cli");
}

#[test]
fn keeping_everything_is_byte_identical() {
    let text = fixture("input.jsonl");
    let s = read(text.clone()).unwrap();
    assert_eq!(session_write(&s, &s.keep_all()).unwrap(), text.as_bytes());
}

#[test]
fn dropping_a_turn_drops_its_events_and_keeps_every_other_line() {
    let text = fixture("input.jsonl");
    let s = read(text.clone()).unwrap();
    // Drop the first run's tool call and result (messages 2 and 3), add a summary.
    let mut items: Vec<Item> = vec![Item::Keep(0), Item::Keep(1)];
    items.push(Item::Insert(NewMessage {
        role: Role::User,
        text: "SUMMARY".into(),
        meta: Default::default(),
    }));
    items.extend((4..s.messages.len()).map(Item::Keep));
    let out = String::from_utf8(session_write(&s, &items).unwrap()).unwrap();
    let dropped: Vec<usize> = s.messages[2]
        .origin
        .records()
        .iter()
        .chain(s.messages[3].origin.records())
        .copied()
        .collect();
    let kept: Vec<&str> = text
        .lines()
        .enumerate()
        .filter(|(i, _)| !dropped.contains(i))
        .map(|(_, l)| l)
        .collect();
    let written: Vec<&str> = out.lines().filter(|l| !l.contains("SUMMARY")).collect();
    assert_eq!(written, kept);
    let again = read(out).unwrap();
    assert_eq!(again.messages.len(), s.messages.len() - 1);
    assert_eq!(again.messages[2].parts[0].text(), "SUMMARY");
    assert_eq!(again.messages[2].role, Role::User);
}

#[test]
fn a_shortened_result_changes_only_its_data() {
    use crate::session::PartEdit;
    let text = fixture("input.jsonl");
    let s = read(text.clone()).unwrap();
    let mut items = s.keep_all();
    items[3] = Item::Edit {
        index: 3,
        edits: vec![PartEdit::ResultText {
            call_id: "call_fake_001".into(),
            text: "[cut]".into(),
        }],
    };
    let out = String::from_utf8(session_write(&s, &items).unwrap()).unwrap();
    let again = read(out.clone()).unwrap();
    assert_eq!(again.messages[3].parts[0].text(), "[cut]");
    let changed = text
        .lines()
        .zip(out.lines())
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(changed, 1);
}

#[test]
fn a_line_that_is_no_event_is_an_error_naming_it() {
    let err =
        read("{\"type\":\"session.start\",\"data\":{},\"id\":\"a\",\"parentId\":null}\n[1]\n")
            .unwrap_err();
    assert_eq!(
        err.to_string(),
        "line 2: expected a Copilot CLI event {\"type\", \"data\", \"id\", \"parentId\", …}"
    );
}

#[test]
fn paths_name_the_session_and_its_side_files() {
    let c = Copilot;
    let log = Path::new("/h/.copilot/session-state/0ee0651e/events.jsonl");
    assert_eq!(c.classify_path(log), Some(Found::Session));
    assert_eq!(super::id_by_place(log).as_deref(), Some("0ee0651e"));
    let side = Path::new("/h/.copilot/session-state/0ee0651e/rewind-file-snapshots/tracking.json");
    assert!(matches!(c.classify_path(side), Some(Found::Other(_))));
    assert_eq!(c.classify_path(Path::new("/h/x/events.jsonl")), None);
    let env = crate::config::Env::from_pairs([("COPILOT_HOME", "/c")]);
    let stores = (super::AGENT.stores)(&env, Path::new("/h"));
    assert_eq!(stores[0].path, PathBuf::from("/c/session-state"));
}

#[test]
fn restoring_puts_each_event_back_after_its_parent() {
    use crate::session::Record;
    let text = fixture("input.jsonl");
    let s = read(text.clone()).unwrap();
    let mut meta = serde_json::Map::new();
    meta.insert("compact_boundary".into(), true.into());
    meta.insert("compact_id".into(), "c1".into());
    // Summarize messages 1..=6 (the first two runs), keep the third run.
    let mut items: Vec<Item> = vec![Item::Keep(0)];
    items.push(Item::Insert(NewMessage {
        role: Role::User,
        text: "SUMMARY".into(),
        meta,
    }));
    items.extend((7..s.messages.len()).map(Item::Keep));
    let dropped: Vec<String> = (1..7)
        .flat_map(|i| s.messages[i].origin.records().to_vec())
        .map(|r| text.lines().nth(r).unwrap().to_string())
        .collect();
    let out = String::from_utf8(session_write(&s, &items).unwrap()).unwrap();
    let c = read(out).unwrap();
    let at = c
        .messages
        .iter()
        .position(|m| m.compact.as_ref().and_then(|c| c.id.as_deref()) == Some("c1"))
        .expect("the summary carries its compact_id");
    let mut back: Vec<Item> = (0..at).map(Item::Keep).collect();
    back.extend(
        dropped
            .iter()
            .map(|l| Item::InsertRecord(Record::verbatim(l).unwrap())),
    );
    back.extend((at + 1..c.messages.len()).map(Item::Keep));
    assert_eq!(
        String::from_utf8(session_write(&c, &back).unwrap()).unwrap(),
        text
    );
}

/// The log's plan over its lines' skeletons, as the streamed count makes it.
fn planned(text: &str) -> Option<stream::Plan> {
    let mut plan = stream::Plan::default();
    let mut at = 0;
    for (line, l) in text.split_inclusive('\n').enumerate() {
        let body = l.trim_end_matches('\n');
        if !body.trim().is_empty() {
            let place = stream::Place {
                line,
                at,
                len: body.len() as u32,
            };
            plan.record(place, stream::rec(body)?);
        }
        at += l.len() as u64;
    }
    Some(plan)
}

#[test]
fn the_skeletons_plan_what_the_whole_reader_reads() {
    for name in ["input.jsonl", "compacted-by-copilot/input.jsonl"] {
        let text = fixture(name);
        let s = read(text.clone()).unwrap();
        let mut plan = planned(&text).unwrap();
        let (total, usage) = plan.finish();
        assert_eq!(total, s.messages.len(), "{name}");
        assert_eq!(usage, s.reported_usage, "{name}");
        assert_eq!(plan.window, s.agent_limits.window, "{name}");
        let model = plan.model.clone().unwrap_or_else(|| DEFAULT_MODEL.into());
        assert_eq!(Some(model), s.model, "{name}");
        // Each live message's line is the one the whole reader made it from.
        let tail = &s.messages[s.messages.len() - plan.live.len()..];
        for (live, m) in plan.live.iter().zip(tail) {
            let lines = match &m.origin {
                crate::session::Origin::Record(i) => vec![*i],
                crate::session::Origin::Records(v) => v.clone(),
                o => panic!("{o:?}"),
            };
            assert_eq!(lines.last(), Some(&live.place.line), "{name}");
            assert_eq!(lines.len() == 2, live.start.is_some(), "{name}");
        }
    }
}

#[test]
fn a_skeleton_takes_only_what_the_whole_reader_takes_as_an_event() {
    let ok = r#"{"type":"user.message","data":{"content":"hi"},"id":"a","parentId":null}"#;
    assert_eq!(stream::rec(ok).unwrap().kind, stream::Kind::User);
    for bad in [
        r#"["user.message",{},"a",null]"#,
        r#"{"type":"user.message","data":[],"id":"a","parentId":null}"#,
        r#"{"type":"user.message","data":{},"parentId":null}"#,
        r#"{"type":1,"data":{},"id":"a","parentId":null}"#,
    ] {
        assert!(stream::rec(bad).is_none(), "{bad}");
        assert!(read(format!("{bad}\n")).is_err(), "{bad}");
    }
    let usage = r#"{"type":"session.usage_record","data":{"usage":{"inputTokens":5,"cacheReadTokens":2.0,"outputTokens":3,"maxPromptTokens":9}},"id":"u","parentId":"a","agentId":null,"ctxctl":{}}"#;
    let r = stream::rec(usage).unwrap();
    assert_eq!(r.usage, Some((Some(9), 5, 3)));
    assert!(r.agent && r.ours);
    let failed = r#"{"type":"session.compaction_complete","data":{"success":true,"summaryContent":7},"id":"c","parentId":null}"#;
    assert!(!stream::rec(failed).unwrap().compacted);
}
