//! Writing a transcript whose thread holds records Claude Code's own compaction preserved
//! from before its boundary (`compactMetadata.preservedSegment`, see
//! [`Splice`](super::thread::Splice)).
//!
//! Claude Code splices the segment in after the summary when it loads the file. A rewrite
//! that kept that arrangement would have to keep the segment whole, its head, anchor and
//! tail in place. Instead the writer puts the segment on the `parentUuid` chain itself (its
//! head's parent becomes the summary, and the records that followed the summary continue
//! from its tail), and the boundary stops naming it: its `preservedSegment` and
//! `preservedMessages` leave `compactMetadata`, whose original is kept under the boundary's
//! `ctxctl` key, where Claude Code does not look (every boundary whose segment the thread
//! runs through: after two compactions in a row, both). The records are then summarized, trimmed,
//! edited or kept like any other. A compaction notes the boundary it flattened
//! ([`UNFLATTEN_KEY`]), so that `archive restore` puts it back as it was ([`unflatten`]).

use serde_json::{Map, Value};

use super::thread::Transcript;
use super::uid;
use crate::formats::raw::{remove_field, set_fields};

/// Key of a ctxctl compaction boundary's metadata naming the boundary (uuid) it flattened.
pub const UNFLATTEN_KEY: &str = "unflatten";

/// The keys of `compactMetadata` that name preserved records.
const SEGMENT_KEYS: [&str; 2] = ["preservedSegment", "preservedMessages"];

/// Key of the boundary's `ctxctl` metadata holding what was taken out of
/// `compactMetadata`.
pub const PRESERVED_KEY: &str = "preserved";

/// The boundary records to rewrite and their new fields: every boundary whose segment
/// `t` relinked (a later compaction's segment may run through an earlier one's, so all are
/// put on the chain at once).
pub fn flatten(t: &Transcript) -> Vec<(usize, Vec<(&'static str, Value)>)> {
    t.splices
        .iter()
        .filter_map(|s| Some((s.boundary, flatten_one(t.recs[s.boundary].rare())?)))
        .collect()
}

fn flatten_one(b: &Value) -> Option<Vec<(&'static str, Value)>> {
    let original = b.get("compactMetadata")?;
    let mut meta = original.as_object()?.clone();
    for k in SEGMENT_KEYS {
        meta.remove(k);
    }
    let mut moved = Map::new();
    moved.insert("compactMetadata".into(), original.clone());
    let mut ctxctl = b
        .get("ctxctl")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    ctxctl.insert(PRESERVED_KEY.into(), Value::Object(moved));
    Some(vec![
        ("compactMetadata", Value::Object(meta)),
        ("ctxctl", Value::Object(ctxctl)),
    ])
}

/// The boundaries a ctxctl boundary's [`UNFLATTEN_KEY`] names: one uuid (older builds) or
/// a list of them.
pub fn flattened(meta: &Value) -> Vec<&str> {
    match meta {
        Value::String(u) => vec![u.as_str()],
        Value::Array(us) => us.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// The value of [`UNFLATTEN_KEY`] for the boundaries `t` relinked.
pub fn unflatten_note(t: &Transcript) -> Option<Value> {
    let uuids: Vec<Value> = t
        .splices
        .iter()
        .filter_map(|s| uid::text(&t.recs[s.boundary].uuid).map(Value::String))
        .collect();
    match uuids.len() {
        0 => None,
        1 => uuids.into_iter().next(),
        _ => Some(Value::Array(uuids)),
    }
}

/// `line`, a boundary [`flatten`] rewrote, as it was before; `None` when it holds no note.
pub fn unflatten(line: &str, v: &Value) -> Result<Option<String>, serde_json::Error> {
    let Some(meta) = v.pointer(&format!("/ctxctl/{PRESERVED_KEY}/compactMetadata")) else {
        return Ok(None);
    };
    let mut ctxctl = v["ctxctl"].as_object().cloned().unwrap_or_default();
    ctxctl.remove(PRESERVED_KEY);
    let line = set_fields(line, &[("compactMetadata", meta.clone())])?;
    Ok(Some(if ctxctl.is_empty() {
        remove_field(&line, "ctxctl")?
    } else {
        set_fields(&line, &[("ctxctl", Value::Object(ctxctl))])?
    }))
}
