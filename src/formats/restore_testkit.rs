//! Test helpers shared by the agent formats' restore tests: a compaction summary to write,
//! and the restore plan `archive restore` would make for a compacted transcript.

use serde_json::{json, Map};

use crate::formats::read;
use crate::session::{Document, Item, NewMessage, Record, Role};

/// The summary record a compaction inserts (`compact_id` `c1`).
pub fn summary() -> Item {
    let mut meta = Map::new();
    meta.insert("compact_boundary".into(), json!(true));
    meta.insert("compact_id".into(), json!("c1"));
    Item::Insert(NewMessage {
        role: Role::User,
        text: "gist".into(),
        meta,
    })
}

/// The restore plan for the compacted `out` of the JSONL transcript `orig`, whose messages
/// `range` it summarized: the original lines of those messages in place of the summary.
pub fn restore_items(orig: &str, range: std::ops::Range<usize>, out: &[u8]) -> Vec<Item> {
    let s = read(orig.as_bytes(), None).unwrap();
    let c = read(out, None).unwrap();
    let at = c.messages.iter().position(|m| m.compact.is_some()).unwrap();
    let Document::Lines(doc) = &s.doc else {
        unreachable!("agent transcripts are JSONL")
    };
    let mut items: Vec<Item> = (0..at).map(Item::Keep).collect();
    for i in range {
        let line = s.messages[i].origin.records()[0];
        items.push(Item::InsertRecord(
            Record::verbatim(doc.line(line)).unwrap(),
        ));
    }
    items.extend((at + 1..c.messages.len()).map(Item::Keep));
    items
}
