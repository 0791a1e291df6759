//! The relinks of Claude Code's preserved segments, made in time linear in the
//! transcript's records.
//!
//! A compaction that keeps a segment (`compactMetadata.preservedSegment`) hangs the
//! segment's head from the anchor and whatever hung from the anchor from the segment's
//! tail. Finding "whatever hung from the anchor" by scanning every record for every
//! boundary is quadratic: a transcript of a million records with a thousand such
//! boundaries took a minute. [`Children`] keeps each record's children under the current
//! links, built once and mended at each relink, so every boundary costs only its own
//! records.

use std::collections::HashMap;

/// The children of each record under the thread's current links (file links, then the
/// relinks made so far).
pub(super) struct Children(HashMap<usize, Vec<usize>>);

impl Children {
    /// The children of the `n` records, each hanging from `parent(i)`.
    pub fn of(n: usize, parent: impl Fn(usize) -> Option<usize>) -> Self {
        let mut of: HashMap<usize, Vec<usize>> = HashMap::new();
        for c in 0..n {
            if let Some(p) = parent(c) {
                of.entry(p).or_default().push(c);
            }
        }
        Self(of)
    }

    /// Relinks one preserved segment into `relink`: `head` (whose parent was
    /// `head_parent`) hangs from `anchor`, and every other record that hung from `anchor`
    /// hangs from `tail`.
    pub fn splice(
        &mut self,
        relink: &mut HashMap<usize, usize>,
        head_parent: Option<usize>,
        (head, anchor, tail): (usize, usize, usize),
    ) {
        let mut after = self.0.remove(&anchor).unwrap_or_default();
        after.retain(|&c| c != head);
        if let Some(old) = head_parent.filter(|&p| p != anchor) {
            if let Some(kids) = self.0.get_mut(&old) {
                kids.retain(|&c| c != head);
            }
        }
        relink.insert(head, anchor);
        self.0.insert(anchor, vec![head]);
        for &c in &after {
            relink.insert(c, tail);
        }
        self.0.entry(tail).or_default().extend(after);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scan it replaces: every record whose current parent is the anchor.
    fn by_scan(
        parents: &[Option<usize>],
        relink: &mut HashMap<usize, usize>,
        (head, anchor, tail): (usize, usize, usize),
    ) {
        let parent =
            |relink: &HashMap<usize, usize>, c: usize| relink.get(&c).copied().or(parents[c]);
        let after: Vec<usize> = (0..parents.len())
            .filter(|&c| c != head && parent(relink, c) == Some(anchor))
            .collect();
        relink.insert(head, anchor);
        for c in after {
            relink.insert(c, tail);
        }
    }

    #[test]
    fn relinks_as_the_scan_does_through_successive_segments() {
        // 0 ← 1 ← 2 ← 3, 2 ← 4, 4 ← 5 ← 6, 1 ← 7 (a side branch), 6 ← 8
        let parents = [
            None,
            Some(0),
            Some(1),
            Some(2),
            Some(2),
            Some(4),
            Some(5),
            Some(1),
            Some(6),
        ];
        let splices = [(3, 1, 5), (8, 5, 6), (6, 3, 8)];
        let mut scanned = HashMap::new();
        let mut kept = HashMap::new();
        let mut children = Children::of(parents.len(), |c| parents[c]);
        for s in splices {
            let head_parent = kept.get(&s.0).copied().or(parents[s.0]);
            by_scan(&parents, &mut scanned, s);
            children.splice(&mut kept, head_parent, s);
            assert_eq!(kept, scanned, "after splice {s:?}");
        }
    }
}
