//! One cached count as the count cache stores it, in its sorted file and in its log alike
//! (24 bytes: key, count, generation), and the merge of two sorted runs of them: the leaf
//! that [`super::counts`] and [`super::log`] share.

/// Bytes of one entry on disk.
pub(super) const ENTRY: usize = 24;

/// Above this many keys looked up at once, the sorted file is loaded instead of searched.
pub(super) const SEARCH_MAX: usize = 256;

/// One cached count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Entry {
    pub(super) key: u128,
    pub(super) count: u32,
    pub(super) generation: u32,
}

/// A key and its count as a run records them until it saves: 20 bytes, where `(u128,
/// u32)` takes 32 (a `u128` is aligned to 16). A cold run over thousands of sessions
/// records up to 2^18 of them, so this is 5 MiB held instead of 8 (and 7.5 instead of 12
/// while the list doubles for the last time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Packed([u32; 5]);

impl Packed {
    pub(super) fn new(key: u128, count: u32) -> Packed {
        let w = |i: u32| (key >> (32 * i)) as u32;
        Packed([w(0), w(1), w(2), w(3), count])
    }

    pub(super) fn key(&self) -> u128 {
        let [a, b, c, d, _] = self.0.map(u128::from);
        a | b << 32 | c << 64 | d << 96
    }

    pub(super) fn count(&self) -> u32 {
        self.0[4]
    }
}

pub(super) fn decode_entry(b: &[u8]) -> Entry {
    Entry {
        key: u128::from_le_bytes(b[..16].try_into().unwrap_or_default()),
        count: u32::from_le_bytes(b[16..20].try_into().unwrap_or_default()),
        generation: u32::from_le_bytes(b[20..24].try_into().unwrap_or_default()),
    }
}

pub(super) fn put_entry(out: &mut Vec<u8>, e: &Entry) {
    out.extend_from_slice(&e.key.to_le_bytes());
    out.extend_from_slice(&e.count.to_le_bytes());
    out.extend_from_slice(&e.generation.to_le_bytes());
}

/// `old` and `new` (both sorted by key) as one sorted list; `new` wins on equal keys, and
/// the last of equal keys in `new` wins.
pub(super) fn merge(old: Vec<Entry>, new: Vec<Entry>) -> Vec<Entry> {
    if old.is_empty() && new.windows(2).all(|w| w[0].key != w[1].key) {
        // A first save (a cold run's up to 2^18 entries): `new` as it is, not copied.
        return new;
    }
    let mut out: Vec<Entry> = Vec::with_capacity(old.len() + new.len());
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        let e = if j == new.len() || (i < old.len() && old[i].key < new[j].key) {
            i += 1;
            old[i - 1]
        } else {
            if i < old.len() && old[i].key == new[j].key {
                i += 1;
            }
            j += 1;
            new[j - 1]
        };
        match out.last_mut() {
            Some(last) if last.key == e.key => *last = e,
            _ => out.push(e),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packed_key_and_count_come_back_whole_in_20_bytes() {
        assert_eq!(std::mem::size_of::<Packed>(), 20);
        for (key, count) in [
            (0, 0),
            (u128::MAX, u32::MAX),
            (0x0123_4567_89ab_cdef_fedc_ba98_7654_3210, 42),
            (1 << 127 | 1 << 96 | 1 << 64 | 1 << 32 | 1, 7),
        ] {
            let p = Packed::new(key, count);
            assert_eq!((p.key(), p.count()), (key, count));
        }
    }

    fn e(key: u128, count: u32) -> Entry {
        Entry {
            key,
            count,
            generation: 1,
        }
    }

    #[test]
    fn merging_into_nothing_keeps_the_last_of_equal_keys() {
        let new = vec![e(1, 1), e(2, 2), e(3, 3)];
        assert_eq!(merge(Vec::new(), new.clone()), new);
        let twice = vec![e(1, 1), e(2, 2), e(2, 5), e(3, 3)];
        assert_eq!(merge(Vec::new(), twice), vec![e(1, 1), e(2, 5), e(3, 3)]);
        assert_eq!(
            merge(vec![e(2, 9)], vec![e(1, 1), e(2, 2)]),
            vec![e(1, 1), e(2, 2)]
        );
    }
}
