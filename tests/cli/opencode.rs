//! OpenCode's SQLite session store (`opencode.db`, OpenCode ≥ 1.2): the database the real
//! OpenCode 1.18.33 wrote (tests/formats/opencode/input.db, from
//! shared/fixtures/opencode), and the same before OpenCode compacted it
//! (tests/formats/opencode/compact/input.db), read, compacted in place and restored.

use std::path::{Path, PathBuf};

use rusqlite::types::Value;
use rusqlite::Connection;

use crate::support::{archive_ids, s, TestEnv};

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
    // Rows are in id order: the old messages unchanged, then the two new ones after them.
    assert_eq!(after.1[..before.1.len()], before.1[..]);
    assert!(before.2.iter().all(|p| after.2.contains(p)));
    let added = &after.1[before.1.len()..];
    let text = |v: &Value| match v {
        Value::Text(t) => t.clone(),
        _ => String::new(),
    };
    let last_id = before.1.iter().map(|m| text(&m[0])).max().unwrap();
    assert!(added.iter().all(|m| text(&m[0]) > last_id));
    let data = |m: &Vec<Value>| serde_json::from_str::<serde_json::Value>(&text(&m[4])).unwrap();
    assert!(
        added.iter().any(|m| data(m)["summary"] == true),
        "{added:?}"
    );
    // OpenCode's compaction prompt, then ctxctl's summary.
    let count = env.run(&["count", s(&db), "--per-message", "--tokenizer", "approx"]);
    insta::assert_snapshot!(env.snap(&count));

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
    insta::assert_snapshot!(env.snap(&back));
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
    // One error, naming the session's age and --include-live.
    insta::assert_snapshot!(env.snap(&r));
    assert_eq!(all_rows(&db), before);
    assert!(archive_ids(&env).is_empty(), "no archive is left");
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
    insta::assert_snapshot!(env.snap(&r));
    holder.execute_batch("ROLLBACK").unwrap();
    drop(holder);
    assert_eq!(all_rows(&db), before);
    assert!(archive_ids(&env).is_empty(), "no archive is left");
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
    insta::assert_snapshot!(env.snap(&r));
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
    insta::assert_snapshot!("other_database", env.snap(&r));

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
    insta::assert_snapshot!("broken_row", env.snap(&r));
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
    insta::assert_snapshot!("check_r", env.snap_unaligned(&r));
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
    insta::assert_snapshot!("count_after", env.snap(&count));
}

/// The second session [`two_sessions`] adds: the first messages of the fixture's.
const SID2: &str = "ses_df5f2d654ffeKnuN9WuHea9bXk";

/// `db` with a second session: a copy of the first `messages` messages of the fixture's
/// session (and their parts) under [`SID2`], every id changed.
fn add_session(db: &Path, messages: usize) {
    let c = Connection::open(db).unwrap();
    let renamed = |id: &str| format!("{}K", &id[..id.len() - 1]);
    let ids: Vec<String> = c
        .prepare("SELECT id FROM message WHERE session_id = ?1 ORDER BY id")
        .unwrap()
        .query_map([SID], |r| r.get(0))
        .unwrap()
        .take(messages)
        .collect::<Result<_, _>>()
        .unwrap();
    c.execute_batch(&format!(
        "CREATE TEMP TABLE s AS SELECT * FROM session WHERE id = '{SID}';
         UPDATE s SET id = '{SID2}', slug = 'quiet-harbor', title = 'Short chat';
         INSERT INTO session SELECT * FROM s;
         CREATE TEMP TABLE m AS SELECT * FROM message WHERE id IN ({list});
         CREATE TEMP TABLE p AS SELECT * FROM part WHERE message_id IN ({list});
         UPDATE m SET id = substr(id, 1, length(id) - 1) || 'K', session_id = '{SID2}';
         UPDATE p SET id = substr(id, 1, length(id) - 1) || 'K',
             message_id = substr(message_id, 1, length(message_id) - 1) || 'K',
             session_id = '{SID2}';",
        list = ids
            .iter()
            .map(|i| format!("'{i}'"))
            .collect::<Vec<_>>()
            .join(", ")
    ))
    .unwrap();
    for (old, new) in ids
        .iter()
        .map(|i| (i.clone(), renamed(i)))
        .chain([(SID.to_string(), SID2.to_string())])
    {
        for t in ["m", "p"] {
            c.execute(
                &format!("UPDATE {t} SET data = replace(data, ?1, ?2)"),
                [&old, &new],
            )
            .unwrap();
        }
    }
    c.execute_batch("INSERT INTO message SELECT * FROM m; INSERT INTO part SELECT * FROM p;")
        .unwrap();
}

/// A directory holding an `opencode.db` with two sessions: the fixture's, before
/// OpenCode compacted it, and a short one.
fn two_sessions(env: &TestEnv) -> (PathBuf, PathBuf) {
    let dir = env.path().join("opencode");
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("opencode.db");
    std::fs::copy(fixture(true), &db).unwrap();
    add_session(&db, 4);
    (dir, db)
}

/// The `files[]` entry of `--json` output named `name`.
fn entry<'a>(json: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    json["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == name)
        .unwrap_or_else(|| panic!("no entry {name} in {json}"))
}

#[test]
fn r_reads_every_session_of_the_database_as_its_own_entry() {
    let env = env();
    let (dir, db) = two_sessions(&env);
    for cmd in ["count", "check", "stats"] {
        let r = env.run(&[cmd, "-r", s(&dir), "--json", "--tokenizer", "approx"]);
        assert!(r.code <= 1, "{r:?}");
        let all = r.json();
        assert_eq!(all["files"].as_array().unwrap().len(), 2, "{cmd}: {r:?}");
        for id in [SID, SID2] {
            let one = env.run(&[
                cmd,
                s(&db),
                "--session",
                id,
                "--json",
                "--tokenizer",
                "approx",
            ]);
            let mut want = one.json()["files"][0].clone();
            want["path"] = format!("{}#{id}", db.display()).into();
            let got = entry(&all, want["path"].as_str().unwrap());
            assert_eq!(got, &want, "{cmd} {id}: {r:?}");
        }
    }
    let count = env.run(&["count", "-r", s(&dir), "--json", "--tokenizer", "approx"]);
    let json = count.json();
    let tokens = |id: &str| entry(&json, &format!("{}#{id}", db.display()))["tokens"].clone();
    assert_ne!(tokens(SID), tokens(SID2), "{count:?}");
    let total = tokens(SID).as_u64().unwrap() + tokens(SID2).as_u64().unwrap();
    assert_eq!(json["total_tokens"], total, "{count:?}");
    // Human output names each session as `ctxctl sessions` does.
    let human = env.run(&["count", "-r", s(&dir), "--tokenizer", "approx"]);
    insta::assert_snapshot!(env.snap_unaligned(&human));
    // The database as a FILE reads like a directory: every session, as -r does.
    let plain = env.run(&["count", s(&db), "--json", "--tokenizer", "approx"]);
    assert_eq!(plain.code, 0, "{plain:?}");
    assert_eq!(plain.json()["files"], json["files"], "{plain:?}");
    // `--session` with -r reads that session only.
    let r = env.run(&[
        "count",
        "-r",
        s(&dir),
        "--session",
        SID2,
        "--json",
        "--tokenizer",
        "approx",
    ]);
    assert_eq!(r.json()["files"].as_array().unwrap().len(), 1, "{r:?}");
}

#[test]
fn compact_r_compacts_only_the_session_over_its_limit_and_restore_undoes_it() {
    let env = env();
    let (dir, db) = two_sessions(&env);
    let before = all_rows(&db);
    let r = env.run(&[
        "compact",
        "-r",
        s(&dir),
        "--if-needed",
        "--in-place",
        "--max-tokens",
        "2800",
        "--summarizer",
        "offline",
        "--tokenizer",
        "approx",
        "--json",
    ]);
    assert_eq!(r.code, 0, "{r:?}");
    let json = r.json();
    assert_eq!(json["files"].as_array().unwrap().len(), 2, "{r:?}");
    assert_eq!(archive_ids(&env), [format!("opencode-{SID}/1")]);
    // `sessions` counts the compacted session's archive, and none for the other.
    let listed = env.run(&["sessions", s(&dir), "--json"]).json();
    let archives_of = |sid: &str| {
        listed["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["session"] == sid)
            .map(|r| r["archives"].clone())
    };
    assert_eq!(archives_of(SID), Some(serde_json::json!(1)), "{listed}");
    assert_eq!(archives_of(SID2), Some(serde_json::json!(0)), "{listed}");
    let after = all_rows(&db);
    assert_eq!(after.1.len(), before.1.len() + 2, "two messages appended");
    let of = |rows: &Rows, sid: &str| -> usize {
        rows.iter()
            .filter(|m| m[1] == Value::Text(sid.into()))
            .count()
    };
    assert_eq!(
        of(&after.1, SID2),
        of(&before.1, SID2),
        "the short one is left"
    );
    let back = env.run(&["archive", "restore", &format!("opencode-{SID}/1")]);
    assert_eq!(back.code, 0, "{back:?}");
    assert_eq!(all_rows(&db), before);
}

#[test]
fn compact_r_leaves_a_live_session_of_the_database_alone_unless_asked() {
    // 14 seconds after the fixture session's last update; the short one is a day older.
    let env = TestEnv::new().env("CTXCTL_NOW", "2026-11-23T20:18:00Z");
    let (dir, db) = two_sessions(&env);
    Connection::open(&db)
        .unwrap()
        .execute(
            "UPDATE session SET time_updated = time_updated - 86400000 WHERE id = ?1",
            [SID2],
        )
        .unwrap();
    let args = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = [
            "compact",
            "-r",
            s(&dir),
            "--in-place",
            "--max-tokens",
            "2800",
            "--summarizer",
            "offline",
            "--tokenizer",
            "approx",
            "--json",
        ]
        .iter()
        .map(|a| a.to_string())
        .collect();
        v.extend(extra.iter().map(|a| a.to_string()));
        v
    };
    let run = |extra: &[&str]| {
        let a = args(extra);
        env.run(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let r = run(&[]);
    let json = r.json();
    let live = entry(&json, &format!("{}#{SID}", db.display()));
    assert_eq!(live["skipped"], true, "{r:?}");
    let old = entry(&json, &format!("{}#{SID2}", db.display()));
    assert_eq!(old["skipped"], false, "{r:?}");
    let forced = run(&["--include-live"]);
    let json = forced.json();
    let live = entry(&json, &format!("{}#{SID}", db.display()));
    assert_eq!(live["skipped"], false, "{forced:?}");
}

/// `DB#ID`, as `ctxctl sessions` names a database's session, is accepted wherever a FILE
/// is: the database with `--session ID`.
#[test]
fn a_database_session_is_named_as_sessions_names_it() {
    let env = env();
    let db = db(&env, false);
    let named = format!("{}#ses_df5f2d654ffeKnuN9WuHea9bXj", s(&db));
    for cmd in ["count", "check", "stats"] {
        let by_ref = env.run(&[cmd, &named, "--json", "--tokenizer", "approx"]);
        assert_eq!(by_ref.code, 0, "{cmd}: {by_ref:?}");
        let by_flag = env.run(&[
            cmd,
            s(&db),
            "--session",
            "ses_df5f2d654ffeKnuN9WuHea9bXj",
            "--json",
            "--tokenizer",
            "approx",
        ]);
        assert_eq!(by_ref.stdout, by_flag.stdout, "{cmd}");
    }
    let dry = env.run(&[
        "trim",
        &named,
        "--strategy",
        "fifo",
        "--max-tokens",
        "60",
        "--dry-run",
        "--tokenizer",
        "approx",
    ]);
    assert_ne!(dry.code, 2, "{dry:?}");
    let clash = env.run(&["count", &named, "--session", "other"]);
    assert_eq!(clash.code, 2, "{clash:?}");
    insta::assert_snapshot!(env.snap(&clash));
}
