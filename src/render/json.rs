//! The JSON output contract (`--json`), kept apart from engine types.

use serde::Serialize;

use crate::session::{Message, Role};

/// Tokens (or messages) per role.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct ByRole {
    pub system: usize,
    pub developer: usize,
    pub user: usize,
    pub assistant: usize,
    pub tool: usize,
}

impl ByRole {
    pub fn add(&mut self, role: Role, n: usize) {
        *self.get_mut(role) += n;
    }

    fn get_mut(&mut self, role: Role) -> &mut usize {
        match role {
            Role::System => &mut self.system,
            Role::Developer => &mut self.developer,
            Role::User => &mut self.user,
            Role::Assistant => &mut self.assistant,
            Role::Tool => &mut self.tool,
        }
    }

    pub fn get(&self, role: Role) -> usize {
        match role {
            Role::System => self.system,
            Role::Developer => self.developer,
            Role::User => self.user,
            Role::Assistant => self.assistant,
            Role::Tool => self.tool,
        }
    }

    /// Sums `values` by the role of the matching message.
    pub fn tally(messages: &[Message], values: impl IntoIterator<Item = usize>) -> ByRole {
        let mut out = ByRole::default();
        for (m, n) in messages.iter().zip(values) {
            out.add(m.role, n);
        }
        out
    }
}

#[derive(Debug, Serialize)]
pub struct MessageTokens {
    pub index: usize,
    pub role: &'static str,
    pub tokens: usize,
}

/// `count --json`, one file.
#[derive(Debug, Serialize)]
pub struct CountFile {
    pub path: String,
    pub format: &'static str,
    pub model: String,
    pub tokenizer: &'static str,
    /// False when the count is an estimate: the model has no public tokenizer, or opaque
    /// parts (encrypted reasoning) the file does not bill were counted by their size.
    pub exact: bool,
    /// Factor applied to the tokenizer's counts (1.2 for Claude estimates).
    pub factor: f64,
    pub messages: usize,
    pub tokens: usize,
    pub by_role: ByRole,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_message: Option<Vec<MessageTokens>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reported: Option<Reported>,
    /// The predicted input tokens of the next request: the agent's hidden part (from the
    /// reported usage) plus the messages.
    pub next_request_tokens: usize,
    /// `reported`, `calibrated`, `tokenizer`, `api` or `estimate`.
    pub next_request_source: &'static str,
    pub context_window: u64,
    /// `recorded`, `agent`, `registry`, `config` or `default`.
    pub context_window_source: &'static str,
}

/// Usage the provider reported inside the file, beside ctxctl's own count.
#[derive(Debug, Clone, Serialize)]
pub struct Reported {
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// ctxctl's count minus the reported input tokens.
    pub difference: i64,
}

#[derive(Debug, Serialize)]
pub struct CountReport {
    pub files: Vec<FileEntry<CountFile>>,
    pub total_tokens: usize,
}

/// `check --json`, one file.
#[derive(Debug, Serialize)]
pub struct CheckFile {
    pub path: String,
    pub model: String,
    /// `ok`, `compact`, `over` or `broken` (within its limit but structurally faulty):
    /// anything but `ok` makes `check` exit 1.
    pub status: &'static str,
    /// ctxctl's count of the session's messages, as in `count` and `stats`.
    pub tokens: usize,
    /// The predicted input tokens of the next request: the figure checked.
    pub next_request_tokens: usize,
    /// `reported`, `calibrated`, `tokenizer`, `api` or `estimate`.
    pub next_request_source: &'static str,
    pub context_window: u64,
    /// `flag`, `recorded`, `agent`, `registry`, `config` or `default`.
    pub context_window_source: &'static str,
    pub max_output_tokens: u64,
    pub reserved: u64,
    pub effective_limit: u64,
    pub threshold: f64,
    pub usage: f64,
    pub remaining: i64,
    pub problems: Vec<String>,
}

/// `sessions --json`: `{"sessions":[...]}`.
#[derive(Debug, Serialize)]
pub struct SessionsReport {
    pub sessions: Vec<SessionRow>,
}

/// One session as `sessions` lists it; the figures are `check`'s, under its names.
#[derive(Debug, Clone, Serialize)]
pub struct SessionRow {
    pub agent: &'static str,
    /// The format it is read as (`claude-code`, `goose-db`, ...); `null` if unreadable.
    pub format: Option<&'static str>,
    pub project: Option<String>,
    pub path: String,
    /// The session inside an agent's database (`path`); `null` for a file.
    pub session: Option<String>,
    /// When it was last active, RFC 3339 UTC (the file's modification time, or the
    /// database's `updated_at`).
    pub last_activity: Option<String>,
    #[serde(skip)]
    pub last_activity_unix: Option<i64>,
    pub model: Option<String>,
    pub messages: Option<usize>,
    pub next_request_tokens: Option<usize>,
    pub context_window: Option<u64>,
    pub effective_limit: Option<u64>,
    /// `next_request_tokens / effective_limit`.
    pub usage: Option<f64>,
    /// `ok`, `compact`, `over` (as `check` says), or `error` (see `error`).
    pub status: &'static str,
    /// Archives ctxctl keeps of it (`ctxctl archive ls`).
    pub archives: usize,
    /// Its subagents' transcripts, folded into it.
    pub subagents: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A file a multi-file command could not read: present in `files` with its error.
#[derive(Debug, Serialize)]
pub struct FailedFile {
    pub path: String,
    /// The one-line error printed on stderr.
    pub error: String,
}

/// One element of a `files` array: the file's report, or its error.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum FileEntry<T> {
    Done(T),
    Failed(FailedFile),
}

impl<T> FileEntry<T> {
    pub fn done(&self) -> Option<&T> {
        match self {
            FileEntry::Done(t) => Some(t),
            FileEntry::Failed(_) => None,
        }
    }
}

/// `check --json` and `stats --json`: the same shape for one file or many.
#[derive(Debug, Serialize)]
pub struct Files<T> {
    pub files: Vec<FileEntry<T>>,
}

/// `grep --json`: one JSON Lines record per matching message (`type: "match"`), per
/// session with `-l`/`-c` (`type: "session"`), then a `type: "summary"` record.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum GrepLine<'a> {
    Match {
        path: &'a str,
        agent: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        session: Option<&'a str>,
        /// `live`, `compacted` (by the agent) or `archived` (by ctxctl).
        place: &'a str,
        archive_id: Option<&'a str>,
        /// The command that brings an archived message back.
        restore: Option<String>,
        record: usize,
        timestamp: Option<&'a str>,
        role: &'a str,
        tool: Option<&'a str>,
        matches: usize,
        lines: Vec<GrepText<'a>>,
    },
    Session {
        path: &'a str,
        agent: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        session: Option<&'a str>,
        archive_id: Option<&'a str>,
        /// Matching messages.
        matches: usize,
    },
    Summary {
        searched: usize,
        sessions_matched: usize,
        messages_matched: usize,
        errors: usize,
    },
}

/// One line of a matching message in `grep --json`.
#[derive(Debug, Serialize)]
pub struct GrepText<'a> {
    pub line: usize,
    pub text: &'a str,
    /// False for a context line.
    #[serde(rename = "match")]
    pub is_match: bool,
}
