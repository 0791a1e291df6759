//! Which places of a traced thread's order are records of one API response ([`Responses`]),
//! in a byte a place rather than the 8-byte `message.id` hash of every record: a response's
//! records (thinking, text, each tool call) nearly always follow one another among the
//! records that have a response, so a place says only whether it starts a response, goes
//! on with the one before it, or is the last of its response; the few places apart from
//! the rest of their response are kept aside with the response's first place.
//!
//! A response is named by its first place in the order (its key): two places have the
//! same key exactly when they have the same `message.id`.

use super::skel::Id;

/// A place with no response.
const NONE: u8 = 0;
/// The first place of its response.
const FIRST: u8 = 1;
/// The response of the last place before it that has one.
const SAME: u8 = 2;
/// A later place of a response other than the last one's: in `apart`.
const APART: u8 = 3;
const STATE: u8 = 3;
/// The last place of its response.
const LAST: u8 = 4;

/// The responses of the places of a thread's order.
#[derive(Debug, Default)]
pub struct Responses {
    places: Vec<u8>,
    /// The `APART` places, with their response's first place, by place.
    apart: Vec<(u32, u32)>,
}

impl Responses {
    /// The responses of the places `keys` gives in order (a thread's records), `response`
    /// giving a key's `message.id` (`None`: none, or one that does not merge). Only the
    /// first place of each run of a response is kept aside while they are sorted by
    /// `message.id` (eight bytes a run, where a place a record with a response took four
    /// and the order, read at random, four a place more), and `response` is asked again
    /// only of those.
    pub fn new<K: Copy>(
        keys: impl Iterator<Item = K>,
        response: impl Fn(K) -> Option<Id>,
    ) -> Responses {
        let mut places = Vec::with_capacity(keys.size_hint().0);
        let mut runs: Vec<(u32, K)> = Vec::new();
        let mut before = None;
        for (r, key) in keys.enumerate() {
            let id = response(key);
            places.push(match id {
                None => NONE,
                Some(_) if id == before => SAME,
                Some(_) => {
                    runs.push((r as u32, key));
                    FIRST
                }
            });
            if id.is_some() {
                before = id;
            }
        }
        runs.sort_unstable_by_key(|&(r, key)| (response(key), r));
        let mut apart = Vec::new();
        for group in runs.chunk_by(|a, b| response(a.1) == response(b.1)) {
            let first = group[0].0;
            for &(r, _) in &group[1..] {
                places[r as usize] = APART;
                apart.push((r, first));
            }
            // The response's last place ends its last run.
            let from = group[group.len() - 1].0 as usize;
            let end = (places[from + 1..].iter())
                .position(|&p| p & STATE == FIRST || p & STATE == APART)
                .map_or(places.len(), |k| from + 1 + k);
            let last = (from..end).rev().find(|&k| places[k] != NONE);
            places[last.unwrap_or(from)] |= LAST;
        }
        drop(runs);
        apart.sort_unstable();
        Responses { places, apart }
    }

    /// Each place's response (its key) and whether it is that response's last place, in
    /// order.
    pub fn walk(&self) -> impl Iterator<Item = (Option<u32>, bool)> + '_ {
        let mut before = None;
        self.places.iter().enumerate().map(move |(r, &p)| {
            let key = match p & STATE {
                NONE => None,
                FIRST => Some(r as u32),
                SAME => before,
                _ => {
                    let k = self.apart.partition_point(|&(a, _)| (a as usize) < r);
                    self.apart.get(k).map(|&(_, first)| first)
                }
            };
            if key.is_some() {
                before = key;
            }
            (key, p & LAST != 0)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::claude_code::skel::id;

    /// Each place's key and whether it is its response's last, from the ids themselves.
    fn by_ids(ids: &[Option<&str>]) -> Vec<(Option<u32>, bool)> {
        (0..ids.len())
            .map(|r| {
                let Some(me) = ids[r] else {
                    return (None, false);
                };
                let first = ids.iter().position(|x| *x == Some(me)).unwrap();
                let last = ids.iter().rposition(|x| *x == Some(me)).unwrap();
                (Some(first as u32), last == r)
            })
            .collect()
    }

    #[test]
    fn places_name_their_response_as_the_ids_do() {
        let cases: [&[Option<&str>]; 6] = [
            &[],
            &[None, None],
            &[
                Some("a"),
                Some("a"),
                None,
                Some("a"),
                Some("b"),
                None,
                Some("b"),
            ],
            // Responses interleaved, and one coming back after others.
            &[
                Some("a"),
                Some("b"),
                Some("a"),
                Some("b"),
                Some("c"),
                Some("a"),
            ],
            &[
                Some("a"),
                None,
                Some("b"),
                Some("b"),
                None,
                Some("a"),
                Some("a"),
            ],
            &[
                Some("x"),
                Some("y"),
                Some("z"),
                Some("y"),
                Some("x"),
                Some("z"),
            ],
        ];
        for ids in cases {
            let r = Responses::new(0..ids.len(), |k| ids[k].map(id));
            let walked: Vec<_> = r.walk().collect();
            assert_eq!(walked, by_ids(ids), "{ids:?}");
        }
    }

    #[test]
    fn a_response_in_one_run_keeps_nothing_aside() {
        let ids = [
            Some("a"),
            Some("a"),
            None,
            Some("a"),
            Some("b"),
            None,
            Some("b"),
        ];
        let r = Responses::new(0..ids.len(), |k| ids[k].map(id));
        assert!(r.apart.is_empty());
        assert_eq!(r.places.len(), ids.len());
    }

    #[test]
    fn random_runs_name_their_response_as_the_ids_do() {
        let names = ["a", "b", "c", "d"];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..2000 {
            let mut ids = Vec::new();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            for k in 0..(seed % 12) {
                let pick = (seed >> (4 * k + 8)) % 6;
                ids.push(names.get(pick as usize).copied());
            }
            let r = Responses::new(0..ids.len(), |k| ids[k].map(id));
            assert_eq!(r.walk().collect::<Vec<_>>(), by_ids(&ids), "{ids:?}");
        }
    }
}
