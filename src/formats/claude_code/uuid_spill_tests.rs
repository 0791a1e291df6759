use std::collections::HashMap;

use super::*;
use crate::formats::claude_code::skel::id;

/// Uuids with duplicates near and far apart: record `r` gives `u{(r * 37) % 61}`.
fn uuids(n: usize) -> Vec<Id> {
    (0..n).map(|r| id(&format!("u{}", (r * 37) % 61))).collect()
}

fn spill(ids: &[Id], file: bool) -> UuidSpill {
    let f = file.then(|| tempfile::tempfile().expect("a temp file"));
    let mut s = UuidSpill::new(f);
    for &u in ids {
        s.push(u);
    }
    s.finish().expect("finished");
    s
}

/// What a map filled in file order says: the last rank of each uuid.
fn last_by_map(ids: &[Id]) -> HashMap<Id, usize> {
    ids.iter().enumerate().map(|(r, &u)| (u, r)).collect()
}

#[test]
fn agrees_with_a_map_filled_in_file_order_in_one_pass_or_many() {
    let ids = uuids(300);
    let queries: Vec<Id> = (0..70).map(|k| id(&format!("u{k}"))).collect();
    for file in [false, true] {
        let s = spill(&ids, file);
        let one = resolve(&s, ids.len(), &queries, SLICE).expect("resolved");
        let many = resolve(&s, ids.len(), &queries, 7).expect("resolved");
        assert_eq!(one, many, "the passes do not change the answers");
        for n in [300, 200, 61, 60, 1, 0] {
            let map = last_by_map(&ids[..n]);
            let r = resolve(&s, n, &queries, 7).expect("resolved");
            for q in &queries {
                assert_eq!(r.last_of(*q), map.get(q).copied(), "cut at {n}");
            }
            for (rank, u) in ids[..n].iter().enumerate() {
                assert_eq!(r.last(rank), map[u], "rank {rank}, cut at {n}");
            }
        }
    }
}

#[test]
fn a_uuid_not_asked_is_not_answered() {
    let ids = uuids(10);
    let s = spill(&ids, true);
    let r = resolve(&s, 10, &[ids[3]], SLICE).expect("resolved");
    assert_eq!(r.last_of(ids[3]), Some(3));
    assert_eq!(r.last_of(ids[4]), None, "given but not asked");
}

#[test]
fn the_file_and_memory_read_back_the_same_across_blocks() {
    // More than a block of bytes, so that the file is written and read in several.
    let n = BLOCK / 8 * 2 + 5;
    let ids: Vec<Id> = (0..n).map(|r| id(&r.to_string())).collect();
    for file in [false, true] {
        let s = spill(&ids, file);
        assert_eq!(s.len(), n);
        let mut back = Vec::new();
        s.for_each(n, |r, h| back.push((r, h))).expect("read");
        let want: Vec<(usize, u64)> = ids.iter().map(|u| u.get()).enumerate().collect();
        assert_eq!(back, want, "file: {file}");
    }
}

#[test]
fn an_empty_spill_resolves_nothing() {
    let s = spill(&[], true);
    let r = resolve(&s, 0, &[id("a")], SLICE).expect("resolved");
    assert_eq!(r, Resolved::default());
    assert_eq!(r.last(0), 0);
}

#[test]
fn a_failed_write_goes_on_in_memory_with_what_was_written() {
    let ids = uuids(BLOCK / 8 + 3);
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("ro");
    std::fs::write(&path, b"").unwrap();
    // A file open for reading only: every write fails.
    let ro = File::open(&path).expect("opened");
    let mut s = UuidSpill::new(Some(ro));
    for &u in &ids {
        s.push(u);
    }
    s.finish().expect("held in memory");
    assert!(s.file.is_none());
    let r = resolve(&s, ids.len(), &ids[..5], 7).expect("resolved");
    let map = last_by_map(&ids);
    for q in &ids[..5] {
        assert_eq!(r.last_of(*q), map.get(q).copied());
    }
}

#[test]
fn ranges_read_back_as_pushed_across_blocks() {
    // More hashes than a block of the file holds (8K).
    let ids = uuids(20_000);
    for file in [false, true] {
        let s = spill(&ids, file);
        for (from, n) in [(0, 0), (0, 1), (8191, 2), (19_990, 10), (0, 20_000)] {
            let mut out = vec![0; n];
            s.read(from, &mut out).expect("read");
            let want: Vec<u64> = ids[from..from + n].iter().map(|u| u.get()).collect();
            assert_eq!(out, want, "{from}+{n}, file {file}");
        }
    }
}
