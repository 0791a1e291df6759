//! `ctxctl config`: every setting of the config file and the environment, with its value
//! and where it came from.

use serde_json::Value;

use crate::support::{s, TestEnv};

/// A config file that sets every key the file accepts (the example config in docs/CONFIG.md lists
/// them too).
const EVERY_KEY: &str = r#"
default_model = "gpt-4o"
tokenizer = "o200k_base"
threshold = 0.7
reserved = 100
reserve_output = 2000
data_dir = "DATA"
count_with = "local"

[count_api]
base_url = "http://127.0.0.1:9/"
timeout_secs = 4

[compact]
summarizer = "offline"
tail_ratio = 0.3
tail_tokens = 5000
summary_tokens = 900
live_secs = 60

[llm]
provider = "anthropic"
base_url = "http://127.0.0.1:9/"
model = "claude-haiku-4-5"
api_key_env = "MY_KEY"
timeout_secs = 30
retries = 5
context_window = 100000

[archive]
compress = "zstd"

[models."my-model"]
context_window = 32000
"#;

/// The rows of `config --json`, as key → (value, source).
fn rows(run: &crate::support::Run) -> Vec<(String, String, String)> {
    let v = run.json();
    let field = |r: &Value, k: &str| r[k].as_str().unwrap().to_string();
    v.as_array()
        .unwrap_or_else(|| panic!("{run:?}"))
        .iter()
        .map(|r| (field(r, "key"), field(r, "value"), field(r, "source")))
        .collect()
}

fn row<'a>(rows: &'a [(String, String, String)], key: &str) -> &'a (String, String, String) {
    rows.iter()
        .find(|r| r.0 == key)
        .unwrap_or_else(|| panic!("no {key} row in {rows:?}"))
}

#[test]
fn every_file_key_is_listed_with_its_value_and_source() {
    let env = TestEnv::new();
    let data = env.path().join("data");
    let cfg = env.write("c.toml", EVERY_KEY.replace("DATA", s(&data)));
    let run = env.run(&["config", "--config", s(&cfg), "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let rows = rows(&run);
    let from_file = [
        ("model", "gpt-4o (unless the session names one)"),
        ("tokenizer", "o200k_base"),
        ("threshold", "0.7"),
        ("reserved", "100"),
        ("reserve_output", "2000"),
        ("data_dir", s(&data)),
        ("count_with", "local"),
        ("count_api.base_url", "http://127.0.0.1:9/"),
        ("count_api.timeout_secs", "4"),
        ("compact.summarizer", "offline"),
        ("compact.tail_ratio", "0.3"),
        ("compact.tail_tokens", "5000"),
        ("compact.summary_tokens", "900"),
        ("compact.live_secs", "60"),
        ("llm.provider", "anthropic"),
        ("llm.base_url", "http://127.0.0.1:9/"),
        ("llm.model", "claude-haiku-4-5"),
        ("llm.api_key_env", "MY_KEY"),
        ("llm.timeout_secs", "30"),
        ("llm.retries", "5"),
        ("llm.context_window", "100000"),
        ("archive.compress", "zstd"),
        ("models", "built-in registry + my-model"),
    ];
    for (key, value) in from_file {
        assert_eq!(
            row(&rows, key),
            &(
                key.to_string(),
                value.to_string(),
                "config file".to_string()
            ),
            "{run:?}"
        );
    }
    // Only from the environment: the lock's patience.
    assert_eq!(row(&rows, "lock_timeout").1, "30");
}

#[test]
fn defaults_and_the_environment_say_where_they_come_from() {
    let env = TestEnv::new()
        .env("CTXCTL_ARCHIVE_COMPRESS", "zstd")
        .env("CTXCTL_LOCK_TIMEOUT", "7");
    let listed = rows(&env.run(&["config", "--json"]));
    let expect = [
        ("archive.compress", "zstd", "env CTXCTL_ARCHIVE_COMPRESS"),
        ("lock_timeout", "7", "env CTXCTL_LOCK_TIMEOUT"),
        ("compact.live_secs", "120", "default"),
        ("compact.summarizer", "offline", "default"),
        ("compact.tail_ratio", "0.2", "default"),
        ("compact.summary_tokens", "2000", "default"),
        ("count_api.timeout_secs", "10", "default"),
        ("llm.timeout_secs", "120", "default"),
        ("llm.retries", "2", "default"),
        ("models", "(built-in registry)", "default"),
    ];
    for (key, value, source) in expect {
        let r = row(&listed, key);
        assert_eq!((r.1.as_str(), r.2.as_str()), (value, source), "{key}");
    }
    // The environment outranks the file.
    let cfg = env.write("c.toml", "[archive]\ncompress = \"none\"\n");
    let rows_file = rows(&env.run(&["config", "--config", s(&cfg), "--json"]));
    assert_eq!(
        row(&rows_file, "archive.compress").2,
        "env CTXCTL_ARCHIVE_COMPRESS"
    );
}

#[test]
fn a_bad_archive_compress_value_is_an_error_naming_it() {
    let env = TestEnv::new().env("CTXCTL_ARCHIVE_COMPRESS", "gzip");
    let run = env.run(&["config"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("CTXCTL_ARCHIVE_COMPRESS"), "{run:?}");
}

#[test]
fn config_shows_sources_and_never_the_key() {
    let env = TestEnv::new()
        .env("CTXCTL_MODEL", "gpt-4o-mini")
        .env("CTXCTL_LLM_API_KEY", "sk-secret-123456");
    let run = env.run(&["config"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(!run.stdout.contains("sk-secret-123456"), "{run:?}");
    // The first column's width depends on the temp dir's path: see `snap_unaligned`.
    insta::assert_snapshot!("config", env.snap_unaligned(&run));
    let path = env.run(&["config", "path"]);
    insta::assert_snapshot!("config_path", env.snap(&path));
    let cfg = env.write("c.toml", "threshold = 0.6\n[llm]\nmodel = \"small\"\n");
    let run = env.run(&["config", "--config", s(&cfg), "--model", "gpt-5"]);
    insta::assert_snapshot!("config_file_and_flag", env.snap_unaligned(&run));
}
