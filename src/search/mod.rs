//! Searching the message text of agent sessions: what the agent still sends, what it
//! compacted away (Claude Code's records before a `compact_boundary`, Codex's history
//! before a `compacted` record) and what ctxctl archived. The text searched is the
//! messages' own (a `\n` or `\"` escaped in the file is a newline or a quote here), never
//! the JSON around it. Files are read a line at a time: memory stays flat whatever their
//! size.
//!
//! Pure: no terminal, no environment. `ctxctl grep` and the MCP server's `recall` share it.

mod chunked;
mod excerpt;
mod matcher;
pub mod record;
mod source;

use std::path::PathBuf;

pub use chunked::search_file;
pub use excerpt::{excerpt, Line};
pub use matcher::{MatchOptions, Matcher};
pub use source::{search_document, search_lines, search_messages, search_values, FileHits};

/// Why a search failed.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("invalid pattern {pattern:?}: {why}")]
    Pattern { pattern: String, why: String },
    #[error("{}: {err}", path.display())]
    Io { path: PathBuf, err: std::io::Error },
    #[error("{}: not a JSON session: {err}", path.display())]
    Json {
        path: PathBuf,
        err: serde_json::Error,
    },
}

/// What to look for, and in which messages.
#[derive(Debug, Clone)]
pub struct Query {
    pub matcher: Matcher,
    /// Only pieces of these roles (`user`, `assistant`, `tool`, `system`); empty: all.
    pub roles: Vec<String>,
    /// Only calls of these tools and their output; empty: all.
    pub tools: Vec<String>,
    /// Lines of context around each matching line of a message.
    pub context: usize,
}

impl Query {
    fn keeps(&self, p: &record::Piece) -> bool {
        (self.roles.is_empty() || self.roles.iter().any(|r| r == p.role))
            && (self.tools.is_empty()
                || p.tool
                    .as_deref()
                    .is_some_and(|t| self.tools.iter().any(|w| w.eq_ignore_ascii_case(t))))
    }
}

/// Where a matching message lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// On the thread the agent sends.
    Live,
    /// Still in the agent's file, but before its own compaction: the model no longer
    /// sees it.
    CompactedByAgent,
    /// In ctxctl's archive `id`, removed from the session by `ctxctl compact`/`trim`.
    Archived { id: String },
}

impl Place {
    /// `live`, `compacted` or `archived`.
    pub fn name(&self) -> &'static str {
        match self {
            Place::Live => "live",
            Place::CompactedByAgent => "compacted",
            Place::Archived { .. } => "archived",
        }
    }
}

/// One message piece that matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The record's line in the file (1-based), or its index in an archive or document.
    pub record: usize,
    pub when: Option<String>,
    pub role: &'static str,
    pub tool: Option<String>,
    pub place: Place,
    /// How many matches the piece holds.
    pub matches: usize,
    /// The matching lines of the piece with their context.
    pub lines: Vec<Line>,
}
