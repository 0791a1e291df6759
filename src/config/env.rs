//! Every environment variable ctxctl reads, in one place.

use std::collections::BTreeMap;

pub const CTXCTL_MODEL: &str = "CTXCTL_MODEL";
pub const CTXCTL_TOKENIZER: &str = "CTXCTL_TOKENIZER";
pub const CTXCTL_THRESHOLD: &str = "CTXCTL_THRESHOLD";
pub const CTXCTL_RESERVED: &str = "CTXCTL_RESERVED";
pub const CTXCTL_RESERVE_OUTPUT: &str = "CTXCTL_RESERVE_OUTPUT";
pub const CTXCTL_CONFIG: &str = "CTXCTL_CONFIG";
pub const CTXCTL_DATA_DIR: &str = "CTXCTL_DATA_DIR";
pub const CTXCTL_CACHE_DIR: &str = "CTXCTL_CACHE_DIR";
pub const CTXCTL_LOG: &str = "CTXCTL_LOG";
pub const CTXCTL_NOW: &str = "CTXCTL_NOW";
pub const CTXCTL_LLM_PROVIDER: &str = "CTXCTL_LLM_PROVIDER";
pub const CTXCTL_LLM_BASE_URL: &str = "CTXCTL_LLM_BASE_URL";
pub const CTXCTL_LLM_MODEL: &str = "CTXCTL_LLM_MODEL";
pub const CTXCTL_LLM_API_KEY: &str = "CTXCTL_LLM_API_KEY";
pub const CTXCTL_LOCK_TIMEOUT: &str = "CTXCTL_LOCK_TIMEOUT";
pub const CTXCTL_COUNT_WITH: &str = "CTXCTL_COUNT_WITH";
pub const CTXCTL_COUNT_API_BASE_URL: &str = "CTXCTL_COUNT_API_BASE_URL";
pub const CTXCTL_ARCHIVE_COMPRESS: &str = "CTXCTL_ARCHIVE_COMPRESS";
/// Test hook, not for users: makes `trim`/`compact` fail at a step of a rewrite
/// (`archive-write`, `after-archive`, `write`, `before-rename`, optionally `:kill`); see
/// `cli/testhook.rs`.
pub const CTXCTL_TEST_FAIL_AT: &str = "CTXCTL_TEST_FAIL_AT";
/// Test hook, not for users: a marker file `trim`/`compact` create before replacing their
/// input, then wait for the test to remove; see `cli/testhook.rs`.
pub const CTXCTL_TEST_PAUSE_BEFORE_REPLACE: &str = "CTXCTL_TEST_PAUSE_BEFORE_REPLACE";
/// **Test hook, not a user setting** (deliberately absent from [`DOCUMENTED`], `ctxctl
/// config` and the README): the path of a marker file. While it exists, ctxctl waits (at
/// most a minute) just before its last check of a file it is about to replace in place,
/// so that integration tests can change the file between reading and replacing it.
pub const CTXCTL_TEST_HOLD_BEFORE_REPLACE: &str = "CTXCTL_TEST_HOLD_BEFORE_REPLACE";
/// Test hook: the size from which an agent transcript is mapped for a rewrite, and loaded
/// as a large file is ([`crate::ops::testhook::map_from`]).
pub const CTXCTL_TEST_MAP_FROM: &str = "CTXCTL_TEST_MAP_FROM";
/// Test hook: where a streamed Claude Code transcript's uuids are kept, `memory` or
/// `slice:N` (a temp file, resolved N hashes a pass) ([`crate::ops::testhook::uuid_spill`]).
pub const CTXCTL_TEST_UUID_SPILL: &str = "CTXCTL_TEST_UUID_SPILL";
pub const OPENAI_API_KEY: &str = "OPENAI_API_KEY";
pub const ANTHROPIC_API_KEY: &str = "ANTHROPIC_API_KEY";
pub const GEMINI_API_KEY: &str = "GEMINI_API_KEY";
pub const NO_COLOR: &str = "NO_COLOR";
/// The terminal's width, which tables are fitted to when stdout is a terminal.
pub const COLUMNS: &str = "COLUMNS";
pub const XDG_DATA_HOME: &str = "XDG_DATA_HOME";
pub const XDG_CONFIG_HOME: &str = "XDG_CONFIG_HOME";
pub const XDG_CACHE_HOME: &str = "XDG_CACHE_HOME";
/// goose's own root for its files (`$GOOSE_PATH_ROOT/data/sessions/sessions.db`).
pub const GOOSE_PATH_ROOT: &str = "GOOSE_PATH_ROOT";
pub const HOME: &str = "HOME";

/// The documented `CTXCTL_*` variables with a one-line meaning, for `ctxctl config` and the
/// README.
pub const DOCUMENTED: &[(&str, &str)] = &[
    (CTXCTL_MODEL, "model id used when --model is not given"),
    (CTXCTL_TOKENIZER, "auto, o200k_base, cl100k_base, p50k_base, r50k_base, approx or words"),
    (CTXCTL_THRESHOLD, "fraction of the effective limit at which check says `compact`"),
    (CTXCTL_RESERVED, "tokens reserved besides the output (system prompt, tools)"),
    (CTXCTL_RESERVE_OUTPUT, "tokens reserved for the reply (default: the model's max output, at most 20% of the window)"),
    (CTXCTL_CONFIG, "path of the config file"),
    (CTXCTL_DATA_DIR, "where rewritten sessions and archives are kept"),
    (CTXCTL_CACHE_DIR, "where the token-count cache is kept"),
    (CTXCTL_LOG, "log filter: error, warn, info, debug or trace"),
    (CTXCTL_LLM_PROVIDER, "openai or anthropic"),
    (CTXCTL_LLM_BASE_URL, "base URL of the summarizer API"),
    (CTXCTL_LLM_MODEL, "summarizer model"),
    (CTXCTL_LLM_API_KEY, "summarizer API key (else OPENAI_API_KEY / ANTHROPIC_API_KEY)"),
    (CTXCTL_LOCK_TIMEOUT, "seconds to wait for another ctxctl holding a lock (default 30)"),
    (CTXCTL_COUNT_WITH, "local (default) or api: ask the provider's token-counting endpoint"),
    (CTXCTL_COUNT_API_BASE_URL, "root URL of the token-counting API, for every provider (a proxy, a test server)"),
    (CTXCTL_ARCHIVE_COMPRESS, "zstd (default) or none: compress new archive files (--compress outranks it)"),
];

/// A snapshot of the environment, so that settings resolution is testable and reads go
/// through one place.
#[derive(Debug, Clone, Default)]
pub struct Env {
    vars: BTreeMap<String, String>,
}

impl Env {
    /// The process environment: the one place ctxctl reads it (see clippy.toml).
    #[allow(clippy::disallowed_methods)]
    pub fn from_process() -> Env {
        Env {
            vars: std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect(),
        }
    }

    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Env {
        Env {
            vars: pairs
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    /// The value of `key`, treating an empty value as unset.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.vars
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
}
