//! A Gemini CLI JSONL log replayed over an index of offsets, for reading it in memory
//! independent of its size ([`crate::ops::gemini_stream`]).
//!
//! The first pass reduces each line to its [`Rec`] (the message's id, type and model;
//! content, thoughts and tool calls are skipped unparsed) and replays the log on those as
//! [`super::replay::Replay`] does on parsed records: a repeated id replaces the message in
//! place, a `$set.messages` checkpoint rebuilds the list, `$rewindTo` cuts it. What is
//! left is the [`Index`]: for each live message, where its record is (a line's offset and
//! length, or its place in the last checkpoint). The second pass reads the live records
//! at those places, one at a time, and makes the history with [`super::history::Builder`].
//!
//! A line the skeleton cannot take, or one the whole reader would refuse, gives `None`:
//! the caller reads the file whole and words any error.

use std::hash::BuildHasher;

use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::history::{Builder, Sent};
use super::replay::{From, Live};
use super::usage::Reports;
use crate::formats::message::Notes;
use crate::formats::stream::loose::{too_deep, Loose, Seq};
use crate::session::ReportedUsage;

/// The hash a message id is known by.
pub fn id_hash(id: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(id.as_bytes())
}

/// A message's id (hashed) and, for a `gemini` message, the model it names.
#[derive(Debug, Clone, PartialEq)]
pub struct Msg {
    pub id: u64,
    pub model: Option<String>,
}

/// One line of a log, as the replay takes it.
#[derive(Debug, Clone, PartialEq)]
pub enum Rec {
    /// `$set`, with its `messages` checkpoint if it has one.
    Set(Option<Vec<Msg>>),
    /// `$rewindTo` (the id hashed).
    Rewind(u64),
    Message(Msg),
    /// Metadata.
    Other,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct LineSkel<'a> {
    #[serde(rename = "$set", borrow)]
    set: Loose<'a, SetSkel<'a>>,
    #[serde(rename = "$rewindTo", borrow)]
    rewind: Loose<'a>,
    #[serde(borrow)]
    id: Loose<'a>,
    #[serde(rename = "type", borrow)]
    ty: Loose<'a>,
    #[serde(borrow)]
    model: Loose<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct SetSkel<'a> {
    /// `None` when absent; an array, or anything else (then `Seq(None)`).
    #[serde(borrow, deserialize_with = "present")]
    messages: Option<Seq<Loose<'a, MsgSkel<'a>>>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct MsgSkel<'a> {
    #[serde(borrow)]
    id: Loose<'a>,
    #[serde(rename = "type", borrow)]
    ty: Loose<'a>,
    #[serde(borrow)]
    model: Loose<'a>,
}

/// A field that is there, whatever it holds (`null` included).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// A message as [`super::replay::Replay`] takes it: `None` where that gives an error (an
/// id that is no string, a type that is no string).
fn msg(id: &Loose, ty: &Loose, model: &Loose) -> Option<Msg> {
    let id = id.as_str()?;
    let ty = ty.as_str()?;
    Some(Msg {
        id: id_hash(id),
        model: (ty == "gemini")
            .then(|| model.as_str().map(str::to_string))
            .flatten(),
    })
}

/// `text` (one line) as the replay takes it; `None` when the skeleton cannot read it or
/// the whole reader refuses it.
pub fn rec(text: &str) -> Option<Rec> {
    // Serde would take an array for the skeleton's fields in order: a record is an object.
    if too_deep(text)
        || !text
            .trim_start_matches([' ', '\t', '\r', '\n'])
            .starts_with('{')
    {
        return None;
    }
    let s: LineSkel = serde_json::from_str(text).ok()?;
    match s.set {
        Loose::Absent => {}
        Loose::Object(set) => {
            return Some(Rec::Set(match set.messages {
                None => None,
                Some(Seq(list)) => Some(
                    (list?.iter())
                        .map(|m| match m {
                            Loose::Object(m) => msg(&m.id, &m.ty, &m.model),
                            _ => None,
                        })
                        .collect::<Option<Vec<_>>>()?,
                ),
            }))
        }
        _ => return None,
    }
    match s.rewind {
        Loose::Absent => {}
        Loose::Str(id) => return Some(Rec::Rewind(id_hash(&id))),
        _ => return None,
    }
    let is_message = !matches!(s.id, Loose::Absent) && s.ty.as_str().is_some();
    if is_message {
        return msg(&s.id, &s.ty, &s.model).map(Rec::Message);
    }
    Some(Rec::Other)
}

/// Where a live message's record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// A line of its own: its index, offset and length.
    Line { line: u32, at: u64, len: u32 },
    /// Element `index` of the last checkpoint's `$set.messages`.
    Checkpoint { index: u32 },
}

/// A live message in the index: its id (hashed) and its [`Place`], in 24 bytes (a
/// checkpoint's element has [`Slot::CHECKPOINT`] for a line, its index for an offset).
#[derive(Debug, Clone, Copy)]
struct Slot {
    id: u64,
    at: u64,
    len: u32,
    line: u32,
}

impl Slot {
    const CHECKPOINT: u32 = u32::MAX;

    fn new(id: u64, place: Place) -> Slot {
        match place {
            Place::Line { line, at, len } => Slot { id, at, len, line },
            Place::Checkpoint { index } => Slot {
                id,
                at: u64::from(index),
                len: 0,
                line: Slot::CHECKPOINT,
            },
        }
    }

    fn place(self) -> Place {
        match self.line {
            Slot::CHECKPOINT => Place::Checkpoint {
                index: self.at as u32,
            },
            line => Place::Line {
                line,
                at: self.at,
                len: self.len,
            },
        }
    }
}

/// The live messages of a replayed log, by where their records are.
#[derive(Debug, Default)]
pub struct Index {
    /// The live messages, in Gemini's order.
    live: Vec<Slot>,
    /// Positions in `live` by id (hashed), while the log is replayed.
    by_id: Positions,
    /// The last `$set.messages` checkpoint's line: its index, offset and length.
    pub checkpoint: Option<(usize, u64, u32)>,
    /// The model of the last `gemini` message recorded anywhere in the file.
    pub model: Option<String>,
}

impl Index {
    /// Replays line `line` (at `at`, `len` bytes long), reduced to `rec`; `None` for a
    /// line past what the index can place (4G lines).
    pub fn record(&mut self, rec: Rec, line: usize, at: u64, len: u32) -> Option<()> {
        let line = u32::try_from(line)
            .ok()
            .filter(|&l| l != Slot::CHECKPOINT)?;
        match rec {
            Rec::Set(None) | Rec::Other => {}
            Rec::Set(Some(list)) => {
                self.live.clear();
                self.by_id.clear();
                self.checkpoint = Some((line as usize, at, len));
                for (index, m) in list.into_iter().enumerate() {
                    let index = u32::try_from(index).ok()?;
                    self.message(m, Place::Checkpoint { index })?;
                }
            }
            Rec::Rewind(id) => {
                let keep = self.by_id.find(&self.live, id).unwrap_or(0);
                self.live.truncate(keep as usize);
                self.by_id.rebuild(&self.live);
            }
            Rec::Message(m) => self.message(m, Place::Line { line, at, len })?,
        }
        Some(())
    }

    fn message(&mut self, m: Msg, place: Place) -> Option<()> {
        if m.model.is_some() {
            self.model = m.model;
        }
        match self.by_id.find(&self.live, m.id) {
            Some(p) => self.live[p as usize] = Slot::new(m.id, place),
            None => {
                let p = u32::try_from(self.live.len()).ok()?;
                self.live.push(Slot::new(m.id, place));
                self.by_id.insert(&self.live, p);
            }
        }
        Some(())
    }

    /// The log is replayed: the ids are not needed any more.
    pub fn replayed(&mut self) {
        self.by_id = Positions::default();
    }

    /// Live message `k`: its id (hashed) and place.
    pub fn get(&self, k: usize) -> Option<(u64, Place)> {
        self.live.get(k).map(|s| (s.id, s.place()))
    }

    /// Live messages read from the checkpoint.
    pub fn checkpointed(&self) -> usize {
        (self.live.iter())
            .filter(|s| s.line == Slot::CHECKPOINT)
            .count()
    }
}

/// Positions in the live list by id: an open-addressing table of positions, 4 bytes a
/// bucket, the ids themselves read from the list (a map from id to position took 17
/// bytes a bucket, the largest part of a long log's index).
#[derive(Debug, Default)]
struct Positions {
    /// Each bucket: a position, or [`Positions::EMPTY`]; a power of two long.
    buckets: Vec<u32>,
    len: usize,
    hasher: crate::fasthash::FastState,
}

impl Positions {
    const EMPTY: u32 = u32::MAX;

    /// The buckets an id is looked for in, in probing order.
    fn probe(&self, id: u64) -> impl Iterator<Item = usize> {
        let mask = self.buckets.len().wrapping_sub(1);
        let start = self.hasher.hash_one(id) as usize;
        (0..self.buckets.len()).map(move |k| start.wrapping_add(k) & mask)
    }

    /// The position of the live message of id `id`.
    fn find(&self, live: &[Slot], id: u64) -> Option<u32> {
        for b in self.probe(id) {
            match self.buckets[b] {
                Positions::EMPTY => return None,
                p if live[p as usize].id == id => return Some(p),
                _ => {}
            }
        }
        None
    }

    /// Adds position `p` of `live`, whose id is not in the table yet.
    fn insert(&mut self, live: &[Slot], p: u32) {
        if (self.len + 1) * 4 > self.buckets.len() * 3 {
            let wider = (self.buckets.len() * 2).max(1024);
            let old = std::mem::replace(&mut self.buckets, vec![Positions::EMPTY; wider]);
            self.len = 0;
            for q in old.into_iter().filter(|&q| q != Positions::EMPTY) {
                self.place(live, q);
            }
        }
        self.place(live, p);
    }

    fn place(&mut self, live: &[Slot], p: u32) {
        let id = live[p as usize].id;
        if let Some(b) = self
            .probe(id)
            .find(|&b| self.buckets[b] == Positions::EMPTY)
        {
            self.buckets[b] = p;
            self.len += 1;
        }
    }

    fn clear(&mut self) {
        self.buckets.fill(Positions::EMPTY);
        self.len = 0;
    }

    /// The table of `live` as it is now (after it was cut).
    fn rebuild(&mut self, live: &[Slot]) {
        self.clear();
        for p in 0..live.len() {
            self.insert(live, p as u32);
        }
    }
}

/// The history made from the live records as they are read, with the usage they report.
#[derive(Default)]
pub struct Maker {
    builder: Builder,
    reports: Reports,
    notes: Notes,
    next: usize,
}

/// What the history's making left once every live record was taken.
pub struct Made {
    pub usage: Option<ReportedUsage>,
    pub warnings: Vec<String>,
}

impl Maker {
    /// Takes the next live record, `value`, indexed as (`id`, `place`); `None` when it is
    /// not the message indexed there (the file changed between the passes).
    pub fn take(
        &mut self,
        (id, place): (u64, Place),
        value: Value,
        checkpoint_line: usize,
        emit: &mut impl FnMut(Sent),
    ) -> Option<()> {
        let seen = value.get("id").and_then(Value::as_str).map(id_hash);
        if seen != Some(id) {
            return None;
        }
        let from = match place {
            Place::Line { line, .. } => From::Line(line as usize),
            Place::Checkpoint { index } => From::Checkpoint {
                line: checkpoint_line,
                index: index as usize,
            },
        };
        let live = Live { value, from };
        let span = (self.builder).push(self.next, &live, &mut self.notes, emit);
        self.reports.take(&live, span);
        self.next += 1;
        Some(())
    }

    pub fn finish(self, emit: &mut impl FnMut(Sent)) -> Made {
        self.builder.finish(emit);
        Made {
            usage: self.reports.finish(),
            warnings: self.notes.into_warnings(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_reduce_as_the_replay_reads_them() {
        let m = |id: &str, model: Option<&str>| Msg {
            id: id_hash(id),
            model: model.map(str::to_string),
        };
        let g = r#"{"id":"a","type":"gemini","model":"gemini-2.5-flash","content":"x"}"#;
        assert_eq!(rec(g), Some(Rec::Message(m("a", Some("gemini-2.5-flash")))));
        let u = r#"{"id":"b","type":"user","model":"m","content":[{"text":"y"}]}"#;
        assert_eq!(rec(u), Some(Rec::Message(m("b", None))));
        let set = r#"{"$set":{"messages":[{"id":"c","type":"user"}],"lastUpdated":"t"}}"#;
        assert_eq!(rec(set), Some(Rec::Set(Some(vec![m("c", None)]))));
        assert_eq!(rec(r#"{"$set":{"lastUpdated":"t"}}"#), Some(Rec::Set(None)));
        assert_eq!(rec(r#"{"$rewindTo":"b"}"#), Some(Rec::Rewind(id_hash("b"))));
        assert_eq!(rec(r#"{"sessionId":"s","kind":"main"}"#), Some(Rec::Other));
        // What the whole reader refuses.
        for bad in [
            r#"{"$set":{"messages":null}}"#,
            r#"{"$set":{"messages":[1]}}"#,
            r#"{"$set":[]}"#,
            r#"{"$rewindTo":3}"#,
            r#"{"id":1,"type":"user"}"#,
            "[1]",
        ] {
            assert_eq!(rec(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_index_replays_replacements_checkpoints_and_rewinds() {
        let mut ix = Index::default();
        let msg = |id: &str| {
            Rec::Message(Msg {
                id: id_hash(id),
                model: None,
            })
        };
        ix.record(msg("old"), 0, 0, 1).unwrap();
        let set = |ids: &[&str]| {
            Rec::Set(Some(
                (ids.iter())
                    .map(|i| Msg {
                        id: id_hash(i),
                        model: None,
                    })
                    .collect(),
            ))
        };
        ix.record(set(&["a", "b"]), 1, 10, 5).unwrap();
        ix.record(msg("c"), 2, 20, 1).unwrap();
        ix.record(msg("b"), 3, 30, 1).unwrap();
        ix.record(msg("d"), 4, 40, 1).unwrap();
        ix.record(Rec::Rewind(id_hash("d")), 5, 50, 1).unwrap();
        let places: Vec<Place> = (0..).map_while(|k| ix.get(k)).map(|(_, p)| p).collect();
        assert_eq!(
            places,
            [
                Place::Checkpoint { index: 0 },
                Place::Line {
                    line: 3,
                    at: 30,
                    len: 1
                },
                Place::Line {
                    line: 2,
                    at: 20,
                    len: 1
                },
            ]
        );
        assert_eq!(ix.checkpoint, Some((1, 10, 5)));
        assert_eq!(ix.checkpointed(), 1);
    }

    #[test]
    fn the_index_finds_every_id_as_it_grows_and_after_a_rewind() {
        let mut ix = Index::default();
        let msg = |k: usize| {
            Rec::Message(Msg {
                id: id_hash(&format!("m{k}")),
                model: None,
            })
        };
        for k in 0..5000 {
            ix.record(msg(k), k, k as u64, 1).unwrap();
        }
        // Each id again: replaced in place, nothing added.
        for k in 0..5000 {
            ix.record(msg(k), 5000 + k, 0, 1).unwrap();
        }
        assert_eq!(ix.live.len(), 5000);
        assert_eq!(
            ix.get(7),
            Some((
                id_hash("m7"),
                Place::Line {
                    line: 5007,
                    at: 0,
                    len: 1
                }
            ))
        );
        ix.record(Rec::Rewind(id_hash("m300")), 10_000, 0, 1)
            .unwrap();
        assert_eq!(ix.live.len(), 300);
        ix.record(msg(4000), 10_001, 0, 1).unwrap();
        ix.record(msg(299), 10_002, 0, 1).unwrap();
        assert_eq!(ix.live.len(), 301);
        assert_eq!(ix.get(300).map(|(id, _)| id), Some(id_hash("m4000")));
    }
}
