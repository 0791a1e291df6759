//! `ctxctl sessions` over a home laid out as each agent lays it out (real fixture files of
//! Claude Code, Codex, Gemini CLI and goose, JSONL and SQLite), and the same filters on the
//! recursive runs of `check` and `count`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use serde_json::Value;

use crate::support::{fixture, sample, TestEnv};

/// The run's clock (`CTXCTL_NOW`): 2026-12-01T00:00:00Z, a week after goose's sessions.
const NOW: u64 = 1_796_083_200;
const HOUR: u64 = 3600;
const DAY: u64 = 86_400;
const SID: &str = "6f6d54f7-951d-42ac-8933-70040b0f9725";

fn copy(env: &TestEnv, from: &Path, to: &str, age: u64) -> PathBuf {
    let p = env.write(to, std::fs::read(from).unwrap());
    age_file(&p, age);
    p
}

fn age_file(p: &Path, age: u64) {
    let t = UNIX_EPOCH + Duration::from_secs(NOW - age);
    std::fs::File::options()
        .write(true)
        .open(p)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

/// A home with every agent's store: a Claude Code session (1 h old) with a subagent
/// transcript and its metadata, a broken Claude Code file (2 h), a Codex rollout (3 d), a
/// Gemini CLI session (10 d) with its projects.json, a goose ≤ 1.9 JSONL session (40 d)
/// and goose's sessions.db with two sessions (updated 2026-11-23, about 7 d).
fn agent_home() -> TestEnv {
    let env = TestEnv::new().env("CTXCTL_NOW", "2026-12-01T00:00:00Z");
    let claude = ".claude/projects/-home-dev-calc";
    let cc = |n: &str| {
        fixture(&format!(
            "realclients/claude-code/realclient_v2.1.197_{n}.jsonl"
        ))
    };
    copy(
        &env,
        &cc("session"),
        &format!("home/{claude}/{SID}.jsonl"),
        HOUR,
    );
    copy(
        &env,
        &cc("subagent"),
        &format!("home/{claude}/{SID}/subagents/agent-a1b2.jsonl"),
        HOUR,
    );
    env.write(
        &format!("home/{claude}/{SID}/subagents/agent-a1b2.meta.json"),
        r#"{"agentType":"general-purpose"}"#,
    );
    let bad = env.write(
        &format!("home/{claude}/broken.jsonl"),
        "{\"type\":\"user\",\n",
    );
    age_file(&bad, 2 * HOUR);
    copy(
        &env,
        &fixture("realclients/codex/realclient_v0.169_rollout_tasks.jsonl"),
        "home/.codex/sessions/2026/11/28/rollout-2026-11-28T00-00-00-a.jsonl",
        3 * DAY,
    );
    let gemini = fixture("gemini-cli/run-a/session-2026-11-23T20-14-f3111096.jsonl");
    copy(
        &env,
        &gemini,
        "home/.gemini/tmp/proj/chats/session-2026-11-23T20-14-f3111096.jsonl",
        10 * DAY,
    );
    copy(
        &env,
        &fixture("gemini-cli/projects.json"),
        "home/.gemini/projects.json",
        10 * DAY,
    );
    let goose = "home/.local/share/goose/sessions";
    copy(
        &env,
        &sample("goose.jsonl"),
        &format!("{goose}/shop.jsonl"),
        40 * DAY,
    );
    let db = env.path().join(goose).join("sessions.db");
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch(include_str!("../data/goose-sqlite/schema-v13.sql"))
        .unwrap();
    c.execute_batch(include_str!("../data/goose-sqlite/data.sql"))
        .unwrap();
    drop(c);
    env
}

fn sessions(run: &crate::support::Run) -> Vec<Value> {
    run.json()["sessions"].as_array().unwrap().clone()
}

/// Each listed session as `agent:file name[#session]`.
fn names(rows: &[Value]) -> Vec<String> {
    rows.iter()
        .map(|r| {
            let file = Path::new(r["path"].as_str().unwrap())
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            match r["session"].as_str() {
                Some(id) => format!("{}:{file}#{id}", r["agent"].as_str().unwrap()),
                None => format!("{}:{file}", r["agent"].as_str().unwrap()),
            }
        })
        .collect()
}

fn set(rows: &[Value]) -> BTreeSet<String> {
    names(rows).into_iter().collect()
}

#[test]
fn every_agents_sessions_are_listed_from_their_default_stores() {
    let env = agent_home();
    let run = env.run(&["sessions", "--json"]);
    // The broken file is listed with its error and reported; the others are measured.
    assert_eq!(run.code, 2, "{run:?}");
    insta::assert_snapshot!("stderr", env.redact(&run.stderr));
    let rows = sessions(&run);
    assert_eq!(
        names(&rows),
        [
            format!("claude-code:{SID}.jsonl"),
            "unknown:broken.jsonl".to_string(),
            "codex:rollout-2026-11-28T00-00-00-a.jsonl".to_string(),
            "goose:sessions.db#20261123_2".to_string(),
            "goose:sessions.db#20261123_1".to_string(),
            "gemini-cli:session-2026-11-23T20-14-f3111096.jsonl".to_string(),
            "goose:shop.jsonl".to_string(),
        ],
        "newest first: {run:?}"
    );
    let by = |name: &str| {
        rows.iter()
            .find(|r| r["path"].as_str().unwrap().ends_with(name))
            .unwrap()
    };
    let claude = by(&format!("{SID}.jsonl"));
    assert_eq!(claude["project"], "/home/dev/calc");
    assert_eq!(claude["format"], "claude-code");
    assert_eq!(claude["status"], "ok");
    assert_eq!(claude["last_activity"], "2026-11-30T23:00:00Z");
    let subs = claude["subagents"].as_array().unwrap();
    assert_eq!(subs.len(), 1, "the subagent is folded into its parent");
    assert!(subs[0]
        .as_str()
        .unwrap()
        .ends_with("subagents/agent-a1b2.jsonl"));
    assert_eq!(
        by("rollout-2026-11-28T00-00-00-a.jsonl")["project"],
        "/home/dev/work"
    );
    assert_eq!(
        by("f3111096.jsonl")["project"],
        "/home/dev/proj",
        "Gemini's project directory comes from its projects.json"
    );
    assert_eq!(by("shop.jsonl")["project"], "/home/dev/shop");
    let db: Vec<&Value> = rows.iter().filter(|r| r["format"] == "goose-db").collect();
    assert_eq!(db.len(), 2, "one row per database session");
    assert_eq!(db[0]["last_activity"], "2026-11-23T21:01:09Z");
    assert_eq!(db[0]["project"], "/home/dev/shop");
    let broken = by("broken.jsonl");
    assert_eq!(broken["status"], "error");
    insta::assert_snapshot!(
        "broken_error",
        env.redact(broken["error"].as_str().unwrap())
    );
    assert!(broken["next_request_tokens"].is_null());
    for r in rows.iter().filter(|r| r["status"] != "error") {
        for field in [
            "messages",
            "next_request_tokens",
            "context_window",
            "effective_limit",
        ] {
            assert!(r[field].as_u64().is_some_and(|n| n > 0), "{field}: {r}");
        }
        assert_eq!(r["archives"], 0);
    }
}

#[test]
fn figures_are_checks_and_archives_are_counted() {
    let env = agent_home();
    let codex = "home/.codex/sessions/2026/11/28/rollout-2026-11-28T00-00-00-a.jsonl";
    let check = env.run(&["check", codex, "--json"]).file();
    let run = env.run(&["sessions", "home/.codex", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let rows = sessions(&run);
    assert_eq!(rows.len(), 1, "only the given root is searched");
    for field in [
        "next_request_tokens",
        "context_window",
        "effective_limit",
        "usage",
        "status",
    ] {
        assert_eq!(rows[0][field], check[field], "{field}");
    }
    // A compaction archives the original under the file's stem: the listing counts it.
    let compact = env.run(&["compact", codex, "--in-place", "--tail-tokens", "200"]);
    assert_eq!(compact.code, 0, "{compact:?}");
    let rows = sessions(&env.run(&["sessions", "home/.codex", "--json"]));
    assert_eq!(rows[0]["archives"], 1, "{rows:?}");
}

#[test]
fn sorting_by_any_column_and_reversed() {
    let env = agent_home();
    let tokens = |args: &[&str]| -> Vec<u64> {
        let mut all = vec!["sessions", "--json", "--status", "ok,compact,over"];
        all.extend_from_slice(args);
        sessions(&env.run(&all))
            .iter()
            .map(|r| r["next_request_tokens"].as_u64().unwrap())
            .collect()
    };
    let down = tokens(&["--sort", "tokens"]);
    assert_eq!(down.len(), 6);
    assert!(down.windows(2).all(|w| w[0] >= w[1]), "{down:?}");
    let up = tokens(&["--sort", "tokens", "--reverse"]);
    assert_eq!(up, down.iter().rev().copied().collect::<Vec<_>>());
    let agents: Vec<String> = sessions(&env.run(&["sessions", "--json", "--sort", "agent"]))
        .iter()
        .map(|r| r["agent"].as_str().unwrap().to_string())
        .collect();
    let mut sorted = agents.clone();
    sorted.sort();
    assert_eq!(agents, sorted);
    let messages: Vec<u64> = sessions(&env.run(&["sessions", "--json", "--sort", "messages"]))
        .iter()
        .filter_map(|r| r["messages"].as_u64())
        .collect();
    assert!(messages.windows(2).all(|w| w[0] >= w[1]), "{messages:?}");
    let bad = env.run(&["sessions", "--sort", "colour"]);
    assert_eq!(bad.code, 2, "{bad:?}");
}

#[test]
fn each_filter_keeps_what_it_names() {
    let env = agent_home();
    let listed = |args: &[&str]| -> BTreeSet<String> {
        let mut all = vec!["sessions", "--json"];
        all.extend_from_slice(args);
        set(&sessions(&env.run(&all)))
    };
    let s = |items: &[&str]| -> BTreeSet<String> { items.iter().map(|s| s.to_string()).collect() };
    let db = [
        "goose:sessions.db#20261123_1",
        "goose:sessions.db#20261123_2",
    ];
    assert_eq!(
        listed(&["--agent", "codex"]),
        s(&["codex:rollout-2026-11-28T00-00-00-a.jsonl"])
    );
    let mut goose = s(&db);
    goose.insert("goose:shop.jsonl".into());
    assert_eq!(listed(&["--agent", "goose"]), goose, "JSONL and database");
    assert_eq!(
        listed(&["--project", "CALC"]),
        s(&[&format!("claude-code:{SID}.jsonl")]),
        "a substring in any case"
    );
    assert_eq!(
        listed(&["--project", "/home/dev/pro*"]),
        s(&["gemini-cli:session-2026-11-23T20-14-f3111096.jsonl"]),
        "a glob of the whole directory"
    );
    assert_eq!(
        listed(&["--since", "1d"]),
        s(&[&format!("claude-code:{SID}.jsonl"), "unknown:broken.jsonl"])
    );
    assert_eq!(listed(&["--older-than", "30d"]), s(&["goose:shop.jsonl"]));
    let mid = listed(&["--since", "8d", "--older-than", "2d"]);
    let mut want = s(&db);
    want.insert("codex:rollout-2026-11-28T00-00-00-a.jsonl".into());
    assert_eq!(mid, want);
    assert_eq!(listed(&["--status", "error"]), s(&["unknown:broken.jsonl"]));
    assert_eq!(listed(&["--glob", "*.db"]), s(&db));
    let all = listed(&[]);
    let no_db = listed(&["--exclude", "*.db", "--exclude", "broken*"]);
    assert!(no_db.is_subset(&all), "{no_db:?}");
    let mut excluded = s(&db);
    excluded.insert("unknown:broken.jsonl".into());
    assert_eq!(&all - &no_db, excluded);
    // --min-tokens: the sessions at or above the Codex session's figure.
    let rows = sessions(&env.run(&["sessions", "--json", "--agent", "codex"]));
    let codex = rows[0]["next_request_tokens"].as_u64().unwrap();
    let big = sessions(&env.run(&["sessions", "--json", "--min-tokens", &codex.to_string()]));
    assert!(big
        .iter()
        .all(|r| r["next_request_tokens"].as_u64().unwrap() >= codex));
    assert!(set(&big).contains("codex:rollout-2026-11-28T00-00-00-a.jsonl"));
    assert!(big.len() < all.len());
    let unknown = env.run(&["sessions", "--agent", "cursor"]);
    assert_eq!(unknown.code, 2, "{unknown:?}");
    insta::assert_snapshot!("unknown_agent", env.snap(&unknown));
}

#[test]
fn the_agents_own_variables_move_their_stores() {
    let env = agent_home();
    let elsewhere = env.path().join("codex-home");
    std::fs::rename(env.home().join(".codex"), &elsewhere).unwrap();
    let env = env.env("CODEX_HOME", elsewhere.to_str().unwrap());
    let rows = sessions(&env.run(&["sessions", "--json", "--agent", "codex"]));
    assert_eq!(rows.len(), 1);
    let path = Path::new(rows[0]["path"].as_str().unwrap());
    assert!(path.starts_with(&elsewhere), "{path:?}");
}

#[test]
fn tsv_has_a_header_and_raw_numbers_and_sorts_with_sort_n() {
    let env = agent_home();
    let run = env.run(&["sessions", "--tsv", "--status", "ok,compact,over"]);
    assert_eq!(run.code, 0, "{run:?}");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "agent\tproject\tlast_activity\tmessages\tnext_request_tokens\teffective_limit\tusage\tstatus\tarchives\tsubagents\tpath"
    );
    assert_eq!(lines.len(), 7, "{run:?}");
    for line in &lines[1..] {
        let cells: Vec<&str> = line.split('\t').collect();
        assert_eq!(cells.len(), 11, "{line}");
        for n in [3, 4, 5, 8, 9] {
            assert!(cells[n].parse::<u64>().is_ok(), "raw integer: {line}");
        }
        assert!(cells[6].parse::<f64>().is_ok(), "{line}");
    }
    // No thousands separators.
    insta::assert_snapshot!("tsv", env.snap(&run));
    // The human table of the same run has them, and shows paths under the home with ~.
    let human = env.run(&["sessions", "--status", "ok,compact,over"]);
    insta::assert_snapshot!("human", env.snap_unaligned(&human));
    let sorted = env
        .shell("ctxctl sessions --tsv --status ok | tail -n +2 | sort -t '\t' -k5,5 -n | cut -f5");
    let figures: Vec<u64> = sorted.stdout.lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(figures.len(), 6, "{sorted:?}");
    assert!(figures.windows(2).all(|w| w[0] <= w[1]), "{figures:?}");
}

#[test]
fn a_second_run_answers_unchanged_files_from_the_cache() {
    let env = agent_home();
    let cold = env.run(&["sessions", "-v", "--status", "ok"]);
    assert_eq!(cold.code, 0, "{cold:?}");
    assert!(cold.stderr.contains("tokenizer built"), "{cold:?}");
    let warm = env.run(&["sessions", "-v", "--status", "ok"]);
    assert_eq!(warm.stdout, cold.stdout);
    // The four session files are answered from their digests; only goose's database
    // (not a file of its own) is read again, its counts from the token cache.
    assert_eq!(
        warm.stderr
            .matches("unchanged since its last check")
            .count(),
        4,
        "{warm:?}"
    );
    assert!(!warm.stderr.contains("tokenizer built"), "{warm:?}");
    // A changed file is read again, the others still come from the cache.
    let shop = env.home().join(".local/share/goose/sessions/shop.jsonl");
    let mut text = std::fs::read_to_string(&shop).unwrap();
    text.push_str("{\"id\":null,\"role\":\"user\",\"created\":1773479999,\"content\":[{\"type\":\"text\",\"text\":\"one more thing\"}]}\n");
    std::fs::write(&shop, text).unwrap();
    age_file(&shop, 40 * DAY);
    let again = env.run(&["sessions", "-v", "--status", "ok"]);
    assert_eq!(
        again
            .stderr
            .matches("unchanged since its last check")
            .count(),
        3,
        "{again:?}"
    );
}

#[test]
fn a_second_run_lists_unchanged_files_without_opening_them_and_sees_a_changed_head() {
    let env = agent_home();
    // Their change times old enough to vouch for them (they cannot be set back: waited
    // out), the files' heads are kept by the first run.
    std::thread::sleep(Duration::from_millis(2100));
    let cold = env.run(&["sessions", "-vv", "--json"]);
    let kept = "as its head said before (unchanged; not opened)";
    assert!(!cold.stderr.contains(kept), "{cold:?}");
    let warm = env.run(&["sessions", "-vv", "--json"]);
    assert_eq!(warm.stdout, cold.stdout);
    // The Codex, Gemini CLI and goose JSONL files. Not goose's database (its sessions are
    // rows), nor the two Claude Code files: their mtimes are hours before this home's
    // clock (CTXCTL_NOW), days ahead of the real one, and a time in the future never
    // vouches for a file.
    for file in [
        "rollout-2026-11-28T00-00-00-a.jsonl",
        "f3111096.jsonl",
        "shop.jsonl",
    ] {
        assert!(
            warm.stderr
                .lines()
                .any(|l| l.contains(file) && l.contains(kept)),
            "{file}: {warm:?}"
        );
    }
    let files = 3;
    assert_eq!(warm.stderr.matches(kept).count(), files, "{warm:?}");

    // The Codex rollout now names another working directory, its mtime put back: its
    // change time moved, so its head is read again and the new project listed.
    let rollout = env
        .home()
        .join(".codex/sessions/2026/11/28/rollout-2026-11-28T00-00-00-a.jsonl");
    let text = std::fs::read_to_string(&rollout).unwrap();
    let project = |run: &crate::support::Run| {
        sessions(run)
            .iter()
            .find(|r| r["agent"] == "codex")
            .map(|r| r["project"].as_str().unwrap_or("").to_string())
            .unwrap()
    };
    let before = project(&warm);
    assert!(text.contains(&format!("\"cwd\":\"{before}\"")), "{before}");
    let moved = before.replace('/', "/x");
    std::fs::write(&rollout, text.replacen(&before, &moved, 1)).unwrap();
    age_file(&rollout, 3 * DAY);
    let again = env.run(&["sessions", "-vv", "--json"]);
    assert_eq!(project(&again), moved, "{again:?}");
    assert_eq!(again.stderr.matches(kept).count(), files - 1, "{again:?}");
    // Without the cache nothing is kept, and the listing is the same.
    let bare = env.run(&["sessions", "-vv", "--json", "--no-cache"]);
    assert!(!bare.stderr.contains(kept), "{bare:?}");
    assert_eq!(bare.stdout, again.stdout);
}

#[test]
fn a_warm_listing_never_shows_a_file_grown_or_replaced_since_it_was_indexed() {
    let env = agent_home();
    // Their change times old enough to vouch for them (waited out, as above).
    std::thread::sleep(Duration::from_millis(2100));
    let indexed = "as the listing index saw them; not read";
    let cold = env.run(&["sessions", "-vv", "--json"]);
    assert!(!cold.stderr.contains(indexed), "{cold:?}");
    let warm = env.run(&["sessions", "-vv", "--json"]);
    assert_eq!(warm.stdout, cold.stdout);
    let shop = env.home().join(".local/share/goose/sessions/shop.jsonl");
    let from_index = |run: &crate::support::Run| {
        run.stderr
            .lines()
            .any(|l| l.contains("shop.jsonl") && l.contains(indexed))
    };
    assert!(from_index(&warm), "{warm:?}");
    let messages = |run: &crate::support::Run| {
        sessions(run)
            .iter()
            .find(|r| r["path"].as_str().unwrap_or("").ends_with("shop.jsonl"))
            .map(|r| r["messages"].as_u64().unwrap())
            .unwrap()
    };
    let mtime = std::fs::metadata(&shop).unwrap().modified().unwrap();
    let put_back = |p: &Path| {
        std::fs::File::options()
            .write(true)
            .open(p)
            .unwrap()
            .set_modified(mtime)
            .unwrap()
    };
    // Grown by one message, its modification time put back as it was.
    let mut text = std::fs::read_to_string(&shop).unwrap();
    text.push_str("{\"id\":null,\"role\":\"user\",\"created\":1773479999,\"content\":[{\"type\":\"text\",\"text\":\"one more thing\"}]}\n");
    std::fs::write(&shop, &text).unwrap();
    put_back(&shop);
    let grown = env.run(&["sessions", "-vv", "--json"]);
    assert!(!from_index(&grown), "{grown:?}");
    assert_eq!(messages(&grown), messages(&warm) + 1, "{grown:?}");
    let bare = env.run(&["sessions", "--json", "--no-cache"]);
    assert_eq!(grown.stdout, bare.stdout);
    // Replaced by another file of the same length and modification time (renamed over
    // it, as editors and rewrites do): another inode, read again.
    std::thread::sleep(Duration::from_millis(2100));
    // Hashed, found unchanged and indexed by one run; answered by the index in the next.
    let hashed = env.run(&["sessions", "-vv", "--json"]);
    assert!(!from_index(&hashed), "{hashed:?}");
    let again = env.run(&["sessions", "-vv", "--json"]);
    assert!(
        from_index(&again),
        "indexed again once old enough: {again:?}"
    );
    let other = text.replace("one more thing", "two more word");
    let other = format!("{other}{}", " ".repeat(text.len() - other.len()));
    assert_eq!(other.len(), text.len());
    let tmp = shop.with_extension("tmp");
    std::fs::write(&tmp, &other).unwrap();
    put_back(&tmp);
    std::fs::rename(&tmp, &shop).unwrap();
    let replaced = env.run(&["sessions", "-vv", "--json"]);
    assert!(!from_index(&replaced), "{replaced:?}");
    let bare = env.run(&["sessions", "--json", "--no-cache"]);
    assert_eq!(replaced.stdout, bare.stdout);
    // A damaged index is ignored, and the listing is the same.
    let index = env.home().join(".cache/ctxctl/digests/listing");
    assert!(index.exists());
    std::fs::write(&index, "not an index").unwrap();
    let damaged = env.run(&["sessions", "--json"]);
    assert_eq!(damaged.code, bare.code, "{damaged:?}");
    assert_eq!(damaged.stdout, bare.stdout);
}

#[test]
fn walks_of_a_home_leave_ctxctl_s_own_cache_and_archives_alone() {
    let env = agent_home();
    // The first run fills the cache under the home (digests are JSON files)…
    let first = env.run(&[
        "check",
        "-r",
        "home",
        "--exclude",
        "broken*",
        "--exclude",
        "projects.json",
        "--json",
    ]);
    assert_eq!(first.code, 0, "{first:?}");
    assert!(
        std::fs::read_dir(env.home().join(".cache/ctxctl/digests"))
            .unwrap()
            .next()
            .is_some(),
        "the check wrote digests under the home"
    );
    // …and an uncompressed archive in the data dir under it is JSON too.
    let archives = env.home().join(".local/share/ctxctl/archives/s");
    std::fs::create_dir_all(&archives).unwrap();
    std::fs::write(archives.join("trim-1.json"), "{\"version\":1}").unwrap();
    // The next walk takes none of them for a session.
    for _ in 0..2 {
        let run = env.run(&[
            "check",
            "-r",
            "home",
            "--exclude",
            "broken*",
            "--exclude",
            "projects.json",
            "--json",
        ]);
        assert_eq!(run.code, 0, "{run:?}");
        assert_eq!(run.json()["files"], first.json()["files"], "{run:?}");
    }
}

#[test]
fn recursive_runs_take_the_same_filters_and_plain_directories() {
    let env = agent_home();
    // A directory given as FILE is walked as with -r.
    let run = env.run(&["check", "home", "--agent", "codex", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let files = run.json()["files"].as_array().unwrap().clone();
    assert_eq!(files.len(), 1, "{run:?}");
    assert!(files[0]["path"]
        .as_str()
        .unwrap()
        .ends_with("/rollout-2026-11-28T00-00-00-a.jsonl"));
    let run = env.run(&["count", "-r", "home", "--project", "shop", "--tsv"]);
    assert_eq!(run.code, 0, "{run:?}");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "tokens\tmessages\tnext_request_tokens\tcontext_window\tformat\tmodel\ttokenizer\tpath"
    );
    // goose's JSONL session and the two of its database, as `ctxctl sessions` finds them.
    assert_eq!(lines.len(), 4, "goose's sessions only: {run:?}");
    assert!(lines[1].ends_with("sessions.db#20261123_2"), "{run:?}");
    assert!(lines[3].ends_with("shop.jsonl"), "{run:?}");
    let run = env.run(&[
        "check",
        "-r",
        "home",
        "--since",
        "2d",
        "--exclude",
        "broken*",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let recent: Vec<String> = run.json()["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        recent,
        [format!("home/.claude/projects/-home-dev-calc/{SID}.jsonl")],
        "{run:?}"
    );
    // Result filters: check leaves out what --min-tokens and --status do not keep.
    let run = env.run(&[
        "check",
        "-r",
        "home/.codex",
        "--min-tokens",
        "100000000",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.json(), serde_json::json!({"files": []}));
    // Nothing to do is not an error for a batch (cron on a quiet night).
    let none = env.run(&["count", "-r", "home", "--project", "nowhere"]);
    assert_eq!(none.code, 0, "{none:?}");
    insta::assert_snapshot!("nothing_matches", env.snap(&none));
    // A file named on the command line is taken whatever the filters.
    let named = env.run(&[
        "count",
        "home/.local/share/goose/sessions/shop.jsonl",
        "--agent",
        "codex",
    ]);
    assert_eq!(named.code, 0, "{named:?}");
}

#[test]
fn tables_of_other_commands_print_raw_numbers_with_tsv() {
    let env = TestEnv::new();
    let models = env.run(&["models", "gpt-4o", "--tsv"]);
    assert_eq!(models.code, 0, "{models:?}");
    let mut lines = models.stdout.lines();
    assert_eq!(
        lines.next(),
        Some("id\tcontext_window\tmax_output_tokens\ttokenizer\texact")
    );
    assert!(
        lines.any(|l| l.starts_with("gpt-4o\t128000\t16384\t")),
        "{models:?}"
    );
    let stats = env.run(&[
        "stats",
        sample("claude-code.jsonl").to_str().unwrap(),
        "--tsv",
    ]);
    assert_eq!(stats.code, 0, "{stats:?}");
    let blocks: Vec<&str> = stats.stdout.trim_end().split("\n\n").collect();
    assert_eq!(blocks.len(), 3, "{stats:?}");
    assert!(blocks[0].starts_with("path\trole\tmessages\ttokens\tshare\n"));
    assert!(blocks[1].starts_with("path\ttool\tcalls\tcall_tokens\tresult_tokens\terrors"));
    assert!(blocks[2].starts_with("path\tindex\trole\ttokens\ttext\n"));
    let check = env.run(&["check", sample("codex.jsonl").to_str().unwrap(), "--tsv"]);
    assert!(
        check
            .stdout
            .starts_with("status\tnext_request_tokens\teffective_limit\t"),
        "{check:?}"
    );
    let both = env.run(&["models", "--tsv", "--json"]);
    assert_eq!(both.code, 2, "{both:?}");
}

#[test]
fn opencode_sessions_are_listed_from_its_database() {
    let env = TestEnv::new().env("CTXCTL_NOW", "2026-12-01T00:00:00Z");
    copy(
        &env,
        &fixture("opencode/opencode.db"),
        "home/.local/share/opencode/opencode.db",
        DAY,
    );
    let run = env.run(&["sessions", "--json", "--agent", "opencode"]);
    assert_eq!(run.code, 0, "{run:?}");
    let rows = sessions(&run);
    assert_eq!(rows.len(), 1, "{rows:?}");
    let row = &rows[0];
    assert_eq!(row["agent"], "opencode");
    assert_eq!(row["format"], "opencode");
    assert_eq!(row["session"], "ses_df5f2d654ffeKnuN9WuHea9bXj");
    assert_eq!(row["project"], "/home/dev/oc/proj");
    assert!(row["next_request_tokens"].as_u64().unwrap() > 0, "{row}");
    // The figure is check's, for the same session.
    let db = env.path().join("home/.local/share/opencode/opencode.db");
    let check = env
        .run(&[
            "check",
            db.to_str().unwrap(),
            "--session",
            "ses_df5f2d654ffeKnuN9WuHea9bXj",
            "--json",
        ])
        .file();
    assert_eq!(row["next_request_tokens"], check["next_request_tokens"]);
}

/// Runs `ctxctl ARGS` on a pseudo-terminal (script(1), util-linux) `columns` wide: what the
/// terminal showed, line by line.
fn on_a_terminal(env: &TestEnv, args: &str, columns: &str) -> Vec<String> {
    let bin = env!("CARGO_BIN_EXE_ctxctl");
    let mut cmd = std::process::Command::new("script");
    cmd.env_clear();
    for (k, v) in env.vars() {
        cmd.env(k, v);
    }
    let out = cmd
        .env("TERM", "dumb")
        .env("COLUMNS", columns)
        .args(["-qfec", &format!("{bin} {args}"), "/dev/null"])
        .current_dir(env.path())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("script(1) runs");
    // Exit 2: the home holds a broken session.
    assert_eq!(out.status.code(), Some(2), "script: {out:?}");
    let text = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    text.lines().map(str::to_string).collect()
}

/// The usage is a share of the limit the table shows; on a terminal the rows fit its width
/// (the path cut from its start), and piped nothing is cut.
#[test]
fn the_usage_is_of_the_limit_shown_and_rows_fit_the_terminal() {
    let env = agent_home();
    let piped = env.run(&["sessions"]);
    assert_eq!(piped.code, 2, "the home holds a broken session: {piped:?}");
    // The limit column, not the window; nothing cut when piped.
    insta::assert_snapshot!("piped", env.snap_unaligned(&piped));
    let json = env.run(&["sessions", "--json"]).json();
    for s in json["sessions"].as_array().unwrap() {
        let (Some(tokens), Some(limit)) = (
            s["next_request_tokens"].as_f64(),
            s["effective_limit"].as_f64(),
        ) else {
            continue;
        };
        let usage = s["usage"].as_f64().unwrap();
        assert!((usage - tokens / limit).abs() < 1e-3, "{s}");
        let mut name = s["path"]
            .as_str()
            .unwrap()
            .rsplit('/')
            .next()
            .unwrap()
            .to_string();
        if let Some(id) = s["session"].as_str() {
            name = format!("{name}#{id}");
        }
        let row = piped.stdout.lines().find(|l| l.ends_with(&name));
        let row = row.unwrap_or_else(|| panic!("no row for {s}: {piped:?}"));
        let shown = thousands(limit as u64);
        assert!(row.contains(&format!(" {shown} ")), "{row} shows {shown}");
    }
    let widest = piped
        .stdout
        .lines()
        .map(|l| l.chars().count())
        .max()
        .unwrap();
    assert!(widest > 100, "the paths are long: {piped:?}");
    let shown = on_a_terminal(&env, "sessions --no-progress", "120");
    let rows: Vec<&String> = (shown.iter())
        .filter(|l| !l.contains("session(s)") && !l.starts_with("ctxctl: "))
        .collect();
    assert_eq!(rows.len(), piped.stdout.lines().count(), "{shown:?}");
    for row in &rows {
        assert!(
            row.chars().count() <= 120,
            "{row:?} is wider than the terminal"
        );
    }
    assert!(rows.iter().skip(1).all(|r| r.contains('…')), "{shown:?}");
}

/// `12345` → `12,345`, as tables show counts.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
