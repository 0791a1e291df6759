//! The live thread of a Claude Code transcript traced over its [`Node`]s (ids hashed, no
//! text), step for step as [`Transcript`](super::Transcript) traces it over parsed
//! records: the same leaf, the same relinked preserved segments, the same records beside
//! the chain, the same order and the same warnings. The two are held equal on every
//! fixture by `tests/agent_stream.rs`.
//!
//! What the trace holds per node is kept to a few bytes: a node's parent and the nodes a
//! `leafUuid` or a preserved segment names come resolved from the index (no uuid is
//! held: [`Index::resolve`]), nodes are found by another key through a permutation of
//! their 32-bit indices sorted by it ([`ById`], binary-searched), the
//! children map of [`Children`] is built only when a boundary has a preserved segment to
//! relink, and the thread's order and live flags are kept in about a byte and a bit a
//! record ([`Order`], [`Flags`]).

use std::collections::{HashMap, HashSet};

use super::index::Index;
use super::relink::Children;
use super::seq::{Flags, Order};
use super::skel::{Id, Kind, Node, Rare};

/// The live thread of a transcript's nodes.
#[derive(Debug)]
pub struct Thread {
    /// Per node: part of the active context.
    pub live: Flags,
    /// The live nodes in the order Claude Code sends them.
    pub order: Order,
    /// The `compact_boundary` the active context starts after.
    pub boundary: Option<usize>,
    /// The boundary of the preserved segment the thread goes through, when it does.
    pub splice_boundary: Option<usize>,
    pub warnings: Vec<String>,
    /// Warnings left empty, to be worded with the `parentUuid` of their node (the
    /// index holds only its hash): (warning, node) whose parent is not in the file.
    pub missing: Vec<(usize, usize)>,
}

/// A relinked preserved segment (see `Splice` in `thread.rs`).
#[derive(Debug, Clone, PartialEq)]
struct Splice {
    boundary: usize,
    anchor: usize,
    head: usize,
    tail: usize,
}

/// Node indices by a key (`key` of the node in the index: an id, a node), sorted by key
/// and then index: a multimap of four bytes per node.
struct ById<K> {
    idx: Vec<u32>,
    key: fn(&Index, usize) -> Option<K>,
}

impl<K: Ord + Copy> ById<K> {
    /// The nodes `keep` takes that have a `key`.
    fn new(
        index: &Index,
        key: fn(&Index, usize) -> Option<K>,
        keep: impl Fn(usize) -> bool,
    ) -> ById<K> {
        let mut idx: Vec<u32> = (0..index.nodes.len())
            .filter(|&i| keep(i) && key(index, i).is_some())
            .map(|i| i as u32)
            .collect();
        idx.sort_unstable_by_key(|&i| (key(index, i as usize), i));
        ById { idx, key }
    }

    /// The indices of `id`, in file order.
    fn all(&self, index: &Index, id: K) -> &[u32] {
        let k = |i: &u32| (self.key)(index, *i as usize);
        let from = self.idx.partition_point(|i| k(i) < Some(id));
        let to = from + self.idx[from..].partition_point(|i| k(i) == Some(id));
        &self.idx[from..to]
    }
}

/// The ids the nodes answer (`tool_use_id`s), by id: the place of each in
/// [`Rare::answers`], sorted by id and then place, four bytes an id where a set of the
/// answered ones took about 18.
struct Answers<'a> {
    rare: &'a Rare,
    idx: Vec<u32>,
}

impl Answers<'_> {
    fn new(rare: &Rare) -> Answers<'_> {
        let n = u32::try_from(rare.answers()).expect("fewer than 2^32 answers");
        let mut idx: Vec<u32> = (0..n).collect();
        idx.sort_unstable_by_key(|&k| (rare.answer(k as usize).1, k));
        Answers { rare, idx }
    }

    /// Whether a node `live` says is live answers `id`.
    fn live(&self, id: Id, live: &Flags) -> bool {
        let key = |k: &u32| self.rare.answer(*k as usize).1;
        let from = self.idx.partition_point(|k| key(k) < id);
        (self.idx[from..].iter())
            .take_while(|k| key(k) == id)
            .any(|&k| live.get(self.rare.answer(k as usize).0))
    }
}

struct Tracer<'a> {
    index: &'a Index,
    nodes: &'a [Node],
    rare: &'a Rare,
    relink: HashMap<usize, usize>,
    splices: Vec<Splice>,
    warnings: Vec<String>,
    missing: Vec<(usize, usize)>,
    main: bool,
}

/// The live thread of the records `index` holds.
pub fn trace(index: &Index) -> Thread {
    let (nodes, rare) = (&index.nodes[..], &index.rare);
    let main = nodes.iter().any(|n| n.is_conversation() && !n.sidechain());
    let mut t = Tracer {
        index,
        nodes,
        rare,
        relink: HashMap::new(),
        splices: Vec::new(),
        warnings: Vec::new(),
        missing: Vec::new(),
        main,
    };
    t.relink_segments();
    let mut thread = Thread {
        live: Flags::new(nodes.len()),
        order: Order::default(),
        boundary: None,
        splice_boundary: None,
        warnings: Vec::new(),
        missing: Vec::new(),
    };
    if let Some(leaf) = t.find_leaf() {
        t.walk(leaf, &mut thread);
    }
    thread.warnings = t.warnings;
    thread.missing = t.missing;
    thread
}

impl Tracer<'_> {
    fn parent(&self, i: usize) -> Option<usize> {
        match self.relink.get(&i) {
            Some(&p) => Some(p),
            None => self.file_parent(i),
        }
    }

    fn file_parent(&self, i: usize) -> Option<usize> {
        self.index.parent_record(i)
    }

    /// The node `id` names (the last, if several): a `leafUuid`, a segment's end.
    fn uuid(&self, id: Option<Id>) -> Option<usize> {
        id.and_then(|u| self.index.last_of(u))
    }

    fn eligible(&self, i: usize) -> bool {
        !self.main || !self.nodes[i].sidechain()
    }

    fn walk(&mut self, leaf: usize, thread: &mut Thread) {
        // Leaf first, as walked.
        let mut chain = Order::default();
        // The nodes seen are the chain's, which are live: the thread's own bit a node
        // marks them, rather than a byte a node more.
        let seen = &mut thread.live;
        let mut cur = Some(leaf);
        while let Some(i) = cur {
            if self.nodes[i].boundary() {
                thread.boundary = Some(i);
                break;
            }
            if seen.set(i) {
                self.warnings.push(format!(
                    "line {}: parentUuid links loop back; the thread starts here",
                    self.index.line(i) + 1
                ));
                break;
            }
            chain.push(i as u32);
            cur = self.parent(i);
            if cur.is_none() && self.index.names_parent(i) {
                // The original words the parent's uuid, which the index does not hold.
                self.warnings.push(String::new());
                self.missing.push((self.warnings.len() - 1, i));
            }
        }
        let chain = chain.reversed();
        let splice = thread.boundary.and_then(|b| {
            (self.splices.iter())
                .find(|s| s.boundary == b && chain.contains(s.anchor as u32))
                .cloned()
        });
        thread.splice_boundary = splice.as_ref().map(|s| s.boundary);
        self.expand(chain, splice.is_some(), thread);
    }

    fn relink_segments(&mut self) {
        let boundaries: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| self.nodes[i].boundary())
            .collect();
        // A map of every node's children, built for the first segment that needs it.
        let mut children = None;
        for b in boundaries {
            match self.find_splice(b) {
                Ok(Some(s)) => {
                    let head_parent = self.parent(s.head);
                    let link = (s.head, s.anchor, s.tail);
                    let children = children
                        .get_or_insert_with(|| Children::of(self.nodes.len(), |c| self.parent(c)));
                    children.splice(&mut self.relink, head_parent, link);
                    self.splices.push(s);
                }
                Ok(None) => {}
                Err(w) => self.warnings.push(w),
            }
        }
    }

    fn find_splice(&self, b: usize) -> Result<Option<Splice>, String> {
        let Some(seg) = self.rare.segment(b) else {
            return Ok(None);
        };
        let line = self.index.line(b) + 1;
        let at = |k: Option<Id>| self.uuid(k);
        let (Some(head), Some(anchor), Some(tail)) = (at(seg[0]), at(seg[1]), at(seg[2])) else {
            return Err(format!(
                "line {line}: the compact boundary's preserved segment names records not in this \
                 file; they are not counted"
            ));
        };
        let mut seen = HashSet::new();
        let mut cur = Some(tail);
        while let Some(i) = cur {
            let bad =
                self.nodes[i].boundary() || !self.eligible(i) || i == anchor || !seen.insert(i);
            if bad {
                break;
            }
            if i == head {
                return Ok(Some(Splice {
                    boundary: b,
                    anchor,
                    head,
                    tail,
                }));
            }
            cur = self.parent(i);
        }
        Err(format!(
            "line {line}: the compact boundary's preserved segment does not lead from its tail \
             back to its head; it is not counted"
        ))
    }

    fn find_leaf(&self) -> Option<usize> {
        let n = self.nodes.len();
        let candidate = |i: usize| self.nodes[i].is_conversation() && self.eligible(i);
        let last_of = |ok: &dyn Fn(usize) -> bool| {
            (0..n)
                .rev()
                .filter(|&i| candidate(i) && ok(i))
                .find(|&i| self.nodes[i].kind != Kind::System)
                .or_else(|| (0..n).rev().find(|&i| candidate(i) && ok(i)))
        };
        let named_by = |r: usize| self.uuid(self.rare.leaf(r)).filter(|&i| candidate(i));
        let prompt = (0..n)
            .rev()
            .filter(|&r| self.nodes[r].kind == Kind::LastPrompt)
            .find_map(named_by);
        if let Some(named) = prompt {
            // Whether each node descends from the named one: the memo says it of every node
            // once each is asked (but the named one itself), so that no second byte a node
            // holds the answers.
            let mut memo = vec![None; n];
            (0..n).for_each(|i| {
                self.descends(i, named, &mut memo);
            });
            let below = |i: usize| i == named || memo[i] == Some(true);
            return last_of(&below).or(Some(named));
        }
        let last = last_of(&|_| true)?;
        let summary = (last + 1..n)
            .rev()
            .filter(|&r| self.nodes[r].kind == Kind::Summary)
            .find_map(named_by);
        Some(summary.unwrap_or(last))
    }

    fn descends(&self, i: usize, anc: usize, memo: &mut [Option<bool>]) -> bool {
        let mut path = Vec::new();
        let mut cur = Some(i);
        let mut found = false;
        while let Some(j) = cur {
            if let Some(m) = memo[j] {
                found = m;
                break;
            }
            if j == anc {
                found = true;
                break;
            }
            if path.len() > self.nodes.len() {
                break;
            }
            path.push(j);
            cur = self.file_parent(j);
        }
        for j in path {
            memo[j] = Some(found);
        }
        found
    }

    fn expand(&self, chain: Order, spliced: bool, thread: &mut Thread) {
        let after = match (spliced, thread.boundary) {
            (false, Some(b)) => b + 1,
            _ => 0,
        };
        let eligible = |i: usize| i >= after && self.eligible(i);
        // Parallel tool results hang from their `tool_use` record by `parentUuid`: only
        // records that answer calls can be hung beside the chain that way. Keyed by the
        // node their parent names (the last giving that uuid), found under the last node
        // giving a chain record's uuid.
        let children = ById::new(
            self.index,
            |ix, i| ix.parent_record(i),
            |i| eligible(i) && !self.rare.results(i).is_empty(),
        );
        let by_message = ById::new(self.index, Index::message_id, eligible);
        let live = &mut thread.live;
        for i in chain.iter() {
            live.set(i as usize);
        }
        // An id is answered once a live record answers it: only user records answer ids,
        // and only the chain's and the tool results hung beside it are live ones (the
        // records of a response hung beside it are assistant records).
        let answers = Answers::new(self.rare);
        // The nodes hung beside the chain (few): (place of the chain record they hang
        // from, their index). A chain record's place is its position, and the records
        // beside it follow it in file order.
        let mut beside: Vec<(u32, u32)> = Vec::new();
        // The chain's records taken last first, each followed by what it hangs, depth
        // first, as one stack holding the chain would take them.
        let mut stack: Vec<(u32, u32)> = Vec::new();
        for (pos, i) in (0..chain.len()).rev().zip(chain.iter().rev()) {
            stack.push((pos as u32, i));
            while let Some((at, i)) = stack.pop() {
                let same =
                    (self.index.message_id(i as usize)).map(|id| by_message.all(self.index, id));
                let kids = (self.index.has_uuid(i as usize))
                    .then(|| children.all(self.index, self.index.last(i as usize)));
                for &j in same.into_iter().flatten() {
                    if !live.set(j as usize) {
                        beside.push((at, j));
                        stack.push((at, j));
                    }
                }
                for &c in kids.into_iter().flatten() {
                    let ids = self.rare.results(c as usize);
                    if live.get(c as usize) || ids.iter().all(|&id| answers.live(id, live)) {
                        continue;
                    }
                    live.set(c as usize);
                    beside.push((at, c));
                    stack.push((at, c));
                }
            }
        }
        drop((children, by_message, answers, stack));
        beside.sort_unstable();
        thread.order = interleave(chain, &beside);
    }
}

/// The thread's order: each record of `chain` followed by the records `beside` hangs from
/// its place (sorted by place and then record).
fn interleave(chain: Order, beside: &[(u32, u32)]) -> Order {
    let mut order = Order::default();
    let mut hung = beside.iter().peekable();
    for (pos, i) in chain.iter().enumerate() {
        order.push(i);
        while let Some(&(_, j)) = hung.next_if(|&&(at, _)| at as usize == pos) {
            order.push(j);
        }
    }
    debug_assert!(hung.next().is_none());
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_beside_the_chain_follow_their_place_in_order() {
        let order = |v: &[u32]| v.iter().copied().collect::<Order>();
        let chain = order(&[10, 11, 12, 13]);
        let beside = [(0, 7), (0, 20), (2, 3), (3, 1), (3, 2)];
        let want = order(&[10, 7, 20, 11, 12, 3, 13, 1, 2]);
        assert_eq!(interleave(chain, &beside), want);
        assert_eq!(interleave(order(&[5, 6]), &[]), order(&[5, 6]));
        assert!(interleave(Order::default(), &[]).is_empty());
    }
}

#[cfg(test)]
#[path = "live_tests.rs"]
mod thread_tests;
