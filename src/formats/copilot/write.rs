//! Writing a Copilot CLI event log back, line by line: kept events stay byte for byte, the
//! events of dropped messages go (a tool result with its `tool.execution_start`), an
//! edited tool result has only its `data` re-serialized, and a message ctxctl adds is a
//! `user.message` (or `assistant.message`) event of its own, before the next kept message.
//! Events that are no message (turn markers, usage, shutdown and resume records) stay.
//!
//! `copilot --resume` replays the log as it finds it (a missing event breaks no chain it
//! checks: verified with Copilot CLI 1.0.102). A compaction summary Copilot wrote itself
//! (`session.compaction_complete`) hides everything before it, so its line is kept even
//! when the plan drops its message: removing it would bring the whole earlier history back.

use serde_json::{json, Map, Value};

use super::events::is_event;
use crate::formats::lines_out::{LineOut, LinePlan};
use crate::formats::raw::RawRecord;
use crate::session::{
    restore_plan, Item, LinesDoc, NewMessage, PartEdit, RestorePlan, Role, Session, WriteError,
};
use std::collections::HashMap;

pub fn write(session: &Session, doc: &LinesDoc, items: &[Item]) -> Result<Vec<u8>, WriteError> {
    if items == session.keep_all().as_slice() {
        return Ok(doc.text.as_bytes().to_vec());
    }
    if let Some(p) = restore_plan(session, items) {
        if let Some(bytes) = restore(session, doc, &p)? {
            return Ok(bytes);
        }
    }
    let mut plan = LinePlan::new(doc);
    for m in &session.messages {
        if m.compact
            .as_ref()
            .is_some_and(|c| c.by == super::events::BY)
        {
            continue;
        }
        for &r in m.origin.records() {
            plan.set(r, LineOut::Drop);
        }
    }
    let mut pending: Vec<&NewMessage> = Vec::new();
    let mut extra: Vec<String> = Vec::new();
    let last_time = last_timestamp(doc);
    for item in items {
        match item {
            Item::Insert(m) => pending.push(m),
            Item::InsertRecord(r) => {
                for m in pending.drain(..) {
                    extra.push(event(m, &last_time)?);
                }
                extra.push(r.line()?.into_owned());
            }
            Item::Keep(i) | Item::Edit { index: i, .. } => {
                let m = session
                    .messages
                    .get(*i)
                    .ok_or(WriteError::NoSuchMessage(*i))?;
                let records = m.origin.records();
                if let Some(&first) = records.first() {
                    for m in pending.drain(..) {
                        extra.push(event(m, &last_time)?);
                    }
                    for text in extra.drain(..) {
                        plan.insert_before(first, text);
                    }
                }
                for &r in records {
                    let action = match item {
                        Item::Edit { edits, .. } => LineOut::Rewrite(edit(doc.line(r), *i, edits)?),
                        _ => LineOut::Keep,
                    };
                    plan.set(r, action);
                }
            }
        }
    }
    for m in pending {
        extra.push(event(m, &last_time)?);
    }
    for text in extra {
        plan.append(text);
    }
    Ok(plan.render())
}

/// Undoes a ctxctl compaction exactly: each archived event goes back right after the event
/// its `parentId` names (Copilot chains every event to the one written before it), and the
/// summary's line goes. `None` when an archived event's parent is not in the file (the
/// caller then places the records as any plan's).
fn restore(
    session: &Session,
    doc: &LinesDoc,
    p: &RestorePlan,
) -> Result<Option<Vec<u8>>, WriteError> {
    let summary = session
        .messages
        .get(p.at)
        .ok_or(WriteError::NoSuchMessage(p.at))?;
    let mut plan = LinePlan::new(doc);
    for &r in summary.origin.records() {
        plan.set(r, LineOut::Drop);
    }
    // Event id -> the line an event placed after it goes before.
    let mut after: HashMap<String, usize> = HashMap::new();
    for i in 0..doc.lines.len() {
        if let Ok(v) = serde_json::from_str::<Value>(doc.line(i)) {
            if let Some(id) = v.get("id").and_then(Value::as_str) {
                after.insert(id.to_string(), i + 1);
            }
        }
    }
    for r in &p.records {
        let v = r.value()?;
        let parent = v.get("parentId").and_then(Value::as_str);
        let Some(&at) = parent.and_then(|id| after.get(id)) else {
            return Ok(None);
        };
        if let Some(id) = v.get("id").and_then(Value::as_str) {
            after.insert(id.to_string(), at);
        }
        plan.insert_before(at, r.line()?.into_owned());
    }
    Ok(Some(plan.render()))
}

/// The latest `timestamp` of the log (ISO 8601 UTC sorts as text), for the events ctxctl
/// adds.
fn last_timestamp(doc: &LinesDoc) -> Value {
    (0..doc.lines.len())
        .rev()
        .filter_map(|i| serde_json::from_str::<Value>(doc.line(i)).ok())
        .find_map(|v| {
            v.get("timestamp")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .map_or(Value::Null, Value::String)
}

/// The event line of a message ctxctl adds. Its metadata (compaction id …) rides along
/// under `ctxctl` at the event's top level, which Copilot ignores.
fn event(m: &NewMessage, ts: &Value) -> Result<String, WriteError> {
    let id = uuid::Uuid::new_v4().to_string();
    let mut v = match m.role {
        Role::Assistant => json!({"type": "assistant.message", "data": {
            "messageId": id, "content": m.text, "toolRequests": []}}),
        _ => json!({"type": "user.message", "data": {
            "content": m.text, "transformedContent": m.text, "messageId": id}}),
    };
    v["id"] = Value::String(uuid::Uuid::new_v4().to_string());
    v["timestamp"] = ts.clone();
    v["parentId"] = Value::Null;
    if !m.meta.is_empty() {
        v["ctxctl"] = Value::Object(m.meta.clone());
    }
    Ok(serde_json::to_string(&v)?)
}

/// A `tool.execution_complete` line with its result replaced (`result.content`, and the
/// `detailedContent` shown to the user, which would otherwise keep the whole output).
fn edit(line: &str, index: usize, edits: &[PartEdit]) -> Result<String, WriteError> {
    let v: Value = serde_json::from_str(line)?;
    if !is_event(&v) || v["type"] != "tool.execution_complete" {
        // The tool.execution_start line of a result: unchanged.
        return Ok(line.to_string());
    }
    let mut data = v["data"].clone();
    for PartEdit::ResultText { call_id, text } in edits {
        if data.get("toolCallId").and_then(Value::as_str) != Some(call_id.as_str()) {
            return Err(WriteError::NoSuchResult {
                index,
                call_id: call_id.clone(),
            });
        }
        let result = data.as_object_mut().map(|d| {
            d.entry("result")
                .or_insert_with(|| Value::Object(Map::new()))
        });
        if let Some(Value::Object(r)) = result {
            r.insert("content".into(), Value::String(text.clone()));
            if r.contains_key("detailedContent") {
                r.insert("detailedContent".into(), Value::String(text.clone()));
            }
        }
    }
    let mut rec = RawRecord::parse(line)?;
    rec.set("data", &data)?;
    Ok(rec.to_line()?)
}
