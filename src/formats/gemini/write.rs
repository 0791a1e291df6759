//! Writing a Gemini CLI session back: every existing byte stays, and one line
//! `{"$set":{"messages":[…],"lastUpdated":…}}` is appended holding the rewritten history,
//! the checkpoint Gemini CLI itself writes after a compression and honours on
//! `gemini --resume`.
//!
//! Kept messages keep their ids. A `gemini` message whose results Gemini turns into a
//! synthetic `<id>_response` turn is written as Gemini's own checkpoints write it (the
//! calls in its content, the `_response` turn a message of its own), so that each message
//! of ctxctl's is records of its own. ctxctl's summary is a user turn (like Gemini's
//! `<state_snapshot>`) carrying ctxctl's metadata under `ctxctl`, followed by the model's
//! ack, both with fresh ids. Undoing a compaction removes the appended line again (see
//! [`restore`]).

use serde_json::{json, Map, Value};

use super::history::{model_parts, response_parts, response_record, Source, ACK};
use super::{parse, Parsed};
use crate::formats::edit::same_messages;
use crate::formats::lines_out::LinePlan;
use crate::session::WriteError;
use crate::session::{Item, LinesDoc, NewMessage, PartEdit, RestorePlan, Role, Session};

/// Key of ctxctl's metadata in a record it writes: where the file ended before the line
/// holding it was appended.
const APPENDED_AT: &str = "appended_at";

pub fn write(session: &Session, doc: &LinesDoc, items: &[Item]) -> Result<Vec<u8>, WriteError> {
    if items == session.keep_all().as_slice() {
        return Ok(doc.text.as_bytes().to_vec());
    }
    let p = parse(doc)?;
    same_messages(p.sent.len(), session)?;
    let ts = p
        .replay
        .last_time
        .clone()
        .map_or(Value::Null, Value::String);
    let mut out: Vec<Value> = Vec::new();
    for it in items {
        match it {
            Item::Keep(i) => out.extend(records(&p, *i)),
            Item::Edit { index, edits } => {
                let mut recs = records(&p, *index);
                for PartEdit::ResultText { call_id, text } in edits {
                    let mut found = false;
                    for r in &mut recs {
                        found |= set_result(r, call_id, text);
                    }
                    if !found {
                        return Err(WriteError::NoSuchResult {
                            index: *index,
                            call_id: call_id.clone(),
                        });
                    }
                }
                out.extend(recs);
            }
            Item::Insert(m) => out.extend(inserted(m, &ts, doc.text.len())),
            // Inside the checkpoint line, with the other messages as values.
            Item::InsertRecord(r) => out.push(r.value()?.into_owned()),
        }
    }
    let line = json!({"$set": {"messages": out, "lastUpdated": ts}});
    let mut plan = LinePlan::new(doc);
    plan.append(serde_json::to_string(&line)?);
    Ok(plan.render())
}

/// The records message `i` is written back as.
fn records(p: &Parsed, i: usize) -> Vec<Value> {
    p.sent[i]
        .sources
        .iter()
        .map(|s| match *s {
            Source::Record(k) => {
                let v = &p.replay.live[k].value;
                if response_parts(v).is_empty() {
                    v.clone()
                } else {
                    normalized(v)
                }
            }
            Source::Responses(k) => response_record(&p.replay.live[k].value),
        })
        .collect()
}

/// A `gemini` message with its calls in its content and without `toolCalls` (their
/// results are the `_response` record written after it) or `thoughts` (in the content).
fn normalized(v: &Value) -> Value {
    let mut obj = v.as_object().cloned().unwrap_or_default();
    let parts = model_parts(v);
    obj.remove("toolCalls");
    obj.remove("thoughts");
    obj.insert("content".into(), Value::Array(parts));
    Value::Object(obj)
}

/// Sets the output of the `functionResponse` answering `call_id` in record `r`.
fn set_result(r: &mut Value, call_id: &str, text: &str) -> bool {
    let Some(parts) = r.get_mut("content").and_then(Value::as_array_mut) else {
        return false;
    };
    let mut found = false;
    for p in parts {
        let Some(f) = p.get_mut("functionResponse") else {
            continue;
        };
        let id = f
            .get("id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        let name = f.get("name").and_then(Value::as_str);
        if id.or(name) == Some(call_id) {
            f["response"] = json!({ "output": text });
            found = true;
        }
    }
    found
}

/// The records of a message ctxctl adds: a summary is followed by the model's ack, as
/// Gemini CLI's own compression writes it.
fn inserted(m: &NewMessage, ts: &Value, len: usize) -> Vec<Value> {
    let fresh = || uuid::Uuid::new_v4().to_string();
    let ty = if m.role == Role::Assistant {
        "gemini"
    } else {
        "user"
    };
    let mut rec =
        json!({"id": fresh(), "timestamp": ts, "type": ty, "content": [{"text": m.text}]});
    let summary = m.meta.get("compact_boundary").and_then(Value::as_bool) == Some(true);
    if !m.meta.is_empty() {
        let mut meta: Map<String, Value> = m.meta.clone();
        if summary {
            meta.insert(APPENDED_AT.into(), json!(len));
        }
        rec["ctxctl"] = Value::Object(meta);
    }
    let mut out = vec![rec];
    if summary {
        out.push(
            json!({"id": fresh(), "timestamp": ts, "type": "gemini", "content": [{"text": ACK}]}),
        );
    }
    out
}

/// Undoes a ctxctl compaction: the file as it was before the checkpoint holding the
/// summary was appended, when nothing was written after it; a clear refusal otherwise
/// (Gemini CLI resumed the session since, and cutting the file would lose that).
pub fn restore(
    session: &Session,
    doc: &LinesDoc,
    plan: &RestorePlan,
) -> Result<Vec<u8>, WriteError> {
    let p = parse(doc)?;
    same_messages(p.sent.len(), session)?;
    let Some(Source::Record(k)) = p.sent[plan.at].sources.first().copied() else {
        return Err(WriteError::Document(
            "the summary is not a record ctxctl wrote".into(),
        ));
    };
    let live = &p.replay.live[k];
    let line = live.from.line();
    let at = live
        .value
        .pointer(&format!("/ctxctl/{APPENDED_AT}"))
        .and_then(Value::as_u64)
        .map(|n| n as usize);
    let start = doc.lines[line].start;
    let after = doc.lines[line + 1..]
        .iter()
        .filter(|s| !doc.text[s.start..s.end].trim().is_empty())
        .count();
    match at {
        Some(n) if after == 0 && n <= start && doc.text[n..start].trim().is_empty() => {
            Ok(doc.text.as_bytes()[..n].to_vec())
        }
        Some(_) if after > 0 => Err(WriteError::Document(format!(
            "Gemini CLI wrote {after} line(s) to the session after the compaction (it was \
             resumed); cutting them off would lose that conversation, so nothing was restored \
             (`ctxctl archive show` still gives the removed records)"
        ))),
        _ => Err(WriteError::Document(
            "the summary's checkpoint line is not the one ctxctl appended".into(),
        )),
    }
}
