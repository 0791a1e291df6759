//! Records grouped by a key record (the children of each record, say) in two flat arrays,
//! four bytes a member and four a key. Maps of vectors took a 160 MB transcript's rewrite
//! about 17 MB (a table slot and a small allocation a group) at its peak.

/// The members of each of `n` keys, in the order they were given.
#[derive(Debug, Default)]
pub struct Groups {
    /// Where each key's members start in `members`; key `k`'s end where `k + 1`'s start.
    start: Vec<u32>,
    members: Vec<u32>,
}

impl Groups {
    /// Groups the `(key, member)` pairs `pairs` gives (twice: once to count, once to
    /// fill) under keys below `n`.
    pub fn new<I>(n: usize, pairs: impl Fn() -> I) -> Groups
    where
        I: Iterator<Item = (usize, usize)>,
    {
        let small = |x: usize| u32::try_from(x).expect("fewer than 2^32 records");
        let mut start = vec![0u32; n + 1];
        for (k, _) in pairs() {
            start[k + 1] += 1;
        }
        for k in 0..n {
            start[k + 1] += start[k];
        }
        let mut next = start.clone();
        let mut members = vec![0u32; start[n] as usize];
        for (k, m) in pairs() {
            members[next[k] as usize] = small(m);
            next[k] += 1;
        }
        Groups { start, members }
    }

    /// The members of key `k` (none for a key past the `n` it was made with).
    pub fn of(&self, k: usize) -> impl Iterator<Item = usize> + '_ {
        let range = match (self.start.get(k), self.start.get(k + 1)) {
            (Some(&a), Some(&b)) => a as usize..b as usize,
            _ => 0..0,
        };
        self.members[range].iter().map(|&m| m as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_come_back_by_key_in_the_order_given() {
        let pairs = [(2, 0), (0, 1), (2, 3), (4, 5), (0, 6), (2, 7)];
        let g = Groups::new(5, || pairs.iter().copied());
        let of = |k| g.of(k).collect::<Vec<_>>();
        assert_eq!(of(0), [1, 6]);
        assert_eq!(of(2), [0, 3, 7]);
        assert_eq!(of(4), [5]);
        assert!(of(1).is_empty() && of(3).is_empty());
        assert!(of(5).is_empty() && of(99).is_empty(), "past the keys");
    }

    #[test]
    fn agrees_with_a_map_of_vectors() {
        let pairs: Vec<(usize, usize)> = (0..500).map(|m| ((m * 31) % 97, m)).collect();
        let g = Groups::new(97, || pairs.iter().copied());
        let mut map: std::collections::HashMap<usize, Vec<usize>> = Default::default();
        for &(k, m) in &pairs {
            map.entry(k).or_default().push(m);
        }
        for k in 0..97 {
            let want = map.get(&k).cloned().unwrap_or_default();
            assert_eq!(g.of(k).collect::<Vec<_>>(), want, "key {k}");
        }
    }

    #[test]
    fn no_keys_no_members() {
        let g = Groups::new(0, std::iter::empty);
        assert!(g.of(0).next().is_none());
    }
}
