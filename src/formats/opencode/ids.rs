//! OpenCode's ids: a prefix (`msg`, `prt`), `_`, 12 hex digits of
//! `(milliseconds × 4096 + counter) mod 2⁴⁸` (so that ids made later sort after earlier
//! ones), then 14 base-62 characters, random in OpenCode. ctxctl derives those from the
//! session and the hex part instead, so that a rewrite is the same every time it is made.

const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Makes ascending ids for session `session`, starting at millisecond `ms`.
pub struct Ids {
    session: String,
    ms: i64,
    counter: i64,
}

impl Ids {
    pub fn new(session: &str, ms: i64) -> Ids {
        Ids {
            session: session.to_string(),
            ms,
            counter: 0,
        }
    }

    /// The next id with `prefix` (`msg`, `prt`).
    pub fn next(&mut self, prefix: &str) -> String {
        self.counter += 1;
        if self.counter >= 4096 {
            self.ms += 1;
            self.counter = 1;
        }
        id(prefix, &self.session, self.ms, self.counter)
    }
}

/// The id with `prefix` made at millisecond `ms` as the `counter`-th of that millisecond.
pub fn id(prefix: &str, session: &str, ms: i64, counter: i64) -> String {
    let n = ((ms as u64).wrapping_mul(4096).wrapping_add(counter as u64)) & ((1 << 48) - 1);
    let hex = format!("{n:012x}");
    let mut h = xxhash_rust::xxh3::xxh3_128(format!("{session}/{prefix}/{hex}").as_bytes());
    let mut tail = String::with_capacity(14);
    for _ in 0..14 {
        tail.push(BASE62[(h % 62) as usize] as char);
        h /= 62;
    }
    format!("{prefix}_{hex}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_have_opencodes_shape_and_time() {
        // A real one: msg_20a0d2f7b001sTP0XPg0FUv61p, made at 1795464966011 ms.
        let a = id("msg", "ses_x", 1_795_464_966_011, 1);
        assert!(a.starts_with("msg_20a0d2f7b001"), "{a}");
        assert_eq!(a.len(), "msg_20a0d2f7b001sTP0XPg0FUv61p".len());
        assert!(a[16..].bytes().all(|b| b.is_ascii_alphanumeric()));
        // The same inputs, the same id; another session, another one.
        assert_eq!(a, id("msg", "ses_x", 1_795_464_966_011, 1));
        assert_ne!(a, id("msg", "ses_y", 1_795_464_966_011, 1));
    }

    #[test]
    fn later_ids_sort_after_earlier_ones() {
        let existing = "msg_20a0eb1ea001tLrr0PADcAQqDh";
        let mut ids = Ids::new("ses_x", 1_795_465_064_939);
        let made: Vec<String> = (0..5000).map(|_| ids.next("msg")).collect();
        assert!(made[0].as_str() > existing);
        assert!(made.windows(2).all(|w| w[0] < w[1]));
    }
}
