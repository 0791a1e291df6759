//! Trims and compactions of real agent transcripts: the output reads again as the same
//! format, holds exactly the planned thread, keeps tool pairs, keeps every untouched line
//! byte for byte and gives new records the fields the agent itself requires.

mod support;

use std::collections::{HashMap, HashSet};

use ctxctl::formats;
use ctxctl::session::{
    self, pairs, Format, Item, Message, NewMessage, Part, PartEdit, Role, Session,
};
use serde_json::{json, Map, Value};
use support::fixtures_in;

fn summary() -> NewMessage {
    let meta = json!({"compact_boundary": true, "compact_id": "cx1", "compact_seq": 1,
        "compact_timestamp": "2026-01-01T00:00:00Z"});
    NewMessage {
        role: Role::User,
        text: "Summary of the earlier conversation.".into(),
        meta: meta.as_object().unwrap().clone(),
    }
}

fn marker() -> NewMessage {
    NewMessage {
        role: Role::User,
        text: "[earlier messages omitted]".into(),
        meta: Map::new(),
    }
}

/// Keeps the first and the last pairing unit and drops the ones between (or, with only two
/// units, the first), with `insert` where the dropped ones were.
fn plan(s: &Session, insert: Option<NewMessage>) -> Vec<Item> {
    let units = pairs::units(&s.messages);
    assert!(units.len() >= 2, "too few units to trim");
    let (head, tail) = if units.len() >= 3 {
        (units[0].clone(), units[units.len() - 1].clone())
    } else {
        (0..0, units[1].clone())
    };
    let mut items: Vec<Item> = head.map(Item::Keep).collect();
    items.extend(insert.map(Item::Insert));
    items.extend(tail.map(Item::Keep));
    items
}

/// The same plan with the first tool result among the kept messages shortened.
fn with_edit(s: &Session, mut items: Vec<Item>) -> Option<Vec<Item>> {
    let pos = items
        .iter()
        .position(|it| matches!(it, Item::Keep(i) if s.messages[*i].has_tool_results()))?;
    let Item::Keep(index) = items[pos] else {
        unreachable!()
    };
    let call_id = s.messages[index].result_ids().next()?.to_string();
    items[pos] = Item::Edit {
        index,
        edits: vec![PartEdit::ResultText {
            call_id,
            text: "[output trimmed]".into(),
        }],
    };
    Some(items)
}

fn texts(s: &Session, items: &[Item]) -> Vec<String> {
    items
        .iter()
        .map(|it| match it {
            Item::Keep(i) => s.messages[*i].text(),
            Item::Edit { index, .. } => edited_text(&s.messages[*index]),
            Item::Insert(m) => m.text.clone(),
            Item::InsertRecord(r) => r.value().unwrap().to_string(),
        })
        .collect()
}

fn edited_text(m: &Message) -> String {
    let mut m = m.clone();
    let mut done = false;
    for p in &mut m.parts {
        if let Part::ToolResult { content, .. } = p {
            if !done {
                *content = vec![Part::Text("[output trimmed]".into())];
                done = true;
            }
        }
    }
    m.text()
}

/// Reads `out` again and checks the thread, the pairs and the compaction metadata.
fn reread(name: &str, s: &Session, items: &[Item], out: &[u8]) -> Session {
    let s2 = formats::read(out, None).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(s2.format, s.format, "{name}");
    let got: Vec<String> = s2.messages.iter().map(Message::text).collect();
    let want = texts(s, items);
    assert_eq!(got.len(), want.len(), "{name}: thread length");
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        if matches!(items[k], Item::Edit { .. }) {
            // A wrapped output (Codex 0.5x) keeps its wrapper around the new text.
            assert!(
                g.contains("[output trimmed]") && g.len() < w.len() + 200,
                "{name}: {g}"
            );
        } else {
            assert_eq!(g, w, "{name}: message {k}");
        }
    }
    assert_eq!(pairs::problems(&s2.messages), vec![], "{name}: pairs");
    if items
        .iter()
        .any(|it| matches!(it, Item::Insert(m) if m.meta.contains_key("compact_id")))
    {
        let c = s2
            .messages
            .iter()
            .find_map(|m| m.compact.as_ref().filter(|c| c.by == "ctxctl"));
        assert_eq!(
            c.and_then(|c| c.id.as_deref()),
            Some("cx1"),
            "{name}: summary not recognised"
        );
    }
    s2
}

fn lines(b: &[u8]) -> Vec<&str> {
    std::str::from_utf8(b).unwrap().lines().collect()
}

fn check_claude(name: &str, orig: &[u8], out: &[u8]) {
    let olines = lines(orig);
    let identical: HashSet<&str> = olines.iter().copied().collect();
    let mut by_uuid: HashMap<String, &str> = HashMap::new();
    for l in &olines {
        let v: Value = serde_json::from_str(l).unwrap();
        if let Some(u) = v["uuid"].as_str() {
            by_uuid.insert(u.to_string(), l);
        }
    }
    let mut out_uuids = HashSet::new();
    for l in lines(out) {
        let v: Value = serde_json::from_str(l).unwrap();
        out_uuids.extend(v["uuid"].as_str().map(str::to_string));
    }
    for l in lines(out) {
        if identical.contains(l) {
            continue;
        }
        let v: Value = serde_json::from_str(l).unwrap();
        if v["type"] == "last-prompt" && v["ctxctl"]["rewrite"] == true {
            // ctxctl's rewrite marker: the last record, naming the new leaf.
            assert_eq!(lines(out).last(), Some(&l), "{name}: marker not last");
            let leaf = v["leafUuid"].as_str().unwrap();
            assert!(out_uuids.contains(leaf), "{name}: marker names {leaf}");
            continue;
        }
        if v["type"] == "last-prompt" {
            // Claude Code's own marker whose leaf was removed: it names the nearest
            // ancestor left, and nothing else changes.
            let leaf = v["leafUuid"].as_str().unwrap();
            assert!(out_uuids.contains(leaf), "{name}: {l}");
            let same = olines.iter().any(|o| {
                let ov: Value = serde_json::from_str(o).unwrap();
                ov["type"] == "last-prompt"
                    && o.replacen(&ov["leafUuid"].to_string(), &v["leafUuid"].to_string(), 1) == l
            });
            assert!(same, "{name}: more than leafUuid changed: {l}");
            continue;
        }
        let uuid = v["uuid"]
            .as_str()
            .unwrap_or_else(|| panic!("{name}: changed line without uuid: {l}"));
        if let Some(o) = by_uuid.get(uuid) {
            // Only the link may change, every other byte stays.
            let ov: Value = serde_json::from_str(o).unwrap();
            if ov["compactMetadata"]["preservedSegment"].is_object() {
                // Claude Code's boundary: the segment it preserved is now on the chain, and
                // the boundary keeps its note of it under `ctxctl`, not where Claude Code
                // would splice it in a second time.
                assert!(
                    v["compactMetadata"].get("preservedSegment").is_none(),
                    "{name}"
                );
                assert_eq!(
                    v["ctxctl"]["preserved"]["compactMetadata"], ov["compactMetadata"],
                    "{name}"
                );
                continue;
            }
            let from = format!("\"parentUuid\":{}", ov["parentUuid"]);
            let to = format!("\"parentUuid\":{}", v["parentUuid"]);
            let relinked = o.replacen(&from, &to, 1);
            let edited = ov["message"] != v["message"];
            assert!(
                relinked == l || edited,
                "{name}: more than parentUuid changed:\n{o}\n{l}"
            );
            continue;
        }
        // A record ctxctl added.
        uuid::Uuid::parse_str(uuid).unwrap_or_else(|_| panic!("{name}: bad uuid {uuid}"));
        for key in [
            "parentUuid",
            "sessionId",
            "type",
            "timestamp",
            "isSidechain",
            "userType",
            "cwd",
        ] {
            assert!(v.get(key).is_some(), "{name}: new record lacks {key}: {l}");
        }
        assert!(
            v["sessionId"].is_string() && v["timestamp"].is_string(),
            "{name}: {l}"
        );
        if v["subtype"] == "compact_boundary" {
            assert!(v["parentUuid"].is_null(), "{name}");
            assert!(v["logicalParentUuid"].is_string(), "{name}");
            assert_eq!(v["compactMetadata"]["trigger"], "manual", "{name}");
        }
        if v["isCompactSummary"] == true {
            assert_eq!(v["isVisibleInTranscriptOnly"], true, "{name}");
            assert_eq!(v["ctxctl"]["compact_id"], "cx1", "{name}");
        }
    }
    // The chain is unbroken: links point at records in the file (or, in an excerpt, at
    // records that were never in it).
    for l in lines(out) {
        let v: Value = serde_json::from_str(l).unwrap();
        if let Some(p) = v["parentUuid"].as_str() {
            assert!(
                out_uuids.contains(p) || !by_uuid.contains_key(p),
                "{name}: dangling {p}"
            );
        }
    }
}

#[test]
fn claude_code_trims_compactions_and_edits() {
    let real = fixtures_in("realclients/claude-code");
    assert_eq!(
        real.len(),
        3,
        "the captured Claude Code 2.1.197 transcripts"
    );
    for path in fixtures_in("claude-code").into_iter().chain(real) {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let orig = std::fs::read(&path).unwrap();
        let s = formats::read(&orig, None).unwrap();
        let mut plans = vec![
            ("trim", plan(&s, None)),
            ("marker", plan(&s, Some(marker()))),
            ("compact", plan(&s, Some(summary()))),
        ];
        if let Some(p) = with_edit(&s, plan(&s, Some(summary()))) {
            plans.push(("compact+edit", p));
        }
        for (what, items) in plans {
            let name = format!("{name} {what}");
            let out = formats::write(&s, &items).unwrap();
            reread(&name, &s, &items, &out);
            check_claude(&name, &orig, &out);
            if what == "trim" {
                let dropped: usize = (0..s.messages.len())
                    .filter(|i| !items.contains(&Item::Keep(*i)))
                    .map(|i| s.messages[i].origin.records().len())
                    .sum();
                // Plus ctxctl's rewrite marker.
                assert_eq!(
                    lines(&out).len(),
                    lines(&orig).len() - dropped + 1,
                    "{name}"
                );
            }
        }
    }
}

/// The `ordinal` of the final record of a Codex rollout, when it numbers its records.
fn last_ordinal(bytes: &[u8]) -> Option<u64> {
    let last = lines(bytes).into_iter().rfind(|l| !l.trim().is_empty())?;
    serde_json::from_str::<Value>(last).ok()?["ordinal"].as_u64()
}

#[test]
fn codex_appends_a_compacted_record() {
    let mut paginated = 0;
    for path in fixtures_in("codex")
        .into_iter()
        .chain(fixtures_in("realclients/codex"))
    {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let orig = std::fs::read(&path).unwrap();
        let s = formats::read(&orig, None).unwrap();
        let mut plans = vec![("trim", plan(&s, None))];
        plans.extend(with_edit(&s, plan(&s, None)).map(|p| ("edit", p)));
        let ordinal = last_ordinal(&orig);
        paginated += usize::from(ordinal.is_some());
        for (what, items) in plans {
            let name = format!("{name} {what}");
            let out = formats::write(&s, &items).unwrap();
            assert!(out.starts_with(&orig), "{name}: original lines changed");
            let added: Vec<Value> = lines(&out[orig.len()..])
                .into_iter()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            for v in &added {
                assert!(
                    v["timestamp"].is_string() && v["payload"].is_object(),
                    "{name}"
                );
            }
            let kinds: Vec<String> = added
                .iter()
                .map(|v| match v["type"].as_str().unwrap() {
                    "event_msg" => format!("event_msg/{}", v["payload"]["type"].as_str().unwrap()),
                    t => t.to_string(),
                })
                .collect();
            match ordinal {
                // Codex 0.169: numbered on, and what its own compaction writes after it.
                Some(o) => {
                    assert_eq!(
                        kinds,
                        [
                            "compacted",
                            "world_state",
                            "turn_context",
                            "event_msg/token_count"
                        ],
                        "{name}"
                    );
                    let numbers: Vec<u64> = added
                        .iter()
                        .map(|v| v["ordinal"].as_u64().unwrap())
                        .collect();
                    assert_eq!(numbers, (o + 1..o + 5).collect::<Vec<_>>(), "{name}");
                    assert_eq!(last_ordinal(&out), Some(o + 4), "{name}");
                }
                None => {
                    assert_eq!(
                        kinds,
                        ["compacted", "event_msg/context_compacted"],
                        "{name}"
                    );
                    assert!(added.iter().all(|v| v.get("ordinal").is_none()), "{name}");
                }
            }
            let added: Vec<String> = added.iter().map(Value::to_string).collect();
            let s2 = reread(&name, &s, &items, &out);
            // Opaque reasoning survives byte for byte.
            let opaque = |s: &Session| -> Vec<Part> {
                s.messages
                    .iter()
                    .flat_map(|m| m.parts.clone())
                    .filter(|p| matches!(p, Part::Opaque { .. }))
                    .collect()
            };
            let kept: Vec<Part> = items
                .iter()
                .filter_map(Item::index)
                .flat_map(|i| s.messages[i].parts.clone())
                .filter(|p| matches!(p, Part::Opaque { .. }))
                .collect();
            assert_eq!(opaque(&s2), kept, "{name}");
            for it in items.iter().filter_map(Item::index) {
                if let Some(Value::String(enc)) =
                    raw_item(&s, it).and_then(|v| v.get("encrypted_content").cloned())
                {
                    assert!(added[0].contains(&enc), "{name}: encrypted content altered");
                }
            }
        }
    }
    assert!(
        paginated >= 2,
        "the two captured Codex 0.169 rollouts number their records"
    );
}

/// The original JSON item of a Codex message read from a `response_item` line.
fn raw_item(s: &Session, i: usize) -> Option<Value> {
    let session::Document::Lines(doc) = &s.doc else {
        return None;
    };
    let line = *s.messages[i].origin.records().first()?;
    let v: Value = serde_json::from_str(doc.line(line)).ok()?;
    (v["type"] == "response_item").then(|| v["payload"].clone())
}

const GOOSE_TOOLS: &str = concat!(
    r#"{"working_dir":"/w","description":"tools","message_count":5}"#,
    "\n",
    r#"{"id":null,"role":"user","created":10,"content":[{"type":"text","text":"list files"}],"metadata":{"userVisible":true,"agentVisible":true}}"#,
    "\n",
    r#"{"id":null,"role":"assistant","created":11,"content":[{"type":"toolRequest","id":"t1","toolCall":{"status":"success","value":{"name":"shell","arguments":{"command":"ls"}}}}],"metadata":{"userVisible":true,"agentVisible":true}}"#,
    "\n",
    r#"{"id":null,"role":"user","created":12,"content":[{"type":"toolResponse","id":"t1","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"a.txt b.txt"}],"isError":false}}}],"metadata":{"userVisible":true,"agentVisible":true}}"#,
    "\n",
    r#"{"id":null,"role":"assistant","created":13,"content":[{"type":"text","text":"two files"}]}"#,
    "\n",
    r#"{"id":null,"role":"user","created":14,"content":[{"type":"text","text":"thanks"}],"metadata":{"userVisible":true,"agentVisible":true}}"#,
    "\n",
);

#[test]
fn goose_hides_instead_of_deleting() {
    let recorded = support::goose_session_from_recording();
    for (name, text) in [("recording", recorded.as_str()), ("tools", GOOSE_TOOLS)] {
        let orig = text.as_bytes();
        let s = formats::read(orig, None).unwrap();
        assert_eq!(s.format, Format::Goose, "{name}");
        assert_eq!(formats::write(&s, &s.keep_all()).unwrap(), orig, "{name}");
        let mut plans = vec![("trim", plan(&s, None))];
        plans.extend(with_edit(&s, plan(&s, Some(summary()))).map(|p| ("edit", p)));
        for (what, items) in plans {
            let name = format!("{name} {what}");
            let out = formats::write(&s, &items).unwrap();
            reread(&name, &s, &items, &out);
            let inserted = items
                .iter()
                .filter(|i| matches!(i, Item::Insert(_)))
                .count();
            let (olines, nlines) = (lines(orig), lines(&out));
            assert_eq!(nlines.len(), olines.len() + inserted, "{name}");
            let mut old = olines.iter().peekable();
            for l in nlines {
                let v: Value = serde_json::from_str(l).unwrap();
                if old.peek() == Some(&&l) {
                    old.next();
                    continue;
                }
                if v.get("ctxctl").is_some()
                    || v["content"][0]["text"] == "[earlier messages omitted]"
                {
                    for key in ["role", "created", "content", "metadata"] {
                        assert!(v.get(key).is_some(), "{name}: new message lacks {key}");
                    }
                    assert_eq!(
                        v["metadata"],
                        json!({"userVisible": false, "agentVisible": true})
                    );
                    continue;
                }
                let o: Value = serde_json::from_str(old.next().unwrap()).unwrap();
                if v["metadata"]["agentVisible"] == false {
                    let mut o2 = o.clone();
                    o2["metadata"]["agentVisible"] = json!(false);
                    o2["metadata"]["userVisible"] = o["metadata"]["userVisible"].clone();
                    if o2["metadata"]["userVisible"].is_null() {
                        o2["metadata"]["userVisible"] = json!(true);
                    }
                    assert_eq!(v, o2, "{name}: a hidden message changed");
                } else {
                    assert_eq!(v["role"], o["role"], "{name}");
                    assert_ne!(v["content"], o["content"], "{name}: unexplained change");
                }
            }
        }
    }
}

/// A rewrite written as it is made (`write_to`, what `trim -o FILE` does, never holding
/// the output) is the very bytes of the rewrite made whole, for every Claude Code and
/// Codex fixture: a trim, and a trim with a shortened tool result. (Plans that insert
/// records are left out: their new records get fresh ids on every write.)
#[test]
fn written_as_made_equals_written_whole() {
    let files = [
        "claude-code",
        "realclients/claude-code",
        "codex",
        "realclients/codex",
    ]
    .into_iter()
    .flat_map(fixtures_in);
    let (mut edits, mut restores) = (0, 0);
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let orig = std::fs::read(&path).unwrap();
        let s = formats::read(&orig, None).unwrap();
        let mut plans = vec![("trim", plan(&s, None))];
        if let Some(p) = with_edit(&s, plan(&s, None)) {
            plans.push(("trim+edit", p));
            edits += 1;
        }
        for (what, items) in plans {
            let whole = formats::write(&s, &items).unwrap();
            let mut streamed = Vec::new();
            formats::write_to(&s, &items, &mut streamed).unwrap();
            assert!(whole != orig, "{name} {what}: the plan changes nothing");
            assert!(streamed == whole, "{name} {what}: written as made differs");
        }
        // `archive restore` of the compaction: its records back in place of the summary.
        let items = plan(&s, Some(summary()));
        let compacted = formats::write(&s, &items).unwrap();
        let c = formats::read(&compacted, None).unwrap();
        let restore = restore_items(&s, &items, &c);
        let whole = formats::write(&c, &restore).unwrap();
        let mut streamed = Vec::new();
        formats::write_to(&c, &restore, &mut streamed).unwrap();
        assert!(
            whole != compacted,
            "{name} restore: the plan changes nothing"
        );
        assert!(streamed == whole, "{name} restore: written as made differs");
        restores += 1;
    }
    assert!(edits > 0, "no fixture has a tool result to shorten");
    assert!(restores > 0, "no fixture was restored");
}

/// The plan `archive restore` makes of `c`, session `s` compacted by `items`: the records
/// of the messages the compaction left out, verbatim, in place of its summary.
fn restore_items(s: &Session, items: &[Item], c: &Session) -> Vec<Item> {
    let at = c
        .messages
        .iter()
        .position(|m| m.compact.is_some())
        .expect("the compaction's summary");
    let kept: HashSet<usize> = items.iter().filter_map(Item::index).collect();
    let session::Document::Lines(doc) = &s.doc else {
        unreachable!("agent transcripts are JSONL")
    };
    let mut out: Vec<Item> = (0..at).map(Item::Keep).collect();
    for (i, m) in s.messages.iter().enumerate() {
        if kept.contains(&i) {
            continue;
        }
        for &line in m.origin.records() {
            out.push(Item::InsertRecord(
                session::Record::verbatim(doc.line(line)).unwrap(),
            ));
        }
    }
    out.extend((at + 1..c.messages.len()).map(Item::Keep));
    out
}
