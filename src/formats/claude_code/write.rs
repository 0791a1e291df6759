//! Writing Claude Code transcripts back so that `claude --resume` continues them.
//!
//! A plan is laid out as *entries*: kept messages and inserted records, in output order.
//! - Dropped messages lose their lines; records whose parent disappears are re-parented to
//!   the nearest surviving ancestor, so the `parentUuid` chain stays unbroken.
//! - A compaction (an insert whose meta has `compact_boundary: true`) is written the way
//!   Claude Code writes its own: a `system`/`compact_boundary` record (`parentUuid: null`)
//!   placed before the kept head, then the head re-threaded onto it, then a user record with
//!   `isCompactSummary: true` holding the summary, then the kept tail re-threaded onto that.
//!   The summarized records stay in the file, off the live thread, as Claude Code keeps
//!   history before a boundary. ctxctl's metadata rides along under a `ctxctl` key; the
//!   boundary's notes the original `parentUuid` of every re-threaded record, so that
//!   `archive restore` can undo the compaction exactly.
//! - Records Claude Code's own compaction preserved from before its boundary
//!   (`preservedSegment`) are written onto the thread itself: the segment's head hangs
//!   from the summary, what followed the summary from the segment's tail, and the boundary
//!   no longer names the segment (see [`splice`](super::splice)), so that they
//!   are summarized, trimmed or kept like any other record.
//! - Every rewrite ends with a marker record naming the new leaf (see
//!   [`marker`](super::marker)).
//! - Only `parentUuid` (and `message` for edited tool results, `leafUuid` of a
//!   `last-prompt` whose leaf was removed) is ever changed in an existing record; every other
//!   byte of its line is kept.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::marker;
use super::new::{self as new, Place};
use super::plan::{entries, fates, message_records, Entry, Fate};
use super::restore::PARENTS_KEY;
use super::splice;
use super::uid;
use super::Transcript;
use crate::formats::edit::{same_messages, set_result_text};
use crate::formats::lines_out::{LineOut, LinePlan, Rendered};
use crate::formats::raw::set_fields;
use crate::session::{Item, PartEdit, ReadError, WriteError};
use crate::session::{LinesDoc, Session};

/// `session` (read from `doc`) rewritten by `items`, to be written whole or as it goes.
pub fn write<'d>(
    session: &Session,
    doc: &'d LinesDoc,
    items: &[Item],
) -> Result<Rendered<'d>, WriteError> {
    if items == session.keep_all().as_slice() {
        return Ok(Rendered::Same(doc));
    }
    let t = Transcript::parse(doc)?;
    let recs = message_records(&t, doc)?;
    same_messages(recs.len(), session)?;
    let msg_recs: Vec<&[usize]> = recs.iter().map(Vec::as_slice).collect();

    let entries = entries(items);
    let fates = fates(&t, &msg_recs, &entries, items);
    let w = Writer {
        t: &t,
        doc,
        fates: &fates,
        entries: &entries,
        msg_recs: &msg_recs,
    };
    w.render(session, doc).map(Rendered::Plan)
}

struct Writer<'a> {
    t: &'a Transcript,
    /// The document `t` was parsed from.
    doc: &'a LinesDoc,
    fates: &'a [Fate],
    entries: &'a [Entry<'a>],
    msg_recs: &'a [&'a [usize]],
}

/// A parent link: a record in the file, or a uuid (`None` = null).
#[derive(Debug, Clone, PartialEq)]
enum Up {
    Rec(usize),
    Uuid(Option<String>),
}

impl Writer<'_> {
    /// The nearest ancestor of `i` that `ok` accepts.
    fn nearest(&self, i: usize, ok: impl Fn(Fate) -> bool) -> Up {
        let mut cur = i;
        for _ in 0..=self.t.recs.len() {
            match self.t.parent(cur) {
                Some(j) if ok(self.fates[j]) => return Up::Rec(j),
                Some(j) => cur = j,
                None => return Up::Uuid(uid::text(&self.t.recs[cur].parent)),
            }
        }
        Up::Uuid(None)
    }

    fn on_thread(f: Fate) -> bool {
        matches!(f, Fate::Retained(_) | Fate::Anchor)
    }

    fn up_uuid(&self, up: &Up) -> Option<String> {
        match up {
            Up::Rec(j) => uid::text(&self.t.recs[*j].uuid),
            Up::Uuid(u) => u.clone(),
        }
    }

    /// The insert entry closest before `pos`, if no message entry of `since` or later
    /// stands between them.
    fn insert_between(&self, since: Option<usize>, pos: usize) -> Option<&str> {
        let k = (0..pos)
            .rev()
            .find(|&k| self.entries[k].insert_uuid().is_some())?;
        match since {
            Some(i) if i > k => None,
            _ => self.entries[k].insert_uuid(),
        }
    }

    /// The new parent of retained record `i` in entry `pos`.
    fn retained_parent(&self, i: usize, pos: usize) -> Option<String> {
        let up = self.nearest(i, Self::on_thread);
        let anchor_pos = match up {
            Up::Rec(j) => match self.fates[j] {
                Fate::Retained(p) => Some(p),
                _ => None,
            },
            Up::Uuid(_) => None,
        };
        if anchor_pos == Some(pos) {
            return self.up_uuid(&up);
        }
        match self.insert_between(anchor_pos, pos) {
            Some(u) => Some(u.to_string()),
            None => self.up_uuid(&up),
        }
    }

    /// Records of the message entries in `range`, the last on the thread (owned records
    /// after a message, local commands and hooks, come later still).
    fn last_record(&self, range: std::ops::Range<usize>) -> Option<usize> {
        let positions = range.clone();
        let last = self.entries[range]
            .iter()
            .filter_map(|e| match e {
                Entry::Msg { idx, .. } => self.msg_recs[*idx]
                    .iter()
                    .copied()
                    .max_by_key(|&r| self.t.rank[r]),
                _ => None,
            })
            .max_by_key(|&r| self.t.rank[r])?;
        let pos = match self.fates[last] {
            Fate::Retained(p) if positions.contains(&p) => p,
            _ => return Some(last),
        };
        (0..self.t.recs.len())
            .filter(|&r| self.fates[r] == Fate::Retained(pos))
            .max_by_key(|&r| self.t.rank[r])
    }

    /// The parent of the record inserted at entry `k`.
    fn insert_parent(&self, k: usize) -> Option<String> {
        let prev_insert = (0..k)
            .rev()
            .find(|&p| self.entries[p].insert_uuid().is_some());
        let from = prev_insert.map_or(0, |p| p + 1);
        if let Some(r) = self.last_record(from..k) {
            return uid::text(&self.t.recs[r].uuid);
        }
        if let Some(p) = prev_insert {
            return self.entries[p].insert_uuid().map(str::to_string);
        }
        // First entry: take the place of the next message on the chain.
        let next = self.entries[k + 1..].iter().find_map(|e| match e {
            Entry::Msg { idx, .. } => self.msg_recs[*idx].iter().min().copied(),
            _ => None,
        });
        match (next, self.t.leaf) {
            (Some(r), _) => self.up_uuid(&self.nearest(r, Self::on_thread)),
            (None, Some(leaf)) if Self::on_thread(self.fates[leaf]) => {
                uid::text(&self.t.recs[leaf].uuid)
            }
            (None, Some(leaf)) => self.up_uuid(&self.nearest(leaf, Self::on_thread)),
            (None, None) => None,
        }
    }

    /// The line an insert at entry `k` goes before (`None`: appended).
    fn insert_line(&self, k: usize) -> Option<usize> {
        let next_msgs = self.entries[k + 1..].iter().filter_map(|e| match e {
            Entry::Msg { idx, .. } => Some(*idx),
            _ => None,
        });
        let first = match self.entries[k] {
            // The boundary precedes the whole head.
            Entry::Boundary { .. } => next_msgs
                .flat_map(|m| self.msg_recs[m].iter().copied())
                .min(),
            _ => next_msgs
                .into_iter()
                .next()
                .and_then(|m| self.msg_recs[m].iter().min().copied()),
        };
        first.map(|r| self.t.recs[r].line)
    }

    fn render<'d>(&self, session: &Session, doc: &'d LinesDoc) -> Result<LinePlan<'d>, WriteError> {
        let t = self.t;
        let mut plan = LinePlan::new(doc);
        let mut changes: HashMap<usize, Vec<(&str, Value)>> = HashMap::new();
        for (i, r) in t.recs.iter().enumerate() {
            let new_parent = match self.fates[i] {
                Fate::Removed => {
                    plan.set(r.line, LineOut::Drop);
                    continue;
                }
                Fate::Retained(pos) => self.retained_parent(i, pos),
                Fate::Anchor | Fate::Aside => match t.parent(i) {
                    Some(p) if self.fates[p] == Fate::Removed => {
                        self.up_uuid(&self.nearest(i, |f| f != Fate::Removed))
                    }
                    // Spliced onto the thread (see `flatten`).
                    Some(p) if t.file_parent(i) != Some(p) => uid::text(&t.recs[p].uuid),
                    _ => uid::text(&r.parent),
                },
            };
            if r.uuid.is_some() && !uid::same(new_parent.as_deref(), r.parent.as_ref()) {
                changes
                    .entry(i)
                    .or_default()
                    .push(("parentUuid", new_parent.map_or(Value::Null, Value::String)));
            }
            if let Some(leaf) = r.rare().get("leafUuid").and_then(Value::as_str) {
                if let Some(j) = t.rec_of(leaf) {
                    if self.fates[j] == Fate::Removed {
                        let up = self.up_uuid(&self.nearest(j, Self::on_thread));
                        changes
                            .entry(i)
                            .or_default()
                            .push(("leafUuid", up.map_or(Value::Null, Value::String)));
                    }
                }
            }
        }
        for (b, fields) in splice::flatten(t) {
            changes.entry(b).or_default().extend(fields);
        }
        for e in self.entries {
            if let Entry::Msg { idx, edits } = e {
                if !edits.is_empty() {
                    self.edit(*idx, edits, &mut changes)?;
                }
            }
        }
        // What a restore needs to undo the re-threading: each record's original parent.
        let rethreaded: Map<String, Value> = changes
            .iter()
            .filter(|(_, fields)| fields.iter().any(|(k, _)| *k == "parentUuid"))
            .filter_map(|(&i, _)| {
                let r = &t.recs[i];
                let orig = uid::text(&r.parent).map_or(Value::Null, Value::String);
                uid::text(&r.uuid).map(|u| (u, orig))
            })
            .collect();
        for (i, fields) in changes {
            let line = t.recs[i].line;
            plan.set(line, LineOut::Rewrite(set_fields(doc.line(line), &fields)?));
        }
        for k in 0..self.entries.len() {
            let record = match &self.entries[k] {
                Entry::Msg { .. } => continue,
                Entry::Boundary { uuid } => self.boundary(k, uuid, session, &rethreaded)?,
                Entry::New { uuid, m, summary } => {
                    new::message(&self.place(k, uuid, self.insert_parent(k))?, m, *summary)
                }
            };
            let text = serde_json::to_string(&record)?;
            match self.insert_line(k) {
                Some(line) => plan.insert_before(line, text),
                None => plan.append(text),
            }
        }
        let leaf = marker::new_leaf(t, self.entries, self.fates, self.msg_recs);
        if let Some(leaf) = leaf {
            let m =
                marker::after_rewrite(t, self.doc, &leaf, self.entries, session, self.msg_recs)?;
            plan.append(serde_json::to_string(&m)?);
        }
        Ok(plan)
    }

    fn edit(
        &self,
        idx: usize,
        edits: &[PartEdit],
        changes: &mut HashMap<usize, Vec<(&str, Value)>>,
    ) -> Result<(), WriteError> {
        // Each record's `message` as it is in the file, and as edited.
        let mut messages: HashMap<usize, (Option<Value>, Value)> = HashMap::new();
        for edit in edits {
            let PartEdit::ResultText { call_id, text } = edit;
            let mut done = false;
            for &r in self.msg_recs[idx] {
                let msg = match messages.entry(r) {
                    std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                    std::collections::hash_map::Entry::Vacant(e) => {
                        let old = self
                            .t
                            .whole(self.doc, r)?
                            .v
                            .get_mut("message")
                            .map(Value::take);
                        let new = old.clone().unwrap_or(Value::Null);
                        e.insert((old, new))
                    }
                };
                if set_result_text(&mut msg.1, call_id, text) {
                    done = true;
                    break;
                }
            }
            if !done {
                return Err(WriteError::NoSuchResult {
                    index: idx,
                    call_id: call_id.clone(),
                });
            }
        }
        for (r, (old, msg)) in messages {
            if old.as_ref() != Some(&msg) {
                changes.entry(r).or_default().push(("message", msg));
            }
        }
        Ok(())
    }

    /// The record whose envelope new records copy: the next kept message, else the previous
    /// one, else the leaf.
    fn template(&self, k: usize) -> Result<Option<Value>, ReadError> {
        let first = |e: &Entry| match e {
            Entry::Msg { idx, .. } => self.msg_recs[*idx].first().copied(),
            _ => None,
        };
        self.entries[k + 1..]
            .iter()
            .find_map(first)
            .or_else(|| self.entries[..k].iter().rev().find_map(first))
            .or(self.t.leaf)
            .or_else(|| self.t.recs.iter().position(|r| r.is_conversation()))
            .map(|r| self.t.whole(self.doc, r).map(|r| r.v))
            .transpose()
    }

    /// The timestamp of the last record before where entry `k` is written (of the first
    /// after it when it goes first).
    fn timestamp(&self, k: usize) -> Result<Value, ReadError> {
        let line = self.insert_line(k).unwrap_or(usize::MAX);
        let recs = &self.t.recs;
        let split = recs.partition_point(|r| r.line < line);
        for i in (0..split).rev().chain(split..recs.len()) {
            if let Some(s) = self.t.whole(self.doc, i)?.timestamp() {
                return Ok(Value::String(s.to_string()));
            }
        }
        Ok(Value::Null)
    }

    /// Where and how the record for entry `k` is written.
    fn place<'b>(
        &'b self,
        k: usize,
        uuid: &'b str,
        parent: Option<String>,
    ) -> Result<Place<'b>, ReadError> {
        Ok(Place {
            uuid,
            parent,
            template: self.template(k)?,
            timestamp: self.timestamp(k)?,
        })
    }

    fn boundary(
        &self,
        k: usize,
        uuid: &str,
        session: &Session,
        rethreaded: &Map<String, Value>,
    ) -> Result<Value, ReadError> {
        let summarized = self
            .t
            .recs
            .iter()
            .enumerate()
            .filter(|(i, r)| self.fates[*i] == Fate::Aside && self.t.live[*i] && r.uuid.is_some())
            .max_by_key(|(i, _)| self.t.rank[*i])
            .and_then(|(_, r)| uid::text(&r.uuid));
        let logical =
            summarized.or_else(|| self.t.leaf.and_then(|l| uid::text(&self.t.recs[l].uuid)));
        let summary = self.entries.iter().find_map(|e| match e {
            Entry::New {
                m, summary: true, ..
            } => Some(*m),
            _ => None,
        });
        let pre_tokens = summary
            .and_then(|m| m.meta.get("pre_tokens").and_then(Value::as_u64))
            .or_else(|| {
                session
                    .reported_usage
                    .as_ref()
                    .map(|u| u.input_tokens + u.output_tokens)
            })
            .unwrap_or(0);
        let mut record = new::boundary(&self.place(k, uuid, None)?, logical, pre_tokens);
        let mut meta = Map::new();
        if let Some(id) = summary.and_then(|m| m.meta.get("compact_id")) {
            meta.insert("compact_id".into(), id.clone());
        }
        if let Some(note) = splice::unflatten_note(self.t) {
            meta.insert(splice::UNFLATTEN_KEY.into(), note);
        }
        // Sorted, so that the same compaction writes the same bytes.
        let mut parents: Vec<(&String, &Value)> = rethreaded.iter().collect();
        parents.sort_by(|a, b| a.0.cmp(b.0));
        meta.insert(
            PARENTS_KEY.into(),
            Value::Object(
                parents
                    .into_iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            ),
        );
        record["ctxctl"] = Value::Object(meta);
        Ok(record)
    }
}

#[cfg(test)]
#[path = "write_tests.rs"]
mod tests;
