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
}
