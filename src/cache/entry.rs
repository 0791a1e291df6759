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
