//! One line of a Claude Code transcript reduced to what its live thread is traced from
//! ([`Node`], 2 bytes: its type and a few flags; where its text is in the file, the model
//! it names and its ids, as 64-bit hashes, beside it), the few fields only some records hold kept aside
//! ([`Rare`]). The line is
//! deserialized into a skeleton that skips everything else
//! (message text, tool results, base64 images) without copying it, so that a transcript
//! of any size is indexed in memory proportional to its number of records.
//!
//! Every field is read as [`Rec`](super::Rec) reads it from a parsed value: a field of
//! another JSON type than the one asked for counts as absent. A line the skeleton cannot
//! take (not an object, a key given twice) is left to the whole-file reader.

use serde::Deserialize;

use super::SYNTHETIC_MODEL;
use crate::formats::stream::loose::{Loose, Obj, Seq};
use crate::session::{parse_agent_version, AgentVersion};

/// A 64-bit hash of an id (a `uuid`, a `message.id`, a `tool_use_id`); never 0, so that
/// an absent one takes no room.
pub type Id = std::num::NonZeroU64;

/// The hash of `id`.
pub fn id(id: &str) -> Id {
    Id::new(xxhash_rust::xxh3::xxh3_64(id.as_bytes())).unwrap_or(Id::MIN)
}

/// A record's `uuid` (its [`id`]) in 32 bits, made from the uuids' spill for a record read
/// again, so that a record read again can be told to be the one indexed at its place (a file
/// rewritten in place between the two reads). 0 for none; another record's uuid passes
/// for this one's with odds of 2^-32.
pub fn check(uuid: Option<Id>) -> u32 {
    uuid.map_or(0, |u| (u.get() as u32).max(1))
}

/// A record's `type`, as far as the thread tells them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    User,
    Assistant,
    System,
    Attachment,
    LastPrompt,
    Summary,
    Other,
}

impl Kind {
    fn of(ty: &str) -> Kind {
        match ty {
            "user" => Kind::User,
            "assistant" => Kind::Assistant,
            "system" => Kind::System,
            "attachment" => Kind::Attachment,
            "last-prompt" => Kind::LastPrompt,
            "summary" => Kind::Summary,
            _ => Kind::Other,
        }
    }
}

/// A record of the transcript, without its text: 2 bytes, with no allocation of its own.
/// Its ids are kept beside it (`Index`'s `ids`: the `message.id`s and `parentUuid`s in
/// memory until the live thread is traced, the uuids' hashes in a temp file), so that
/// their bytes a record do not stay while the rest is read. Its line and its place in the file are kept by the index in a few bytes (its line
/// is its number among the records but for blank lines; its offset, in about 2 bytes, is
/// the step from the previous record's, which is also where that one's text ends), the
/// model it names in runs (`Index`'s `models`: only a bit here), and what few records hold,
/// their `leafUuid`, the `tool_use_id`s they answer and a boundary's preserved segment,
/// beside the nodes, in [`Rare`].
#[derive(Debug, Clone)]
pub struct Node {
    pub kind: Kind,
    flags: u8,
}

const SIDECHAIN: u8 = 1;
const BOUNDARY: u8 = 2;
const API_ERROR: u8 = 4;
const CTXCTL: u8 = 8;
const SNAPSHOT: u8 = 16;
const HAS_UUID: u8 = 32;
const NAMED: u8 = 64;

/// A line the skeleton made: its node, where it is, and what the node does not keep.
#[derive(Debug)]
pub struct Made {
    pub node: Node,
    pub uuid: Option<Id>,
    /// `message.id` of an assistant record.
    pub message_id: Option<Id>,
    /// Its `parentUuid`.
    pub parent: Option<Id>,
    /// Its line (0-based, blank lines counted).
    pub line: usize,
    /// Where its text is in the file.
    pub at: u64,
    pub len: u32,
    pub extra: Extra,
    /// The model it names (see `model_of`).
    pub model: Option<String>,
    pub version: Version,
}

/// What a record holds beyond its [`Node`], when it holds any.
#[derive(Debug, Default, PartialEq)]
pub struct Extra {
    /// `leafUuid`.
    pub leaf: Option<Id>,
    /// The `tool_use_id`s a user record answers.
    pub results: Vec<Id>,
    /// `compactMetadata.preservedSegment` of a compact boundary, when not null: its
    /// `headUuid`, `anchorUuid` and `tailUuid`.
    pub segment: Option<[Option<Id>; 3]>,
}

/// The [`Extra`]s of a transcript's nodes, by node index (pushed in file order), so that
/// the many records that hold none take no room for them.
#[derive(Debug, Default)]
pub struct Rare {
    leaves: Vec<(u32, Id)>,
    /// The node of each answered id, and the ids, side by side.
    result_of: Vec<u32>,
    results: Vec<Id>,
    segments: Vec<(u32, [Option<Id>; 3])>,
}

/// The entry of node `i` in `v`, sorted by node.
fn entry<T>(v: &[(u32, T)], i: usize) -> Option<&T> {
    let k = v.partition_point(|(n, _)| (*n as usize) < i);
    v.get(k).filter(|(n, _)| *n as usize == i).map(|(_, t)| t)
}

impl Rare {
    /// Keeps `extra` for node `i` (each node after the ones pushed before).
    pub fn push(&mut self, i: u32, extra: Extra) {
        if let Some(leaf) = extra.leaf {
            self.leaves.push((i, leaf));
        }
        self.result_of.extend(extra.results.iter().map(|_| i));
        self.results.extend(extra.results);
        if let Some(seg) = extra.segment {
            self.segments.push((i, seg));
        }
    }

    /// Forgets the extras of nodes `n` and on.
    pub fn truncate(&mut self, n: usize) {
        let before = |k: &u32| (*k as usize) < n;
        self.leaves
            .truncate(self.leaves.partition_point(|(k, _)| before(k)));
        let r = self.result_of.partition_point(before);
        self.result_of.truncate(r);
        self.results.truncate(r);
        (self.segments).truncate(self.segments.partition_point(|(k, _)| before(k)));
    }

    /// Node `i`'s `leafUuid`.
    pub fn leaf(&self, i: usize) -> Option<Id> {
        entry(&self.leaves, i).copied()
    }

    /// The `tool_use_id`s node `i` answers.
    pub fn results(&self, i: usize) -> &[Id] {
        let from = self.result_of.partition_point(|&k| (k as usize) < i);
        let to = from + self.result_of[from..].partition_point(|&k| k as usize == i);
        &self.results[from..to]
    }

    /// How many ids the nodes answer, all told.
    pub fn answers(&self) -> usize {
        self.results.len()
    }

    /// The `k`th id answered (in node order) and its node.
    pub fn answer(&self, k: usize) -> (usize, Id) {
        (self.result_of[k] as usize, self.results[k])
    }

    /// The uuids the nodes name by their hash alone (`leafUuid`s, preserved segments'
    /// ends): what a trace looks up ([`super::uuid_spill::resolve`]).
    pub fn named(&self) -> impl Iterator<Item = Id> + '_ {
        let ends = self.segments.iter().flat_map(|(_, s)| s.iter().flatten());
        self.leaves.iter().map(|&(_, l)| l).chain(ends.copied())
    }

    /// Node `i`'s preserved segment.
    pub fn segment(&self, i: usize) -> Option<&[Option<Id>; 3]> {
        entry(&self.segments, i)
    }
}

impl Node {
    pub fn sidechain(&self) -> bool {
        self.flags & SIDECHAIN != 0
    }

    /// A `compact_boundary`.
    pub fn boundary(&self) -> bool {
        self.flags & BOUNDARY != 0
    }

    pub fn api_error(&self) -> bool {
        self.flags & API_ERROR != 0
    }

    /// Whether it holds a `ctxctl` key.
    pub fn ctxctl(&self) -> bool {
        self.flags & CTXCTL != 0
    }

    /// Whether its `attachment` is a `prompt_snapshot`.
    pub fn snapshot(&self) -> bool {
        self.flags & SNAPSHOT != 0
    }

    /// Whether it has a `uuid`.
    pub fn has_uuid(&self) -> bool {
        self.flags & HAS_UUID != 0
    }

    /// Whether it names a model ([`Made::model`], which the index keeps aside).
    pub fn named(&self) -> bool {
        self.flags & NAMED != 0
    }

    /// A record of the conversation tree that can be a leaf.
    pub fn is_conversation(&self) -> bool {
        self.has_uuid()
            && matches!(
                self.kind,
                Kind::User | Kind::Assistant | Kind::System | Kind::Attachment
            )
    }
}

/// What a record says of the agent's version: `None` when it has no `version` string,
/// else that string parsed (`Some(None)`: not a version ctxctl reads).
pub type Version = Option<Option<AgentVersion>>;

/// `line`'s node, with what it does not keep; `None` when the skeleton cannot read it.
pub fn node(text: &str, line: usize, at: u64) -> Option<Made> {
    // Serde would take an array for the skeleton's fields in order: a record is an object.
    if crate::formats::stream::loose::too_deep(text)
        || !text
            .trim_start_matches([' ', '\t', '\r', '\n'])
            .starts_with('{')
    {
        return None;
    }
    let s: Skel = serde_json::from_str(text).ok()?;
    let ty = s.ty.as_str().unwrap_or("");
    let kind = Kind::of(ty);
    let msg = s.message.0.unwrap_or_default();
    let model = (kind == Kind::Assistant)
        .then(|| msg.model.as_str())
        .flatten()
        .filter(|m| *m != SYNTHETIC_MODEL && !m.is_empty())
        .map(str::to_string);
    let results = if kind == Kind::User {
        (msg.content.0.unwrap_or_default().into_iter())
            .filter_map(|b| b.0)
            .filter(|b| b.ty.as_str() == Some("tool_result"))
            .filter_map(|b| b.tool_use_id.as_str().map(id))
            .collect()
    } else {
        Vec::new()
    };
    let boundary = kind == Kind::System && s.subtype.as_str() == Some("compact_boundary");
    let segment = match s.meta.0.map(|m| m.segment) {
        Some(Loose::Absent | Loose::Null) | None => None,
        Some(Loose::Object(seg)) => Some([
            seg.head.as_str().map(id),
            seg.anchor.as_str().map(id),
            seg.tail.as_str().map(id),
        ]),
        Some(_) => Some([None, None, None]),
    };
    let flag = |on: bool, f: u8| if on { f } else { 0 };
    let uuid = s.uuid.as_str().map(id);
    let node = Node {
        kind,
        flags: flag(s.sidechain.as_bool() == Some(true), SIDECHAIN)
            | flag(boundary, BOUNDARY)
            | flag(s.api_error.as_bool() == Some(true), API_ERROR)
            | flag(!matches!(s.ctxctl, Loose::Absent), CTXCTL)
            | flag(
                (s.attachment.0).is_some_and(|a| a.ty.as_str() == Some("prompt_snapshot")),
                SNAPSHOT,
            )
            | flag(uuid.is_some(), HAS_UUID)
            | flag(model.is_some(), NAMED),
    };
    let extra = Extra {
        leaf: s.leaf.as_str().map(id),
        results,
        segment: segment.filter(|_| boundary),
    };
    let version = s.version.as_str().map(parse_agent_version);
    Some(Made {
        node,
        uuid,
        message_id: (kind == Kind::Assistant)
            .then(|| msg.id.as_str().map(id))
            .flatten(),
        parent: s.parent.as_str().map(id),
        line,
        at,
        len: u32::try_from(text.len()).ok()?,
        extra,
        model,
        version,
    })
}

/// The fields of a record the thread reads.
#[derive(Deserialize)]
struct Skel<'a> {
    #[serde(rename = "type", default, borrow)]
    ty: Loose<'a>,
    #[serde(default, borrow)]
    uuid: Loose<'a>,
    #[serde(rename = "parentUuid", default, borrow)]
    parent: Loose<'a>,
    #[serde(rename = "isSidechain", default, borrow)]
    sidechain: Loose<'a>,
    #[serde(default, borrow)]
    subtype: Loose<'a>,
    #[serde(rename = "leafUuid", default, borrow)]
    leaf: Loose<'a>,
    #[serde(rename = "isApiErrorMessage", default, borrow)]
    api_error: Loose<'a>,
    #[serde(default, borrow)]
    ctxctl: Loose<'a>,
    #[serde(default, borrow)]
    message: Obj<Msg<'a>>,
    #[serde(rename = "compactMetadata", default, borrow)]
    meta: Obj<Meta<'a>>,
    #[serde(default, borrow)]
    attachment: Obj<Typed<'a>>,
    #[serde(default, borrow)]
    version: Loose<'a>,
}

#[derive(Deserialize, Default)]
struct Msg<'a> {
    #[serde(default, borrow)]
    id: Loose<'a>,
    #[serde(default, borrow)]
    model: Loose<'a>,
    #[serde(default, borrow)]
    content: Seq<Obj<Block<'a>>>,
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", default, borrow)]
    ty: Loose<'a>,
    #[serde(default, borrow)]
    tool_use_id: Loose<'a>,
}

#[derive(Deserialize)]
struct Meta<'a> {
    #[serde(rename = "preservedSegment", default, borrow)]
    segment: Loose<'a, Segment<'a>>,
}

#[derive(Deserialize)]
struct Segment<'a> {
    #[serde(rename = "headUuid", default, borrow)]
    head: Loose<'a>,
    #[serde(rename = "anchorUuid", default, borrow)]
    anchor: Loose<'a>,
    #[serde(rename = "tailUuid", default, borrow)]
    tail: Loose<'a>,
}

#[derive(Deserialize)]
struct Typed<'a> {
    #[serde(rename = "type", default, borrow)]
    ty: Loose<'a>,
}

/// Whether each record fetched is the one the first pass indexed at its place (by its
/// `uuid`'s [`check`]); not so when the file was rewritten in place between the
/// passes, and a whole read then words what it holds now. A rewrite moves or replaces
/// every record after its first change, each passing with odds of 2^-32, and a file
/// left shorter is caught by its length.
pub fn unchanged(checks: &[u32], parsed: &[serde_json::Value]) -> bool {
    let same = |(c, v): (&u32, &serde_json::Value)| {
        let uuid = v.get("uuid").and_then(serde_json::Value::as_str);
        *c == check(uuid.map(id))
    };
    checks.len() == parsed.len() && checks.iter().zip(parsed).all(same)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_rewritten_in_place_between_the_passes_is_seen() {
        let first = r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}"#;
        let c = check(node(first, 0, 0).expect("a node").uuid);
        let seen: serde_json::Value = serde_json::from_str(first).unwrap();
        assert!(unchanged(&[c], &[seen]));
        let now = r#"{"type":"user","uuid":"u9","parentUuid":null,"message":{"role":"user","content":"hi"}}"#;
        let now: serde_json::Value = serde_json::from_str(now).unwrap();
        assert!(!unchanged(&[c], &[now]));
        assert!(!unchanged(&[c], &[]));
        // A record without a uuid is not one with a uuid, nor the reverse.
        let bare = r#"{"type":"user","message":{"role":"user","content":"hi"}}"#;
        let bare: serde_json::Value = serde_json::from_str(bare).unwrap();
        assert!(!unchanged(&[c], std::slice::from_ref(&bare)));
        assert!(unchanged(&[check(None)], &[bare]));
        let seen: serde_json::Value = serde_json::from_str(first).unwrap();
        assert!(!unchanged(&[check(None)], &[seen]));
    }

    #[test]
    fn fields_of_another_type_are_absent_as_a_values_get_finds_them() {
        let Made {
            node: n,
            uuid,
            message_id,
            parent,
            extra: x,
            model,
            ..
        } = node(
            r#"{"type":"assistant","uuid":7,"parentUuid":"p","isSidechain":"yes","message":{"id":"m","model":"claude-x","content":[1,{"type":"tool_result","tool_use_id":"t"}]}}"#,
            3,
            10,
        )
        .unwrap();
        assert_eq!(
            (n.kind, uuid, parent),
            (Kind::Assistant, None, Some(id("p")))
        );
        assert!(!n.has_uuid() && !n.is_conversation());
        assert_eq!((message_id, n.sidechain()), (Some(id("m")), false));
        // Only a user record answers tool calls.
        assert!(x.results.is_empty());
        assert_eq!(model.as_deref(), Some("claude-x"));
        assert!(n.named());
        let Made {
            node: n, extra: x, ..
        } = node(
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t"},"x"]},"ctxctl":null}"#,
            0,
            0,
        )
        .unwrap();
        assert_eq!(x.results, [id("t")]);
        assert!(!n.named(), "a user record names no model");
        assert!(n.ctxctl() && !n.snapshot() && !n.boundary());
    }

    #[test]
    fn a_node_takes_2_bytes() {
        // The index of a 2 GB transcript holds millions of them.
        assert_eq!(std::mem::size_of::<Node>(), 2);
    }

    #[test]
    fn a_check_tells_uuids_and_their_absence_apart() {
        assert_eq!(check(None), 0);
        assert_ne!(check(Some(id("u1"))), 0);
        assert_ne!(check(Some(id("u1"))), check(Some(id("u9"))));
        assert_eq!(check(Some(id("u1"))), check(Some(id("u1"))));
        assert_eq!(check(Id::new(1 << 32)), 1, "low bits of 0 still say a uuid");
    }

    #[test]
    fn rare_fields_are_found_by_node_and_cut_with_the_index() {
        let mut rare = Rare::default();
        let results = vec![id("a"), id("b")];
        rare.push(
            1,
            Extra {
                results,
                ..Extra::default()
            },
        );
        rare.push(2, Extra::default());
        let segment = Some([Some(id("h")), None, Some(id("t"))]);
        let leaf = Some(id("l"));
        rare.push(
            4,
            Extra {
                leaf,
                results: vec![id("c")],
                segment,
            },
        );
        assert_eq!(rare.results(1), [id("a"), id("b")]);
        assert!(rare.results(0).is_empty() && rare.results(2).is_empty());
        assert_eq!((rare.leaf(4), rare.leaf(1)), (leaf, None));
        assert_eq!(rare.segment(4), segment.as_ref());
        rare.truncate(4);
        assert!(rare.results(4).is_empty() && rare.leaf(4).is_none());
        assert!(rare.segment(4).is_none());
        assert_eq!(rare.results(1).len(), 2);
    }

    #[test]
    fn what_is_not_an_object_record_is_left_to_the_whole_reader() {
        for text in [
            "[1]",
            "[\"user\"]",
            "1",
            "\"x\"",
            "{\"type\":\"user\",\"type\":\"user\"}",
        ] {
            assert!(node(text, 0, 0).is_none(), "{text}");
        }
        let Made {
            node: n, extra: x, ..
        } = node(
            r#"{"type":"system","subtype":"compact_boundary","compactMetadata":{"preservedSegment":5}}"#,
            0,
            0,
        )
        .unwrap();
        assert!(n.boundary() && !n.api_error());
        assert_eq!(x.segment, Some([None, None, None]));
    }
}
