//! A fast hash for the maps a compaction's summary fills with a large session's ids,
//! names and paths (tool call ids, file paths, the summary's byte windows): the standard
//! library's SipHash took a fifth of a 10M-token summary's time. This is the
//! multiply-rotate hash rustc uses, started from a state drawn once a process, so that a
//! file cannot be made to collide whatever run reads it.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;

/// A [`HashMap`] with [`FastHasher`].
pub type FastMap<K, V> = HashMap<K, V, FastState>;

/// A [`HashSet`] with [`FastHasher`].
pub type FastSet<T> = HashSet<T, FastState>;

/// Makes [`FastHasher`]s, all from this process's starting state.
#[derive(Debug, Clone, Copy)]
pub struct FastState {
    seed: u64,
}

impl Default for FastState {
    fn default() -> FastState {
        static SEED: OnceLock<u64> = OnceLock::new();
        let seed =
            *SEED.get_or_init(|| std::collections::hash_map::RandomState::new().hash_one(0u64));
        FastState { seed }
    }
}

impl BuildHasher for FastState {
    type Hasher = FastHasher;

    fn build_hasher(&self) -> FastHasher {
        FastHasher { hash: self.seed }
    }
}

/// The Fx hash: each word rotated into the state and multiplied by a constant.
#[derive(Debug, Default, Clone, Copy)]
pub struct FastHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FastHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.add(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut last = [0; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_told_apart() {
        // Strings are hashed with their length (a 0xff after their bytes), so a key and
        // its zero-padded or split variants differ.
        let keys = [
            "",
            "a",
            "a\0",
            "ab",
            "abcdefgh",
            "abcdefgh\0",
            "call_1",
            "call_10",
        ];
        let set: FastSet<&str> = keys.iter().copied().collect();
        assert_eq!(set.len(), keys.len());
        let mut map: FastMap<(&str, Option<&str>), usize> = FastMap::default();
        map.insert(("a", Some("b")), 1);
        map.insert(("ab", None), 2);
        assert_eq!(map[&("a", Some("b"))], 1);
        assert_eq!(map[&("ab", None)], 2);
        let hash = |s: &str| {
            let mut h = FastState::default().build_hasher();
            h.write(s.as_bytes());
            h.finish()
        };
        assert_ne!(hash("call_1"), hash("call_2"));
    }
}
