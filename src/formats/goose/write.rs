//! Writing goose sessions back the way goose compacts them: nothing is deleted. Messages
//! left out get `metadata.agentVisible: false` (the user still sees them, the model no
//! longer does); added messages (a summary, a marker) are written with
//! `userVisible: false, agentVisible: true` before the next kept message. Only the
//! `metadata` (and, for edited tool results, `content`) field of an existing line changes.

use serde_json::{json, Map, Value};

use super::GooseFile;
use crate::formats::edit::same_messages;
use crate::formats::lines_out::{LineOut, LinePlan};
use crate::formats::raw::set_fields;
use crate::session::{Item, NewMessage, PartEdit, WriteError};
use crate::session::{LinesDoc, Role, Session};

pub fn write(session: &Session, doc: &LinesDoc, items: &[Item]) -> Result<Vec<u8>, WriteError> {
    if items == session.keep_all().as_slice() {
        return Ok(doc.text.as_bytes().to_vec());
    }
    let g = GooseFile::parse(doc)?;
    same_messages(g.visible.len(), session)?;
    let mut plan = LinePlan::new(doc);
    let mut kept = vec![false; g.visible.len()];
    let mut pending: Vec<&NewMessage> = Vec::new();
    for it in items {
        match it {
            Item::Insert(m) => pending.push(m),
            Item::InsertRecord(_) => {} // refused by `write` for this format
            Item::Keep(i) | Item::Edit { index: i, .. } => {
                kept[*i] = true;
                let (line, v) = &g.visible[*i];
                for m in pending.drain(..) {
                    let created = v.get("created").and_then(Value::as_i64).unwrap_or(0);
                    plan.insert_before(*line, serde_json::to_string(&new_record(m, created))?);
                }
                if let Item::Edit { index, edits } = it {
                    let content = edited_content(v, *index, edits)?;
                    plan.set(
                        *line,
                        LineOut::Rewrite(set_fields(doc.line(*line), &[("content", content)])?),
                    );
                }
            }
        }
    }
    let last_created = g.created.last().map_or(0, |(_, c)| *c);
    for m in pending {
        plan.append(serde_json::to_string(&new_record(m, last_created))?);
    }
    for (i, (line, v)) in g.visible.iter().enumerate() {
        if !kept[i] {
            let mut meta = match v.get("metadata") {
                Some(Value::Object(m)) => m.clone(),
                _ => {
                    let mut m = Map::new();
                    m.insert("userVisible".into(), Value::Bool(true));
                    m
                }
            };
            meta.insert("agentVisible".into(), Value::Bool(false));
            let text = set_fields(doc.line(*line), &[("metadata", Value::Object(meta))])?;
            plan.set(*line, LineOut::Rewrite(text));
        }
    }
    Ok(plan.render())
}

/// A goose `Message` only the agent sees; ctxctl's metadata rides along under `ctxctl`.
fn new_record(m: &NewMessage, created: i64) -> Value {
    let role = if m.role == Role::Assistant {
        "assistant"
    } else {
        "user"
    };
    let mut v = json!({
        "id": null,
        "role": role,
        "created": created,
        "content": [{"type": "text", "text": m.text}],
        "metadata": {"userVisible": false, "agentVisible": true},
    });
    if !m.meta.is_empty() {
        v["ctxctl"] = Value::Object(m.meta.clone());
    }
    v
}

/// The message's content with the tool responses named by `edits` replaced by text, in the
/// shape the response had (MCP `CallToolResult` or a legacy bare list).
fn edited_content(v: &Value, index: usize, edits: &[PartEdit]) -> Result<Value, WriteError> {
    let mut content = v.get("content").cloned().unwrap_or(Value::Null);
    for edit in edits {
        let PartEdit::ResultText { call_id, text } = edit;
        let item = content.as_array_mut().and_then(|items| {
            items.iter_mut().find(|c| {
                c.get("type").and_then(Value::as_str) == Some("toolResponse")
                    && c.get("id").and_then(Value::as_str) == Some(call_id.as_str())
            })
        });
        let Some(item) = item else {
            return Err(WriteError::NoSuchResult {
                index,
                call_id: call_id.clone(),
            });
        };
        let texts = json!([{"type": "text", "text": text}]);
        let result = &mut item["toolResult"];
        match result.get_mut("value") {
            Some(Value::Object(obj)) => {
                obj.insert("content".into(), texts);
                obj.remove("structuredContent");
            }
            Some(value) => *value = texts,
            None => {
                *result =
                    json!({"status": "success", "value": {"content": texts, "isError": false}})
            }
        }
    }
    Ok(content)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{read, write as session_write};

    const TEXT: &str = concat!(
        "{\"working_dir\":\"/w\",\"description\":\"d\",\"message_count\":2}\n",
        "{\"id\":null,\"role\":\"user\",\"created\":5,\"content\":[{\"type\":\"text\",\"text\":\"a\"}]}\n",
        "{\"id\":null,\"role\":\"assistant\",\"created\":6,\"content\":[{\"type\":\"text\",\"text\":\"b\"}],\"metadata\":{\"userVisible\":true,\"agentVisible\":true}}\n",
    );

    #[test]
    fn dropped_messages_are_hidden_and_summaries_added() {
        let s = read(TEXT.as_bytes(), None).unwrap();
        let mut meta = Map::new();
        meta.insert("compact_boundary".into(), json!(true));
        let summary = NewMessage {
            role: Role::User,
            text: "sum".into(),
            meta,
        };
        let out = session_write(&s, &[Item::Insert(summary), Item::Keep(1)]).unwrap();
        let out = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(
            lines[1],
            "{\"id\":null,\"role\":\"user\",\"created\":5,\"content\":[{\"type\":\"text\",\"text\":\"a\"}],\"metadata\":{\"userVisible\":true,\"agentVisible\":false}}"
        );
        let new: Value = serde_json::from_str(lines[2]).unwrap();
        assert_eq!(new["created"], 6);
        assert_eq!(new["ctxctl"]["compact_boundary"], true);
        assert_eq!(lines[3], TEXT.lines().nth(2).unwrap());
        let s2 = read(out.as_bytes(), None).unwrap();
        assert_eq!(s2.messages.len(), 2);
        assert_eq!(s2.messages[0].compact.as_ref().unwrap().by, "ctxctl");
    }
}
