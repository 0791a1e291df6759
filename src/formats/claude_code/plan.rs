//! How a write plan maps onto a Claude Code transcript: the plan as *entries* (kept
//! messages and inserted records, in output order) and the *fate* of every record.

use serde_json::Value;

use super::Transcript;
use crate::session::{Item, NewMessage, PartEdit};

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
