//! The session model: a list of messages read from one of the supported on-disk formats,
//! each remembering the record it came from so that rewrites leave untouched records exactly
//! as they were.
//!
//! This module is the model only: messages and their parts, the document they came from,
//! tool-call pairing, and the write plan (a list of [`Item`]s saying which messages to keep,
//! which to edit and what to insert). Reading and writing files of each format is
//! [`crate::formats`].

mod doc;
mod error;
pub mod order;
pub mod ordering;
pub mod pairing;
pub mod pairs;
mod plan;
pub(crate) mod summary;

pub use doc::{Document, JsonDoc, JsonStyle, LineSpan, LinesDoc, ListKey, Parsed, Text};
pub use error::ReadError;
pub use pairs::is_reasoning;
pub use plan::{restore_plan, Item, NewMessage, PartEdit, Record, RestorePlan, WriteError};
pub use summary::{previous_summaries, summary_body};

use std::fmt;

/// The on-disk format a session was read from: which of the codecs in [`crate::formats`]
/// reads and writes it (their table gives each one's name and behaviour).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// OpenAI Chat Completions messages: a JSON array, or an object holding it under
    /// `messages` (or `history`, as SWE-agent trajectories do).
    OpenAi,
    /// An Anthropic Messages API request body (`system` + `messages`).
    Anthropic,
    /// One OpenAI- or Anthropic-shaped message per line.
    Jsonl,
    /// Claude Code transcripts (`~/.claude/projects/**.jsonl`).
    ClaudeCode,
    /// Codex CLI rollouts (`~/.codex/sessions/**/rollout-*.jsonl`).
    Codex,
    /// goose JSONL sessions (metadata line, then messages).
    Goose,
    /// Gemini CLI session logs (`~/.gemini/tmp/<project>/chats/session-*.jsonl`).
    Gemini,
    /// One session of goose's SQLite database (goose ≥ 1.10), rendered as goose JSONL.
    GooseDb,
    /// One session of OpenCode's SQLite database (OpenCode ≥ 1.2), rendered as the
    /// messages it sends.
    OpenCode,
    /// GitHub Copilot CLI event logs (`~/.copilot/session-state/<id>/events.jsonl`).
    Copilot,
}

/// Who speaks a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    System,
    Developer,
    User,
    Assistant,
    Tool,
}

impl Role {
    pub const ALL: [Role; 5] = [
        Role::System,
        Role::Developer,
        Role::User,
        Role::Assistant,
        Role::Tool,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::Developer => "developer",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }

    /// Parses a role as written in provider formats (`function` is OpenAI's legacy name for
    /// `tool`, `model` is Gemini's for `assistant`).
    pub fn parse(s: &str) -> Option<Role> {
        Some(match s {
            "system" => Role::System,
            "developer" => Role::Developer,
            "user" | "human" => Role::User,
            "assistant" | "model" | "ai" => Role::Assistant,
            "tool" | "function" => Role::Tool,
            _ => return None,
        })
    }

    /// System and developer messages carry instructions and are never trimmed.
    pub fn is_system(self) -> bool {
        matches!(self, Role::System | Role::Developer)
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One piece of a message's content.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Text(String),
    /// A request from the model to run a tool. `arguments` is the JSON text of the input.
    ToolCall {
        id: String,
        name: String,
        arguments: String,
    },
    /// The answer to a tool call. `content` holds text and images (nested parts).
    ToolResult {
        call_id: String,
        content: Vec<Part>,
        is_error: bool,
    },
    /// Visible reasoning (`thinking`, reasoning summaries).
    Thinking(String),
    /// Opaque data the model sees but nobody can read (redacted thinking, encrypted
    /// reasoning). Never edited; counted as the tokens the provider billed for it when the
    /// file records them (`tokens`), else estimated from its size.
    Opaque {
        kind: String,
        bytes: usize,
        tokens: Option<usize>,
    },
    Image {
        media_type: Option<String>,
    },
    /// Anything not understood; kept on rewrite, not counted.
    Other {
        kind: String,
    },
}

impl Part {
    /// A copy of this part with every text it holds (text, thinking, tool arguments, tool
    /// results) replaced by `f` of it; ids, names and everything else kept.
    pub fn map_text(&self, f: &dyn Fn(&str) -> String) -> Part {
        match self {
            Part::Text(t) => Part::Text(f(t)),
            Part::Thinking(t) => Part::Thinking(f(t)),
            Part::ToolCall {
                id,
                name,
                arguments,
            } => Part::ToolCall {
                id: id.clone(),
                name: name.clone(),
                arguments: f(arguments),
            },
            Part::ToolResult {
                call_id,
                content,
                is_error,
            } => Part::ToolResult {
                call_id: call_id.clone(),
                content: content.iter().map(|p| p.map_text(f)).collect(),
                is_error: *is_error,
            },
            other => other.clone(),
        }
    }

    /// Drops every text this part holds (as [`Part::map_text`] to empty would), in place:
    /// nothing is allocated or copied.
    pub fn clear_text(&mut self) {
        match self {
            Part::Text(t) | Part::Thinking(t) | Part::ToolCall { arguments: t, .. } => {
                *t = String::new();
            }
            Part::ToolResult { content, .. } => content.iter_mut().for_each(Part::clear_text),
            Part::Opaque { .. } | Part::Image { .. } | Part::Other { .. } => {}
        }
    }

    /// The plain text of this part (tool results flatten their content), for summaries and
    /// searching. Images and opaque parts have none.
    pub fn text(&self) -> String {
        match self {
            Part::Text(t) | Part::Thinking(t) => t.clone(),
            Part::ToolCall {
                name, arguments, ..
            } => format!("{name}({arguments})"),
            Part::ToolResult { content, .. } => join_text(content),
            Part::Opaque { .. } | Part::Image { .. } | Part::Other { .. } => String::new(),
        }
    }
}

/// Concatenates the text of `parts`, one per line.
pub fn join_text(parts: &[Part]) -> String {
    let mut out = String::new();
    for p in parts {
        let t = p.text();
        if t.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&t);
    }
    out
}

/// Where a message lives in its document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Index in the JSON message list, or line index in a JSONL document.
    Record(usize),
    /// Several records (Claude Code splits one API response over several lines).
    Records(Vec<usize>),
    /// Anthropic's top-level `system` field.
    SystemField,
}

impl Origin {
    /// The records this message was read from.
    pub fn records(&self) -> &[usize] {
        match self {
            Origin::Record(i) => std::slice::from_ref(i),
            Origin::Records(v) => v,
            Origin::SystemField => &[],
        }
    }
}

/// Facts about a summary message written by a compaction (ctxctl's own or an agent's).
#[derive(Debug, Clone, PartialEq)]
pub struct CompactMeta {
    pub id: Option<String>,
    pub seq: Option<u64>,
    pub timestamp: Option<String>,
    /// Who wrote it: `ctxctl`, `claude-code`, `codex`, `goose`.
    pub by: &'static str,
}

/// One message of a session.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub role: Role,
    pub name: Option<String>,
    pub parts: Vec<Part>,
    /// A stable id from the record (`id`, `uuid`), for `--pin` by id.
    pub id: Option<String>,
    /// Marked important in the file (`"_preserve": true`).
    pub pinned: bool,
    /// Context the agent adds by itself in a user message (Codex's
    /// `<environment_context>`, AGENTS.md instructions): kept like instructions, never
    /// taken for a request of the user.
    pub injected: bool,
    /// A tool call made in the same response as a reasoning item, which the Responses API
    /// wants before it (see [`pairs::units`]); read from Codex rollouts.
    pub needs_reasoning: bool,
    /// Kept verbatim by the agent's own compaction beside its summary (Claude Code's
    /// `preservedSegment`): no trim removes it, though its tool results may be shortened
    /// and a compaction may summarize it.
    pub agent_kept: bool,
    /// Set when this message is a compaction summary (boxed: few messages are, and every
    /// message of a large session is held).
    pub compact: Option<Box<CompactMeta>>,
    pub origin: Origin,
}

impl Message {
    pub fn new(role: Role, parts: Vec<Part>, origin: Origin) -> Message {
        Message {
            role,
            name: None,
            parts,
            id: None,
            pinned: false,
            injected: false,
            needs_reasoning: false,
            agent_kept: false,
            compact: None,
            origin,
        }
    }

    /// Instructions rather than conversation: a system or developer message, or context
    /// the agent injected. Never trimmed, kept ahead of a compaction's summary.
    pub fn is_instructions(&self) -> bool {
        self.role.is_system() || self.injected
    }

    /// Drops the text of every part (ids, names, roles and origins stay): what a rewrite
    /// whose plan reads no text keeps of a message once it is counted.
    pub fn release_text(&mut self) {
        self.parts.iter_mut().for_each(Part::clear_text);
    }

    /// Parts counted by their size because the file does not say what they cost.
    pub fn estimated_parts(&self) -> usize {
        self.parts
            .iter()
            .filter(|p| matches!(p, Part::Opaque { tokens: None, .. }))
            .count()
    }

    /// Ids of the tool calls this message makes.
    pub fn call_ids(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::ToolCall { id, .. } => Some(id.as_str()),
            _ => None,
        })
    }

    /// Ids of the tool calls this message answers.
    pub fn result_ids(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::ToolResult { call_id, .. } => Some(call_id.as_str()),
            _ => None,
        })
    }

    pub fn has_tool_results(&self) -> bool {
        self.result_ids().next().is_some()
    }

    /// A user turn: a user message that is not only tool results (tool calls still open
    /// before it are faults).
    pub fn is_user_turn(&self) -> bool {
        self.role == Role::User && !self.has_tool_results() && !self.parts.is_empty()
    }

    /// A user turn written by the user, not an earlier compaction's summary.
    pub fn is_user_request(&self) -> bool {
        self.is_user_turn() && self.compact.is_none() && !self.injected
    }

    /// The message's readable text, parts joined by newlines.
    pub fn text(&self) -> String {
        join_text(&self.parts)
    }
}

/// Token usage a provider reported inside the file (agent transcripts record it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportedUsage {
    /// Prompt tokens as the provider counted them (input + cache reads + cache writes).
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Index of the last message the report covers.
    pub after_message: Option<usize>,
    /// Index of the first message of the response the report is for: the messages before
    /// it were that request's input. `None` when the file does not say.
    pub request_end: Option<usize>,
    /// Earlier reports of the same live thread, oldest first: `(request_end, input_tokens)`
    /// (for calibrating estimates; only where the file records usage per response).
    pub earlier: Vec<(usize, u64)>,
    /// Tokens the reported request held that the next request no longer sends (Codex: the
    /// reasoning items of a turn a user message has since closed, which the Responses API
    /// drops from later requests).
    pub dropped: u64,
}

impl ReportedUsage {
    /// The reports made on messages before `cut`, the latest of them as the one reported
    /// (its output unknown): what the file says of the thread once what follows `cut` is
    /// gone. `None` when no report was made before it, or the file does not say where
    /// the requests ended.
    pub fn before(&self, cut: usize) -> Option<ReportedUsage> {
        let end = self.request_end?;
        let mut points: Vec<(usize, u64)> = (self.earlier.iter().copied())
            .chain([(end, self.input_tokens)])
            .filter(|&(at, _)| at < cut)
            .collect();
        let (at, input) = points.pop()?;
        Some(if (at, input) == (end, self.input_tokens) {
            self.clone()
        } else {
            ReportedUsage {
                input_tokens: input,
                output_tokens: 0,
                after_message: Some(at),
                request_end: Some(at),
                earlier: points,
                dropped: 0,
            }
        })
    }
}

/// What an agent recorded about the window of a session (Codex records the window it
/// uses and its requests refused as too large).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AgentLimits {
    /// The context window the agent used for the session.
    pub window: Option<u64>,
    /// The agent's last request was refused as larger than the window, and nothing since
    /// (a compaction, a later answer) changed that.
    pub overflow: bool,
    /// The session is a subagent's (Claude Code's `isSidechain` transcripts): its agent
    /// sends a smaller hidden part than a main session's.
    #[serde(default)]
    pub subagent: bool,
    /// The file holds the agent's base instructions (Codex's `session_meta`), which ctxctl
    /// counts as a system message: the hidden part left is its tools.
    #[serde(default)]
    pub instructions_read: bool,
    /// The file holds the system prompt and tool schemas the agent sent (Claude Code
    /// 2.1.332's `prompt_snapshot`, in [`Session::request_extra`]): the hidden part is
    /// measured, no prior is added.
    #[serde(default)]
    pub prompt_measured: bool,
    /// The model the file names takes no deferred tools (Claude Code turns tool search off
    /// for Claude Haiku: "model does not support tool_reference blocks"), so the agent
    /// sends every tool schema in full (`ops::prior`).
    #[serde(default)]
    pub full_tool_schemas: bool,
    /// The agent's version as the file records it (Claude Code's `version` on its
    /// records, Codex's `session_meta.cli_version`), as its first three numbers: the prior
    /// hidden part depends on it (`ops::prior`).
    #[serde(default)]
    pub agent_version: Option<AgentVersion>,
    /// The line of the agent's own compaction boundary (Claude Code's `compact_boundary`)
    /// the live thread starts after, when no report since describes the thread: its hidden
    /// part is then measured on the thread as it was before that boundary (set by the
    /// reader; `ops::compacted` measures it into `hidden_before_compaction`).
    #[serde(default)]
    pub compacted_at: Option<usize>,
    /// The hidden part (system prompt, tools) measured on the reports before the agent's
    /// latest compaction: still sent after it, so it stands in for the prior until the
    /// first report after the boundary (`ops::prior`).
    #[serde(default)]
    pub hidden_before_compaction: Option<u64>,
    /// The session's ratio of the provider's count to ctxctl's tokenizer calibrated on
    /// those reports, in millionths, when the boundary is the agent's own: the messages
    /// after it are counted at that ratio (`ops::prior`, `ops::predict`).
    #[serde(default)]
    pub ratio_before_compaction: Option<u32>,
    /// Lone UTF-16 surrogate escapes in the file (half of a character, as JavaScript
    /// writes it; read as U+FFFD, [`crate::formats::surrogates`]): how many, and the line
    /// of the first. The Anthropic API refuses a request that sends one ("no low surrogate
    /// in string"), so `check` calls the session broken until a rewrite writes them mended.
    #[serde(default)]
    pub lone_surrogates: Option<(u32, u32)>,
}

/// An agent's version as its first three numbers (`2.1.97` → `[2, 1, 97]`).
pub type AgentVersion = [u32; 3];

/// The version `text` starts with (`0.116.0-alpha.10` → `[0, 116, 0]`, `1.0` →
/// `[1, 0, 0]`); `None` when it does not start with a number.
pub fn parse_agent_version(text: &str) -> Option<AgentVersion> {
    let end = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let mut out = [0u32; 3];
    for (slot, part) in out.iter_mut().zip(text[..end].split('.')) {
        *slot = part.parse().ok()?;
    }
    (end > 0).then_some(out)
}

/// A session read from a file.
#[derive(Debug, Clone)]
pub struct Session {
    pub format: Format,
    pub doc: Document,
    pub messages: Vec<Message>,
    /// The model recorded in the file, if any.
    pub model: Option<String>,
    /// Problems tolerated while reading (a truncated last line, unknown parts …).
    pub warnings: Vec<String>,
    /// The latest provider-reported usage, when the format records it.
    pub reported_usage: Option<ReportedUsage>,
    /// The window and refusals the agent recorded.
    pub agent_limits: AgentLimits,
    /// What a request body sends besides its messages: its `tools` (or legacy `functions`)
    /// and `tool_choice`, as JSON text (Anthropic and OpenAI request bodies). Counted into
    /// the next request, not into the messages.
    pub request_extra: Option<String>,
    /// Where this file's records end, for reading a longer version of it from there on;
    /// only when read with [`Keep::After`], and only for documents and plain JSONL.
    pub resume: Option<Resume>,
    /// Whether reading skipped the records before the [`Keep::After`] point: `messages`
    /// then holds only the ones after it.
    pub skipped: bool,
}

/// A point in a session file: the first `len` bytes (hashing to `hash`, xxh3-128) hold
/// its first `records` records (JSON array elements, or JSONL lines), and nothing of what
/// follows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Resume {
    pub len: usize,
    pub records: usize,
    pub hash: u128,
    /// Where the bytes that tell a longer version's format end (at most `len`): past the
    /// first records a format's detection looks at (a document's first 32, or past its
    /// list's `[` when it has none; a JSONL file's first lines, up to
    /// [`crate::formats::HEAD_LINES`] of them not blank). A grown file is read as these
    /// bytes, stand-ins for the records up to `len` ([`crate::formats::filler`]), and what
    /// follows `len`: the same format, read the same way.
    pub head: usize,
}

impl Resume {
    /// The point after `records` records ending at `len` in `text`, whose first `head`
    /// bytes tell its format.
    pub(crate) fn of(text: &str, len: usize, records: usize, head: usize) -> Resume {
        Resume {
            len,
            records,
            hash: xxhash_rust::xxh3::xxh3_128(&text.as_bytes()[..len]),
            head,
        }
    }
}

impl Session {
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// Drops the text of every message (texts, thinking, tool arguments and results),
    /// keeping roles, ids, tool-call structure and origins: for a rewrite whose plan is
    /// made, since writing copies records from the document and needs only the origins.
    /// The text of a large session weighs about as much as its document; the memory goes
    /// back to the system ([`crate::mem::give_back`]) before the document is read again
    /// and the output built.
    pub fn release_text(&mut self) {
        // Copied small and the originals dropped whole, rather than the texts cleared in
        // place: the allocator can give back only pages left entirely free, and a text
        // cleared in place leaves its message's other allocations scattered over them.
        let slimmed: Vec<Message> = self
            .messages
            .iter()
            .map(|m| Message {
                role: m.role,
                name: m.name.clone(),
                parts: m
                    .parts
                    .iter()
                    .map(|p| p.map_text(&|_| String::new()))
                    .collect(),
                id: m.id.clone(),
                pinned: m.pinned,
                injected: m.injected,
                needs_reasoning: m.needs_reasoning,
                agent_kept: m.agent_kept,
                compact: m.compact.clone(),
                origin: m.origin.clone(),
            })
            .collect();
        self.messages = slimmed;
        crate::mem::give_back();
    }

    /// Puts back the text of a document read with [`Keep::Layout`], from `bytes` the caller
    /// has checked are the bytes it was read from.
    pub fn reattach(&mut self, bytes: Vec<u8>) -> Result<(), ReadError> {
        self.doc.reattach(into_text(bytes)?);
        Ok(())
    }

    /// Index of the most recent user message that is not only tool results.
    pub fn last_user_index(&self) -> Option<usize> {
        self.messages
            .iter()
            .rposition(|m| m.role == Role::User && !m.parts.iter().all(is_result))
    }

    /// A write plan that keeps every message: writing it reproduces the input.
    pub fn keep_all(&self) -> Vec<Item> {
        (0..self.messages.len()).map(Item::Keep).collect()
    }
}

fn is_result(p: &Part) -> bool {
    matches!(p, Part::ToolResult { .. })
}

/// What reading keeps of the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// The document text, so that the session can be written back byte for byte.
    Document,
    /// Only the messages: OpenAI / Anthropic documents and plain JSONL release their text
    /// as their records are read, so that peak memory stays near the file's size (the
    /// messages take about as much as the text they came from). For read-only commands;
    /// such a session cannot be written ([`Document::Released`]). Agent transcripts are
    /// read whole either way.
    Messages,
    /// Like `Messages`, keeping the document's layout (where each record is) so that the
    /// text can be read again and put back for writing ([`Document::Detached`]): a rewrite
    /// of a large session never holds its text and its messages at once.
    Layout,
    /// Like `Messages`, also noting where the records end ([`Session::resume`]). Given
    /// such a point of a file read before, whose bytes the caller checked this file starts
    /// with: when this file's first records end within those bytes, as they did, they are
    /// not parsed again ([`Session::skipped`]).
    After(Option<Resume>),
}

/// `bytes` as text, or where they stop being UTF-8.
pub(crate) fn into_text(bytes: Vec<u8>) -> Result<String, ReadError> {
    String::from_utf8(bytes).map_err(|e| {
        error::check_utf8(e.as_bytes())
            .err()
            .unwrap_or(ReadError::Empty)
    })
}

impl Keep {
    /// How many of `count` records (`span(i)`: where record `i` starts and ends) reading
    /// may skip: all those the [`Keep::After`] point names, when they still end within its
    /// bytes and the record after them starts past those — the records read before.
    pub(crate) fn skippable(
        self,
        count: usize,
        span: impl Fn(usize) -> (usize, usize),
    ) -> Option<usize> {
        let Keep::After(Some(point)) = self else {
            return None;
        };
        let n = point.records;
        let fits = count >= n
            && (n == 0 || span(n - 1).1 <= point.len)
            && (n == count || span(n).0 >= point.len);
        fits.then_some(n)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn clearing_text_in_place_is_mapping_it_to_nothing() {
        let parts = vec![
            Part::Text("a".into()),
            Part::Thinking("b".into()),
            Part::ToolCall {
                id: "c1".into(),
                name: "read".into(),
                arguments: "{}".into(),
            },
            Part::ToolResult {
                call_id: "c1".into(),
                content: vec![Part::Text("out".into()), Part::Image { media_type: None }],
                is_error: true,
            },
            Part::Opaque {
                kind: "x".into(),
                bytes: 3,
                tokens: Some(2),
            },
            Part::Other { kind: "y".into() },
        ];
        for p in parts {
            let mut cleared = p.clone();
            cleared.clear_text();
            assert_eq!(cleared, p.map_text(&|_| String::new()));
        }
    }

    use super::*;

    #[test]
    fn roles_parse() {
        assert_eq!(Role::parse("function"), Some(Role::Tool));
        assert_eq!(Role::parse("wizard"), None);
        assert!(Role::Developer.is_system());
    }

    #[test]
    fn agent_versions_parse_to_their_first_three_numbers() {
        assert_eq!(parse_agent_version("2.1.97"), Some([2, 1, 97]));
        assert_eq!(parse_agent_version("0.116.0-alpha.10"), Some([0, 116, 0]));
        assert_eq!(parse_agent_version("1.0"), Some([1, 0, 0]));
        assert_eq!(parse_agent_version("1.2.3.4"), Some([1, 2, 3]));
        assert_eq!(parse_agent_version("v2"), None);
        assert_eq!(parse_agent_version(""), None);
    }

    #[test]
    fn the_reports_before_a_cut_are_those_made_on_earlier_messages() {
        let u = ReportedUsage {
            input_tokens: 900,
            output_tokens: 40,
            after_message: Some(9),
            request_end: Some(9),
            earlier: vec![(1, 500), (4, 700), (6, 800)],
            dropped: 3,
        };
        let b = u.before(5).unwrap();
        assert_eq!(
            (b.input_tokens, b.request_end, b.after_message),
            (700, Some(4), Some(4))
        );
        assert_eq!(
            (b.earlier, b.output_tokens, b.dropped),
            (vec![(1, 500)], 0, 0)
        );
        // A cut past the latest report keeps it all; one before the first, nothing.
        assert_eq!(u.before(10), Some(u.clone()));
        assert_eq!(u.before(1), None);
        let unplaced = ReportedUsage {
            request_end: None,
            ..u
        };
        assert_eq!(unplaced.before(10), None);
    }
}
