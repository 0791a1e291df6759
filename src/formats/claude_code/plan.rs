//! How a write plan maps onto a Claude Code transcript: the plan as *entries* (kept
//! messages and inserted records, in output order) and the *fate* of every record.

use serde_json::Value;

use super::Transcript;
use crate::formats::message::Notes;
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
/// plans by. The messages themselves are dropped before the records are handed back, so
/// that a rewrite of a large transcript does not hold them beside the transcript and its
/// output.
pub fn message_records(t: &Transcript, doc: &LinesDoc) -> Result<Vec<Vec<usize>>, ReadError> {
    let msgs = super::messages(t, doc, &mut Notes::default(), false)?;
    // Copied out rather than collected in place, which could keep the messages'
    // (larger) allocation for the records' lists.
    let recs = msgs.iter().map(|(_, r)| r.clone()).collect();
    drop(msgs);
    Ok(recs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_records_are_the_records_of_each_message() {
        // Two records of one API response (same message id) make one message.
        let text = [
            r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"a"}]}}"#,
            r#"{"type":"assistant","uuid":"a2","parentUuid":"a1","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"b"}]}}"#,
            r#"{"type":"user","uuid":"u2","parentUuid":"a2","message":{"role":"user","content":"ok"}}"#,
        ]
        .join("\n");
        let doc = LinesDoc::new(text);
        let t = Transcript::parse(&doc).unwrap();
        let recs = message_records(&t, &doc).unwrap();
        let msgs = super::super::messages(&t, &doc, &mut Notes::default(), false).unwrap();
        assert_eq!(recs, vec![vec![0], vec![1, 2], vec![3]]);
        assert_eq!(recs, msgs.into_iter().map(|(_, r)| r).collect::<Vec<_>>());
    }
}
