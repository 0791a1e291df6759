//! Each record's `parentUuid` kept as the record holding that uuid ([`Parents`]), where its
//! 64-bit hash took 8 bytes a record: a record's parent is nearly always one of the few
//! records just before it, so the parent is looked up among the last [`RECENT`] records
//! with a uuid as the record is pushed. Found there, and the latest record with a uuid
//! before it (98% of a Claude Code transcript's records with a parent), it takes a bit;
//! found elsewhere among them, the record's 32-bit index is kept aside; not found (named
//! before it appears, far back, or never in the file), its hash is. The hash comes back as
//! the uuid of the record found, so that what names a parent reads the same id it read
//! before, duplicates and all.

use super::skel::Id;

/// The records with a uuid looked at for a record's parent, the latest first.
const RECENT: usize = 32;
/// How far back the latest record with a uuid may be for a bit to name it as the parent
/// (so that finding it looks at two words of bits at most).
const NEAR: usize = 64;
/// A record whose parent was not among the recent records: its hash is in `far`.
const FAR: u32 = u32::MAX - 1;
/// Records past this many are refused ([`Parents::push`]): their index would be a mark.
pub const MAX_RECORDS: usize = FAR as usize;

/// A bit a record, in words of 64.
#[derive(Debug, Default)]
struct Bits(Vec<u64>);

impl Bits {
    fn get(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }

    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    /// Keeps the first `n` bits (the words holding them, the rest of the last one cleared).
    fn truncate(&mut self, n: usize) {
        self.0.truncate(n.div_ceil(64));
        if let (Some(w), b @ 1..) = (self.0.last_mut(), n % 64) {
            *w &= (1u64 << b) - 1;
        }
    }
}

/// What a record's `parentUuid` names ([`Parents::named`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Named {
    /// A record giving that uuid, found among the recent ones as the record was pushed.
    Record(usize),
    /// Not found among them: the uuid's hash.
    Far(Id),
}

/// Per record (pushed in order), its `parentUuid`.
#[derive(Debug)]
pub struct Parents {
    /// Per record: whether it has a uuid.
    uuid: Bits,
    /// For each word of `uuid`, how many records before it have a uuid: a record's rank
    /// among them, its place in the uuids' spill (docs/design-uuid-spill.md).
    ranked: Vec<u32>,
    /// Per record: whether its parent is the latest record with a uuid before it, at most
    /// [`NEAR`] records back.
    prev: Bits,
    /// The other records with a parent, by record: the index of the record holding its
    /// uuid, or [`FAR`].
    others: Vec<(u32, u32)>,
    /// The [`FAR`] records, with their parent's hash, by record.
    far: Vec<(u32, Id)>,
    /// The latest records with a uuid, with it: a ring, `next` the place of the next one
    /// (boxed, so that the index's ids stay small while they are not held).
    recent: Box<[(u32, Option<Id>); RECENT]>,
    next: usize,
    len: usize,
}

impl Default for Parents {
    fn default() -> Parents {
        Parents {
            uuid: Bits::default(),
            ranked: Vec::new(),
            prev: Bits::default(),
            others: Vec::new(),
            far: Vec::new(),
            recent: Box::new([(0, None); RECENT]),
            next: 0,
            len: 0,
        }
    }
}

impl Parents {
    /// Adds the next record, with its `uuid` and `parent`; `None` (nothing added) past
    /// [`MAX_RECORDS`].
    pub fn push(&mut self, uuid: Option<Id>, parent: Option<Id>) -> Option<()> {
        let i = u32::try_from(self.len)
            .ok()
            .filter(|&i| (i as usize) < MAX_RECORDS)?;
        let before = self.before(self.len);
        if self.len.is_multiple_of(64) {
            let ranked = self.ranked.last().copied().unwrap_or(0)
                + self.uuid.0.last().map_or(0, |w| w.count_ones());
            self.uuid.0.push(0);
            self.ranked.push(ranked);
            self.prev.0.push(0);
        }
        // A record named its own parent is its own parent, as a lookup by uuid finds it.
        if uuid.is_some() {
            self.uuid.set(self.len);
            self.recent[self.next % RECENT] = (i, uuid);
            self.next += 1;
        }
        if let Some(p) = parent {
            match self.recent_of(p) {
                Some(k) if Some(k as usize) == before => self.prev.set(self.len),
                Some(k) => self.others.push((i, k)),
                None => {
                    self.far.push((i, p));
                    self.others.push((i, FAR));
                }
            }
        }
        self.len += 1;
        Some(())
    }

    /// The latest record before record `i` that has a uuid, if one is at most [`NEAR`]
    /// records back.
    fn before(&self, i: usize) -> Option<usize> {
        let lo = i.saturating_sub(NEAR);
        let mut to = i;
        while to > lo {
            let (w, b) = ((to - 1) / 64, (to - 1) % 64);
            let word = self.uuid.0[w] & (u64::MAX >> (63 - b));
            if word != 0 {
                let k = w * 64 + 63 - word.leading_zeros() as usize;
                return (k >= lo).then_some(k);
            }
            to = w * 64;
        }
        None
    }

    /// The latest recent record whose uuid is `p`.
    fn recent_of(&self, p: Id) -> Option<u32> {
        let held = self.next.min(RECENT);
        (1..=held)
            .map(|back| self.recent[(self.next - back) % RECENT])
            .find(|&(_, u)| u == Some(p))
            .map(|(k, _)| k)
    }

    /// Record `i`'s `parentUuid`, `uuid` giving the uuid of a record: what the tests hold
    /// [`Parents::named`] to (the index reads no uuid back).
    ///
    /// # Panics
    /// When `i` is not a record held.
    #[cfg(test)]
    pub fn get(&self, i: usize, uuid: impl Fn(usize) -> Option<Id>) -> Option<Id> {
        match self.named(i)? {
            Named::Record(k) => uuid(k),
            Named::Far(p) => Some(p),
        }
    }

    /// What record `i`'s `parentUuid` names, without reading any uuid: a record giving
    /// it (not always the last one, where a uuid is given twice), or only its hash. What
    /// a trace that holds no uuid resolves (docs/design-uuid-spill.md).
    ///
    /// # Panics
    /// When `i` is not a record held.
    pub fn named(&self, i: usize) -> Option<Named> {
        assert!(i < self.len, "record {i} of {}", self.len);
        if self.prev.get(i) {
            return self.before(i).map(Named::Record);
        }
        let k = self.others.partition_point(|&(n, _)| (n as usize) < i);
        match *self.others.get(k).filter(|&&(n, _)| n as usize == i)? {
            (_, FAR) => {
                let k = self.far.partition_point(|&(n, _)| (n as usize) < i);
                self.far.get(k).map(|&(_, p)| Named::Far(p))
            }
            (_, k) => Some(Named::Record(k as usize)),
        }
    }

    /// Record `i`'s rank among the records with a uuid, if it has one.
    ///
    /// # Panics
    /// When `i` is not a record held.
    pub fn rank(&self, i: usize) -> Option<usize> {
        assert!(i < self.len, "record {i} of {}", self.len);
        let (w, b) = (i / 64, i % 64);
        let word = self.uuid.0[w];
        let below = (word & ((1u64 << b) - 1)).count_ones() as usize;
        (word >> b & 1 == 1).then(|| self.ranked[w] as usize + below)
    }

    /// How many records have a uuid.
    pub fn ranks(&self) -> usize {
        (self.ranked.last().copied()).map_or(0, |r| r as usize)
            + self.uuid.0.last().map_or(0, |w| w.count_ones() as usize)
    }

    /// The record of rank `r` among the records with a uuid.
    ///
    /// # Panics
    /// When fewer than `r + 1` records have one.
    pub fn record(&self, r: usize) -> usize {
        assert!(r < self.ranks(), "rank {r} of {}", self.ranks());
        // The last word with fewer records with a uuid before it than `r + 1`.
        let w = self.ranked.partition_point(|&k| k as usize <= r) - 1;
        let mut word = self.uuid.0[w];
        for _ in 0..r - self.ranked[w] as usize {
            word &= word - 1;
        }
        w * 64 + word.trailing_zeros() as usize
    }

    /// The hashes of the parents not found among the recent records (what a trace looks
    /// up by uuid: [`super::uuid_spill::resolve`]).
    pub fn far(&self) -> impl Iterator<Item = Id> + '_ {
        self.far.iter().map(|&(_, p)| p)
    }

    /// Forgets records `n` and on.
    pub fn truncate(&mut self, n: usize) {
        if n >= self.len {
            return;
        }
        self.len = n;
        self.uuid.truncate(n);
        self.ranked.truncate(self.uuid.0.len());
        self.prev.truncate(n);
        (self.others).truncate(self.others.partition_point(|&(k, _)| (k as usize) < n));
        (self.far).truncate(self.far.partition_point(|&(k, _)| (k as usize) < n));
        // A record pushed after must not find its parent among the records let go.
        for r in self.recent.iter_mut() {
            if r.0 as usize >= n {
                *r = (0, None);
            }
        }
    }

    /// How many parents are kept aside by their hash, and by their record's index.
    #[cfg(test)]
    fn aside(&self) -> (usize, usize) {
        (self.far.len(), self.others.len() - self.far.len())
    }
}

#[cfg(test)]
#[path = "parents_tests.rs"]
mod tests;
