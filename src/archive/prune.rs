//! Which archives `archive prune` removes: per session, those beyond the newest `keep`
//! and older than `older_than`; with both, only archives that are both.

use super::{ArchiveEntry, Timestamp};

/// What to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Policy {
    /// Keep this many newest archives of each session.
    pub keep: Option<usize>,
    /// Only remove archives made more than this many seconds before `now`.
    pub older_than: Option<u64>,
}

/// The entries `policy` removes, in `entries`' order. A policy with neither limit removes
/// nothing.
pub fn select(entries: &[ArchiveEntry], policy: Policy, now: Timestamp) -> Vec<&ArchiveEntry> {
    if policy.keep.is_none() && policy.older_than.is_none() {
        return Vec::new();
    }
    entries
        .iter()
        .filter(|e| {
            let beyond_keep = policy.keep.is_none_or(|k| {
                // How many archives of the same session are newer than `e`.
                let newer = entries
                    .iter()
                    .filter(|o| o.session == e.session && o.seq > e.seq)
                    .count();
                newer >= k
            });
            let old_enough = policy.older_than.is_none_or(|secs| {
                Timestamp::parse(&e.timestamp)
                    .map(|t| now.unix() - t.unix() > i64::try_from(secs).unwrap_or(i64::MAX))
                    // An archive whose time cannot be read is never pruned by age.
                    .unwrap_or(false)
            });
            beyond_keep && old_enough
        })
        .collect()
}

/// The store's default bound: applied after every rewrite and by the nightly job, with
/// no setting (`[archive] keep`, `[archive] max_mib`; 0 lifts a limit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// Keep at most this many newest archives of each session.
    pub keep: Option<usize>,
    /// Keep the whole store at most this many bytes.
    pub max_bytes: Option<u64>,
}

impl Retention {
    pub const DEFAULT_KEEP: usize = 20;
    pub const DEFAULT_MAX_MIB: u64 = 1024;
}

/// One archive as retention sees it, from its file's name and size alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filed {
    pub session: String,
    pub seq: u64,
    pub unix: i64,
    pub bytes: u64,
}

/// The archives (indices into `all`) that `r` removes: per session those beyond the
/// newest `keep`, then, while the store is over `max_bytes`, the oldest first. A session's
/// newest archive is never removed: it undoes the session's last rewrite.
pub fn retain(all: &[Filed], r: Retention) -> Vec<usize> {
    let newest = |i: usize| {
        !all.iter()
            .any(|o| o.session == all[i].session && o.seq > all[i].seq)
    };
    let mut gone = vec![false; all.len()];
    if let Some(keep) = r.keep {
        for (i, f) in all.iter().enumerate() {
            let newer = all
                .iter()
                .filter(|o| o.session == f.session && o.seq > f.seq)
                .count();
            gone[i] = newer >= keep.max(1);
        }
    }
    if let Some(max) = r.max_bytes {
        let mut total: u64 = (0..all.len())
            .filter(|&i| !gone[i])
            .map(|i| all[i].bytes)
            .sum();
        let mut oldest: Vec<usize> = (0..all.len()).filter(|&i| !gone[i] && !newest(i)).collect();
        oldest.sort_by_key(|&i| (all[i].unix, all[i].seq));
        for i in oldest {
            if total <= max {
                break;
            }
            gone[i] = true;
            total -= all[i].bytes;
        }
    }
    (0..all.len()).filter(|&i| gone[i]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn e(session: &str, seq: u64, day: u32) -> ArchiveEntry {
        ArchiveEntry {
            id: format!("{session}/{seq}"),
            session: session.into(),
            seq,
            timestamp: format!("2026-01-{day:02}T00:00:00Z"),
            path: PathBuf::from(format!("{session}-{seq}")),
            messages: 1,
            tokens: 1,
            bytes: 1,
            restored: None,
        }
    }

    fn ids(v: Vec<&ArchiveEntry>) -> Vec<&str> {
        v.into_iter().map(|e| e.id.as_str()).collect()
    }

    #[test]
    fn keep_counts_per_session_and_age_narrows_it() {
        let all = [e("a", 1, 1), e("a", 2, 5), e("a", 3, 9), e("b", 1, 2)];
        let now = Timestamp::parse("2026-01-10T00:00:00Z").unwrap();
        let keep = |k| Policy {
            keep: Some(k),
            older_than: None,
        };
        assert_eq!(ids(select(&all, keep(1), now)), ["a/1", "a/2"]);
        assert_eq!(ids(select(&all, keep(0), now)).len(), 4);
        assert!(select(&all, keep(3), now).is_empty());
        let days = |d: u64| Some(d * 86_400);
        let old = Policy {
            keep: None,
            older_than: days(6),
        };
        assert_eq!(ids(select(&all, old, now)), ["a/1", "b/1"]);
        let both = Policy {
            keep: Some(1),
            older_than: days(6),
        };
        assert_eq!(ids(select(&all, both, now)), ["a/1"]);
        assert!(select(&all, Policy::default(), now).is_empty());
    }

    fn f(session: &str, seq: u64, unix: i64, bytes: u64) -> Filed {
        Filed {
            session: session.into(),
            seq,
            unix,
            bytes,
        }
    }

    #[test]
    fn retention_keeps_the_newest_per_session_then_drops_the_oldest_to_fit() {
        let all = vec![
            f("a", 1, 10, 100),
            f("a", 2, 20, 100),
            f("a", 3, 30, 100),
            f("b", 1, 5, 500),
            f("c", 1, 1, 1000),
        ];
        let none = Retention {
            keep: None,
            max_bytes: None,
        };
        assert!(retain(&all, none).is_empty());
        let keep2 = Retention {
            keep: Some(2),
            max_bytes: None,
        };
        assert_eq!(retain(&all, keep2), vec![0]);
        // Over 1,000 bytes in all: oldest first, never a session's newest (c/1, b/1, a/3).
        let fit = Retention {
            keep: None,
            max_bytes: Some(1000),
        };
        assert_eq!(retain(&all, fit), vec![0, 1]);
        // keep 0 still keeps the newest.
        let zero = Retention {
            keep: Some(0),
            max_bytes: Some(0),
        };
        assert_eq!(retain(&all, zero), vec![0, 1]);
    }
}
