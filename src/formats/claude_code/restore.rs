//! Undoing a ctxctl compaction of a Claude Code transcript (`archive restore`).
//!
//! A compaction keeps the summarized records in the file (off the live thread), adds a
//! `compact_boundary` and an `isCompactSummary` record, and re-threads the kept records onto
//! them, noting each re-threaded record's original `parentUuid` in the boundary's `ctxctl`
//! metadata. Restoring removes the boundary and the summary, puts back the archived records
//! that are no longer in the file (verbatim, where the summary was), and gives every
//! re-threaded record its original parent again. Records appended since (the agent resumed)
//! stay; one whose parent is the summary is linked to the last restored record instead.
//! The compaction's rewrite marker (see [`rewrite_marker`]) goes too; a new one is appended
//! only when the agent has reported usage since, which describes the compacted history. No
//! other line changes, so undoing a compaction nothing was appended to gives back the
//! original bytes.

use std::borrow::Cow;
use std::collections::HashSet;

use serde_json::{Map, Value};

use super::marker::{latest_prompt, rewrite_marker, session_id};
use super::plan::message_records;
use super::splice;
use super::uid;
use super::Transcript;
use crate::formats::edit::same_messages;
use crate::formats::lines_out::{LineOut, LinePlan};
use crate::formats::raw::set_fields;
use crate::session::{LinesDoc, Session};
use crate::session::{Record, RestorePlan, WriteError};

/// Key of the boundary's `ctxctl` metadata mapping the uuid of each record the compaction
/// re-threaded to its original `parentUuid`.
pub const PARENTS_KEY: &str = "parents";

pub fn restore<'d>(
    session: &Session,
    doc: &'d LinesDoc,
    plan: &RestorePlan,
) -> Result<LinePlan<'d>, WriteError> {
    let t = Transcript::parse(doc)?;
    let msg_recs = message_records(&t, doc)?;
    same_messages(msg_recs.len(), session)?;
    let summary = &msg_recs[plan.at];
    let Some(&first) = summary.iter().min() else {
        return Err(WriteError::Document("the summary has no record".into()));
    };
    let boundary = boundary_above(&t, first);
    let mut removed: HashSet<usize> = summary.iter().copied().collect();
    removed.extend(boundary);
    let removed_uuids: HashSet<String> = removed
        .iter()
        .filter_map(|&i| uid::text(&t.recs[i].uuid))
        .collect();
    let empty = Map::new();
    let parents = boundary
        .and_then(|b| t.recs[b].rare().pointer(&format!("/ctxctl/{PARENTS_KEY}")))
        .and_then(Value::as_object)
        .unwrap_or(&empty);

    // The compaction's rewrite marker goes with it.
    let id = session.messages[plan.at]
        .compact
        .as_ref()
        .and_then(|c| c.id.as_deref());
    let markers = (0..t.recs.len()).filter(|&i| {
        let r = &t.recs[i];
        r.is_rewrite_marker()
            && id.is_some()
            && r.rare()
                .pointer("/ctxctl/compact_id")
                .and_then(Value::as_str)
                == id
    });
    removed.extend(markers.collect::<Vec<_>>());

    let mut out = LinePlan::new(doc);
    for &i in &removed {
        out.set(t.recs[i].line, LineOut::Drop);
    }
    // The archived records: still in the file (as a compaction leaves them), or put back
    // before the next one that is (else where the summary was), so file order is kept.
    // Only each record's uuid is read up front: an archive may hold most of a large file.
    let uuids: Vec<Option<String>> = plan
        .records
        .iter()
        .map(|r| record_uuid(r, doc))
        .collect::<Result<_, _>>()?;
    let in_file: Vec<Option<usize>> = uuids
        .iter()
        .map(|uuid| t.rec_of(uuid.as_deref()?).filter(|i| !removed.contains(i)))
        .collect();
    let mut replaced = HashSet::new();
    let mut restored_uuids = HashSet::new();
    let mut last_restored = None;
    // Written back as their original lines.
    for (k, (r, uuid)) in plan.records.iter().zip(&uuids).enumerate() {
        let uuid = uuid.as_deref();
        match in_file[k] {
            Some(i) => {
                // The same text is the same value; else the two are parsed and compared.
                let same_text = r.original_line_in(doc) == Some(doc.line(t.recs[i].line));
                if !same_text && t.whole(doc, i)?.v != *r.value_in(doc)? {
                    out.set(
                        t.recs[i].line,
                        LineOut::Rewrite(r.line_in(doc)?.into_owned()),
                    );
                    replaced.insert(i);
                }
            }
            None => {
                let next = in_file[k + 1..].iter().flatten().next().unwrap_or(&first);
                out.insert_before(t.recs[*next].line, r.line_in(doc)?.into_owned());
            }
        }
        if let Some(u) = uuid {
            restored_uuids.insert(u);
            last_restored = Some(u);
        }
    }
    // What followed the summary continues from where the summarized history ended.
    let logical = boundary
        .and_then(|b| t.recs[b].rare().get("logicalParentUuid"))
        .and_then(Value::as_str)
        .filter(|u| {
            restored_uuids.contains(u) || t.rec_of(u).is_some_and(|i| !removed.contains(&i))
        });
    let reconnect = logical.or(last_restored).map(str::to_string);
    let uuid_value = |u: Option<String>| u.map_or(Value::Null, Value::String);

    for (i, r) in t.recs.iter().enumerate() {
        if removed.contains(&i) || replaced.contains(&i) {
            continue;
        }
        let mut fields: Vec<(&str, Value)> = Vec::new();
        if let Some(u) = &r.uuid {
            let parent = uid::text(&r.parent);
            let want = match (parents.get(&u.to_string()), parent.as_deref()) {
                (Some(orig), _) => orig.as_str().map(str::to_string),
                (None, Some(p)) if removed_uuids.contains(p) => {
                    // Without a note (or for records added since): the summary's children
                    // follow the restored history; the boundary's become roots again.
                    if summary
                        .iter()
                        .any(|&s| t.recs[s].uuid.as_ref().is_some_and(|u| u.is(p)))
                    {
                        reconnect.clone()
                    } else {
                        None
                    }
                }
                (None, _) => parent.clone(),
            };
            if want != parent {
                fields.push(("parentUuid", uuid_value(want)));
            }
        }
        let leaf = r.rare().get("leafUuid").and_then(Value::as_str);
        if leaf.is_some_and(|l| removed_uuids.contains(l)) {
            fields.push(("leafUuid", uuid_value(reconnect.clone())));
        }
        if !fields.is_empty() {
            out.set(
                r.line,
                LineOut::Rewrite(set_fields(doc.line(r.line), &fields)?),
            );
        }
    }
    // The Claude Code boundaries the compaction flattened get their preserved segments back.
    let flattened = boundary
        .and_then(|b| {
            t.recs[b]
                .rare()
                .pointer(&format!("/ctxctl/{}", splice::UNFLATTEN_KEY))
        })
        .map(splice::flattened)
        .unwrap_or_default();
    for i in flattened
        .into_iter()
        .filter_map(|u| t.rec_of(u))
        .filter(|i| !removed.contains(i) && !replaced.contains(i))
    {
        let r = &t.recs[i];
        if let Some(line) = splice::unflatten(doc.line(r.line), r.rare())? {
            out.set(r.line, LineOut::Rewrite(line));
        }
    }
    // Usage the agent reported since describes the compacted history: mark the rewrite.
    if session.reported_usage.is_some() {
        let leaf = t.leaf.and_then(|l| match &t.recs[l].uuid {
            Some(u) if !removed_uuids.contains(&u.to_string()) => Some(u.to_string()),
            _ => reconnect.clone(),
        });
        if let Some(leaf) = leaf {
            let mut meta = Map::new();
            meta.insert("rewrite".into(), Value::Bool(true));
            if let Some(id) = id {
                meta.insert("restored".into(), Value::String(id.to_string()));
            }
            let prompt = latest_prompt(&t, doc)?.unwrap_or_else(|| Value::String(String::new()));
            let marker = rewrite_marker(&leaf, prompt, session_id(&t, doc)?.as_ref(), meta);
            out.append(serde_json::to_string(&marker)?);
        }
    }
    Ok(out)
}

/// The `uuid` of an archived record (`None` when it is no object or its uuid no string),
/// read without building its value when it is verbatim.
fn record_uuid(r: &Record, doc: &LinesDoc) -> Result<Option<String>, serde_json::Error> {
    #[derive(serde::Deserialize)]
    struct Head<'a> {
        #[serde(borrow)]
        uuid: Option<Cow<'a, str>>,
    }
    if let Some(text) = r.original_line_in(doc) {
        if let Ok(head) = serde_json::from_str::<Head>(text) {
            return Ok(head.uuid.map(Cow::into_owned));
        }
    }
    // An object whose uuid is no string, a key given twice, no object: as its value has it.
    let v = r.value_in(doc)?;
    Ok(v.get("uuid").and_then(Value::as_str).map(str::to_string))
}

/// The `compact_boundary` the compaction put above record `i`: the first one up its chain.
fn boundary_above(t: &Transcript, i: usize) -> Option<usize> {
    let mut cur = Some(i);
    for _ in 0..=t.recs.len() {
        let j = cur?;
        if t.recs[j].is_boundary() {
            return Some(j);
        }
        cur = t.parent(j);
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::formats::restore_testkit::{restore_items, summary};
    use crate::formats::{read, write};
    use crate::session::{Document, Item};

    fn rec(uuid: &str, parent: Option<&str>, ty: &str, text: &str) -> String {
        json!({"parentUuid": parent, "isSidechain": false, "sessionId": "s", "type": ty,
            "message": {"role": ty, "content": text}, "uuid": uuid, "timestamp": uuid})
        .to_string()
    }

    /// u1 → a1 → u2 → a2 → u3.
    fn transcript() -> String {
        let lines = [
            rec("u1", None, "user", "one"),
            rec("a1", Some("u1"), "assistant", "two"),
            rec("u2", Some("a1"), "user", "three"),
            rec("a2", Some("u2"), "assistant", "four"),
            rec("u3", Some("a2"), "user", "five"),
        ];
        lines.join("\n") + "\n"
    }

    fn texts(bytes: &[u8]) -> Vec<String> {
        let s = read(bytes, None).unwrap();
        s.messages.iter().map(|m| m.text()).collect()
    }

    #[test]
    fn a_compaction_with_a_kept_head_is_undone_byte_for_byte() {
        let orig = transcript();
        let s = read(orig.as_bytes(), None).unwrap();
        let items = [Item::Keep(0), summary(), Item::Keep(3), Item::Keep(4)];
        let out = write(&s, &items).unwrap();
        assert_eq!(texts(&out), ["one", "gist", "four", "five"]);
        let c = read(&out, None).unwrap();
        let back = write(&c, &restore_items(&orig, 1..3, &out)).unwrap();
        assert_eq!(String::from_utf8(back).unwrap(), orig);
    }

    /// `s` written with its second and third messages replaced by a summary.
    fn middle_summarized(s: &Session) -> Vec<u8> {
        write(s, &[Item::Keep(0), summary(), Item::Keep(3), Item::Keep(4)]).unwrap()
    }

    #[test]
    fn records_given_as_lines_of_the_session_are_undone_as_their_text() {
        let orig = transcript();
        let s = read(orig.as_bytes(), None).unwrap();
        let out = middle_summarized(&s);
        let c = read(&out, None).unwrap();
        let Document::Lines(doc) = &c.doc else {
            unreachable!("a transcript is JSONL")
        };
        // As `archive restore` gives them: the records the compacted file still holds.
        let same = crate::archive::SameLines::new(doc);
        let items: Vec<Item> = restore_items(&orig, 1..3, &out)
            .into_iter()
            .map(|it| match it {
                Item::InsertRecord(Record::Verbatim(raw)) => Item::InsertRecord(same.record(raw)),
                other => other,
            })
            .collect();
        let lines = items
            .iter()
            .filter(|it| matches!(it, Item::InsertRecord(Record::Line(_))))
            .count();
        assert_eq!(lines, 2);
        let back = write(&c, &items).unwrap();
        assert_eq!(String::from_utf8(back).unwrap(), orig);
    }

    #[test]
    fn records_added_after_the_summary_follow_the_restored_history() {
        let orig = transcript();
        let s = read(orig.as_bytes(), None).unwrap();
        // Everything summarized; the agent then answered the summary.
        let out = write(&s, &[summary()]).unwrap();
        let c = read(&out, None).unwrap();
        let sid = c.messages[0].id.clone().unwrap();
        let mut text = String::from_utf8(out).unwrap();
        text += &(rec("a9", Some(&sid), "assistant", "six") + "\n");
        let c = read(text.as_bytes(), None).unwrap();
        let items = restore_items(&orig, 0..5, text.as_bytes());
        let back = String::from_utf8(write(&c, &items).unwrap()).unwrap();
        assert_eq!(
            texts(back.as_bytes()),
            ["one", "two", "three", "four", "five", "six"]
        );
        assert_eq!(
            back,
            orig + &rec("a9", Some("u3"), "assistant", "six") + "\n"
        );
    }

    #[test]
    fn a_boundary_without_notes_is_undone_from_its_links() {
        let orig = transcript();
        let s = read(orig.as_bytes(), None).unwrap();
        let out = middle_summarized(&s);
        // As an older ctxctl wrote it: no `ctxctl` notes on the boundary.
        let text: String = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| {
                let mut v: Value = serde_json::from_str(l).unwrap();
                if v["subtype"] == "compact_boundary" {
                    v.as_object_mut().unwrap().remove("ctxctl");
                }
                let line = if v["subtype"] == "compact_boundary" {
                    v.to_string()
                } else {
                    l.to_string()
                };
                line + "\n"
            })
            .collect();
        let c = read(text.as_bytes(), None).unwrap();
        let items = restore_items(&orig, 1..3, text.as_bytes());
        let back = String::from_utf8(write(&c, &items).unwrap()).unwrap();
        assert_eq!(back, orig);
    }

    #[test]
    fn archived_records_missing_from_the_file_are_put_back() {
        let orig = transcript();
        let s = read(orig.as_bytes(), None).unwrap();
        let out = write(&s, &[summary(), Item::Keep(3), Item::Keep(4)]).unwrap();
        // Someone deleted the summarized history.
        let text: String = String::from_utf8(out)
            .unwrap()
            .lines()
            .filter(|l| !l.contains("\"uuid\":\"u1\"") && !l.contains("\"uuid\":\"a1\""))
            .map(|l| l.to_string() + "\n")
            .collect();
        let c = read(text.as_bytes(), None).unwrap();
        let items = restore_items(&orig, 0..3, text.as_bytes());
        let back = write(&c, &items).unwrap();
        assert_eq!(texts(&back), ["one", "two", "three", "four", "five"]);
    }

    #[test]
    fn other_plans_with_archived_records_are_refused() {
        let s = read(transcript().as_bytes(), None).unwrap();
        let items = [
            Item::Keep(1),
            Item::InsertRecord(json!({"type": "user"}).into()),
        ];
        let err = write(&s, &items).unwrap_err();
        assert!(
            matches!(err, WriteError::InsertRecordUnsupported(_)),
            "{err}"
        );
    }
}
