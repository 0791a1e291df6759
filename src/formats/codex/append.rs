//! The records a rewrite appends to a rollout: a `compacted` record holding the new
//! history, then what the Codex version that wrote the file writes after its own
//! compaction.
//!
//! Codex 0.169 (`history_mode: "paginated"`) numbers every record (`ordinal`, counting
//! from 0; resume continues from the final record's and refuses a final record without
//! one) and writes after its `compacted` record the `world_state`, the `turn_context` and
//! a `token_count` whose last usage is its estimate of the new history. Without a
//! `turn_context` after the `compacted` record, a resumed Codex takes the context for
//! reset and sends its skills and `<environment_context>` messages again, beside the
//! copies the history keeps. Older rollouts get what older builds wrote: the `compacted`
//! record and an `event_msg` `context_compacted`, no ordinals.

use serde_json::{json, Map, Value};

use super::Rollout;
use crate::session::LinesDoc;

/// The lines to append for a rewrite whose history is `history` (`message`: ctxctl's
/// summary, or empty).
pub fn records(
    doc: &LinesDoc,
    r: &Rollout,
    message: String,
    history: Vec<Value>,
) -> Result<Vec<String>, serde_json::Error> {
    let ts = r.last_timestamp.clone().map_or(Value::Null, Value::String);
    let mut next = r.ordinal.map(|o| o + 1);
    let mut out = Vec::new();
    let mut push = |ty: &str, payload: Value| -> Result<(), serde_json::Error> {
        let mut rec = Map::new();
        rec.insert("timestamp".into(), ts.clone());
        if let Some(o) = next {
            rec.insert("ordinal".into(), o.into());
            next = Some(o + 1);
        }
        rec.insert("type".into(), ty.into());
        rec.insert("payload".into(), payload);
        out.push(to_string_sized(&Value::Object(rec))?);
        Ok(())
    };
    let estimate = estimate(r, &history);
    // The history moved in, not copied: `json!` would serialize a copy of every value.
    let mut compacted = Map::new();
    compacted.insert("message".into(), message.into());
    compacted.insert("replacement_history".into(), Value::Array(history));
    push("compacted", Value::Object(compacted))?;
    if !r.paginated() {
        push("event_msg", json!({"type": "context_compacted"}))?;
        return Ok(out);
    }
    if let Some(p) = payload(doc, r.latest.world_state) {
        push("world_state", p)?;
    }
    if let Some(p) = payload(doc, r.latest.turn_context) {
        push("turn_context", p)?;
    }
    if let Some(mut p) = payload(doc, r.latest.token_count) {
        if let Some(last) = p
            .pointer_mut("/info/last_token_usage")
            .and_then(Value::as_object_mut)
        {
            // Nothing was sent yet; the total is Codex's own estimate of the history.
            for (k, v) in last.iter_mut() {
                *v = json!(if k == "total_tokens" { estimate } else { 0 });
            }
        }
        push("event_msg", p)?;
    }
    Ok(out)
}

/// Whether `line`, found right after a `compacted` record stamped `ts`, is one of the
/// records [`records`] appends after it.
pub fn is_appended(line: &str, ts: Option<&str>) -> bool {
    let Ok(v) = serde_json::from_str::<Value>(line) else {
        return false;
    };
    if v.get("timestamp").and_then(Value::as_str) != ts {
        return false;
    }
    match v.get("type").and_then(Value::as_str) {
        Some("world_state" | "turn_context") => true,
        Some("event_msg") => matches!(
            v.pointer("/payload/type").and_then(Value::as_str),
            Some("token_count" | "context_compacted")
        ),
        _ => false,
    }
}

/// The payload of the record on `line`.
fn payload(doc: &LinesDoc, line: Option<usize>) -> Option<Value> {
    let v: Value = serde_json::from_str(doc.line(line?)).ok()?;
    v.get("payload").cloned()
}

/// Codex's measure of a history (its estimate after a compaction): the JSON of the base
/// instructions and of every item, four bytes a token.
fn estimate(r: &Rollout, history: &[Value]) -> u64 {
    let base = r.system.as_ref().map_or(0, |(_, t)| t.len());
    let items: usize = history.iter().map(json_len).sum();
    ((base + items) / 4) as u64
}

/// Counts the bytes written to it.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The length of `v`'s JSON text, without making it.
fn json_len(v: &Value) -> usize {
    let mut n = Counter(0);
    serde_json::to_writer(&mut n, v).map_or(0, |()| n.0)
}

/// `v`'s JSON text (as `serde_json::to_string` writes it) in a buffer of its exact size:
/// the `compacted` record of a large rollout's rewrite is megabytes, and a buffer grown
/// by doubling to hold it is up to twice that, at the peak of the rewrite.
fn to_string_sized(v: &Value) -> Result<String, serde_json::Error> {
    let mut out = Vec::with_capacity(json_len(v));
    serde_json::to_writer(&mut out, v)?;
    Ok(String::from_utf8(out).expect("serde_json writes UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_written_as_to_string_writes_it_in_a_buffer_of_its_size() {
        let v = json!({"a": [1, "two\n\u{e9}\"", {"b": null}], "c": 1.5, "d": "\u{1f600}"});
        let s = to_string_sized(&v).unwrap();
        assert_eq!(s, serde_json::to_string(&v).unwrap());
        assert_eq!(s.capacity(), s.len());
        assert_eq!(json_len(&v), s.len());
    }

    fn line(ordinal: Option<u64>, ty: &str, payload: Value) -> String {
        let mut v = json!({"timestamp": "2026-01-01T00:00:00.000Z"});
        if let Some(o) = ordinal {
            v["ordinal"] = o.into();
        }
        v["type"] = ty.into();
        v["payload"] = payload;
        v.to_string()
    }

    fn rollout(lines: &[String]) -> (LinesDoc, Rollout) {
        let doc = LinesDoc::new(lines.join("\n") + "\n");
        let r = Rollout::parse(&doc).unwrap();
        (doc, r)
    }

    #[test]
    fn paginated_rollouts_get_ordinals_and_the_records_after_a_compaction() {
        let usage = json!({"input_tokens": 900, "output_tokens": 9, "total_tokens": 909});
        let (doc, r) = rollout(&[
            line(
                Some(0),
                "session_meta",
                json!({"id": "t", "history_mode": "paginated"}),
            ),
            line(
                Some(1),
                "world_state",
                json!({"full": true, "state": {"a": 1}}),
            ),
            line(
                Some(2),
                "turn_context",
                json!({"turn_id": "u", "model": "m"}),
            ),
            line(
                Some(3),
                "event_msg",
                json!({"type": "token_count", "info": {"last_token_usage": usage, "model_context_window": 100}}),
            ),
        ]);
        let out = records(&doc, &r, "s".into(), vec![json!({"type": "message"})]).unwrap();
        let recs: Vec<Value> = out
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let kinds: Vec<&str> = recs.iter().map(|v| v["type"].as_str().unwrap()).collect();
        assert_eq!(
            kinds,
            ["compacted", "world_state", "turn_context", "event_msg"]
        );
        let ordinals: Vec<u64> = recs
            .iter()
            .map(|v| v["ordinal"].as_u64().unwrap())
            .collect();
        assert_eq!(ordinals, [4, 5, 6, 7]);
        assert_eq!(recs[2]["payload"]["turn_id"], "u");
        let last = &recs[3]["payload"]["info"]["last_token_usage"];
        assert_eq!(last["input_tokens"], 0);
        assert_eq!(
            last["total_tokens"], 4,
            "the item's 18 bytes of JSON, 4 a token"
        );
        assert_eq!(recs[3]["payload"]["info"]["model_context_window"], 100);
        assert!(out
            .iter()
            .skip(1)
            .all(|l| is_appended(l, Some("2026-01-01T00:00:00.000Z"))));
        assert!(!is_appended(&out[1], Some("another time")));
    }

    #[test]
    fn older_rollouts_get_what_older_builds_wrote() {
        let (doc, r) = rollout(&[
            line(None, "session_meta", json!({"id": "t"})),
            line(None, "turn_context", json!({"model": "m"})),
        ]);
        let out = records(&doc, &r, String::new(), Vec::new()).unwrap();
        let recs: Vec<Value> = out
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[1]["payload"]["type"], "context_compacted");
        assert!(recs.iter().all(|v| v.get("ordinal").is_none()));
    }
}
