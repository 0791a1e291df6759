//! The live thread of a Claude Code transcript traced over its [`Node`]s (ids hashed, no
//! text), step for step as [`Transcript`](super::Transcript) traces it over parsed
//! records: the same leaf, the same relinked preserved segments, the same records beside
//! the chain, the same order and the same warnings. The two are held equal on every
//! fixture by `tests/agent_stream.rs`.

use std::collections::{HashMap, HashSet};

use super::relink::Children;
use super::skel::{Id, Kind, Node};

/// The live thread of a transcript's nodes.
#[derive(Debug)]
pub struct Thread {
    /// Per node: part of the active context.
    pub live: Vec<bool>,
    /// The live nodes in the order Claude Code sends them.
    pub order: Vec<usize>,
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

/// Node indices by an id, sorted by id and then index: a compact multimap.
struct ById(Vec<(Id, usize)>);

impl ById {
    fn new(pairs: impl Iterator<Item = (Id, usize)>) -> ById {
        let mut v: Vec<(Id, usize)> = pairs.collect();
        v.sort_unstable();
        ById(v)
    }

    /// The indices of `id`, in file order.
    fn all(&self, id: Id) -> &[(Id, usize)] {
        let from = self.0.partition_point(|&(k, _)| k < id);
        let to = from + self.0[from..].partition_point(|&(k, _)| k == id);
        &self.0[from..to]
    }

    /// The last index of `id` (a uuid given twice names its last record).
    fn get(&self, id: &Id) -> Option<&usize> {
        self.all(*id).last().map(|(_, i)| i)
    }
}

struct Tracer<'a> {
    nodes: &'a [Node],
    by_uuid: ById,
    relink: HashMap<usize, usize>,
    splices: Vec<Splice>,
    warnings: Vec<String>,
    missing: Vec<(usize, usize)>,
    main: bool,
}

/// The live thread of `nodes` (a transcript's records in file order).
pub fn trace(nodes: &[Node]) -> Thread {
    let by_uuid = ById::new((nodes.iter().enumerate()).filter_map(|(i, n)| Some((n.uuid?, i))));
    let main = nodes.iter().any(|n| n.is_conversation() && !n.sidechain);
    let mut t = Tracer {
        nodes,
        by_uuid,
        relink: HashMap::new(),
        splices: Vec::new(),
        warnings: Vec::new(),
        missing: Vec::new(),
        main,
    };
    t.relink_segments();
    let mut thread = Thread {
        live: vec![false; nodes.len()],
        order: Vec::new(),
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
        self.nodes[i]
            .parent
            .and_then(|p| self.by_uuid.get(&p))
            .copied()
    }

    fn eligible(&self, i: usize) -> bool {
        !self.main || !self.nodes[i].sidechain
    }

    fn walk(&mut self, leaf: usize, thread: &mut Thread) {
        let mut chain = Vec::new();
        let mut seen = HashSet::new();
        let mut cur = Some(leaf);
        while let Some(i) = cur {
            if self.nodes[i].boundary {
                thread.boundary = Some(i);
                break;
            }
            if !seen.insert(i) {
                self.warnings.push(format!(
                    "line {}: parentUuid links loop back; the thread starts here",
                    self.nodes[i].line + 1
                ));
                break;
            }
            chain.push(i);
            cur = self.parent(i);
            if cur.is_none() && self.nodes[i].parent.is_some() {
                // The original words the parent's uuid, which the index does not hold.
                self.warnings.push(String::new());
                self.missing.push((self.warnings.len() - 1, i));
            }
        }
        chain.reverse();
        let splice = thread.boundary.and_then(|b| {
            (self.splices.iter())
                .find(|s| s.boundary == b && chain.contains(&s.anchor))
                .cloned()
        });
        thread.splice_boundary = splice.as_ref().map(|s| s.boundary);
        self.expand(chain, splice.is_some(), thread);
    }

    fn relink_segments(&mut self) {
        let boundaries: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| self.nodes[i].boundary)
            .collect();
        let mut children = Children::of(self.nodes.len(), |c| self.parent(c));
        for b in boundaries {
            match self.find_splice(b) {
                Ok(Some(s)) => {
                    let head_parent = self.parent(s.head);
                    let link = (s.head, s.anchor, s.tail);
                    children.splice(&mut self.relink, head_parent, link);
                    self.splices.push(s);
                }
                Ok(None) => {}
                Err(w) => self.warnings.push(w),
            }
        }
    }

    fn find_splice(&self, b: usize) -> Result<Option<Splice>, String> {
        let Some(seg) = &self.nodes[b].segment else {
            return Ok(None);
        };
        let line = self.nodes[b].line + 1;
        let at = |k: Option<Id>| k.and_then(|u| self.by_uuid.get(&u).copied());
        let (Some(head), Some(anchor), Some(tail)) = (at(seg[0]), at(seg[1]), at(seg[2])) else {
            return Err(format!(
                "line {line}: the compact boundary's preserved segment names records not in this \
                 file; they are not counted"
            ));
        };
        let mut seen = HashSet::new();
        let mut cur = Some(tail);
        while let Some(i) = cur {
            let bad = self.nodes[i].boundary || !self.eligible(i) || i == anchor || !seen.insert(i);
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
        let named_by = |r: &Node| {
            r.leaf
                .and_then(|u| self.by_uuid.get(&u).copied())
                .filter(|&i| candidate(i))
        };
        let prompt = (self.nodes.iter().rev())
            .filter(|r| r.kind == Kind::LastPrompt)
            .find_map(named_by);
        if let Some(named) = prompt {
            let mut memo = vec![None; n];
            let below: Vec<bool> = (0..n).map(|i| self.descends(i, named, &mut memo)).collect();
            return last_of(&|i| below[i]).or(Some(named));
        }
        let last = last_of(&|_| true)?;
        let summary = (self.nodes[last + 1..].iter().rev())
            .filter(|r| r.kind == Kind::Summary)
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

    fn expand(&self, chain: Vec<usize>, spliced: bool, thread: &mut Thread) {
        let after = match (spliced, thread.boundary) {
            (false, Some(b)) => b + 1,
            _ => 0,
        };
        let eligible =
            || (self.nodes.iter().enumerate().skip(after)).filter(|&(i, _)| self.eligible(i));
        // Parallel tool results hang from their `tool_use` record by `parentUuid`.
        let children = ById::new(eligible().filter_map(|(i, r)| Some((r.parent?, i))));
        let by_message = ById::new(eligible().filter_map(|(i, r)| Some((r.message_id?, i))));
        let live = &mut thread.live;
        let mut answered: HashSet<Id> = HashSet::new();
        let mut key: Vec<(usize, usize)> = vec![(usize::MAX, usize::MAX); self.nodes.len()];
        for (pos, &i) in chain.iter().enumerate() {
            live[i] = true;
            key[i] = (pos, 0);
            answered.extend(self.nodes[i].results.iter().copied());
        }
        let mut queue = chain;
        while let Some(i) = queue.pop() {
            let r = &self.nodes[i];
            let at = key[i].0;
            let same = r.message_id.map(|id| by_message.all(id));
            let kids = r.uuid.map(|u| children.all(u));
            for &(_, j) in same.into_iter().flatten() {
                if !live[j] {
                    live[j] = true;
                    key[j] = (at, 1 + self.nodes[j].line);
                    queue.push(j);
                }
            }
            for &(_, c) in kids.into_iter().flatten() {
                let ids = &self.nodes[c].results;
                if live[c] || ids.is_empty() || ids.iter().all(|id| answered.contains(id)) {
                    continue;
                }
                answered.extend(ids.iter().copied());
                live[c] = true;
                key[c] = (at, 1 + self.nodes[c].line);
                queue.push(c);
            }
        }
        let mut order: Vec<usize> = (0..self.nodes.len()).filter(|&i| live[i]).collect();
        order.sort_by_key(|&i| key[i]);
        thread.order = order;
    }
}
