//! Remembers the token count of texts already seen in this run.

use std::collections::HashMap;
use std::sync::Mutex;

/// Texts shorter than this are cheaper to count than to hash and look up.
const MIN_CACHED_LEN: usize = 64;
/// At most this many entries are remembered: as many as a table of 2^16 slots holds (it
/// keeps an eighth free), which the next entry would double (a listing holds one table per
/// tokenizer; at 2^16 entries each took 3.3 MB).
const MAX_ENTRIES: usize = (1 << 16) / 8 * 7;

/// A text's 64-bit hash and its length.
type Key = (u64, u32);

/// A thread-safe map from a text's 64-bit hash (plus its length) to its token count.
#[derive(Default)]
pub struct TextCache {
    map: Mutex<HashMap<Key, u32>>,
}

impl TextCache {
    pub fn get_or(&self, text: &str, count: impl FnOnce() -> usize) -> usize {
        let Some(key) = key(text) else {
            return count();
        };
        if let Some(&n) = self.lock().get(&key) {
            return n as usize;
        }
        let n = count();
        self.insert(key, n);
        n
    }

    /// Remembers that `text` has `n` tokens (counted elsewhere).
    pub fn put(&self, text: &str, n: usize) {
        if let Some(key) = key(text) {
            self.insert(key, n);
        }
    }

    fn insert(&self, key: Key, n: usize) {
        let Ok(n) = u32::try_from(n) else {
            return;
        };
        let mut map = self.lock();
        if map.len() < MAX_ENTRIES {
            map.insert(key, n);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, u32>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The key `text` is remembered under, unless it is too short to be worth it. xxh3 rather
/// than the map's SipHash: every text of a cold run goes through here.
fn key(text: &str) -> Option<Key> {
    let len = u32::try_from(text.len()).ok()?;
    (text.len() >= MIN_CACHED_LEN).then(|| (xxhash_rust::xxh3::xxh3_64(text.as_bytes()), len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_each_text_once() {
        let cache = TextCache::default();
        let text = "x".repeat(100);
        let mut calls = 0;
        for _ in 0..3 {
            cache.get_or(&text, || {
                calls += 1;
                7
            });
        }
        assert_eq!(calls, 1);
    }

    #[test]
    fn the_table_stops_growing_before_it_would_double() {
        let cache = TextCache::default();
        for i in 0..MAX_ENTRIES + 100 {
            cache.put(&format!("{i:0>80}"), i);
        }
        let map = cache.lock();
        assert_eq!(map.len(), MAX_ENTRIES);
        assert!(map.capacity() < 1 << 16, "{}", map.capacity());
    }
}
