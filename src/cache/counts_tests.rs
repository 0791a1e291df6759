//! Tests of the token-count cache ([`super`]).

use super::*;
use std::io::Write;

#[test]
fn saves_merges_and_reloads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c/counts.bin");
    let mut a = CountStore::open(path.clone());
    assert!(a.is_empty());
    a.record(1, 10);
    assert!(a.save().unwrap());
    let mut b = CountStore::open(path.clone());
    assert_eq!(b.get(1), Some(10));
    b.record(2, 20);
    // A run that started before b saved still merges b's entries in.
    let mut c = CountStore::open(path.clone());
    b.save().unwrap();
    c.record(3, 30);
    c.save().unwrap();
    // b saving again after c replaced the file reads it again too.
    b.record(4, 40);
    b.save().unwrap();
    // A file nobody replaced since it was loaded is not read again: what this run
    // loaded is merged (here, the entries of the file just saved, plus 5).
    let mut e = CountStore::open(path.clone());
    e.record(5, 50);
    e.save().unwrap();
    let mut d = CountStore::open(path);
    assert_eq!(
        (d.get(1), d.get(2), d.get(3), d.get(4), d.get(5)),
        (Some(10), Some(20), Some(30), Some(40), Some(50))
    );
}

#[test]
fn few_keys_are_searched_on_disk_and_new_ones_logged_until_the_log_is_merged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("counts.bin");
    let key = |i: u128| xxhash_rust::xxh3::xxh3_128(&i.to_le_bytes());
    // Many keys at once: the sorted file is written (the log would overflow).
    let keys: Vec<u128> = (0..1000).map(key).collect();
    let counts: Vec<usize> = (0..1000).collect();
    let mut a = CountStore::open(path.clone());
    a.record_all(&keys, &counts);
    assert!(a.save().unwrap());
    assert!(!log_path(&path).exists());
    // A few keys: searched in the file, not loaded.
    let mut b = CountStore::open(path.clone());
    let few = [keys[0], keys[500], keys[999], key(5000)];
    assert_eq!(b.lookup(&few), [Some(0), Some(500), Some(999), None]);
    assert!(!b.loaded_all);
    b.record_all(&few[3..], &[77]);
    assert!(b.save().unwrap());
    assert!(
        !b.loaded_all,
        "a few new counts are logged, the file left alone"
    );
    let logged = fs::metadata(log_path(&path)).unwrap().len();
    assert_eq!(logged, ENTRY as u64);
    // A torn entry at the end of the log (a killed run) is ignored, and cut off before
    // the next run appends.
    let mut f = fs::OpenOptions::new()
        .append(true)
        .open(log_path(&path))
        .unwrap();
    f.write_all(&[1, 2, 3]).unwrap();
    let mut c = CountStore::open(path.clone());
    assert_eq!(c.get(key(5000)), Some(77));
    assert_eq!(c.len(), 1001);
    c.record(key(5001), 78);
    assert!(c.save().unwrap());
    assert_eq!(
        c.len(),
        1002,
        "the logged count is known to the run that logged it"
    );
    let mut c = CountStore::open(path.clone());
    assert_eq!((c.get(key(5000)), c.get(key(5001))), (Some(77), Some(78)));
    assert_eq!(c.len(), 1002);
    // Known keys used again are not logged again.
    c.record(key(5000), 77);
    assert!(!c.save().unwrap());
    // A log past LOG_MAX is merged into the file and emptied.
    let more: Vec<u128> = (6000..6000 + LOG_MAX as u128).map(key).collect();
    for (i, k) in more.iter().enumerate() {
        c.record(*k, i as u32);
    }
    assert!(c.save().unwrap());
    assert!(!log_path(&path).exists());
    let mut d = CountStore::open(path.clone());
    assert_eq!(d.len(), 1002 + LOG_MAX);
    assert_eq!(d.get(key(5000)), Some(77));
    assert_eq!(d.get(more[LOG_MAX - 1]), Some(LOG_MAX as u32 - 1));
    assert_eq!(d.get(keys[123]), Some(123));
    assert!(d.generation() > c.generation(), "generations carry over");
    assert!(CountStore::clear(&path).unwrap());
    assert!(CountStore::open(path).is_empty());
}

#[test]
fn a_run_records_at_most_touched_max_counts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("token-counts.bin");
    let mut store = CountStore::open(path.clone());
    let keys: Vec<u128> = (1..=(TOUCHED_MAX as u128 + 50)).collect();
    let counts: Vec<usize> = keys.iter().map(|&k| k as usize * 2).collect();
    store.record_all(&keys, &counts);
    assert!(store.save().unwrap());
    let mut again = CountStore::open(path);
    let found = again.lookup(&keys);
    let known = found.iter().filter(|f| f.is_some()).count();
    assert_eq!(known, TOUCHED_MAX);
    // The first ones learned, with their counts.
    assert_eq!(found[0], Some(2));
    assert_eq!(found[TOUCHED_MAX - 1], Some(TOUCHED_MAX * 2));
    assert_eq!(found[TOUCHED_MAX], None);
}

#[test]
fn recorded_counts_past_a_few_wait_on_disk_and_are_all_saved() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("token-counts.bin");
    let mut store = CountStore::open(path.clone());
    let n = HELD_MAX * 3 + 5;
    for k in 1..=n {
        store.record(k as u128, k as u32);
        assert!(store.touched.len() < HELD_MAX, "at most a few held");
    }
    // Recorded again, later (its first is on disk by now): the later count is kept.
    store.record(1, 999);
    assert_eq!(store.recorded(), n + 1);
    assert_eq!(store.touched.len(), 6);
    assert!(store.save().unwrap());
    assert_eq!(store.recorded(), 0);
    let mut again = CountStore::open(path);
    assert_eq!(again.get(1), Some(999));
    assert_eq!(again.get(2), Some(2));
    assert_eq!(again.get(n as u128), Some(n as u32));
    assert_eq!(again.len(), n);
}

#[test]
fn the_sorted_file_written_a_block_at_a_time_reads_back_whole() {
    let entries: Vec<Entry> = (0..10_000u32)
        .map(|i| Entry {
            key: u128::from(i) << 100 | 7,
            count: i,
            generation: i % 5,
        })
        .collect();
    let mut bytes = Vec::new();
    write_sorted(&mut bytes, &entries).unwrap();
    assert_eq!(bytes.len(), HEADER + entries.len() * ENTRY);
    assert_eq!(&bytes[8..12], &4u32.to_le_bytes(), "the highest generation");
    assert_eq!(decode(&bytes), entries);
    let mut none = Vec::new();
    write_sorted(&mut none, &[]).unwrap();
    assert_eq!(none.len(), HEADER);
}

#[test]
fn broken_files_are_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("counts.bin");
    fs::write(&path, b"ctxtok01garbage").unwrap();
    assert!(CountStore::open(path.clone()).is_empty());
    fs::write(&path, b"not a cache").unwrap();
    let mut s = CountStore::open(path.clone());
    s.record(5, 1);
    s.save().unwrap();
    assert_eq!(CountStore::open(path).get(5), Some(1));
}

#[test]
fn disabled_store_never_writes() {
    let mut s = CountStore::disabled();
    s.record(1, 1);
    assert!(!s.save().unwrap());
    assert!(!s.is_enabled());
}

#[test]
fn merging_keeps_keys_sorted_and_unique_with_the_newest_count() {
    let e = |key, count| Entry {
        key,
        count,
        generation: 0,
    };
    let merged = merge(
        vec![e(1, 1), e(3, 3), e(5, 5)],
        vec![e(0, 0), e(3, 30), e(3, 31), e(6, 6)],
    );
    let got: Vec<(u128, u32)> = merged.iter().map(|e| (e.key, e.count)).collect();
    assert_eq!(got, vec![(0, 0), (1, 1), (3, 31), (5, 5), (6, 6)]);
}

#[test]
fn an_unsorted_file_is_still_read() {
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&[0; 8]);
    for (key, count) in [(9u128, 90u32), (2, 20), (9, 91)] {
        bytes.extend_from_slice(&key.to_le_bytes());
        bytes.extend_from_slice(&count.to_le_bytes());
        bytes.extend_from_slice(&1u32.to_le_bytes());
    }
    let entries = decode(&bytes);
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0].key, 2);
    assert_eq!(entries[1].key, 9);
}

#[test]
fn every_key_is_found_wherever_it_sits() {
    // Uniform keys, clustered keys and the extremes: the guessed start may be far off.
    let mut keys: Vec<u128> = (0..5000u128)
        .map(|i| xxhash_rust::xxh3::xxh3_128(&i.to_le_bytes()))
        .collect();
    keys.extend((0..100u128).map(|i| i * 7));
    keys.extend([u128::MAX, u128::MAX - 1, 1 << 127]);
    keys.sort_unstable();
    keys.dedup();
    let mut store = CountStore {
        loaded_all: true,
        entries: keys
            .iter()
            .map(|&key| Entry {
                key,
                count: (key % 1000) as u32,
                generation: 0,
            })
            .collect(),
        ..CountStore::default()
    };
    for &k in &keys {
        assert_eq!(store.get(k), Some((k % 1000) as u32), "{k}");
    }
    for absent in [3u128, 8, u128::MAX - 2, 12345678901234567890] {
        assert_eq!(store.get(absent), None);
    }
}
