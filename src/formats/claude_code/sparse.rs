//! An id that only some records have (an assistant record's `message.id`: about half a
//! transcript's records; a `uuid`: about three in four), kept for those records only
//! ([`SparseIds`]): a bit a record
//! says whether it has one, and the ids are found by counting the bits before it, where
//! an `Option` per record would take 8 bytes for every record that has none.

use super::skel::Id;

/// Per record (pushed in order), an optional id: 8 bytes a record that has one, and 0.19
/// a record besides.
#[derive(Debug, Default)]
pub struct SparseIds {
    /// A bit per record: whether it has an id.
    has: Vec<u64>,
    /// For each 64 records, how many records before them have an id.
    before: Vec<u32>,
    /// The ids, in record order.
    ids: Vec<Id>,
    len: usize,
}

impl SparseIds {
    /// Adds the next record's id; `None` (nothing added) past 2^32 ids.
    pub fn push(&mut self, id: Option<Id>) -> Option<()> {
        let (k, b) = (self.len / 64, self.len % 64);
        // Counted before anything is pushed, so that a refusal leaves the words whole.
        let before = u32::try_from(self.ids.len()).ok()?;
        if b == 0 {
            self.has.push(0);
            self.before.push(before);
        }
        if let Some(id) = id {
            self.has[k] |= 1 << b;
            self.ids.push(id);
        }
        self.len += 1;
        Some(())
    }

    /// Record `i`'s id.
    ///
    /// # Panics
    /// When `i` is not a record held.
    pub fn get(&self, i: usize) -> Option<Id> {
        assert!(i < self.len, "record {i} of {}", self.len);
        let (k, b) = (i / 64, i % 64);
        let word = self.has[k];
        let below = (word & ((1u64 << b) - 1)).count_ones() as usize;
        (word >> b & 1 == 1).then(|| self.ids[self.before[k] as usize + below])
    }

    /// Forgets records `n` and on.
    pub fn truncate(&mut self, n: usize) {
        if n >= self.len {
            return;
        }
        let blocks = n.div_ceil(64);
        self.has.truncate(blocks);
        self.before.truncate(blocks);
        if let (Some(w), b @ 1..) = (self.has.last_mut(), n % 64) {
            *w &= (1u64 << b) - 1;
        }
        let kept = match (self.before.last(), self.has.last()) {
            (Some(&before), Some(w)) => before as usize + w.count_ones() as usize,
            _ => 0,
        };
        self.ids.truncate(kept);
        self.len = n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::claude_code::skel::id;

    fn dense(n: usize) -> Vec<Option<Id>> {
        (0..n)
            .map(|i| (i % 3 == 0 || i % 7 == 1).then(|| id(&format!("m{}", i / 2))))
            .collect()
    }

    #[test]
    fn gives_back_each_records_id_across_words_and_after_a_cut() {
        let all = dense(300);
        let mut s = SparseIds::default();
        for &x in &all {
            s.push(x).expect("pushed");
        }
        assert_eq!(s.len, 300);
        let got: Vec<_> = (0..300).map(|i| s.get(i)).collect();
        assert_eq!(got, all);
        for n in [299, 257, 256, 200, 130, 128, 64, 63, 1, 0] {
            s.truncate(n);
            assert_eq!(s.len, n);
            let got: Vec<_> = (0..n).map(|i| s.get(i)).collect();
            assert_eq!(got, all[..n], "cut to {n}");
            assert_eq!(s.ids.len(), all[..n].iter().flatten().count());
        }
        // Pushed again after a cut, as the index is not, it still agrees.
        s.push(Some(id("x"))).unwrap();
        s.push(None).unwrap();
        assert_eq!((s.get(0), s.get(1)), (Some(id("x")), None));
    }

    #[test]
    #[should_panic(expected = "record 3 of 3")]
    fn a_record_not_held_is_refused() {
        let mut s = SparseIds::default();
        for _ in 0..3 {
            s.push(None).unwrap();
        }
        s.get(3);
    }
}
