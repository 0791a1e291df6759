//! Writing a transcript whose thread holds records Claude Code's own compaction preserved
//! from before its boundary (`compactMetadata.preservedSegment`, see
//! [`Splice`](super::claude_code_thread::Splice)).
//!
//! Claude Code splices the segment in after the summary when it loads the file. A rewrite
//! that kept that arrangement would have to keep the segment whole, its head, anchor and
//! tail in place. Instead the writer puts the segment on the `parentUuid` chain itself (its
//! head's parent becomes the summary, and the records that followed the summary continue
//! from its tail), and the boundary stops naming it: its `preservedSegment` and
//! `preservedMessages` move from `compactMetadata` to the boundary's `ctxctl` key, where
//! Claude Code does not look and from which nothing is lost. The records are then
//! summarized, trimmed, edited or kept like any other.

use serde_json::{Map, Value};

use super::claude_code_thread::Transcript;

/// The keys of `compactMetadata` that name preserved records.
const SEGMENT_KEYS: [&str; 2] = ["preservedSegment", "preservedMessages"];

/// Key of the boundary's `ctxctl` metadata holding what was taken out of
/// `compactMetadata`.
pub const PRESERVED_KEY: &str = "preserved";

/// The boundary record to rewrite and its new fields, when `t`'s thread has a splice.
pub fn flatten(t: &Transcript) -> Option<(usize, Vec<(&'static str, Value)>)> {
    let s = t.splice.as_ref()?;
    let b = &t.recs[s.boundary].v;
    let mut meta = b.get("compactMetadata")?.as_object()?.clone();
    let mut moved = Map::new();
    for k in SEGMENT_KEYS {
        if let Some(v) = meta.remove(k) {
            moved.insert(k.to_string(), v);
        }
    }
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
