//! goose's SQLite session store (`sessions.db`, goose ≥ 1.10): databases built at test time
//! from goose's schema and the fixture rows (tests/data/goose-sqlite/, copied from
//! shared/fixtures/goose-sqlite), read, rewritten in place and restored.

use std::path::{Path, PathBuf};

use rusqlite::types::Value;
use rusqlite::Connection;

use crate::support::{archive_ids, s, Run, TestEnv};

const SCHEMA: &str = include_str!("../data/goose-sqlite/schema-v13.sql");
const DATA: &str = include_str!("../data/goose-sqlite/data.sql");

/// A database migrated up to v13 rather than created at v13: ALTER-added columns at the
/// end (message_id, metadata_json, name …), the threads tables of migration 10.
const MIGRATED: &str = "
PRAGMA journal_mode=WAL;
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
INSERT INTO schema_version (version) VALUES (1),(2),(3),(4),(5),(6),(7),(8),(9),(10),(11),(12),(13);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, description TEXT NOT NULL DEFAULT '', working_dir TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
    accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
    schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT,
    name TEXT NOT NULL DEFAULT '', user_set_name BOOLEAN DEFAULT FALSE,
    session_type TEXT NOT NULL DEFAULT 'user', provider_name TEXT, model_config_json TEXT,
    goose_mode TEXT NOT NULL DEFAULT 'auto', thread_id TEXT, archived_at TIMESTAMP, project_id TEXT,
    accumulated_cost REAL);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
    timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER, metadata_json TEXT, message_id TEXT);
CREATE TABLE threads (id TEXT PRIMARY KEY, name TEXT);
CREATE TABLE thread_messages (thread_id TEXT, message_id TEXT);
";

/// Which schema a test database gets.
#[derive(Clone, Copy)]
enum Schema {
    Fresh,
    Migrated,
}

/// Builds a goose database at `path`: the fixture's two sessions, and 30 long turns more
/// in session 20261123_1 (so that there is something to compact).
fn build(path: &Path, schema: Schema) {
    let c = Connection::open(path).unwrap();
    c.execute_batch(match schema {
        Schema::Fresh => SCHEMA,
        Schema::Migrated => MIGRATED,
    })
    .unwrap();
    c.execute_batch(DATA).unwrap();
    for i in 0..30i64 {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        let text = format!(
            "turn {i}: {}",
            "the inventory service rounds reservations ".repeat(30)
        );
        let content = serde_json::json!([{"type": "text", "text": text}]).to_string();
        c.execute(
            "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, \
             timestamp, metadata_json) VALUES (?1, '20261123_1', ?2, ?3, ?4, '2026-11-23 20:01:00', \
             '{\"userVisible\":true,\"agentVisible\":true}')",
            rusqlite::params![format!("msg_20261123_1_pad{i:02}"), role, content, 1_795_464_100 + i * 10],
        )
        .unwrap();
    }
}

/// Every row of `table`, in row-id order, as stored.
fn rows(db: &Path, table: &str) -> Vec<Vec<Value>> {
    let c = Connection::open(db).unwrap();
    let mut st = c
        .prepare(&format!("SELECT * FROM {table} ORDER BY rowid"))
        .unwrap();
    let n = st.column_count();
    st.query_map([], |r| (0..n).map(|i| r.get::<_, Value>(i)).collect())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// `(role, metadata_json, text)` of session `id`'s rows in goose's load order.
fn history(db: &Path, id: &str) -> Vec<(String, String, String)> {
    let c = Connection::open(db).unwrap();
    let mut st = c
        .prepare(
            "SELECT role, metadata_json, content_json FROM messages WHERE session_id = ?1 \
             ORDER BY created_timestamp, id",
        )
        .unwrap();
    st.query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// A test environment whose clock is a day after the fixture's sessions (none looks live).
fn env() -> TestEnv {
    TestEnv::new().env("CTXCTL_NOW", "2026-11-24T20:00:00Z")
}

fn db(env: &TestEnv, schema: Schema) -> PathBuf {
    let p = env.path().join("sessions.db");
    build(&p, schema);
    p
}

#[test]
fn counts_what_goose_sends_and_selects_by_id_or_name() {
    let env = env();
    let db = db(&env, Schema::Fresh);
    // Session 2: goose's own compaction; the five hidden originals are not counted.
    let by_name = env.run(&["count", s(&db), "--session", "rename-max-conn", "--json"]);
    assert_eq!(by_name.code, 0, "{by_name:?}");
    let by_id = env.run(&["count", s(&db), "--session", "20261123_2", "--json"]);
    assert_eq!(by_name.stdout, by_id.stdout);
    let f = &by_id.json()["files"][0];
    assert_eq!(f["format"], "goose-db", "{f}");
    assert_eq!(f["messages"], 4, "{f}");
    assert_eq!(f["model"], "claude-sonnet-4-5", "{f}");

    // A tool output given twice, for the user and for the model: counted once.
    let one = env.run(&[
        "count",
        s(&db),
        "--session",
        "20261123_1",
        "--json",
        "--per-message",
    ]);
    assert_eq!(one.code, 0, "{one:?}");
    let v = one.json();
    let per = v["files"][0]["per_message"].as_array().unwrap().clone();
    let result = per[2]["tokens"].as_u64().unwrap();
    let ask = per[0]["tokens"].as_u64().unwrap();
    assert!(
        result < 2 * ask + 40,
        "the user-only copy was counted: {per:?}"
    );

    for cmd in ["check", "stats"] {
        let r = env.run(&[cmd, s(&db), "--session", "20261123_2"]);
        assert_eq!(r.code, 0, "{cmd}: {r:?}");
    }
}

#[test]
fn selection_errors_name_the_candidates() {
    let env = env();
    let db = db(&env, Schema::Fresh);
    let wrong = env.run(&["count", s(&db), "--session", "nope"]);
    assert_eq!(wrong.code, 2, "{wrong:?}");
    insta::assert_snapshot!("wrong", env.snap(&wrong));
    let file = env.write("s.jsonl", "{\"role\":\"user\",\"content\":\"hi\"}\n");
    let not_db = env.run(&["count", s(&file), "--session", "20261123_1"]);
    assert_eq!(not_db.code, 2, "{not_db:?}");
    insta::assert_snapshot!("not_db", env.snap(&not_db));

    // With one user session, it is the one.
    let c = Connection::open(&db).unwrap();
    c.execute(
        "UPDATE sessions SET session_type = 'sub_agent' WHERE id = '20261123_1'",
        [],
    )
    .unwrap();
    drop(c);
    let only = env.run(&["count", s(&db), "--json"]);
    assert_eq!(only.code, 0, "{only:?}");
    assert_eq!(only.json()["files"][0]["messages"], 4);
}

#[test]
fn a_database_reads_like_a_directory_of_its_sessions() {
    let env = env();
    let dir = env.path().join("goose/sessions");
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("sessions.db");
    build(&db, Schema::Fresh);
    // Named as FILE without --session: a row per session, as for a directory.
    let named = env.run(&["count", s(&db), "--tokenizer", "approx"]);
    assert_eq!(named.code, 0, "{named:?}");
    insta::assert_snapshot!(env.snap(&named));
    // Found by -r below a directory, as `ctxctl sessions` finds it.
    let walked = env.run(&[
        "count",
        "-r",
        s(&env.path().join("goose")),
        "--tokenizer",
        "approx",
    ]);
    assert_eq!(walked.code, 0, "{walked:?}");
    assert_eq!(walked.stdout, named.stdout);
    let json = env.run(&["count", "-r", s(&dir), "--json", "--tokenizer", "approx"]);
    let files = json.json()["files"].as_array().unwrap().clone();
    let paths: Vec<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
    let id = |id: &str| format!("{}#{id}", db.display());
    assert_eq!(paths, [id("20261123_2"), id("20261123_1")], "{json:?}");
    // `--session` still reads the one session, by -r too.
    let one = env.run(&["count", "-r", s(&dir), "--session", "20261123_1", "--json"]);
    assert_eq!(one.json()["files"].as_array().unwrap().len(), 1, "{one:?}");
    // The nightly job reaches them: session 1 is compacted in the database.
    let before = rows(&db, "messages").len();
    let nightly = env.run(&[
        "compact",
        "-r",
        s(&env.path().join("goose")),
        "--in-place",
        "--tail-tokens",
        "300",
    ]);
    assert_eq!(nightly.code, 0, "{nightly:?}");
    insta::assert_snapshot!("nightly", env.snap(&nightly));
    assert!(rows(&db, "messages").len() > before, "{nightly:?}");
}

/// Compacts session 1 in place and restores it: goose's compaction layout in between,
/// every row as it was after.
fn compact_and_restore(schema: Schema) {
    let env = env();
    let db = db(&env, schema);
    let before = (rows(&db, "messages"), rows(&db, "sessions"));
    let original = history(&db, "20261123_1");
    let r = env.run(&[
        "compact",
        s(&db),
        "--session",
        "20261123_1",
        "--in-place",
        "--max-tokens",
        "3000",
    ]);
    assert_eq!(r.code, 0, "{r:?}");
    let after = history(&db, "20261123_1");
    // Nothing deleted: the originals, a summary and goose's continuation message.
    assert_eq!(after.len(), original.len() + 2, "{after:#?}");
    let summary = after
        .iter()
        .position(|(_, m, _)| m.contains("\"ctxctl\"") && m.contains("compact_id"))
        .expect("a summary row");
    // The originals hidden from the model; the summary (for the model only) and goose's
    // continuation message; the tail visible to both. Both schemas give the same rows.
    let shown: Vec<String> = after
        .iter()
        .map(|(role, meta, text)| format!("{role:9} {meta}\n          {text:.100}"))
        .collect();
    insta::assert_snapshot!("history_after_compact", env.redact(&shown.join("\n")));
    // goose's last-request figure is cleared (else goose would compact again at once).
    let total: Option<i64> = Connection::open(&db)
        .unwrap()
        .query_row(
            "SELECT total_tokens FROM sessions WHERE id = '20261123_1'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(total, None);
    let count = env.run(&["count", s(&db), "--session", "20261123_1", "--json"]);
    assert_eq!(
        count.json()["files"][0]["messages"],
        (after.len() - summary) as u64
    );

    assert_eq!(archive_ids(&env), ["goose-20261123_1/1"]);
    let back = env.run(&["archive", "restore", "goose-20261123_1/1"]);
    assert_eq!(back.code, 0, "{back:?}");
    assert_eq!((rows(&db, "messages"), rows(&db, "sessions")), before);
}

#[test]
fn compact_in_place_then_restore_gives_back_every_row() {
    compact_and_restore(Schema::Fresh);
}

#[test]
fn a_migrated_database_with_columns_in_another_order_works_the_same() {
    compact_and_restore(Schema::Migrated);
}

#[test]
fn trim_hides_rows_and_restore_brings_them_back_byte_for_byte() {
    let env = env();
    let db = db(&env, Schema::Fresh);
    let before = rows(&db, "messages");
    let r = env.run(&[
        "trim",
        s(&db),
        "--session",
        "20261123_1",
        "--strategy",
        "fifo",
        "--max-tokens",
        "2000",
        "--in-place",
    ]);
    assert_eq!(r.code, 0, "{r:?}");
    let after = history(&db, "20261123_1");
    let hidden = after
        .iter()
        .filter(|(_, m, _)| m.contains("\"agentVisible\":false"))
        .count();
    assert!(hidden > 20, "{after:#?}");
    let count = env.run(&["count", s(&db), "--session", "20261123_1", "--json"]);
    assert!(
        count.json()["files"][0]["tokens"].as_u64().unwrap() <= 2000,
        "{count:?}"
    );
    let back = env.run(&["archive", "restore", "goose-20261123_1/1"]);
    assert_eq!(back.code, 0, "{back:?}");
    assert_eq!(rows(&db, "messages"), before);
}

#[test]
fn a_session_goose_may_be_running_is_refused_unless_asked() {
    // 18 seconds after session 1's last update.
    let env = TestEnv::new().env("CTXCTL_NOW", "2026-11-23T20:07:00Z");
    let db = db(&env, Schema::Fresh);
    let c = Connection::open(&db).unwrap();
    c.execute(
        "UPDATE sessions SET updated_at = '2026-11-23 20:06:42' WHERE id = '20261123_1'",
        [],
    )
    .unwrap();
    drop(c);
    let before = rows(&db, "messages");
    let args = [
        "trim",
        s(&db),
        "--session",
        "20261123_1",
        "--strategy",
        "fifo",
        "--max-tokens",
        "2000",
        "--in-place",
    ];
    let r = env.run(&args);
    assert_eq!(r.code, 2, "{r:?}");
    insta::assert_snapshot!(env.snap(&r));
    assert_eq!(rows(&db, "messages"), before);
    assert!(archive_ids(&env).is_empty(), "no archive is left");
    let forced = env.run(&[&args[..], &["--include-live"]].concat());
    assert_eq!(forced.code, 0, "{forced:?}");
    assert_ne!(rows(&db, "messages"), before);
}

#[test]
fn a_locked_database_is_read_but_not_written() {
    let env = env();
    let db = db(&env, Schema::Fresh);
    let before = rows(&db, "messages");
    let holder = Connection::open(&db).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let count = env.run(&["count", s(&db), "--session", "20261123_1"]);
    assert_eq!(count.code, 0, "{count:?}");
    let r = env.run(&[
        "compact",
        s(&db),
        "--session",
        "20261123_1",
        "--in-place",
        "--max-tokens",
        "3000",
    ]);
    assert_eq!(r.code, 2, "{r:?}");
    insta::assert_snapshot!(env.snap(&r));
    holder.execute_batch("ROLLBACK").unwrap();
    drop(holder);
    assert_eq!(rows(&db, "messages"), before);
    assert!(archive_ids(&env).is_empty(), "no archive is left");
}

#[test]
fn other_databases_and_broken_rows_are_clear_errors() {
    let env = env();
    let other = env.path().join("other.db");
    Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);")
        .unwrap();
    let r = env.run(&["count", s(&other)]);
    assert_eq!(r.code, 2, "{r:?}");
    insta::assert_snapshot!("other_database", env.snap(&r));
    let mut junk = b"SQLite format 3\0".to_vec();
    junk.extend(std::iter::repeat_n(7u8, 5000));
    let junk = env.write("junk.db", junk);
    let r = env.run(&["count", s(&junk)]);
    assert_eq!(r.code, 2, "{r:?}");
    insta::assert_snapshot!("junk", env.snap(&r));

    let db = db(&env, Schema::Fresh);
    Connection::open(&db)
        .unwrap()
        .execute(
            "UPDATE messages SET content_json = '[{\"type\":' WHERE id = 3",
            [],
        )
        .unwrap();
    let r = env.run(&["count", s(&db), "--session", "20261123_1"]);
    assert_eq!(r.code, 2, "{r:?}");
    insta::assert_snapshot!("broken_row", env.snap(&r));
}

#[test]
fn compact_name_finds_the_session_in_gooses_own_database() {
    let env = env();
    let db = env.home().join(".local/share/goose/sessions/sessions.db");
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    build(&db, Schema::Fresh);
    let r = env.run(&[
        "compact",
        "--name",
        "Fix failing inventory test",
        "--max-tokens",
        "3000",
    ]);
    assert_eq!(r.code, 0, "{r:?}");
    insta::assert_snapshot!("by_name", env.snap(&r));
    // GOOSE_PATH_ROOT moves goose's files: no database there.
    // `--session` alone finds goose's default database too (session 2's rows of goose's own
    // compaction share one timestamp, which a summary cannot be placed inside: see the
    // placement test in formats::goose_db).
    let moved = env.run(&["compact", "--session", "20261123_1", "--max-tokens", "3000"]);
    assert_eq!(moved.code, 0, "{moved:?}");
    let root = env.path().join("goose-root");
    let r = env
        .command(&["compact", "--session", "20261123_2"])
        .env("GOOSE_PATH_ROOT", &root)
        .output()
        .unwrap();
    // The error names the database under GOOSE_PATH_ROOT.
    insta::assert_snapshot!("moved_root", env.snap(&Run::from(r)));
}
