//! Undoing a ctxctl compaction of a Codex rollout (`archive restore`).
//!
//! A rollout is append-only: the compaction appended a `compacted` record (its
//! `replacement_history` holding ctxctl's summary) and the records after it (see
//! [`super::append`]), and left every earlier line as it was. When removing those lines
//! gives exactly the history
//! the restore asks for, that is the restore, and the original bytes come back (lines
//! appended since stay). Otherwise (the summary is not in a record ctxctl wrote, or the
//! agent has reported usage since, which describes the compacted history and would look
//! current without a `compacted` record before it) the writer appends a new `compacted`
//! record with the restored history, as for any other rewrite.

use std::borrow::Cow;

use serde_json::Value;

use super::{append, Rollout, Source};
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

/// The rollout without the `compacted` record holding item `at` (and the records appended
/// with it), as a plan of `doc`'s lines,
/// if it is ctxctl's, no usage was reported after it, and what is left has exactly
/// `history` as its active items (given one at a time, compared as they come, so that
/// they need not all be held).
pub fn undo<'d, 'h>(
    doc: &'d LinesDoc,
    r: &Rollout,
    at: usize,
    history: impl IntoIterator<Item = Result<Cow<'h, Value>, WriteError>>,
) -> Result<Option<LinePlan<'d>>, WriteError> {
    let Some(item) = r.items.get(at) else {
        return Ok(None);
    };
    let Source::History { line, .. } = item.source else {
        return Ok(None);
    };
    if r.value_of(doc, item)?.get("ctxctl").is_none() || r.usage.is_some() {
        return Ok(None);
    }
    let ts = serde_json::from_str::<Value>(doc.line(line))
        .ok()
        .and_then(|v| {
            v.get("timestamp")
                .and_then(Value::as_str)
                .map(str::to_string)
        });
    let mut plan = LinePlan::new(doc);
    plan.set(line, LineOut::Drop);
    let mut end = line + 1;
    for l in line + 1..doc.lines.len() {
        let text = doc.line(l);
        if text.trim().is_empty() {
            continue;
        }
        if !append::is_appended(text, ts.as_deref()) {
            break;
        }
        plan.set(l, LineOut::Drop);
        end = l + 1;
    }
    // What is left, read in place: blank lines among those dropped are nothing to a parse.
    let Ok(again) = Rollout::parse_lean_without(doc, line..end) else {
        return Ok(None);
    };
    if again.system.as_ref().map(|s| &s.1) != r.system.as_ref().map(|s| &s.1) {
        return Ok(None);
    }
    let mut history = history.into_iter();
    for a in &again.items {
        let Ok(v) = again.value_of(doc, a) else {
            return Ok(None);
        };
        match history.next().transpose()? {
            Some(h) if *v == *h => {}
            _ => return Ok(None),
        }
    }
    if history.next().is_some() {
        return Ok(None);
    }
    Ok(Some(plan))
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
