//! OpenCode's SQLite session store (`opencode.db`, OpenCode ≥ 1.2): the database the real
//! OpenCode 1.18.33 wrote (tests/formats/opencode/input.db, from
//! shared/fixtures/opencode), and the same before OpenCode compacted it
//! (tests/formats/opencode/compact/input.db), read, compacted in place and restored.

use std::path::{Path, PathBuf};

use rusqlite::types::Value;
use rusqlite::Connection;

use crate::support::{s, TestEnv};

const SID: &str = "ses_df5f2d654ffeKnuN9WuHea9bXj";

/// The captured database, `before`: without OpenCode's own compaction.
fn fixture(before: bool) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/formats/opencode");
    if before {
        dir.join("compact/input.db")
    } else {
        dir.join("input.db")
    }
}

/// A test environment whose clock is a day after the fixture's session (not live).
fn env() -> TestEnv {
    TestEnv::new().env("CTXCTL_NOW", "2026-11-24T20:00:00Z")
}

fn db(env: &TestEnv, before: bool) -> PathBuf {
    let p = env.path().join("opencode.db");
    std::fs::copy(fixture(before), &p).unwrap();
    p
}

/// Every row of `table`, in id order, as stored.
fn rows(db: &Path, table: &str) -> Rows {
    let c = Connection::open(db).unwrap();
    let mut st = c
        .prepare(&format!("SELECT * FROM {table} ORDER BY id"))
        .unwrap();
    let n = st.column_count();
    st.query_map([], |r| (0..n).map(|i| r.get::<_, Value>(i)).collect())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// The rows of one table.
type Rows = Vec<Vec<Value>>;

fn all_rows(db: &Path) -> (Rows, Rows, Rows) {
    (rows(db, "session"), rows(db, "message"), rows(db, "part"))
}

const COMPACT: [&str; 6] = [
    "--in-place",
    "--max-tokens",
    "2800",
    "--summarizer",
    "offline",
    "--tokenizer",
];

fn compact(env: &TestEnv, db: &Path, extra: &[&str]) -> crate::support::Run {
    env.run(&[&["compact", s(db)], &COMPACT[..], &["approx"], extra].concat())
}

#[test]
fn counts_what_opencode_sends_from_its_own_compaction_on() {
    let env = env();
    let db = db(&env, false);
    let r = env.run(&["count", s(&db), "--json", "--tokenizer", "approx"]);
    assert_eq!(r.code, 0, "{r:?}");
    // 13 rows; OpenCode sends its compaction prompt, its summary, the synthetic
    // "Continue…" and the three messages after.
    assert_eq!(r.json()["files"][0]["messages"], 6, "{r:?}");
    let by_title = env.run(&["count", s(&db), "--session", "Release notes prep"]);
    assert_eq!(by_title.code, 0, "{by_title:?}");
    let before = db_before(&env);
    let r = env.run(&["count", s(&before), "--json", "--tokenizer", "approx"]);
    // Both tool calls as a call and a result.
    assert_eq!(r.json()["files"][0]["messages"], 12, "{r:?}");
}

fn db_before(env: &TestEnv) -> PathBuf {
    let p = env.path().join("before.db");
    std::fs::copy(fixture(true), &p).unwrap();
    p
}

#[test]
fn compact_appends_opencodes_compaction_and_restore_removes_it() {
    let env = env();
    let db = db(&env, true);
    let before = all_rows(&db);
    let r = compact(&env, &db, &[]);
    assert_eq!(r.code, 0, "{r:?}");
    let after = all_rows(&db);
    assert_eq!(after.0, before.0, "the session row is not touched");
    assert_eq!(after.1.len(), before.1.len() + 2);
    assert_eq!(after.2.len(), before.2.len() + 2);
    assert!(before.1.iter().all(|m| after.1.contains(m)));
    assert!(before.2.iter().all(|p| after.2.contains(p)));
    let added: Vec<&Vec<Value>> = after.1.iter().filter(|m| !before.1.contains(m)).collect();
    let text = |v: &Value| match v {
        Value::Text(t) => t.clone(),
        _ => String::new(),
    };
    let last_id = before.1.iter().map(|m| text(&m[0])).max().unwrap();
    assert!(added.iter().all(|m| text(&m[0]) > last_id));
    assert!(added
        .iter()
        .any(|m| text(&m[4]).contains("\"summary\":true")));
    let count = env.run(&["count", s(&db), "--per-message", "--tokenizer", "approx"]);
    assert!(count.stdout.contains("What did we do so far?"), "{count:?}");
    assert!(count.stdout.contains("[ctxctl compaction 1]"), "{count:?}");

    let back = env.run(&["archive", "restore", &format!("opencode-{SID}/1")]);
    assert_eq!(back.code, 0, "{back:?}");
    assert_eq!(all_rows(&db), before);
}

#[test]
fn restore_refuses_once_opencode_wrote_after_the_compaction() {
    let env = env();
    let db = db(&env, true);
    assert_eq!(compact(&env, &db, &[]).code, 0);
    // What `opencode run --session` adds next: a user message after the summary.
    let c = Connection::open(&db).unwrap();
    c.execute(
        "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES \
         ('msg_ffffffffffff0000000000000a', ?1, 1795465999000, 1795465999000, \
         '{\"role\":\"user\",\"time\":{\"created\":1795465999000}}')",
        [SID],
    )
    .unwrap();
    drop(c);
    let snapshot = all_rows(&db);
    let back = env.run(&["archive", "restore", &format!("opencode-{SID}/1")]);
    assert_eq!(back.code, 2, "{back:?}");
    assert!(
        back.stderr.contains("after ctxctl's compaction"),
        "{back:?}"
    );
    assert_eq!(all_rows(&db), snapshot);
}

#[test]
fn a_session_opencode_may_be_running_is_refused_unless_asked() {
    // 14 seconds after the session's last update (20:17:46).
    let env = TestEnv::new().env("CTXCTL_NOW", "2026-11-23T20:18:00Z");
    let db = db(&env, true);
    let before = all_rows(&db);
    let r = compact(&env, &db, &[]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(
        r.stderr.contains("--include-live") && r.stderr.contains("14 s ago"),
        "{r:?}"
    );
    let errors = r.stderr.lines().filter(|l| l.contains("error:")).count();
    assert_eq!(errors, 1, "{r:?}");
    assert_eq!(all_rows(&db), before);
    let ls = env.run(&["archive", "ls", "--json"]);
    assert!(
        !ls.stdout.contains("opencode-"),
        "no archive is left: {ls:?}"
    );
    let forced = compact(&env, &db, &["--include-live"]);
    assert_eq!(forced.code, 0, "{forced:?}");
    assert_ne!(all_rows(&db), before);
}

#[test]
fn a_locked_database_is_read_but_not_written() {
    let env = env();
    let db = db(&env, true);
    let before = all_rows(&db);
    let holder = Connection::open(&db).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let count = env.run(&["count", s(&db)]);
    assert_eq!(count.code, 0, "{count:?}");
    let r = compact(&env, &db, &[]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(r.stderr.contains("locked"), "{r:?}");
    holder.execute_batch("ROLLBACK").unwrap();
    drop(holder);
    assert_eq!(all_rows(&db), before);
    let ls = env.run(&["archive", "ls", "--json"]);
    assert!(
        !ls.stdout.contains("opencode-"),
        "no archive is left: {ls:?}"
    );
}

#[test]
fn rewrites_opencode_cannot_express_are_refused() {
    let env = env();
    let db = db(&env, true);
    let before = all_rows(&db);
    // smart keeps the first request and drops the middle: OpenCode only drops a prefix.
    let r = env.run(&[
        "trim",
        s(&db),
        "--strategy",
        "smart",
        "--max-tokens",
        "200",
        "--tokenizer",
        "approx",
        "--in-place",
    ]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(r.stderr.contains("OpenCode cannot express"), "{r:?}");
    assert_eq!(all_rows(&db), before);
    // fifo drops the oldest messages: a compaction record with ctxctl's marker.
    let r = env.run(&[
        "trim",
        s(&db),
        "--strategy",
        "fifo",
        "--max-tokens",
        "200",
        "--tokenizer",
        "approx",
        "--in-place",
    ]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(rows(&db, "message").len(), before.1.len() + 2);
}

#[test]
fn other_databases_and_broken_rows_are_clear_errors() {
    let env = env();
    let other = env.path().join("other.db");
    Connection::open(&other)
        .unwrap()
        .execute_batch(
            "CREATE TABLE session (id TEXT); CREATE TABLE message (id TEXT); \
             CREATE TABLE part (id TEXT);",
        )
        .unwrap();
    let r = env.run(&["count", s(&other)]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(r.stderr.contains("not an OpenCode database"), "{r:?}");
    assert_eq!(r.stderr.lines().count(), 1, "{r:?}");

    let db = db(&env, false);
    Connection::open(&db)
        .unwrap()
        .execute(
            "UPDATE part SET data = '{\"type\":' WHERE id = 'prt_20a0eb1ea001tLrr0PADcAQqDh'",
            [],
        )
        .unwrap();
    let r = env.run(&["count", s(&db)]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(
        r.stderr
            .contains("prt_20a0eb1ea001tLrr0PADcAQqDh: data is not JSON"),
        "{r:?}"
    );
    assert_eq!(r.stderr.lines().count(), 1, "{r:?}");
}

#[test]
fn the_default_database_is_found_by_session_and_by_r() {
    let env = env();
    let db = env.home().join(".local/share/opencode/opencode.db");
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    std::fs::copy(fixture(true), &db).unwrap();
    let dir = db.parent().unwrap().to_path_buf();
    let r = env.run(&["check", "-r", s(&dir), "--tokenizer", "approx"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("opencode.db"), "{r:?}");
    let r = env.run(&[
        "compact",
        "--session",
        "tidy-lagoon",
        "--max-tokens",
        "2800",
        "--summarizer",
        "offline",
        "--tokenizer",
        "approx",
    ]);
    assert_eq!(r.code, 0, "{r:?}");
    let count = env.run(&["count", s(&db), "--per-message", "--tokenizer", "approx"]);
    assert!(count.stdout.contains("[ctxctl compaction 1]"), "{count:?}");
}
