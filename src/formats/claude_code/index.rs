//! The index of a Claude Code transcript ([`Index`]): one 2-byte [`Node`] per record, in
//! file order, its ids beside it (`uuid` and `message.id` for the records that have one,
//! `parentUuid` mostly as a bit: about 11 bytes a record, which give way to a 4-byte check
//! of the uuid once the thread is traced, [`Index::forget_ids`]),
//! and what lets a node be that small: its line kept only where blank lines
//! make it other than the previous node's plus one, its offset in about 2 bytes
//! ([`Offsets`]), its length read off the next node's offset, the model it names kept in
//! runs ([`Models`]), and the fields only some records hold kept aside ([`Rare`]). What
//! [`super::indexed`] reads the transcript from.

use super::models::Models;
use super::offsets::Offsets;
use super::parents::{Parents, MAX_RECORDS};
use super::skel::{self, Id, Made, Node, Rare};
use super::sparse::SparseIds;

/// The nodes' ids, beside them (one value an index: the size of its variants does not
/// matter).
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
enum Ids {
    /// While the thread is traced: each node's `uuid` and `message.id` (an assistant
    /// record's), kept for the nodes that have one ([`SparseIds`]: a quarter of a Claude
    /// Code transcript's records have no uuid), and `parentUuid` (the node holding it,
    /// mostly: [`Parents`]).
    Held {
        uuids: SparseIds,
        message_ids: SparseIds,
        parents: Parents,
    },
    /// Once it is: each node's uuid's [`skel::check`], all the re-read of a record
    /// compares. A check per record rather than per live record, so that every record
    /// read again (the snapshot of the request, the record a thread cut short starts at)
    /// is checked by its index alone.
    Checks(Vec<u32>),
}

impl Default for Ids {
    fn default() -> Ids {
        Ids::Held {
            uuids: SparseIds::default(),
            message_ids: SparseIds::default(),
            parents: Parents::default(),
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
}

impl Index {
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
                uuids,
                message_ids,
                parents,
            } => {
                // Each refuses only past as many records as the node index, checked above.
                message_ids.push(message_id)?;
                parents.push(uuid, parent)?;
                uuids.push(uuid)?;
            }
            Ids::Checks(checks) => checks.push(skel::check(uuid)),
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
    fn held(&self) -> (&SparseIds, &SparseIds, &Parents) {
        match &self.ids {
            Ids::Held {
                uuids,
                message_ids,
                parents,
            } => (uuids, message_ids, parents),
            Ids::Checks(_) => panic!("the ids of an index are read after it let them go"),
        }
    }

    /// Node `i`'s `uuid` (see [`Index::held`] for when this panics).
    pub fn uuid(&self, i: usize) -> Option<Id> {
        self.held().0.get(i)
    }

    /// Node `i`'s `message.id`, if it is an assistant record's.
    pub fn message_id(&self, i: usize) -> Option<Id> {
        self.held().1.get(i)
    }

    /// Node `i`'s `parentUuid`.
    pub fn parent(&self, i: usize) -> Option<Id> {
        let (uuids, _, parents) = self.held();
        parents.get(i, |k| uuids.get(k))
    }

    /// Node `i`'s uuid's [`skel::check`], before or after the ids go.
    pub fn check(&self, i: usize) -> u32 {
        match &self.ids {
            Ids::Held { uuids, .. } => skel::check(uuids.get(i)),
            Ids::Checks(checks) => checks[i],
        }
    }

    /// Lets the nodes' ids go (about 11 of the 15 bytes a record the index holds), keeping a
    /// 4-byte check of each uuid, and the [`Rare`] fields only the trace reads (a 2 GB
    /// transcript's answered ids and leaves: 7 MB), for a caller that traces no thread from
    /// this index again: reading the live records needs only the traced thread, and the
    /// checks.
    pub fn forget_ids(&mut self) {
        self.rare = Rare::default();
        let held = std::mem::replace(&mut self.ids, Ids::Checks(Vec::new()));
        if let Ids::Held {
            uuids,
            message_ids,
            parents,
        } = held
        {
            // The rest first, so that only the uuids are held beside the checks made.
            drop((message_ids, parents));
            let checks = (0..self.nodes.len()).map(|i| skel::check(uuids.get(i)));
            self.ids = Ids::Checks(checks.collect());
        }
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
    /// one cut short, so that the nodes are not held twice.
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
                uuids,
                message_ids,
                parents,
            } => {
                uuids.truncate(lo);
                message_ids.truncate(lo);
                parents.truncate(lo);
            }
            Ids::Checks(checks) => checks.truncate(lo),
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
        let mut before = index.before(5);
        assert_eq!(before.nodes.len(), 3);
        assert_eq!(before.parent(2), Some(skel::id("p")));
        assert_eq!(before.uuid(2), Some(skel::id("u")));
        let check = before.check(2);
        assert_eq!(check, skel::check(Some(skel::id("u"))));
        before.forget_ids();
        assert!(matches!(&before.ids, Ids::Checks(c) if c.len() == 3));
        assert_eq!(before.check(2), check, "the same check once the ids go");
        assert_eq!(before.place(2), (34, (1 << 32) + 7 - 34));
        assert_eq!(before.line(2), 4);
    }

    #[test]
    fn the_ids_and_rare_fields_go_and_the_checks_stay() {
        let mut index = Index::default();
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
        let ids = |i| (index.uuid(i), index.parent(i), index.message_id(i));
        assert_eq!(ids(1), (None, None, None));
        assert_eq!(ids(3), (Some(skel::id("u2")), Some(skel::id("a1")), None));
        assert_eq!(index.message_id(2), Some(skel::id("m")));
        assert_eq!(index.rare.answers(), 1);
        let checks: Vec<u32> = (0..4).map(|i| index.check(i)).collect();
        assert_eq!(checks[1], 0);
        index.forget_ids();
        assert_eq!(index.rare.answers(), 0, "only the trace reads them");
        assert_eq!((0..4).map(|i| index.check(i)).collect::<Vec<_>>(), checks);
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
        assert_eq!(
            index.uuid(1),
            Some(skel::id("v")),
            "no id was held for the refused"
        );
        assert_eq!(index.place(0), (0, 11));
        assert_eq!(index.place(1), (11, 10));
    }
}
