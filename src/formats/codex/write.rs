//! Writing Codex rollouts back so that `codex resume` continues them.
//!
//! A rollout is an append-only log that Codex replays on resume, so a changed history is
//! not written by deleting lines: every line stays byte for byte, and a `compacted` record
//! whose `replacement_history` is the new history (kept items, edits applied, inserted
//! messages in place) is appended, followed by what Codex writes after its own compactions
//! (see [`append`]). Legacy rollouts (no envelope, no `compacted` records)
//! are rewritten line by line instead. Archived records (`archive restore`) go back into the
//! history as items; see [`codex_restore`] for undoing a compaction exactly.

use std::borrow::Cow;

use serde_json::{json, Value};

use super::restore::{self, archived_item};
use super::{append, Rollout};
use crate::formats::edit::same_messages;
use crate::formats::lines_out::{LineOut, LinePlan, Rendered};
use crate::session::{restore_plan, Item, NewMessage, PartEdit, WriteError};
use crate::session::{LinesDoc, Role, Session};

/// `session` (read from `doc`) rewritten by `items`, to be written whole or as it goes.
pub fn write<'d>(
    session: &Session,
    doc: &'d LinesDoc,
    items: &[Item],
) -> Result<Rendered<'d>, WriteError> {
    if items == session.keep_all().as_slice() {
        return Ok(Rendered::Same(doc));
    }
    // The reader's lean parse, kept in the document; a parse of its own (as lean) for a
    // document read otherwise. Items are read again as they are written: a large
    // rollout's are not all held.
    let parsed;
    let r = match super::kept(doc) {
        Some(r) => r,
        None => {
            parsed = Rollout::parse_lean(doc)?;
            &parsed
        }
    };
    let offset = usize::from(r.system.is_some());
    same_messages(r.items.len() + offset, session)?;
    if r.legacy {
        return legacy(doc, items, r, offset).map(Rendered::Bytes);
    }
    // Message index -> its item (the instructions message has none), and its value.
    let item = |i: usize| i.checked_sub(offset).map(|k| &r.items[k]);
    let value = |a| r.value_of(doc, a).map_err(WriteError::from);
    // Undoing a compaction exactly is tried first, each archived record parsed only as it
    // is compared: an archive may hold most of a large rollout, and its items are not
    // held as values unless the restore has to append a new history.
    if let Some(p) = restore_plan(session, items) {
        if let Some(at) = p.at.checked_sub(offset) {
            let wanted = items.iter().filter_map(|it| match it {
                Item::Keep(i) => item(*i).map(value),
                Item::InsertRecord(rec) => match rec.value_in(doc) {
                    Ok(v) => archived_item(&v).map(|v| Ok(Cow::Owned(v))),
                    Err(e) => Some(Err(WriteError::from(e))),
                },
                // A restore plan has nothing else.
                _ => Some(Err(WriteError::Document("not a restore plan".into()))),
            });
            if let Some(plan) = restore::undo(doc, r, at, wanted)? {
                return Ok(Rendered::Plan(plan));
            }
        }
    }
    let mut history = Vec::with_capacity(items.len());
    let mut summary = None;
    for it in items {
        match it {
            Item::Keep(i) => {
                if let Some(a) = item(*i) {
                    history.push(value(a)?.into_owned());
                }
            }
            Item::Edit { index, edits } => {
                if let Some(a) = item(*index) {
                    history.push(edited(value(a)?, *index, edits)?);
                }
            }
            Item::Insert(m) => {
                if m.meta.get("compact_boundary").and_then(Value::as_bool) == Some(true) {
                    summary = Some(m.text.clone());
                }
                history.push(new_item(m));
            }
            Item::InsertRecord(r) => history.extend(archived_item(&*r.value_in(doc)?)),
        }
    }
    let mut plan = LinePlan::new(doc);
    for line in append::records(doc, r, summary.unwrap_or_default(), history)? {
        plan.append(line);
    }
    Ok(Rendered::Plan(plan))
}

/// A Responses API message item for a message ctxctl adds; ctxctl's metadata (compaction
/// id …) rides along under `ctxctl`.
fn new_item(m: &NewMessage) -> Value {
    let (role, kind) = match m.role {
        Role::Assistant => ("assistant", "output_text"),
        Role::System | Role::Developer => ("developer", "input_text"),
        Role::User | Role::Tool => ("user", "input_text"),
    };
    let mut v =
        json!({"type": "message", "role": role, "content": [{"type": kind, "text": m.text}]});
    if !m.meta.is_empty() {
        v["ctxctl"] = Value::Object(m.meta.clone());
    }
    v
}

fn edited(v: Cow<'_, Value>, index: usize, edits: &[PartEdit]) -> Result<Value, WriteError> {
    let mut v = v.into_owned();
    for edit in edits {
        let PartEdit::ResultText { call_id, text } = edit;
        if !set_output(&mut v, call_id, text) {
            return Err(WriteError::NoSuchResult {
                index,
                call_id: call_id.clone(),
            });
        }
    }
    Ok(v)
}

/// Replaces the output of a `*_call_output` item answering `call_id`, keeping its shape:
/// Codex 0.5x wraps shell output as a JSON string `{"output", "metadata"}`. A text edited
/// from the plain form ctxctl read such an output as ([`super::shell_output`]) goes back
/// without the header Codex adds again when it sends it.
fn set_output(v: &mut Value, call_id: &str, text: &str) -> bool {
    let is_output = matches!(
        v.get("type").and_then(Value::as_str),
        Some("function_call_output" | "custom_tool_call_output")
    );
    if !is_output || v.get("call_id").and_then(Value::as_str) != Some(call_id) {
        return false;
    }
    let new = match v.get("output") {
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(mut wrapped) if wrapped.get("output").is_some_and(Value::is_string) => {
                let text = super::shell_output::output_of_plain(text).unwrap_or(text);
                wrapped["output"] = Value::String(text.into());
                Value::String(wrapped.to_string())
            }
            _ => Value::String(text.into()),
        },
        Some(Value::Array(_)) => json!([{"type": "input_text", "text": text}]),
        _ => Value::String(text.into()),
    };
    v["output"] = new;
    true
}

/// Legacy rollouts: drop the lines of dropped items, rewrite edited ones, insert new items.
fn legacy(
    doc: &LinesDoc,
    items: &[Item],
    r: &Rollout,
    offset: usize,
) -> Result<Vec<u8>, WriteError> {
    let active = &r.items;
    let mut plan = LinePlan::new(doc);
    let mut kept = vec![false; active.len()];
    let mut pending: Vec<String> = Vec::new();
    for it in items {
        match it {
            Item::Insert(m) => pending.push(serde_json::to_string(&new_item(m))?),
            Item::InsertRecord(r) => {
                let v = r.value_in(doc)?;
                match archived_item(&v) {
                    // A bare item (a legacy rollout's line) goes back as its original text.
                    Some(item) if item == *v => pending.push(r.line_in(doc)?.into_owned()),
                    Some(item) => pending.push(serde_json::to_string(&item)?),
                    None => {}
                }
            }
            Item::Keep(i) | Item::Edit { index: i, .. } => {
                let Some(k) = i.checked_sub(offset) else {
                    continue;
                };
                let a = &active[k];
                kept[k] = true;
                let line = a.source.line();
                for p in pending.drain(..) {
                    plan.insert_before(line, p);
                }
                if let Item::Edit { edits, .. } = it {
                    let v = edited(r.value_of(doc, a)?, *i, edits)?;
                    plan.set(line, LineOut::Rewrite(serde_json::to_string(&v)?));
                }
            }
        }
    }
    for p in pending {
        plan.append(p);
    }
    for (k, a) in active.iter().enumerate() {
        if !kept[k] {
            plan.set(a.source.line(), LineOut::Drop);
        }
    }
    Ok(plan.render())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{read, write as session_write};
    use crate::session::{Document, Keep, Record};

    #[test]
    fn the_reader_s_parse_is_kept_for_the_writer_and_writes_what_a_parse_of_its_own_would() {
        let line = |ty: &str, payload: Value| {
            json!({"timestamp": "2026-01-01T00:00:00.000Z", "type": ty, "payload": payload})
                .to_string()
        };
        let user = |t: &str| json!({"type":"message","role":"user","content":[{"type":"input_text","text":t}]});
        let text = [
            line(
                "session_meta",
                json!({"id": "x", "base_instructions": {"text": "sys"}}),
            ),
            line("response_item", user("dropped")),
            line(
                "compacted",
                json!({"message": "", "replacement_history": [user("kept")]}),
            ),
            line("response_item", user("after")),
            line("response_item", user("last")),
        ]
        .join("\n")
            + "\n";
        let s = super::super::read_keeping(text.as_str(), Keep::Document).unwrap();
        let Document::Lines(doc) = &s.doc else {
            panic!("a rollout is a lines document")
        };
        let r = super::super::kept(doc).expect("kept for the writer");
        assert_eq!(r.items.len(), 3);
        // A read-only read keeps nothing.
        let counted = super::super::read_keeping(text.as_str(), Keep::Messages).unwrap();
        let Document::Lines(doc) = &counted.doc else {
            panic!("a rollout is a lines document")
        };
        assert!(super::super::kept(doc).is_none());
        // Without the kept parse, the writer parses the rollout itself: same bytes.
        let mut own = s.clone();
        if let Document::Lines(doc) = &mut own.doc {
            doc.parsed = Default::default();
        }
        for items in [
            vec![Item::Keep(0), Item::Keep(2), Item::Keep(3)],
            vec![Item::Keep(0), Item::Keep(1), Item::Keep(3)],
        ] {
            assert_eq!(
                session_write(&s, &items).unwrap(),
                session_write(&own, &items).unwrap()
            );
        }
        let embedded = |s: &Session| match &s.doc {
            Document::Lines(doc) => super::super::embedded_items(doc).unwrap(),
            _ => unreachable!(),
        };
        assert_eq!(embedded(&s), embedded(&own));
        assert_eq!(embedded(&s)[1], Some(user("kept")));
        // An archived record that is a line of the rollout is read there (a restore does
        // not hold it twice): the same bytes as its own text gives.
        let restored = |r: Record| {
            let items = [Item::Keep(0), Item::InsertRecord(r), Item::Keep(1)];
            String::from_utf8(session_write(&s, &items).unwrap()).unwrap()
        };
        let by_line = restored(Record::Line(1));
        assert_eq!(
            by_line,
            restored(Record::verbatim(text.lines().nth(1).unwrap()).unwrap())
        );
        let appended = by_line.strip_prefix(text.as_str()).expect("appended");
        assert!(appended.contains("\"dropped\""), "{appended}");
    }

    #[test]
    fn wrapped_shell_output_keeps_its_wrapper() {
        let mut v = json!({"type":"function_call_output","call_id":"c","output":"{\"output\":\"long\",\"metadata\":{\"exit_code\":0}}"});
        assert!(set_output(&mut v, "c", "short"));
        assert_eq!(
            v["output"],
            "{\"output\":\"short\",\"metadata\":{\"exit_code\":0}}"
        );
        // An edit of the plain text ctxctl read it as goes back as the output alone.
        let plain = "Exit code: 0\nWall time: 0 seconds\nOutput:\nhead [... cut ...] tail";
        assert!(set_output(&mut v, "c", plain));
        assert_eq!(
            v["output"],
            "{\"output\":\"head [... cut ...] tail\",\"metadata\":{\"exit_code\":0}}"
        );
        let mut v = json!({"type":"custom_tool_call_output","call_id":"c","output":[{"type":"input_text","text":"x"}]});
        assert!(set_output(&mut v, "c", "y"));
        assert_eq!(v["output"], json!([{"type":"input_text","text":"y"}]));
        assert!(!set_output(&mut v, "other", "y"));
    }

    #[test]
    fn legacy_rollouts_are_rewritten_line_by_line() {
        let text = concat!(
            "{\"id\":\"x\",\"timestamp\":\"t\",\"instructions\":\"sys\"}\n",
            "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"a\"}]}\n",
            "{\"record_type\":\"state\"}\n",
            "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"b\"}]}\n",
        );
        let s = read(text.as_bytes(), None).unwrap();
        let marker = NewMessage {
            role: Role::User,
            text: "m".into(),
            meta: Default::default(),
        };
        let out = session_write(&s, &[Item::Keep(0), Item::Insert(marker), Item::Keep(2)]).unwrap();
        let out = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[1], "{\"record_type\":\"state\"}");
        let texts: Vec<String> = read(out.as_bytes(), None)
            .unwrap()
            .messages
            .iter()
            .map(|m| m.text())
            .collect();
        assert_eq!(texts, ["sys", "m", "b"]);
        // Archived lines go back in place of the marker (after the `state` line it was
        // written after).
        let c = read(out.as_bytes(), None).unwrap();
        let archived = Record::verbatim(text.lines().nth(1).unwrap()).unwrap();
        let items = [Item::Keep(0), Item::InsertRecord(archived), Item::Keep(2)];
        let back = session_write(&c, &items).unwrap();
        let texts: Vec<String> = read(&back, None)
            .unwrap()
            .messages
            .iter()
            .map(|m| m.text())
            .collect();
        assert_eq!(texts, ["sys", "a", "b"]);
        assert_eq!(
            lines.len(),
            String::from_utf8(back.clone()).unwrap().lines().count()
        );
        // The archived line is back as it was, not re-serialized.
        let line = text.lines().nth(1).unwrap();
        assert!(String::from_utf8(back).unwrap().contains(line));
    }
}
