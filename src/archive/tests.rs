use super::*;
use crate::compact::{assemble, partition, CompactInfo};
use crate::formats::{read, write};
use crate::session::{Format, Session};
use crate::tokens::{Counter, Encoding, Tokenizer};

fn record(created: i64, records: Vec<serde_json::Value>) -> ArchiveRecord<'static> {
    ArchiveRecord {
        seq: None,
        compact_id: "id-1".into(),
        created: Timestamp::from_unix(created),
        source: Some("/tmp/s.jsonl".into()),
        output: None,
        format: "jsonl".into(),
        model: Some("gpt-4o".into()),
        first_message: 1,
        messages: records.len(),
        records: records
            .iter()
            .map(|v| RecordText::of_value(v).unwrap())
            .collect(),
        agent_session: None,
    }
}

fn end() -> ArchiveEnd<'static> {
    ArchiveEnd {
        summarizer: "offline".into(),
        tokens: Tokens {
            original: 100,
            compacted: 40,
            archived: 70,
        },
        summary: "S".into(),
        undo: None,
    }
}

#[test]
fn put_numbers_per_session_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArchiveStore::new(dir.path());
    let r = record(
        1_700_000_000,
        vec![serde_json::json!({"role": "user", "content": "x"})],
    );
    let a = store.put("s", &r, &end()).unwrap();
    let b = store.put("s", &r, &end()).unwrap(); // same second: the number tells them apart
    let other = store.put("t", &r, &end()).unwrap();
    assert_eq!((a.seq, b.seq, other.seq), (1, 2, 1));
    assert_eq!(
        a.path,
        dir.path()
            .join("archives/s/compact-20231114T221320Z-1.json")
    );
    assert_eq!(
        b.path.file_name().unwrap(),
        "compact-20231114T221320Z-2.json"
    );
    // An explicit number that exists is refused, and the file is untouched.
    let before = std::fs::read(&a.path).unwrap();
    let e = store
        .put(
            "s",
            &ArchiveRecord {
                seq: Some(1),
                ..r.clone()
            },
            &end(),
        )
        .unwrap_err();
    assert!(matches!(e, ArchiveError::Exists(_)), "{e}");
    assert_eq!(std::fs::read(&a.path).unwrap(), before);
    // Numbers continue after the highest, also across gaps.
    std::fs::remove_file(&b.path).unwrap();
    store
        .put(
            "s",
            &ArchiveRecord {
                seq: Some(5),
                ..r.clone()
            },
            &end(),
        )
        .unwrap();
    assert_eq!(store.next_seq("s").unwrap(), 6);
    assert_eq!(store.next_seq("new").unwrap(), 1);
    // No temp files are left behind.
    let names: Vec<String> = std::fs::read_dir(dir.path().join("archives/s"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| n.starts_with("compact-")), "{names:?}");
}

#[cfg(unix)]
#[test]
fn directories_are_private_and_files_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let store = ArchiveStore::new(dir.path().join("data"));
    let stored = store.put("s", &record(0, vec![]), &end()).unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir.path().join("data/archives")), 0o700);
    assert_eq!(mode(&dir.path().join("data/archives/s")), 0o700);
    assert_eq!(mode(&stored.path), 0o600);
}

#[test]
fn the_file_is_pretty_json_with_the_facts_and_lists_back() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArchiveStore::new(dir.path());
    let recs = vec![
        serde_json::from_str(r#"{"role": "user", "content": "a", "extra": {"kept": [1, 2.50]}}"#)
            .unwrap(),
        serde_json::json!({"role": "assistant", "content": "b"}),
    ];
    let stored = store
        .put("s", &record(86_400, recs.clone()), &end())
        .unwrap();
    let text = std::fs::read_to_string(&stored.path).unwrap();
    assert!(text.starts_with("{\n  \"ctxctl_version\": \""), "{text}");
    assert!(
        text.contains("\"created\": \"1970-01-02T00:00:00Z\""),
        "{text}"
    );
    assert!(text.contains("2.50"), "numbers are kept as written: {text}");

    let entries = store.list(Some("s")).unwrap();
    assert_eq!(
        entries,
        [ArchiveEntry {
            id: "s/1".into(),
            session: "s".into(),
            seq: 1,
            timestamp: "1970-01-02T00:00:00Z".into(),
            path: stored.path.clone(),
            messages: 2,
            tokens: 70,
            bytes: text.len() as u64,
            restored: None,
        }]
    );
    let (entry, file) = store.get("s/1").unwrap();
    assert_eq!(entry, entries[0]);
    let texts: Vec<&str> = file.records.iter().map(|r| r.get()).collect();
    assert_eq!(
        texts,
        [
            r#"{"role":"user","content":"a","extra":{"kept":[1,2.50]}}"#,
            r#"{"role":"assistant","content":"b"}"#
        ]
    );
    assert_eq!(
        (file.compact_id.as_str(), file.seq, file.tokens.original),
        ("id-1", 1, 100)
    );
    assert_eq!(file.source.as_deref(), Some("/tmp/s.jsonl"));
}

#[test]
fn an_archive_larger_than_its_write_buffer_reads_back_record_for_record() {
    // Records of uneven sizes, several times the write buffer in all, so that records
    // straddle the points where it is handed to the file.
    let recs: Vec<serde_json::Value> = (0..3000)
        .map(|i| serde_json::json!({"role": "user", "content": "é".repeat(i % 1500), "n": i}))
        .collect();
    for compression in [Compression::None, Compression::Zstd] {
        let dir = tempfile::tempdir().unwrap();
        let store = ArchiveStore::new(dir.path()).with_compression(compression);
        let stored = store.put("s", &record(0, recs.clone()), &end()).unwrap();
        let (_, file) = store.get("s/1").unwrap();
        let back: Vec<serde_json::Value> = (file.records.iter())
            .map(|r| serde_json::from_str(r.get()).unwrap())
            .collect();
        assert_eq!(back, recs, "{compression:?}");
        if compression == Compression::None {
            let text = std::fs::read_to_string(&stored.path).unwrap();
            assert!(
                text.len() > 3 * super::pending::WRITE_BUFFER,
                "{}",
                text.len()
            );
            assert!(text.ends_with("}\n"));
        }
    }
}

#[test]
fn list_covers_every_session_in_order_and_checks_names() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArchiveStore::new(dir.path());
    assert!(store.list(None).unwrap().is_empty());
    assert!(store.list(Some("none")).unwrap().is_empty());
    for s in ["b", "a", "b"] {
        store.put(s, &record(0, vec![]), &end()).unwrap();
    }
    std::fs::write(dir.path().join("archives/a/notes.txt"), "x").unwrap();
    let ids: Vec<String> = store
        .list(None)
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(ids, ["a/1", "b/1", "b/2"]);
    assert!(matches!(
        store.list(Some("../x")),
        Err(ArchiveError::BadName(_))
    ));
    assert!(matches!(store.get("a/9"), Err(ArchiveError::NotFound(_))));
    assert!(matches!(store.get("a"), Err(ArchiveError::BadId(_))));
    assert!(matches!(
        store.put(".a", &record(0, vec![]), &end()),
        Err(ArchiveError::BadName(_))
    ));
    std::fs::write(
        dir.path()
            .join("archives/a/compact-19700101T000000Z-7.json"),
        "{",
    )
    .unwrap();
    let e = store.list(Some("a")).unwrap_err();
    assert!(
        e.to_string().contains("compact-19700101T000000Z-7.json"),
        "{e}"
    );
}

fn counter() -> Counter {
    Counter::new(Tokenizer::new(Encoding::Approx).unwrap())
}

/// Compacts `s` with a tiny tail, archives the middle, and returns the compacted bytes.
fn compact_and_archive(s: &Session, store: &ArchiveStore, name: &str) -> Vec<u8> {
    let c = counter();
    let counts = c.messages(s);
    let p = partition(s, &counts, 1);
    assert!(p.has_middle(), "{p:?}");
    let stored_seq = store.next_seq(name).unwrap();
    let created = Timestamp::from_unix(1_700_000_000);
    let info = CompactInfo {
        id: CompactInfo::new_id(),
        timestamp: created.rfc3339(),
        seq: stored_seq,
        archive: Some(
            store
                .path_for(name, stored_seq, created)
                .unwrap()
                .display()
                .to_string(),
        ),
    };
    let rec = ArchiveRecord {
        seq: Some(stored_seq),
        compact_id: info.id.clone(),
        created,
        source: None,
        output: None,
        format: s.format.name().into(),
        model: None,
        first_message: p.middle.start,
        messages: p.middle.len(),
        records: original_records(s, p.middle.clone()).unwrap(),
        agent_session: None,
    };
    let end = ArchiveEnd {
        summarizer: "offline".into(),
        tokens: Tokens::default(),
        summary: "sum".into(),
        undo: None,
    };
    store.put(name, &rec, &end).unwrap();
    write(s, &assemble(s, &p, "sum", &info)).unwrap()
}

const JSONL: &str = concat!(
    "{\"role\":\"system\",\"content\":\"sys\"}\n",
    "{\"role\":\"user\",\"content\":\"q1\",\"n\":1.0}\n",
    "{\"role\":\"assistant\",\"content\":\"a1\"}\n",
    "{\"role\":\"user\",\"content\":\"q2\"}\n",
    "{\"role\":\"assistant\",\"content\":\"a2\"}\n",
);

#[test]
fn restore_undoes_a_jsonl_compaction_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArchiveStore::new(dir.path());
    let s = read(JSONL.as_bytes(), Some(Format::Jsonl)).unwrap();
    let compacted = compact_and_archive(&s, &store, "s");
    let cs = read(&compacted, None).unwrap();
    assert_eq!(
        cs.messages.len(),
        3,
        "{}",
        String::from_utf8_lossy(&compacted)
    );
    let (_, file) = store.get("s/1").unwrap();
    assert_eq!(file.records.len(), 3);
    let restored = write(&cs, &restore(&cs, &mut file.clone()).unwrap()).unwrap();
    assert_eq!(String::from_utf8(restored).unwrap(), JSONL);
}

#[test]
fn a_restore_takes_the_records_only_once_the_plan_fits() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArchiveStore::new(dir.path());
    let s = read(JSONL.as_bytes(), Some(Format::Jsonl)).unwrap();
    let cs = read(&compact_and_archive(&s, &store, "s"), None).unwrap();
    let (_, mut file) = store.get("s/1").unwrap();
    // A plan that does not fit leaves the archive whole.
    let mut other = file.clone();
    other.compact_id = "elsewhere".into();
    assert!(matches!(
        restore(&cs, &mut other),
        Err(RestoreError::SummaryNotFound { .. })
    ));
    assert_eq!(other.records.len(), file.records.len());
    let taken = restore(&cs, &mut file).unwrap();
    assert!(file.records.is_empty(), "the records moved into the plan");
    assert_eq!(
        String::from_utf8(write(&cs, &taken).unwrap()).unwrap(),
        JSONL
    );
}

#[test]
fn restore_works_after_the_tail_changed_and_twice_compacted_needs_the_newer_first() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArchiveStore::new(dir.path());
    let s = read(JSONL.as_bytes(), Some(Format::Jsonl)).unwrap();
    let compacted = String::from_utf8(compact_and_archive(&s, &store, "s")).unwrap();
    // The agent goes on: two more turns after compaction.
    let grown = compacted.clone()
        + "{\"role\":\"user\",\"content\":\"q3\"}\n{\"role\":\"assistant\",\"content\":\"a3\"}\n";
    let gs = read(grown.as_bytes(), None).unwrap();
    // Compact again: the first summary is inside the new middle.
    let twice = compact_and_archive(&gs, &store, "s");
    let ts = read(&twice, None).unwrap();
    let (_, first) = store.get("s/1").unwrap();
    let (_, second) = store.get("s/2").unwrap();
    assert!(matches!(
        restore(&ts, &mut first.clone()),
        Err(RestoreError::SummaryNotFound { .. })
    ));
    let once = write(&ts, &restore(&ts, &mut second.clone()).unwrap()).unwrap();
    assert_eq!(String::from_utf8(once.clone()).unwrap(), grown);
    let os = read(&once, None).unwrap();
    let back = write(&os, &restore(&os, &mut first.clone()).unwrap()).unwrap();
    let want = JSONL.to_string()
        + "{\"role\":\"user\",\"content\":\"q3\"}\n{\"role\":\"assistant\",\"content\":\"a3\"}\n";
    assert_eq!(String::from_utf8(back).unwrap(), want);
}

#[test]
fn restore_undoes_an_anthropic_json_compaction() {
    let json = r#"{
  "model": "claude-x",
  "system": "sys",
  "messages": [
    {"role": "user", "content": [{"type": "text", "text": "q1"}]},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "a"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}]},
    {"role": "assistant", "content": "done"},
    {"role": "user", "content": "q2"}
  ]
}"#;
    let dir = tempfile::tempdir().unwrap();
    let store = ArchiveStore::new(dir.path());
    let s = read(json.as_bytes(), None).unwrap();
    assert_eq!(s.format, Format::Anthropic);
    let compacted = compact_and_archive(&s, &store, "a");
    let cs = read(&compacted, None).unwrap();
    assert_eq!(cs.messages[0].text(), "sys", "the system field stays");
    let (_, file) = store.get("a/1").unwrap();
    let restored = write(&cs, &restore(&cs, &mut file.clone()).unwrap()).unwrap();
    assert_eq!(String::from_utf8(restored).unwrap(), json, "byte for byte");
    // A session of another format is refused.
    let other = read(JSONL.as_bytes(), None).unwrap();
    assert!(matches!(
        restore(&other, &mut file.clone()),
        Err(RestoreError::FormatMismatch { .. })
    ));
}

/// Written by Python's `json.dumps`: spaces after `:` and `,`, escapes serde_json writes
/// otherwise, numbers in several forms.
const SPACED_JSONL: &str = concat!(
    "{\"role\": \"system\", \"content\": \"sys\"}\n",
    "{\"role\": \"user\", \"content\": \"caf\\u00e9 a\\/b\", \"n\": 1.0}\n",
    "{\"role\": \"assistant\", \"content\": \"a1\", \"m\": 1e3}\n",
    "{\"role\": \"user\", \"content\": \"q2\"}\n",
    "{\"role\": \"assistant\", \"content\": \"a2\"}\n",
);

#[test]
fn restore_puts_back_the_records_text_not_its_value() {
    for compression in [Compression::None, Compression::Zstd] {
        let dir = tempfile::tempdir().unwrap();
        let store = ArchiveStore::new(dir.path()).with_compression(compression);
        let s = read(SPACED_JSONL.as_bytes(), Some(Format::Jsonl)).unwrap();
        let compacted = compact_and_archive(&s, &store, "s");
        let cs = read(&compacted, None).unwrap();
        let (_, file) = store.get("s/1").unwrap();
        assert_eq!(
            file.records[0].get(),
            r#"{"role": "user", "content": "caf\u00e9 a\/b", "n": 1.0}"#
        );
        let restored = write(&cs, &restore(&cs, &mut file.clone()).unwrap()).unwrap();
        assert_eq!(String::from_utf8(restored).unwrap(), SPACED_JSONL);
    }
}

#[test]
fn archives_compare_by_their_records_text() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArchiveStore::new(dir.path());
    let a = serde_json::from_str(r#"{"n": 1.0}"#).unwrap();
    let b = serde_json::from_str(r#"{"n":1.0}"#).unwrap();
    store.put("a", &record(0, vec![a]), &end()).unwrap();
    store.put("b", &record(0, vec![b]), &end()).unwrap();
    let (_, a) = store.get("a/1").unwrap();
    let (_, b) = store.get("b/1").unwrap();
    assert_eq!(a, a.clone());
    let same_but_session = ArchiveFile {
        session: "a".into(),
        ..b.clone()
    };
    assert_eq!(a, same_but_session, "to_raw_value writes both compactly");
    let mut spaced = a.clone();
    spaced.records[0] = serde_json::value::RawValue::from_string(r#"{"n": 1.0}"#.into()).unwrap();
    assert_ne!(a, spaced);
}
