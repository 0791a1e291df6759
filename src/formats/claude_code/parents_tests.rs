use super::*;
use crate::formats::claude_code::skel::id;

/// Pushes `records` ((uuid, parent) by name) and checks each parent comes back.
fn pushed(records: &[(Option<&str>, Option<&str>)]) -> Parents {
    let mut p = Parents::default();
    for &(u, parent) in records {
        p.push(u.map(id), parent.map(id)).expect("pushed");
    }
    let uuid = |k: usize| records[k].0.map(id);
    for (i, &(_, parent)) in records.iter().enumerate() {
        assert_eq!(p.get(i, uuid), parent.map(id), "record {i}");
        let named = match p.named(i) {
            Some(Named::Record(k)) => {
                assert!(k <= i, "record {i} names a later record {k}");
                uuid(k)
            }
            Some(Named::Far(h)) => Some(h),
            None => None,
        };
        assert_eq!(named, parent.map(id), "record {i}, named");
    }
    p
}

#[test]
fn a_chain_keeps_nothing_aside() {
    let names: Vec<String> = (0..200).map(|i| format!("u{i}")).collect();
    let records: Vec<_> = (0..200)
        .map(|i| (Some(&*names[i]), i.checked_sub(1).map(|p| &*names[p])))
        .collect();
    assert_eq!(pushed(&records).aside(), (0, 0));
}

#[test]
fn records_without_a_uuid_between_keep_the_bit_up_to_its_reach() {
    // A chain whose links skip records without a uuid: 1, 30, then 63 and 64 of them
    // (the last too far back for the bit), across word boundaries.
    let names: Vec<String> = (0..5).map(|i| format!("u{i}")).collect();
    let mut records = vec![(Some(&*names[0]), None)];
    for (k, gap) in [1, 30, 63, 64].into_iter().enumerate() {
        records.extend((0..gap).map(|_| (None, None)));
        records.push((Some(&*names[k + 1]), Some(&*names[k])));
    }
    assert_eq!(pushed(&records).aside(), (0, 1));
}

#[test]
fn branches_records_without_uuid_and_a_self_parent_are_found_near() {
    let records = [
        (Some("a"), None),
        (Some("b"), Some("a")),
        (None, Some("b")),
        // A branch: two children of b, then one of the first.
        (Some("c"), Some("b")),
        (Some("d"), Some("b")),
        (Some("e"), Some("c")),
        (Some("f"), Some("f")),
    ];
    // b's second child, e and f are not children of the record just before them.
    assert_eq!(pushed(&records).aside(), (0, 3));
}

#[test]
fn a_parent_named_before_it_appears_far_back_or_never_is_kept_aside() {
    let mut records = vec![
        (Some("root"), None),
        // Named before it appears (a compaction's logical parent written later).
        (Some("early"), Some("late")),
        (Some("late"), None),
        (Some("orphan"), Some("never-seen")),
    ];
    let filler: Vec<String> = (0..2 * RECENT).map(|i| format!("x{i}")).collect();
    records.extend(filler.iter().map(|x| (Some(x.as_str()), None)));
    records.push((Some("tail"), Some("root")));
    assert_eq!(pushed(&records).aside(), (3, 0));
}

#[test]
fn a_uuid_given_twice_gives_back_the_same_hash() {
    // The parent is found at the later of the two, whose uuid is the same.
    let records = [
        (Some("a"), None),
        (Some("a"), None),
        (None, None),
        (Some("b"), Some("a")),
    ];
    let p = pushed(&records);
    assert!(p.prev.get(3) && p.before(3) == Some(1));
}

#[test]
fn truncated_it_keeps_the_parents_before_the_cut() {
    let mut records = vec![
        (Some("a"), Some("z")),
        (Some("b"), Some("a")),
        (Some("c"), Some("y")),
        (Some("d"), Some("c")),
    ];
    let mut p = pushed(&records);
    p.truncate(2);
    assert_eq!((p.len, p.aside()), (2, (1, 0)));
    let uuid = |k: usize| records[k].0.map(id);
    assert_eq!(p.get(0, uuid), Some(id("z")));
    assert_eq!(p.get(1, uuid), Some(id("a")));
    // Pushed again, a parent before the cut is found near, one after it is not.
    records.truncate(2);
    records.extend([(Some("e"), Some("b")), (Some("f"), Some("d"))]);
    p.push(Some(id("e")), Some(id("b"))).unwrap();
    assert_eq!(p.aside(), (1, 0));
    p.push(Some(id("f")), Some(id("d"))).unwrap();
    assert_eq!(p.aside(), (2, 0));
    let uuid = |k: usize| records[k].0.map(id);
    let got: Vec<_> = (0..4).map(|i| p.get(i, uuid)).collect();
    let want: Vec<_> = records.iter().map(|r| r.1.map(id)).collect();
    assert_eq!(got, want);
}

#[test]
fn cut_within_a_word_the_bits_after_it_are_gone() {
    // 70 records, a chain through records with a uuid every third; cut at 65, pushed
    // again without uuids: no bit of the records let go names a parent.
    let names: Vec<String> = (0..70).map(|i| format!("u{i}")).collect();
    let records: Vec<_> = (0..70)
        .map(|i| match i % 3 {
            0 => (Some(&*names[i]), i.checked_sub(3).map(|p| &*names[p])),
            _ => (None, None),
        })
        .collect();
    let mut p = pushed(&records);
    p.truncate(65);
    p.push(None, Some(id("u66"))).unwrap();
    p.push(Some(id("x")), Some(id("u63"))).unwrap();
    let uuid = |k: usize| match k {
        66 => Some(id("x")),
        _ => records[k].0.map(id),
    };
    assert_eq!(p.get(65, uuid), Some(id("u66")), "kept aside by its hash");
    assert_eq!(p.get(66, uuid), Some(id("u63")));
    assert!(!p.uuid.get(65) && p.uuid.get(66) && p.prev.get(66));
}

#[test]
#[should_panic(expected = "record 1 of 1")]
fn a_record_not_held_is_refused() {
    pushed(&[(Some("a"), None)]).get(1, |_| None);
}

#[test]
fn named_gives_the_record_found_or_the_far_hash() {
    let mut records = vec![
        (Some("a"), None),
        (Some("a"), None),
        (Some("b"), Some("a")),
        (Some("early"), Some("late")),
        (Some("late"), None),
    ];
    let filler: Vec<String> = (0..2 * RECENT).map(|i| format!("x{i}")).collect();
    records.extend(filler.iter().map(|x| (Some(x.as_str()), None)));
    records.push((None, Some("b")));
    let p = pushed(&records);
    assert_eq!(p.named(0), None);
    // The later of the two records giving `a`, the one just before.
    assert_eq!(p.named(2), Some(Named::Record(1)));
    assert_eq!(
        p.named(3),
        Some(Named::Far(id("late"))),
        "named before it appears"
    );
    let last = records.len() - 1;
    assert_eq!(p.named(last), Some(Named::Far(id("b"))), "far back");
}

#[test]
fn ranks_and_records_of_the_records_with_a_uuid_agree_across_words_and_cuts() {
    let names: Vec<String> = (0..300).map(|i| format!("u{i}")).collect();
    let has = |i: usize| i % 3 != 1 && i % 64 != 5;
    let records: Vec<_> = (0..300)
        .map(|i| (has(i).then(|| names[i].as_str()), None))
        .collect();
    let mut p = pushed(&records);
    for n in [300, 257, 256, 130, 128, 64, 63, 1, 0] {
        p.truncate(n);
        let with: Vec<usize> = (0..n).filter(|&i| has(i)).collect();
        assert_eq!(p.ranks(), with.len(), "cut at {n}");
        for (r, &i) in with.iter().enumerate() {
            assert_eq!((p.rank(i), p.record(r)), (Some(r), i), "cut at {n}");
        }
        assert!((0..n).filter(|&i| !has(i)).all(|i| p.rank(i).is_none()));
    }
}
