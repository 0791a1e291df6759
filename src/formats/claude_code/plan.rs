//! How a write plan maps onto a Claude Code transcript: the plan as *entries* (kept
//! messages and inserted records, in output order) and the *fate* of every record.

use std::collections::HashMap;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;

use super::Transcript;
use crate::session::{Item, LinesDoc, NewMessage, PartEdit, ReadError};

/// Whether an inserted message is a compaction summary.
pub fn is_compaction(m: &NewMessage) -> bool {
    m.meta.get("compact_boundary").and_then(Value::as_bool) == Some(true)
}

pub enum Entry<'a> {
    Msg {
        idx: usize,
        edits: &'a [PartEdit],
    },
    Boundary {
        uuid: String,
    },
    New {
        uuid: String,
        m: &'a NewMessage,
        summary: bool,
    },
}

impl Entry<'_> {
    pub fn insert_uuid(&self) -> Option<&str> {
        match self {
            Entry::Msg { .. } => None,
            Entry::Boundary { uuid } | Entry::New { uuid, .. } => Some(uuid),
        }
    }
}

/// What becomes of one record.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fate {
    /// On the new live thread, in entry `pos`.
    Retained(usize),
    /// Stays in the file and may be a parent on the live thread (not part of the active
    /// context, or a live record belonging to no message).
    Anchor,
    /// Stays in the file, off the live thread (summarized history, leftovers of removed
    /// messages).
    Aside,
    Removed,
}

fn fresh_uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Lays the plan out as entries; a compaction adds its boundary before the head.
pub fn entries(items: &[Item]) -> Vec<Entry<'_>> {
    let cpos = items
        .iter()
        .rposition(|it| matches!(it, Item::Insert(m) if is_compaction(m)));
    let mut out = Vec::with_capacity(items.len() + 1);
    if cpos.is_some() {
        out.push(Entry::Boundary { uuid: fresh_uuid() });
    }
    for (k, it) in items.iter().enumerate() {
        out.push(match it {
            Item::Keep(i) => Entry::Msg {
                idx: *i,
                edits: &[],
            },
            Item::Edit { index, edits } => Entry::Msg { idx: *index, edits },
            Item::Insert(m) => Entry::New {
                uuid: fresh_uuid(),
                m,
                summary: Some(k) == cpos,
            },
            Item::InsertRecord(_) => continue, // refused by `write` for this format
        });
    }
    out
}

/// The fate of every record of `t` under the plan.
pub fn fates(
    t: &Transcript,
    msg_recs: &[&[usize]],
    entries: &[Entry],
    items: &[Item],
) -> Vec<Fate> {
    let mut fate: Vec<Fate> = vec![Fate::Anchor; t.recs.len()];
    let mut msg_of: Vec<Option<usize>> = vec![None; t.recs.len()];
    for (m, recs) in msg_recs.iter().enumerate() {
        for &r in recs.iter() {
            msg_of[r] = Some(m);
        }
    }
    // Dropped messages before the first kept message after a compaction are summarized
    // history and stay; every other dropped message is removed.
    let cpos = items
        .iter()
        .rposition(|it| matches!(it, Item::Insert(m) if is_compaction(m)));
    let tail_start = cpos.map(|c| {
        items[c + 1..]
            .iter()
            .filter_map(Item::index)
            .min()
            .unwrap_or(usize::MAX)
    });
    let mut pos_of: Vec<Option<usize>> = vec![None; msg_recs.len()];
    for (p, e) in entries.iter().enumerate() {
        if let Entry::Msg { idx, .. } = e {
            pos_of[*idx] = Some(p);
        }
    }
    let msg_fate = |m: usize| match (pos_of[m], tail_start) {
        (Some(p), _) => Fate::Retained(p),
        (None, Some(ts)) if m < ts => Fate::Aside,
        (None, _) => Fate::Removed,
    };
    for (i, f) in fate.iter_mut().enumerate() {
        if let Some(m) = msg_of[i] {
            *f = msg_fate(m);
        }
    }
    // Live records that are not messages (hook progress, local commands) follow the message
    // they hang from; with none above them they stay as anchors.
    for i in 0..t.recs.len() {
        if !t.live[i] || msg_of[i].is_some() {
            continue;
        }
        let mut cur = t.parent(i);
        let mut steps = 0;
        while let Some(j) = cur {
            if let Some(m) = msg_of[j] {
                fate[i] = match msg_fate(m) {
                    Fate::Removed => Fate::Aside,
                    f => f,
                };
                break;
            }
            if !t.live[j] || steps > t.recs.len() {
                break;
            }
            steps += 1;
            cur = t.parent(j);
        }
    }
    fate
}

/// Per message of a transcript's live thread, the records it came from: what a writer
/// plans by. The same grouping as [`super::messages`] (records of one API response make
/// one message; API errors and non-message records make none), read from the records'
/// heads and, per record, only its `isApiErrorMessage` and whether it has a `message`
/// object ([`Probe`]): no message parts are made, so a rewrite of a large transcript
/// neither holds nor builds them. It trusts `doc` to have been read whole before: the
/// content of each message, which [`super::read`] checked, is not checked again.
pub fn message_records(t: &Transcript, doc: &LinesDoc) -> Result<Vec<Vec<usize>>, ReadError> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut group: HashMap<&str, usize> = HashMap::new();
    for &i in &t.order {
        let head = &t.recs[i];
        let ty = head.ty();
        if ty == "attachment" {
            out.push(vec![i]);
            continue;
        }
        if !matches!(ty, "user" | "assistant") {
            continue;
        }
        let line = head.line;
        let probe: Probe =
            serde_json::from_str(doc.line(line)).map_err(|e| ReadError::json(&e, line))?;
        if probe.api_error {
            continue;
        }
        if !probe.message_is_object {
            return Err(ReadError::shape(
                format!("line {}", line + 1),
                "a \"message\" object",
            ));
        }
        if let Some(&m) = head.message_id().and_then(|id| group.get(id)) {
            out[m].push(i);
            continue;
        }
        if let Some(id) = head.message_id() {
            group.insert(id, out.len());
        }
        out.push(vec![i]);
    }
    Ok(out)
}

/// What [`message_records`] reads of a record beyond its head: whether Claude Code wrote
/// it for a failed API call (`isApiErrorMessage: true`) and whether its `message` is an
/// object. Read as a `Value` would be (the last of a repeated key wins), skipping the rest
/// of the record without building it.
#[derive(Debug, Default, PartialEq)]
struct Probe {
    api_error: bool,
    message_is_object: bool,
}

impl<'de> Deserialize<'de> for Probe {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Probe, D::Error> {
        d.deserialize_map(ProbeVisitor)
    }
}

struct ProbeVisitor;

impl<'de> Visitor<'de> for ProbeVisitor {
    type Value = Probe;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Probe, A::Error> {
        let mut probe = Probe::default();
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::ApiError => {
                    probe.api_error = map.next_value::<Value>()?.as_bool() == Some(true)
                }
                Key::Message => {
                    let raw: &RawValue = map.next_value()?;
                    probe.message_is_object = raw.get().starts_with('{');
                }
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(probe)
    }
}

/// A record's key, as far as [`Probe`] cares.
enum Key {
    ApiError,
    Message,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: serde::de::Error>(self, k: &str) -> Result<Key, E> {
                Ok(match k {
                    "isApiErrorMessage" => Key::ApiError,
                    "message" => Key::Message,
                    _ => Key::Other,
                })
            }
        }
        d.deserialize_identifier(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::message::Notes;

    #[test]
    fn message_records_are_the_records_of_each_message() {
        // Two records of one API response (same message id) make one message.
        let text = [
            r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"a"}]}}"#,
            r#"{"type":"assistant","uuid":"a2","parentUuid":"a1","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"b"}]}}"#,
            r#"{"type":"user","uuid":"u2","parentUuid":"a2","message":{"role":"user","content":"ok"}}"#,
            r#"{"type":"attachment","uuid":"t1","parentUuid":"u2","attachment":{"type":"task_reminder","content":[],"itemCount":0}}"#,
            r#"{"type":"assistant","uuid":"e1","parentUuid":"t1","isApiErrorMessage":true,"message":{"id":"e","role":"assistant","content":[{"type":"text","text":"API Error"}]}}"#,
            r#"{"type":"system","uuid":"s1","parentUuid":"e1","content":"hook"}"#,
            r#"{"type":"assistant","uuid":"a3","parentUuid":"s1","isApiErrorMessage":false,"message":{"id":"n","role":"assistant","content":"c"}}"#,
        ]
        .join("\n");
        let doc = LinesDoc::new(text);
        let t = Transcript::parse(&doc).unwrap();
        let recs = message_records(&t, &doc).unwrap();
        let msgs = super::super::messages(&t, &doc, &mut Notes::default()).unwrap();
        assert_eq!(recs, vec![vec![0], vec![1, 2], vec![3], vec![4], vec![7]]);
        assert_eq!(recs, msgs.into_iter().map(|(_, r)| r).collect::<Vec<_>>());
    }

    #[test]
    fn a_record_without_a_message_object_is_refused_as_the_read_refuses_it() {
        let text = [
            r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}"#,
            r#"{"type":"user","uuid":"u2","parentUuid":"u1","message":"hi"}"#,
        ]
        .join("\n");
        let doc = LinesDoc::new(text);
        let t = Transcript::parse(&doc).unwrap();
        let ours = message_records(&t, &doc).unwrap_err().to_string();
        let read = super::super::messages(&t, &doc, &mut Notes::default())
            .unwrap_err()
            .to_string();
        assert_eq!(ours, read);
    }

    #[test]
    fn the_probe_reads_a_repeated_key_as_a_value_does() {
        let probe: Probe = serde_json::from_str(
            r#"{"isApiErrorMessage":true,"message":{"a":1},"x":[1,{"y":2}],"isApiErrorMessage":false, "message" : {}}"#,
        )
        .unwrap();
        assert_eq!(
            probe,
            Probe {
                api_error: false,
                message_is_object: true
            }
        );
        let probe: Probe = serde_json::from_str(r#"{"message":{"a":1},"message":null}"#).unwrap();
        assert!(!probe.message_is_object);
    }
}
