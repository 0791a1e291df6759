//! The session model: a list of messages read from one of the supported on-disk formats,
//! each remembering the record it came from so that rewrites leave untouched records exactly
//! as they were.
//!
//! Reading is [`read`] (format detected from the content, or forced); writing is
//! [`write`], which takes the session and a list of [`Item`]s saying which messages to keep,
//! which to edit and what to insert.

mod claude_code;
mod claude_code_attach;
mod claude_code_marker;
mod claude_code_new;
mod claude_code_paths;
mod claude_code_plan;
mod claude_code_restore;
mod claude_code_splice;
mod claude_code_thread;
mod claude_code_write;
mod codex;
mod codex_items;
mod codex_restore;
mod codex_write;
mod detect;
mod doc;
mod error;
mod fast;
mod goose;
mod goose_restore;
mod goose_write;
mod json;
mod json_write;
pub mod jsonl;
mod lines_out;
pub mod message;
pub mod pairs;
mod par;
mod raw;
#[cfg(test)]
mod restore_testkit;
mod sniff;
mod split;
mod write;

pub use claude_code_paths::{classify as classify_path, Found};
pub use codex::embedded_items as codex_embedded_items;
pub use detect::detect;
pub use doc::{Document, JsonDoc, JsonStyle, LineSpan, LinesDoc, ListKey};
pub use error::ReadError;
pub use write::{write, Item, NewMessage, PartEdit, WriteError};

use std::fmt;

/// The on-disk formats ctxctl reads and writes.
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
}

impl Format {
    /// Every format, in the order `--format` lists them.
    pub const ALL: [Format; 6] = [
        Format::OpenAi,
        Format::Anthropic,
        Format::Jsonl,
        Format::ClaudeCode,
        Format::Codex,
        Format::Goose,
    ];

    /// The name used by `--format` and in JSON output.
    pub fn name(self) -> &'static str {
        match self {
            Format::OpenAi => "openai",
            Format::Anthropic => "anthropic",
            Format::Jsonl => "jsonl",
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::Goose => "goose",
        }
    }

    /// Parses a `--format` name.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Whether sessions of this format are line-oriented (JSONL) files.
    pub fn is_lines(self) -> bool {
        !matches!(self, Format::OpenAi | Format::Anthropic)
    }

    /// The file extension a rewritten session of this format gets in the store.
    pub fn extension(self) -> &'static str {
        if self.is_lines() {
            "jsonl"
        } else {
            "json"
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
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
    /// reasoning). Counted by size, never edited.
    Opaque {
        kind: String,
        bytes: usize,
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
    /// Kept verbatim by the agent's own compaction beside its summary (Claude Code's
    /// `preservedSegment`): no trim removes it, though its tool results may be shortened
    /// and a compaction may summarize it.
    pub agent_kept: bool,
    /// Set when this message is a compaction summary.
    pub compact: Option<CompactMeta>,
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
            agent_kept: false,
            compact: None,
            origin,
        }
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
}

impl Resume {
    /// The point after `records` records ending at `len` in `text`.
    pub(crate) fn of(text: &str, len: usize, records: usize) -> Resume {
        Resume {
            len,
            records,
            hash: xxhash_rust::xxh3::xxh3_128(&text.as_bytes()[..len]),
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
fn into_text(bytes: Vec<u8>) -> Result<String, ReadError> {
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
    fn skippable(self, count: usize, span: impl Fn(usize) -> (usize, usize)) -> Option<usize> {
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

/// Reads a session from `bytes`, detecting its format unless `format` is given.
pub fn read(bytes: &[u8], format: Option<Format>) -> Result<Session, ReadError> {
    read_owned(bytes.to_vec(), format)
}

/// Like [`read`], taking ownership of the bytes so that line-oriented formats keep them as
/// their document without a copy (peak memory stays near the file's size).
pub fn read_owned(bytes: Vec<u8>, format: Option<Format>) -> Result<Session, ReadError> {
    read_keeping(bytes, format, Keep::Document)
}

/// Like [`read_owned`], keeping what `keep` says of the document.
pub fn read_keeping(
    bytes: Vec<u8>,
    format: Option<Format>,
    keep: Keep,
) -> Result<Session, ReadError> {
    let text = into_text(bytes)?;
    let body = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if body.trim().is_empty() {
        return Err(ReadError::Empty);
    }
    let format = match format {
        Some(f) => f,
        None => {
            let body_len = body.len();
            let text = match json::read_detected(text, keep) {
                Ok(read) => return read,
                Err(text) => text,
            };
            let body = &text[text.len() - body_len..];
            let format = detect(body)?;
            return read_format(text, format, keep);
        }
    };
    read_format(text, format, keep)
}

fn read_format(text: String, format: Format, keep: Keep) -> Result<Session, ReadError> {
    match format {
        Format::OpenAi | Format::Anthropic => json::read_keeping(text, format, keep),
        Format::Jsonl => jsonl::read_keeping(text, keep),
        Format::ClaudeCode => claude_code::read(text),
        Format::Codex => codex::read(text),
        Format::Goose => goose::read(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_names_round_trip() {
        for f in Format::ALL {
            assert_eq!(Format::from_name(f.name()), Some(f));
        }
        assert_eq!(Format::from_name("yaml"), None);
    }

    #[test]
    fn roles_parse() {
        assert_eq!(Role::parse("function"), Some(Role::Tool));
        assert_eq!(Role::parse("wizard"), None);
        assert!(Role::Developer.is_system());
    }

    /// A session of `n` messages of every common shape (and some that are not).
    fn big_session(n: usize) -> Vec<String> {
        (0..n)
            .map(|i| match i % 5 {
                0 => format!(r#"{{"role":"user","content":"question {i} \u00e9 {}"}}"#, "x".repeat(i % 300)),
                1 => format!(r#"{{"role":"assistant","content":null,"tool_calls":[{{"id":"c{i}","type":"function","function":{{"name":"ls","arguments":"{{}}"}}}}]}}"#),
                2 => format!(r#"{{"role":"tool","tool_call_id":"c{}","content":"out {i}"}}"#, i - 1),
                3 => format!(r#"{{"role":"assistant","content":[{{"type":"text","text":"part {i}"}}],"_preserve":true}}"#),
                _ => format!(r#"{{"role":"wizard","content":"odd {i}","model":"gpt-4o"}}"#),
            })
            .collect()
    }

    #[test]
    fn reading_for_counting_gives_the_same_messages_and_releases_the_text() {
        let records = big_session(20_000);
        let json = format!(r#"{{"model":"gpt-4o","messages":[{}]}}"#, records.join(","));
        let jsonl = records.join("\n") + "\n";
        assert!(
            json.len() > 1 << 20,
            "large enough to be read on several threads"
        );
        for text in [json, jsonl] {
            let kept = read_keeping(text.clone().into_bytes(), None, Keep::Document).unwrap();
            let read = read_keeping(text.into_bytes(), None, Keep::Messages).unwrap();
            assert_eq!(read.messages, kept.messages);
            assert_eq!(read.model, kept.model);
            assert_eq!(read.warnings, kept.warnings);
            assert!(matches!(read.doc, Document::Released));
            assert!(matches!(
                write(&read, &read.keep_all()),
                Err(WriteError::Released)
            ));
        }
    }

    #[test]
    fn a_layout_read_writes_like_a_whole_read_once_its_text_is_back() {
        let records = big_session(20_000);
        let json = format!(
            "{{\n  \"model\": \"gpt-4o\",\n  \"messages\": [\n    {}\n  ]\n}}\n",
            records.join(",\n    ")
        );
        let jsonl = records.join("\n") + "\n";
        let anthropic = r#"{"system":"be brief","messages":[{"role":"user","content":"hi"}]}"#;
        for text in [json, jsonl, anthropic.to_string()] {
            let kept = read_keeping(text.clone().into_bytes(), None, Keep::Document).unwrap();
            let mut read = read_keeping(text.clone().into_bytes(), None, Keep::Layout).unwrap();
            assert_eq!(read.messages, kept.messages);
            assert!(read.doc.is_detached());
            assert!(matches!(
                write(&read, &read.keep_all()),
                Err(WriteError::Released)
            ));
            read.release_text();
            let texts = read.messages.iter().flat_map(|m| &m.parts).filter(|p| {
                matches!(p, Part::Text(t) | Part::Thinking(t) if !t.is_empty())
                    || matches!(p, Part::ToolCall { arguments, .. } if !arguments.is_empty())
            });
            assert_eq!(texts.count(), 0);
            read.reattach(text.clone().into_bytes()).unwrap();
            assert!(!read.doc.is_detached());
            // A plan that drops every third message and inserts one writes the same bytes.
            let mut items: Vec<Item> = (0..kept.messages.len())
                .filter(|i| i % 3 != 1)
                .map(Item::Keep)
                .collect();
            items.insert(
                1,
                Item::Insert(NewMessage {
                    role: Role::User,
                    text: "[omitted]".into(),
                    meta: Default::default(),
                }),
            );
            assert_eq!(write(&read, &items).unwrap(), write(&kept, &items).unwrap());
            assert_eq!(write(&read, &read.keep_all()).unwrap(), text.as_bytes());
        }
    }

    #[test]
    fn reading_for_counting_reports_the_first_broken_record() {
        let mut records = big_session(20_000);
        records[100] = r#"{"role":7}"#.to_string();
        records[19_000] = r#"{"content":"no role"}"#.to_string();
        let jsonl = records.join("\n") + "\n";
        let kept = read_keeping(jsonl.clone().into_bytes(), None, Keep::Document).unwrap_err();
        let read = read_keeping(jsonl.into_bytes(), None, Keep::Messages).unwrap_err();
        assert_eq!(read.to_string(), kept.to_string());
        assert!(read.to_string().contains("101"), "{read}");
    }
}
