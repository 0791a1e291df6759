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
//! `ctxctl` key, where Claude Code does not look. The records are then summarized, trimmed,
//! edited or kept like any other. A compaction notes the boundary it flattened
//! ([`UNFLATTEN_KEY`]), so that `archive restore` puts it back as it was ([`unflatten`]).

use serde_json::{Map, Value};

use super::thread::Transcript;
use crate::formats::raw::{remove_field, set_fields};

/// Key of a ctxctl compaction boundary's metadata naming the boundary (uuid) it flattened.
pub const UNFLATTEN_KEY: &str = "unflatten";

/// The keys of `compactMetadata` that name preserved records.
const SEGMENT_KEYS: [&str; 2] = ["preservedSegment", "preservedMessages"];

/// Key of the boundary's `ctxctl` metadata holding what was taken out of
/// `compactMetadata`.
pub const PRESERVED_KEY: &str = "preserved";

/// The boundary record to rewrite and its new fields, when `t`'s thread has a splice.
pub fn flatten(t: &Transcript) -> Option<(usize, Vec<(&'static str, Value)>)> {
    let s = t.splice.as_ref()?;
    let b = &t.recs[s.boundary].v;
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
    Some((
        s.boundary,
        vec![
            ("compactMetadata", Value::Object(meta)),
            ("ctxctl", Value::Object(ctxctl)),
        ],
    ))
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
