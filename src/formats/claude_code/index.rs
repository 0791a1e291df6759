//! The index of a Claude Code transcript ([`Index`]): one 2-byte [`Node`] per record, in
//! file order, its ids beside it (`message.id` for the records that have one, `parentUuid`
//! mostly as a bit, the uuids' hashes in a temp file, [`UuidSpill`], read again only to
//! answer what the trace looks up by uuid, [`Index::resolve`], and to check the records
//! read again once the thread is traced, [`Index::forget_ids`]),
//! and what lets a node be that small: its line kept only where blank lines
//! make it other than the previous node's plus one, its offset in about 2 bytes
//! ([`Offsets`]), its length read off the next node's offset, the model it names kept in
//! runs ([`Models`]), and the fields only some records hold kept aside ([`Rare`]). What
//! [`super::indexed`] reads the transcript from.

use std::fs::File;

use super::models::Models;
use super::offsets::Offsets;
use super::parents::{Named, Parents, MAX_RECORDS};
use super::skel::{self, Id, Made, Node, Rare};
use super::sparse::SparseIds;
use super::uuid_spill::{self, Resolved, UuidSpill};

/// The nodes' ids, beside them (one value an index: the size of its variants does not
/// matter).
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
enum Ids {
    /// While the thread is traced: each node's `uuid` (in the spill, by rank among the
    /// nodes with one: a quarter of a Claude Code transcript's records have none) and
    /// `message.id` (an assistant record's, [`SparseIds`]), `parentUuid` (the node
    /// holding it, mostly: [`Parents`]), and once [`Index::resolve`]d, the answers to
    /// what the trace looks up by uuid.
    Held {
        spill: UuidSpill,
        message_ids: SparseIds,
        parents: Parents,
        resolved: Option<Resolved>,
    },
    /// Once it is: the spill and the nodes' ranks in it (in [`Parents`], ~1 MB at 2 GB),
    /// all the re-read of a record compares ([`Index::checks`]: the uuid's
    /// [`skel::check`], read from the spill a batch at a time). Every node can be checked
    /// by its index alone, live or not (the snapshot of the request, the record a thread
    /// cut short starts at), with no 4-byte check a node in memory.
    Traced { spill: UuidSpill, parents: Parents },
}

/// Ranks at most between two read in one read of the spill ([`Index::checks`]): a batch
/// of the thread is nearly in file order, so that its hashes are read a run at a time.
const GAP: usize = 16;

impl Default for Ids {
    fn default() -> Ids {
        Ids::Held {
            spill: UuidSpill::default(),
            message_ids: SparseIds::default(),
            parents: Parents::default(),
            resolved: None,
        }
    }
}

/// A transcript's records, indexed.
#[derive(Debug, Default)]
pub struct Index {
    /// Every record, in file order (blank lines and a truncated last line left out).
    pub nodes: Vec<Node>,
    /// The nodes' ids: only tracing the thread reads them, so that they can go before the
    /// records are read ([`Index::forget_ids`]).
    ids: Ids,
    /// What few nodes hold beyond their [`Node`].
    pub rare: Rare,
    /// The nodes whose line is not the one after the previous node's (blank lines
    /// between), with their line, in order.
    gaps: Vec<(u32, u32)>,
    /// Where each node's text starts in the file.
    offsets: Offsets,
    /// Where the last node's text ends.
    end: u64,
    /// The models the nodes name (those whose [`Node::named`]).
    pub models: Models,
    /// The file's own warnings: lone surrogates read as U+FFFD, a truncated last line.
    pub file_warnings: Vec<String>,
    /// The agent's version, as the latest record naming one gives it.
    pub version: Option<crate::session::AgentVersion>,
    /// Hashes a resolution pass sorts at most (`None`: [`uuid_spill::SLICE`]); a test
    /// makes it small to force many passes.
    slice: Option<usize>,
}

impl Index {
    /// An empty index keeping the uuids in `file` (an unnamed temp file; `None`: in
    /// memory), resolving them `slice` at a time (`None`: the default).
    pub fn spilling(file: Option<File>, slice: Option<usize>) -> Index {
        Index {
            ids: Ids::Held {
                spill: UuidSpill::new(file),
                message_ids: SparseIds::default(),
                parents: Parents::default(),
                resolved: None,
            },
            slice,
            ..Index::default()
        }
    }

    /// Adds the node the skeleton `made` of the next record; `None` (nothing added) past
    /// [`MAX_RECORDS`] records or 2^32 lines, or for a record that starts before the
    /// previous one ends (records come in file order).
    pub fn push(&mut self, made: Made) -> Option<()> {
        let Made {
            node,
            uuid,
            message_id,
            parent,
            line,
            at,
            len,
            extra,
            model,
            version,
        } = made;
        // What can refuse the node comes first, so that a refusal leaves nothing half added.
        let i = u32::try_from(self.nodes.len())
            .ok()
            .filter(|&i| (i as usize) < MAX_RECORDS)?;
        if at < self.end {
            return None;
        }
        let next = self
            .nodes
            .len()
            .checked_sub(1)
            .map_or(0, |p| self.line(p) + 1);
        let gap = match line != next {
            true => Some((i, u32::try_from(line).ok()?)),
            false => None,
        };
        match &mut self.ids {
            Ids::Held {
                spill,
                message_ids,
                parents,
                ..
            } => {
                // Each refuses only past as many records as the node index, checked above;
                // the spill, which cannot, last: a node refused wrote no uuid.
                message_ids.push(message_id)?;
                parents.push(uuid, parent)?;
                if let Some(u) = uuid {
                    spill.push(u);
                }
            }
            Ids::Traced { spill, parents } => {
                parents.push(uuid, parent)?;
                if let Some(u) = uuid {
                    spill.push(u);
                }
            }
        }
        self.gaps.extend(gap);
        if let Some(model) = model {
            self.models.push(i, model);
        }
        // The latest record naming a version wins, as the whole reader has it.
        if let Some(v) = version {
            self.version = v;
        }
        // Refuses only an offset before the last, checked above.
        self.offsets.push(at)?;
        self.end = at + u64::from(len);
        self.rare.push(i, extra);
        self.nodes.push(node);
        Some(())
    }

    /// The ids of the nodes, while they are held.
    ///
    /// # Panics
    /// Once [`Index::forget_ids`] let them go: a thread is never traced without them.
    fn held(&self) -> (&UuidSpill, &SparseIds, &Parents) {
        match &self.ids {
            Ids::Held {
                spill,
                message_ids,
                parents,
                ..
            } => (spill, message_ids, parents),
            Ids::Traced { .. } => panic!("the ids of an index are read after it let them go"),
        }
    }

    /// What the trace looks up by uuid, answered (see [`Index::held`] for when this
    /// panics; also before [`Index::resolve`]).
    fn resolved(&self) -> (&Parents, &Resolved) {
        match &self.ids {
            Ids::Held {
                parents,
                resolved: Some(r),
                ..
            } => (parents, r),
            _ => panic!("an index is traced before its uuids are resolved"),
        }
    }

    /// Reads the uuids' spill again to answer what the trace looks up by uuid: the
    /// parents not found among the records just before theirs, the `leafUuid`s, the
    /// preserved segments' ends, and the uuids given twice. `None` when the spill cannot
    /// be read (the caller leaves the file to the whole reader).
    ///
    /// # Panics
    /// Once [`Index::forget_ids`] let the ids go.
    pub fn resolve(&mut self) -> Option<()> {
        let slice = self.slice.unwrap_or(uuid_spill::SLICE);
        let Ids::Held {
            spill,
            parents,
            resolved,
            ..
        } = &mut self.ids
        else {
            panic!("the ids of an index are resolved after it let them go");
        };
        spill.finish().ok()?;
        // A cut index ([`Index::before`]) keeps the whole spill: its ranks bound it.
        debug_assert!(spill.len() >= parents.ranks());
        let mut asked: Vec<Id> = parents.far().chain(self.rare.named()).collect();
        asked.sort_unstable();
        asked.dedup();
        *resolved = Some(uuid_spill::resolve(spill, parents.ranks(), &asked, slice).ok()?);
        Some(())
    }

    /// Whether node `i` has a `uuid`.
    pub fn has_uuid(&self, i: usize) -> bool {
        self.held().2.rank(i).is_some()
    }

    /// The last node giving node `i`'s uuid (a uuid given twice names its last record),
    /// `i` itself when it has none or gives it last.
    pub fn last(&self, i: usize) -> usize {
        let (parents, resolved) = self.resolved();
        let Some(rank) = parents.rank(i) else {
            return i;
        };
        match resolved.last(rank) {
            r if r == rank => i,
            r => parents.record(r),
        }
    }

    /// The last node giving the uuid `id`, if one does and the trace asked for it (a
    /// `leafUuid`, a preserved segment's end: [`Index::resolve`]).
    pub fn last_of(&self, id: Id) -> Option<usize> {
        let (parents, resolved) = self.resolved();
        resolved.last_of(id).map(|r| parents.record(r))
    }

    /// The node node `i`'s `parentUuid` names (the last giving it), if it is in the file.
    pub fn parent_record(&self, i: usize) -> Option<usize> {
        match self.held().2.named(i)? {
            Named::Record(k) => Some(self.last(k)),
            Named::Far(id) => self.last_of(id),
        }
    }

    /// Whether node `i` has a `parentUuid`, in the file or not.
    pub fn names_parent(&self, i: usize) -> bool {
        self.held().2.named(i).is_some()
    }

    /// Node `i`'s `message.id`, if it is an assistant record's.
    pub fn message_id(&self, i: usize) -> Option<Id> {
        self.held().1.get(i)
    }

    /// The [`skel::check`] of the uuid of each of `nodes`, before or after the ids go:
    /// read from the spill, the ranks close together ([`GAP`]) a run at a time. `None`
    /// when the spill cannot be read (after [`Index::resolve`], which writes it out).
    pub fn checks(&self, nodes: &[usize]) -> Option<Vec<u32>> {
        let (spill, parents) = match &self.ids {
            Ids::Held { spill, parents, .. } | Ids::Traced { spill, parents } => (spill, parents),
        };
        let ranks: Vec<Option<usize>> = nodes.iter().map(|&i| parents.rank(i)).collect();
        let mut sorted: Vec<usize> = ranks.iter().flatten().copied().collect();
        sorted.sort_unstable();
        sorted.dedup();
        let (mut read, mut run_of) = (Vec::with_capacity(sorted.len()), Vec::new());
        for run in sorted.chunk_by(|a, b| b - a <= GAP) {
            let from = run[0];
            run_of.resize(run[run.len() - 1] + 1 - from, 0);
            spill.read(from, &mut run_of).ok()?;
            read.extend(run.iter().map(|&r| run_of[r - from]));
        }
        let hash = |r: usize| read[sorted.binary_search(&r).expect("a rank read")];
        let check = |r: &Option<usize>| skel::check(r.and_then(|r| Id::new(hash(r))));
        Some(ranks.iter().map(check).collect())
    }

    /// Lets the nodes' ids go but for the uuids' spill and the nodes' ranks in it (the
    /// `message.id`s, the resolution), and the [`Rare`] fields only the trace reads (a
    /// 2 GB transcript's answered ids and leaves: 7 MB), for a caller that traces no
    /// thread from this index again: reading the live records needs only the traced
    /// thread, and the checks ([`Index::checks`]).
    pub fn forget_ids(&mut self) {
        self.rare = Rare::default();
        let ids = std::mem::take(&mut self.ids);
        self.ids = match ids {
            Ids::Held { spill, parents, .. } | Ids::Traced { spill, parents } => {
                Ids::Traced { spill, parents }
            }
        };
    }

    /// Node `i`'s line (0-based, blank lines counted).
    pub fn line(&self, i: usize) -> usize {
        let k = self.gaps.partition_point(|&(n, _)| n as usize <= i);
        match k.checked_sub(1) {
            Some(k) => self.gaps[k].1 as usize + (i - self.gaps[k].0 as usize),
            None => i,
        }
    }

    /// Where node `i`'s text is in the file, and its length, up to the next node's (the
    /// end of its line and the blank lines after it, which a JSON parser skips).
    pub fn place(&self, i: usize) -> (u64, u64) {
        let at = self.offsets.get(i);
        let len = match i + 1 < self.nodes.len() {
            true => self.offsets.step(i),
            false => self.end - at,
        };
        (at, len)
    }

    /// The index of the file up to line `line` (the records before it), as the whole
    /// reader reads that part of the file on its own ([`super::before_compaction`]): this
    /// one cut short, so that the nodes are not held twice; to be [`Index::resolve`]d
    /// again before it is traced.
    pub fn before(mut self, line: usize) -> Index {
        let (mut lo, mut hi) = (0, self.nodes.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.line(mid) < line {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if lo < self.nodes.len() {
            self.end = self.offsets.get(lo);
        }
        (self.gaps).truncate(self.gaps.partition_point(|&(k, _)| (k as usize) < lo));
        self.offsets.truncate(lo);
        self.models.truncate(lo);
        self.nodes.truncate(lo);
        match &mut self.ids {
            Ids::Held {
                message_ids,
                parents,
                resolved,
                ..
            } => {
                // The spill stays whole: the ranks of the nodes kept bound it, and its
                // resolution is made again over them (a uuid given again past the cut
                // does not count).
                message_ids.truncate(lo);
                parents.truncate(lo);
                *resolved = None;
            }
            Ids::Traced { parents, .. } => parents.truncate(lo),
        }
        self.rare.truncate(lo);
        self.file_warnings.clear();
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::claude_code::skel;

    fn made(line: usize, at: u64, len: u32) -> Made {
        let mut m =
            skel::node(r#"{"type":"user","uuid":"u","parentUuid":"p"}"#, 0, 0).expect("a node");
        (m.line, m.at, m.len) = (line, at, len);
        m
    }

    #[test]
    fn lines_and_places_come_back_across_blank_lines_and_4_gib() {
        let mut index = Index::default();
        // Lines 0, 1, then 4 (blank lines between), then 5 past 4 GiB and 6 past 12 GiB.
        let records = [
            (0, 0, 9),
            (1, 10, 20),
            (4, 34, 5),
            (5, (1 << 32) + 7, 3),
            (6, (3 << 32) + 1, 8),
        ];
        for &(line, at, len) in &records {
            index.push(made(line, at, len)).expect("pushed");
        }
        let lines: Vec<usize> = (0..5).map(|i| index.line(i)).collect();
        assert_eq!(lines, [0, 1, 4, 5, 6]);
        // A node's text runs to the next node's, blank lines included, the last to its end.
        let places: Vec<(u64, u64)> = (0..5).map(|i| index.place(i)).collect();
        assert_eq!(
            places,
            [
                (0, 10),
                (10, 24),
                (34, (1 << 32) + 7 - 34),
                ((1 << 32) + 7, (2 << 32) - 6),
                ((3 << 32) + 1, 8)
            ]
        );
        // Every record gives the uuid "u": the last of the file, then of the cut.
        index.resolve().expect("resolved");
        assert_eq!(index.last(0), 4);
        let mut before = index.before(5);
        assert_eq!(before.nodes.len(), 3);
        before.resolve().expect("resolved again");
        assert!(before.names_parent(2));
        assert_eq!(before.parent_record(2), None, "\"p\" is not in the file");
        assert!(before.has_uuid(2));
        assert_eq!((before.last(0), before.last_of(skel::id("u"))), (2, None));
        let check = before.checks(&[2]);
        assert_eq!(check, Some(vec![skel::check(Some(skel::id("u")))]));
        before.forget_ids();
        assert!(matches!(&before.ids, Ids::Traced { .. }));
        assert_eq!(before.checks(&[2]), check, "the same check once the ids go");
        assert_eq!(before.place(2), (34, (1 << 32) + 7 - 34));
        assert_eq!(before.line(2), 4);
    }

    #[test]
    fn checks_are_read_out_of_order_across_runs_and_the_edges() {
        for file in [false, true] {
            let spill = file.then(|| tempfile::tempfile().expect("a temp file"));
            let mut index = Index::spilling(spill, None);
            // Every third record has no uuid.
            let text = |i: usize| match i % 3 {
                0 => r#"{"type":"queue-operation"}"#.to_string(),
                _ => format!(r#"{{"type":"user","uuid":"u{i}"}}"#),
            };
            for i in 0..200 {
                // Apart by more than a record's length: a record never starts before the
                // one before it ends.
                let made = skel::node(&text(i), i, 40 * i as u64).expect("a node");
                index.push(made).expect("pushed");
            }
            index.resolve().expect("resolved");
            let want =
                |i: &usize| skel::check((!i.is_multiple_of(3)).then(|| skel::id(&format!("u{i}"))));
            // Out of order, far apart and near, the first and last, one twice.
            let nodes = [199, 0, 1, 2, 150, 100, 101, 60, 199, 5, 198, 130];
            let checks = Some(nodes.iter().map(want).collect::<Vec<_>>());
            assert_eq!(index.checks(&nodes), checks);
            let all: Vec<usize> = (0..200).collect();
            assert_eq!(index.checks(&all), Some(all.iter().map(want).collect()));
            assert_eq!(index.checks(&[]), Some(Vec::new()));
            index.forget_ids();
            assert_eq!(index.checks(&nodes), checks, "the same once the ids go");
        }
    }

    #[test]
    fn the_ids_and_rare_fields_go_and_the_checks_stay() {
        for file in [false, true] {
            let spill = file.then(|| tempfile::tempfile().expect("a temp file"));
            ids_go_and_checks_stay(Index::spilling(spill, Some(1)));
        }
    }

    fn ids_go_and_checks_stay(mut index: Index) {
        let texts = [
            r#"{"type":"user","uuid":"u1","message":{"content":"hi"}}"#,
            r#"{"type":"queue-operation"}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m"}}"#,
            r#"{"type":"user","uuid":"u2","parentUuid":"a1","message":{"content":[{"type":"tool_result","tool_use_id":"t"}]}}"#,
        ];
        for (i, t) in texts.iter().enumerate() {
            index
                .push(skel::node(t, i, 200 * i as u64).expect("a node"))
                .expect("pushed");
        }
        index.resolve().expect("resolved");
        let ids = |i| {
            (
                index.has_uuid(i),
                index.parent_record(i),
                index.message_id(i),
            )
        };
        assert_eq!(ids(1), (false, None, None));
        assert_eq!(ids(3), (true, Some(2), None));
        assert_eq!(index.message_id(2), Some(skel::id("m")));
        assert_eq!(index.rare.answers(), 1);
        let checks = index.checks(&[0, 1, 2, 3]).expect("read");
        assert_eq!(checks[1], 0);
        assert_eq!(checks[3], skel::check(Some(skel::id("u2"))));
        index.forget_ids();
        assert_eq!(index.rare.answers(), 0, "only the trace reads them");
        assert_eq!(index.checks(&[0, 1, 2, 3]), Some(checks));
    }

    #[test]
    fn the_models_named_come_back_by_node_and_cut_short() {
        let mut index = Index::default();
        let said = |m: &str| {
            format!(r#"{{"type":"assistant","uuid":"a","message":{{"id":"m","model":"{m}"}}}}"#)
        };
        let texts = [
            said("claude-a"),
            r#"{"type":"user","uuid":"u"}"#.to_string(),
            said("<synthetic>"),
            said("claude-a"),
            said("claude-b"),
            said("claude-a"),
        ];
        for (i, t) in texts.iter().enumerate() {
            index
                .push(skel::node(t, i, 100 * i as u64).expect("a node"))
                .expect("pushed");
        }
        let named: Vec<Option<&str>> = (0..6)
            .map(|i| index.nodes[i].named().then(|| index.models.of(i)).flatten())
            .collect();
        let want = [Some("claude-a"), None, None, Some("claude-a")];
        assert_eq!(named[..4], want);
        assert_eq!(named[4..], [Some("claude-b"), Some("claude-a")]);
        let before = index.before(5);
        assert_eq!(before.models.of(4), Some("claude-b"));
        assert_eq!(before.models.of(9), Some("claude-b"), "the last run is cut");
    }

    #[test]
    fn a_record_starting_before_the_last_ends_is_refused_whole() {
        let mut index = Index::default();
        index.push(made(0, 0, 10)).expect("pushed");
        assert_eq!(index.push(made(1, 9, 10)), None);
        assert_eq!(index.nodes.len(), 1);
        let mut next = skel::node(r#"{"type":"user","uuid":"v"}"#, 1, 11).expect("a node");
        next.len = 10;
        index.push(next).expect("pushed");
        // The refused record (uuid `u` too) spilled no hash: the next one's is the second.
        let u = skel::check(Some(skel::id("u")));
        let v = skel::check(Some(skel::id("v")));
        assert_eq!(index.checks(&[0, 1]), Some(vec![u, v]));
        assert_eq!(index.place(0), (0, 11));
        assert_eq!(index.place(1), (11, 10));
    }
}
