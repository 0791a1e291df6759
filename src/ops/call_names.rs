//! The tool each call id called, as `stats` needs it to name a tool result ([`CallNames`]):
//! by the id's 64-bit hash, a number among the names seen. A hash map of a 2 GB
//! transcript's ~400K calls took ~9 MB (its table sized to a power of two past its load
//! factor, 16 bytes a bucket); here the calls are kept sorted in two vectors (12 bytes a
//! call), the latest few in a small map merged into them now and then.

use std::collections::{BTreeMap, HashMap};

/// The calls' names, by the call ids' hashes.
#[derive(Default, Clone)]
pub struct CallNames {
    /// The names, numbered by place.
    names: Vec<String>,
    number_of: BTreeMap<String, u32>,
    /// The calls merged, sorted by hash, and each one's name's number beside.
    keys: Vec<u64>,
    numbers: Vec<u32>,
    /// The calls since the last merge (none of them in `keys`).
    recent: HashMap<u64, u32>,
}

/// Calls held in `recent` before they are merged, at least (and an eighth of those merged:
/// each merge moves them all).
const RECENT: usize = 4096;

impl CallNames {
    /// The call `id` called the tool `name` (a later call of the same id wins).
    pub fn insert(&mut self, id: &str, name: String) {
        let n = match self.number_of.get(&name) {
            Some(&n) => n,
            None => {
                let n = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
                self.names.push(name.clone());
                self.number_of.insert(name, n);
                n
            }
        };
        let key = call_key(id);
        match self.keys.binary_search(&key) {
            Ok(k) => self.numbers[k] = n,
            Err(_) => {
                self.recent.insert(key, n);
                if self.recent.len() >= RECENT.max(self.keys.len() / 8) {
                    self.merge();
                }
            }
        }
    }

    /// The tool the call `id` called, if a call of it was seen.
    pub fn get(&self, id: &str) -> Option<&str> {
        let key = call_key(id);
        let n = match self.recent.get(&key) {
            Some(&n) => n,
            None => self.numbers[self.keys.binary_search(&key).ok()?],
        };
        self.names.get(n as usize).map(String::as_str)
    }

    /// The recent calls into the sorted ones, merged from the end in place.
    fn merge(&mut self) {
        let mut new: Vec<(u64, u32)> = self.recent.drain().collect();
        self.recent.shrink_to(RECENT);
        new.sort_unstable();
        let (old, add) = (self.keys.len(), new.len());
        self.keys.resize(old + add, 0);
        self.numbers.resize(old + add, 0);
        let (mut i, mut w) = (old, old + add);
        for (key, n) in new.into_iter().rev() {
            while i > 0 && self.keys[i - 1] > key {
                i -= 1;
                w -= 1;
                self.keys[w] = self.keys[i];
                self.numbers[w] = self.numbers[i];
            }
            w -= 1;
            self.keys[w] = key;
            self.numbers[w] = n;
        }
        debug_assert_eq!(w, i);
    }
}

/// The calls by hash, each with its tool's name: the same whichever were merged (the
/// recent ones' map has no order of its own).
impl std::fmt::Debug for CallNames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut calls: Vec<(u64, u32)> = (self.keys.iter().copied())
            .zip(self.numbers.iter().copied())
            .chain(self.recent.iter().map(|(&k, &n)| (k, n)))
            .collect();
        calls.sort_unstable();
        let name = |n: u32| self.names.get(n as usize).map_or("?", String::as_str);
        f.debug_map()
            .entries(calls.iter().map(|&(k, n)| (k, name(n))))
            .finish()
    }
}

/// The key of a call id.
fn call_key(id: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(id.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_name_their_tool_as_a_map_does_across_merges() {
        let mut calls = CallNames::default();
        let mut want: HashMap<String, String> = HashMap::new();
        for k in 0..30_000u32 {
            // Ids out of order, some called again (the later call wins).
            let id = format!("call_{}", k.wrapping_mul(2_654_435_761) % 20_000);
            let name = format!("tool{}", k % 7);
            calls.insert(&id, name.clone());
            want.insert(id, name);
            if k % 997 == 0 {
                for (id, name) in &want {
                    assert_eq!(calls.get(id), Some(name.as_str()), "{id} after {k}");
                }
            }
        }
        assert!(calls.keys.len() > RECENT, "merged at least once");
        assert!(
            calls.keys.windows(2).all(|w| w[0] < w[1]),
            "sorted, once each"
        );
        for (id, name) in &want {
            assert_eq!(calls.get(id), Some(name.as_str()));
        }
        assert_eq!(calls.get("call_none"), None);
        let mut merged = CallNames::default();
        for (id, name) in &want {
            merged.insert(id, name.clone());
        }
        merged.merge();
        assert_eq!(format!("{calls:?}"), format!("{merged:?}"));
        assert_eq!(calls.names.len(), 7);
    }
}
