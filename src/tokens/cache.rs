//! Remembers the token count of texts already seen in this run.

use std::collections::HashMap;
use std::sync::Mutex;

/// Texts shorter than this are cheaper to count than to hash and look up.
const MIN_CACHED_LEN: usize = 64;
/// At most this many entries are remembered.
const MAX_ENTRIES: usize = 1 << 16;

/// A thread-safe map from a text's 64-bit hash (plus its length) to its token count.
#[derive(Default)]
pub struct TextCache {
    map: Mutex<HashMap<(u64, usize), usize>>,
}

impl TextCache {
    pub fn get_or(&self, text: &str, count: impl FnOnce() -> usize) -> usize {
        let Some(key) = key(text) else {
            return count();
        };
        if let Some(&n) = self.lock().get(&key) {
            return n;
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

    fn insert(&self, key: (u64, usize), n: usize) {
        let mut map = self.lock();
        if map.len() < MAX_ENTRIES {
            map.insert(key, n);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(u64, usize), usize>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The key `text` is remembered under, unless it is too short to be worth it. xxh3 rather
/// than the map's SipHash: every text of a cold run goes through here.
fn key(text: &str) -> Option<(u64, usize)> {
    (text.len() >= MIN_CACHED_LEN)
        .then(|| (xxhash_rust::xxh3::xxh3_64(text.as_bytes()), text.len()))
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
}
