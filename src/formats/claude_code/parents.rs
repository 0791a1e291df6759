//! Each record's `parentUuid` kept as the 32-bit index of a record holding that uuid
//! ([`Parents`]), where its 64-bit hash took 8 bytes a record: a record's parent is
//! nearly always one of the few records just before it, so the parent is looked up among
//! the last [`RECENT`] records with a uuid as the record is pushed, and only a parent not
//! found there (named before it appears, far back, or never in the file) keeps its hash,
//! aside. The hash comes back as the uuid of the record found, so that what names a
//! parent reads the same id it read before, duplicates and all.

use super::skel::Id;

/// The records with a uuid looked at for a record's parent, the latest first.
const RECENT: usize = 32;
/// A record without a `parentUuid`.
const NONE: u32 = u32::MAX;
/// A record whose parent was not among the recent records: its hash is in `far`.
const FAR: u32 = u32::MAX - 1;
/// Records past this many are refused ([`Parents::push`]): their index would be a mark.
pub const MAX_RECORDS: usize = FAR as usize;

/// Per record (pushed in order), its `parentUuid`.
#[derive(Debug)]
pub struct Parents {
    /// Per record: the index of a record whose uuid is its parent, or [`NONE`], or [`FAR`].
    at: Vec<u32>,
    /// The [`FAR`] records, with their parent's hash, by record.
    far: Vec<(u32, Id)>,
    /// The latest records with a uuid, with it: a ring, `next` the place of the next one
    /// (boxed, so that the index's ids stay small while they are not held).
    recent: Box<[(u32, Option<Id>); RECENT]>,
    next: usize,
}

impl Default for Parents {
    fn default() -> Parents {
        Parents {
            at: Vec::new(),
            far: Vec::new(),
            recent: Box::new([(0, None); RECENT]),
            next: 0,
        }
    }
}

impl Parents {
    /// Adds the next record, with its `uuid` and `parent`; `None` (nothing added) past
    /// [`MAX_RECORDS`].
    pub fn push(&mut self, uuid: Option<Id>, parent: Option<Id>) -> Option<()> {
        let i = u32::try_from(self.at.len())
            .ok()
            .filter(|&i| (i as usize) < MAX_RECORDS)?;
        // A record named its own parent is its own parent, as a lookup by uuid finds it.
        if uuid.is_some() {
            self.recent[self.next % RECENT] = (i, uuid);
            self.next += 1;
        }
        let at = match parent {
            None => NONE,
            Some(p) => match self.recent_of(p) {
                Some(k) => k,
                None => {
                    self.far.push((i, p));
                    FAR
                }
            },
        };
        self.at.push(at);
        Some(())
    }

    /// The latest recent record whose uuid is `p`.
    fn recent_of(&self, p: Id) -> Option<u32> {
        let held = self.next.min(RECENT);
        (1..=held)
            .map(|back| self.recent[(self.next - back) % RECENT])
            .find(|&(_, u)| u == Some(p))
            .map(|(k, _)| k)
    }

    /// Record `i`'s `parentUuid`, `uuid` giving the uuid of a record.
    pub fn get(&self, i: usize, uuid: impl Fn(usize) -> Option<Id>) -> Option<Id> {
        match self.at[i] {
            NONE => None,
            FAR => {
                let k = self.far.partition_point(|&(n, _)| (n as usize) < i);
                self.far.get(k).map(|&(_, p)| p)
            }
            k => uuid(k as usize),
        }
    }

    /// Forgets records `n` and on.
    pub fn truncate(&mut self, n: usize) {
        if n >= self.at.len() {
            return;
        }
        self.at.truncate(n);
        (self.far).truncate(self.far.partition_point(|&(k, _)| (k as usize) < n));
        // A record pushed after must not find its parent among the records let go.
        for r in self.recent.iter_mut() {
            if r.0 as usize >= n {
                *r = (0, None);
            }
        }
    }

    /// How many parents are kept aside by their hash.
    #[cfg(test)]
    fn far(&self) -> usize {
        self.far.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::claude_code::skel::id;

    /// Pushes `records` ((uuid, parent) by name) and checks each parent comes back.
    fn pushed(records: &[(Option<&str>, Option<&str>)]) -> Parents {
        let mut p = Parents::default();
        for &(u, parent) in records {
            p.push(u.map(id), parent.map(id)).expect("pushed");
        }
        let uuid = |k: usize| records[k].0.map(id);
        for (i, &(_, parent)) in records.iter().enumerate() {
            assert_eq!(p.get(i, uuid), parent.map(id), "record {i}");
        }
        p
    }

    #[test]
    fn a_chain_keeps_no_hash_aside() {
        let names: Vec<String> = (0..100).map(|i| format!("u{i}")).collect();
        let records: Vec<_> = (0..100)
            .map(|i| (Some(&*names[i]), i.checked_sub(1).map(|p| &*names[p])))
            .collect();
        assert_eq!(pushed(&records).far(), 0);
    }

    #[test]
    fn branches_records_without_uuid_and_a_self_parent_are_found_near() {
        let records = [
            (Some("a"), None),
            (Some("b"), Some("a")),
            (None, Some("b")),
            // A branch: two children of b, then one of the first.
            (Some("c"), Some("b")),
            (Some("d"), Some("b")),
            (Some("e"), Some("c")),
            (Some("f"), Some("f")),
        ];
        assert_eq!(pushed(&records).far(), 0);
    }

    #[test]
    fn a_parent_named_before_it_appears_far_back_or_never_is_kept_aside() {
        let mut records = vec![
            (Some("root"), None),
            // Named before it appears (a compaction's logical parent written later).
            (Some("early"), Some("late")),
            (Some("late"), None),
            (Some("orphan"), Some("never-seen")),
        ];
        let filler: Vec<String> = (0..2 * RECENT).map(|i| format!("x{i}")).collect();
        records.extend(filler.iter().map(|x| (Some(x.as_str()), None)));
        records.push((Some("tail"), Some("root")));
        let p = pushed(&records);
        assert_eq!(p.far(), 3);
    }

    #[test]
    fn a_uuid_given_twice_gives_back_the_same_hash() {
        // The parent is found at the later of the two, whose uuid is the same.
        let records = [(Some("a"), None), (Some("a"), None), (Some("b"), Some("a"))];
        let p = pushed(&records);
        assert_eq!(p.at[2], 1);
    }

    #[test]
    fn truncated_it_keeps_the_parents_before_the_cut() {
        let records = [
            (Some("a"), Some("z")),
            (Some("b"), Some("a")),
            (Some("c"), Some("y")),
            (Some("d"), Some("c")),
        ];
        let mut p = pushed(&records);
        p.truncate(2);
        assert_eq!(p.at.len(), 2);
        assert_eq!(p.far(), 1);
        let uuid = |k: usize| records[k].0.map(id);
        assert_eq!(p.get(0, uuid), Some(id("z")));
        assert_eq!(p.get(1, uuid), Some(id("a")));
        // Pushed again, a parent before the cut is found near, one after it is not.
        p.push(Some(id("e")), Some(id("b"))).unwrap();
        assert_eq!((p.at[2], p.far()), (1, 1));
        p.push(Some(id("f")), Some(id("d"))).unwrap();
        assert_eq!(p.far(), 2);
    }
}
