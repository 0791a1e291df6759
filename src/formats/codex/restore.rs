//! Undoing a ctxctl compaction of a Codex rollout (`archive restore`).
//!
//! A rollout is append-only: the compaction appended a `compacted` record (its
//! `replacement_history` holding ctxctl's summary) and a `context_compacted` event, and left
//! every earlier line as it was. When removing those two lines gives exactly the history
//! the restore asks for, that is the restore, and the original bytes come back (lines
//! appended since stay). Otherwise (the summary is not in a record ctxctl wrote, or the
//! agent has reported usage since, which describes the compacted history and would look
//! current without a `compacted` record before it) the writer appends a new `compacted`
//! record with the restored history, as for any other rewrite.

use serde_json::Value;

use super::{Rollout, Source};
use crate::formats::lines_out::{LineOut, LinePlan};
use crate::session::LinesDoc;
use crate::session::WriteError;

/// The Responses item an archived record holds: the payload of a `response_item` line, or
/// the record itself when it is a bare item (from a `replacement_history`, or a legacy
/// rollout). `None` for other records of the rollout, which never left the file.
pub fn archived_item(v: &Value) -> Option<Value> {
    match (v.get("type").and_then(Value::as_str), v.get("payload")) {
        (Some("response_item"), Some(p)) => Some(p.clone()),
        (_, Some(_)) => None,
        _ => Some(v.clone()),
    }
}

/// The rollout without the `compacted` record holding item `at` (and the event after it),
/// if it is ctxctl's, no usage was reported after it, and what is left has exactly
/// `history` as its active items.
pub fn undo(
    doc: &LinesDoc,
    r: &Rollout,
    at: usize,
    history: &[Value],
) -> Result<Option<Vec<u8>>, WriteError> {
    let Some(item) = r.items.get(at) else {
        return Ok(None);
    };
    let Source::History { line, .. } = item.source else {
        return Ok(None);
    };
    if item.value.get("ctxctl").is_none() || r.usage.is_some() {
        return Ok(None);
    }
    let event = (line + 1..doc.lines.len())
        .find(|&l| !doc.line(l).trim().is_empty())
        .filter(|&l| is_compacted_event(doc.line(l)));
    let mut plan = LinePlan::new(doc);
    plan.set(line, LineOut::Drop);
    if let Some(e) = event {
        plan.set(e, LineOut::Drop);
    }
    let Ok(text) = String::from_utf8(plan.render()) else {
        return Ok(None);
    };
    let candidate = LinesDoc::new(text);
    let Ok(again) = Rollout::parse(&candidate) else {
        return Ok(None);
    };
    let same = again.system.as_ref().map(|s| &s.1) == r.system.as_ref().map(|s| &s.1)
        && again.items.len() == history.len()
        && again.items.iter().zip(history).all(|(a, h)| a.value == *h);
    Ok(same.then(|| candidate.text.into_bytes()))
}

/// The `event_msg` `context_compacted` written after a `compacted` record.
fn is_compacted_event(line: &str) -> bool {
    serde_json::from_str::<Value>(line).is_ok_and(|v| {
        v.get("type").and_then(Value::as_str) == Some("event_msg")
            && v.pointer("/payload/type").and_then(Value::as_str) == Some("context_compacted")
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn archived_records_become_items() {
        let item = json!({"type":"message","role":"user","content":[]});
        let line = json!({"timestamp":"t","type":"response_item","payload":item.clone()});
        assert_eq!(archived_item(&line), Some(item.clone()));
        assert_eq!(archived_item(&item), Some(item));
        let meta = json!({"timestamp":"t","type":"session_meta","payload":{"id":"x"}});
        assert_eq!(archived_item(&meta), None);
    }
}
