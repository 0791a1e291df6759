//! The on-disk formats: one folder (or file) per format, each a [`Codec`] that detects,
//! reads and writes its files, and undoes its compactions.
//!
//! [`CODECS`] is the one table of formats: `--format` values, detection, hints and every
//! per-format decision come from it, and [`Format::codec`] is the only `match` on the
//! format enum. Adding a format is a new folder here and a line in that table (with its
//! `Format` variant and arm). An agent's knowledge beyond its records (stores, programs,
//! resuming, its database) is its folder's [`agent::AgentInfo`], from
//! [`Codec::agent_info`].
//!
//! Shared by the codecs: provider-shaped messages ([`message`]), JSONL records ([`jsonl`]),
//! raw JSONL lines ([`raw`]) and their rewriting ([`lines_out`]), edits of tool results
//! ([`edit`]), parallel parsing ([`par`]), and detection (`detect`, [`sniff`]).

pub mod agent;
pub mod chat;
pub mod claude_code;
pub mod codex;
pub mod copilot;
pub mod dbagent;
mod detect;
pub mod drift;
mod edit;
pub mod gemini;
pub mod goose;
pub mod goose_db;
pub mod jsonl;
mod lines_out;
pub mod message;
pub mod opencode;
mod par;
mod raw;
#[cfg(test)]
mod restore_testkit;
mod sniff;
pub mod sqlite;
pub mod stream;
pub mod surrogates;

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::session::{
    into_text, restore_plan, Document, Format, Item, JsonDoc, Keep, LinesDoc, ReadError,
    RestorePlan, Resume, Session, WriteError,
};

pub use detect::{detect, detect_head};
pub use edit::{new_record, set_result_text};

/// Lines of a JSONL file kept to tell its format (more than detection looks at).
pub const HEAD_LINES: usize = 64;

/// What stands in for the records of a grown file between the bytes that tell its format
/// and its resume point `point` (see [`Resume::head`]), when the file is read from that
/// point on: records of no content, as many as those bytes hold, and a line break among
/// them when they held one (`newlines`: how many they held), so that the stand-in text
/// (the file's head, this, and what follows the point) is detected as the file would be,
/// and read from the point as it would be. Reading skips these records either way.
/// `None` for a format not read from a point.
pub fn filler(format: Format, point: &Resume, newlines: usize) -> Option<Vec<u8>> {
    match format {
        // Blank lines: a line break for each of those bytes' (each starts one of their lines).
        Format::Jsonl => Some(vec![b'\n'; newlines]),
        Format::OpenAi | Format::Anthropic => {
            let between = point.records - point.records.min(sniff::MAX_ITEMS);
            let mut out = Vec::with_capacity(2 * between + 1);
            for i in 0..between {
                out.push(b',');
                if i == 0 && newlines > 0 {
                    out.push(b'\n');
                }
                out.push(b'0');
            }
            Some(out)
        }
        _ => None,
    }
}

/// One on-disk format: how to recognise, read and write its files.
pub trait Codec: Sync {
    /// The format this codec reads and writes.
    fn format(&self) -> Format;

    /// The name `--format` takes and JSON output uses.
    fn name(&self) -> &'static str;

    /// Whether files of this format are line-oriented (JSONL): detection scores their lines
    /// with [`Codec::line_score`], and the store names rewrites `.jsonl`.
    fn is_lines(&self) -> bool {
        true
    }

    /// How much one JSONL record (the `index`-th of the file) looks like this format.
    /// Detection adds the scores of the first lines and takes the highest; none at all is
    /// plain JSONL.
    fn line_score(&self, _index: usize, _record: &Value) -> usize {
        0
    }

    /// Reads a session from `text` (valid UTF-8, not blank), keeping what `keep` says of
    /// the document (agent transcripts keep it whole either way).
    fn read(&self, text: String, keep: Keep) -> Result<Session, ReadError>;

    /// Reads a session from `text` keeping its document, giving each message to `count`
    /// as it is parsed (on the parsing thread) for its count, which may also release the
    /// message's text: the counts come back in message order. Formats that do not count
    /// as they parse read as [`Codec::read`] does and give `None` (the caller counts).
    fn read_counting(&self, text: String, _count: Counting) -> Result<CountedRead, ReadError> {
        Ok((self.read(text, Keep::Document)?, None))
    }

    /// Renders `session` rewritten by `items` in this format.
    fn write(&self, session: &Session, items: &[Item]) -> Result<Vec<u8>, WriteError>;

    /// [`Codec::write`] for a rewrite that replaces the session's file: only what is added
    /// at its end ([`Written::Appended`]) when the format knows the rewrite only appends
    /// (the file is then never copied), else the whole output.
    fn write_in_place(&self, session: &Session, items: &[Item]) -> Result<Written, WriteError> {
        self.write(session, items).map(Written::Whole)
    }

    /// [`Codec::write`] into `out`, piece by piece where the format can (a large output is
    /// then never held whole).
    fn write_to(
        &self,
        session: &Session,
        items: &[Item],
        out: &mut dyn std::io::Write,
    ) -> Result<(), WriteError> {
        Ok(out.write_all(&self.write(session, items)?)?)
    }

    /// Whether archived records (`archive restore`) go back only in place of one compaction
    /// summary, through [`Codec::restore`], rather than as records the writer places.
    fn restores_summaries(&self) -> bool {
        false
    }

    /// Undoes one compaction: the archived records of `plan` in place of its summary.
    fn restore(&self, session: &Session, _plan: &RestorePlan) -> Result<Vec<u8>, WriteError> {
        Err(WriteError::Unsupported(session.format))
    }

    /// [`Codec::restore`] into `out`, as it is made where the format can (else whole).
    fn restore_to(
        &self,
        session: &Session,
        plan: &RestorePlan,
        out: &mut dyn std::io::Write,
    ) -> Result<(), WriteError> {
        Ok(out.write_all(&self.restore(session, plan)?)?)
    }

    /// For each message, the item it came from when that is not a whole record of the
    /// file (an agent's compaction history), as the archive keeps it; `None` when every
    /// message is whole records.
    fn embedded_items(&self, _session: &Session) -> Option<Vec<Option<Value>>> {
        None
    }

    /// Whether the provider requires the conversation to open with a user message (the
    /// trim strategies keep it so).
    fn user_first(&self) -> bool {
        false
    }

    /// What a file found below a `-r` directory is, judged by its name and place, when
    /// this format's agent keeps it there (`None`: not this format's to say).
    fn classify_path(&self, _path: &Path) -> Option<Found> {
        None
    }

    /// What ctxctl knows of the agent outside its files (stores, programs, resuming);
    /// `None` for a format that is no agent's own.
    fn agent_info(&self) -> Option<&'static agent::AgentInfo> {
        None
    }

    /// The agent whose sessions this format holds, as `sessions` lists it and `--agent`
    /// takes it (the format's name unless several formats are one agent's).
    fn agent(&self) -> &'static str {
        self.name()
    }

    /// The project (working directory) a session file at `path` belongs to, from its place
    /// and its first records `head` (whole JSON values, the file's first lines); `None`
    /// when neither says.
    fn project(&self, _path: &Path, _head: &[Value]) -> Option<String> {
        None
    }

    /// Whether the writer writes exactly the items it is given and nothing of its own (no
    /// rewrite marker, no bookkeeping record): a rewrite's plan then already knows what its
    /// output counts, and the output need not be read and counted again.
    fn writes_only_items(&self) -> bool {
        false
    }

    /// Whether the writer makes its output from the document and the plan's items alone,
    /// never from the messages' text: a rewrite then drops that text once the plan is
    /// made (see `Loaded::reattach`), before the output is made beside the document.
    fn writes_from_document(&self) -> bool {
        false
    }

    /// Whether a file names its model in its first records only, so that reading a grown
    /// file from where an earlier read ended must take the model from that read.
    fn model_in_first_records(&self) -> bool {
        false
    }
}

/// What a file found by a directory walk is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    Session,
    /// A subagent transcript of the session file `parent`.
    Subagent {
        parent: PathBuf,
    },
    /// Not a session; why.
    Other(&'static str),
}

/// What `path` is, as the first codec that knows such files says; a session otherwise.
pub fn classify_path(path: &Path) -> Found {
    CODECS
        .iter()
        .find_map(|c| c.classify_path(path))
        .unwrap_or(Found::Session)
}

/// The agent names of [`Codec::agent`], each once, in table order (`--agent` values).
pub fn agents() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for c in CODECS {
        if !out.contains(&c.agent()) {
            out.push(c.agent());
        }
    }
    out
}

/// Every format, in the order `--format` lists them. Detection prefers the earlier of two
/// equally likely line formats.
pub static CODECS: [&dyn Codec; 10] = [
    &chat::OPENAI,
    &chat::ANTHROPIC,
    &jsonl::Jsonl,
    &claude_code::ClaudeCode,
    &codex::Codex,
    &goose::Goose,
    &gemini::Gemini,
    &goose_db::GooseDb,
    &opencode::OpenCode,
    &copilot::Copilot,
];

impl Format {
    /// The codec that reads and writes this format.
    pub fn codec(self) -> &'static dyn Codec {
        match self {
            Format::OpenAi => &chat::OPENAI,
            Format::Anthropic => &chat::ANTHROPIC,
            Format::Jsonl => &jsonl::Jsonl,
            Format::ClaudeCode => &claude_code::ClaudeCode,
            Format::Codex => &codex::Codex,
            Format::Goose => &goose::Goose,
            Format::Gemini => &gemini::Gemini,
            Format::GooseDb => &goose_db::GooseDb,
            Format::OpenCode => &opencode::OpenCode,
            Format::Copilot => &copilot::Copilot,
        }
    }

    /// Every format, in the order of [`CODECS`].
    pub fn all() -> impl Iterator<Item = Format> {
        CODECS.iter().map(|c| c.format())
    }

    /// The name used by `--format` and in JSON output.
    pub fn name(self) -> &'static str {
        self.codec().name()
    }

    /// Parses a `--format` name.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::all().find(|f| f.name() == name)
    }

    /// Whether this format's sessions are sent to the Anthropic Messages API, whose
    /// ordering rules [`crate::session::order`] checks.
    pub fn anthropic_bound(self) -> bool {
        matches!(self, Format::Anthropic | Format::ClaudeCode)
    }

    /// Whether sessions of this format are line-oriented (JSONL) files.
    pub fn is_lines(self) -> bool {
        self.codec().is_lines()
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

/// The `--format` names joined by `sep`, in table order (for hints and help).
pub fn names(sep: &str) -> String {
    CODECS
        .iter()
        .map(|c| c.name())
        .collect::<Vec<_>>()
        .join(sep)
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
    read_text(bytes, format, keep, None).map(|(s, _)| s)
}

/// What a counting read gives each message as it is parsed, with its place in the file
/// (increasing in message order, not necessarily by one): its count (the message may be
/// changed, e.g. its text released, once counted). See [`Codec::read_counting`].
pub type Counting<'a> = &'a (dyn Fn(usize, &mut crate::session::Message) -> usize + Sync);

/// A session read by a counting read, with its messages' counts when its format counts as
/// it parses.
pub type CountedRead = (Session, Option<Vec<usize>>);

/// Like [`read_keeping`] keeping the document, each message counted by `count` as it is
/// parsed when its format can ([`Codec::read_counting`]).
pub fn read_counting(
    bytes: Vec<u8>,
    format: Option<Format>,
    count: Counting,
) -> Result<CountedRead, ReadError> {
    read_text(bytes, format, Keep::Document, Some(count))
}

/// `bytes` read as `format` (detected when `None`), keeping what `keep` says of the
/// document, each message counted as it is parsed when `count` is given.
fn read_text(
    bytes: Vec<u8>,
    format: Option<Format>,
    keep: Keep,
    count: Option<Counting>,
) -> Result<CountedRead, ReadError> {
    let mut text = into_text(bytes)?;
    // JavaScript agents may write half of a surrogate pair: read it as U+FFFD, and say so
    // first among the file's warnings.
    let mended = surrogates::mend(&mut text);
    let found = surrogates::Found {
        count: mended.count,
        line: 1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..mended.first_at]).count(),
    };
    let mut read = read_detecting(text, format, keep, count)?;
    if let Some(w) = found.warning() {
        read.0.warnings.insert(0, w);
        found.note(&mut read.0.agent_limits);
    }
    Ok(read)
}

/// [`read_text`] of the text.
fn read_detecting(
    text: String,
    format: Option<Format>,
    keep: Keep,
    count: Option<Counting>,
) -> Result<CountedRead, ReadError> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if body.trim().is_empty() {
        return Err(ReadError::Empty);
    }
    let read = |text: String, format: Format| match count {
        Some(c) => format.codec().read_counting(text, c),
        None => Ok((format.codec().read(text, keep)?, None)),
    };
    if let Some(f) = format {
        return read(text, f);
    }
    let body_len = body.len();
    let text = match chat::read_detected(text, keep, count) {
        Ok(read) => return read,
        Err(text) => text,
    };
    let format = detect(&text[text.len() - body_len..])?;
    read(text, format)
}

/// Renders `session` rewritten by `items` in its own format.
pub fn write(session: &Session, items: &[Item]) -> Result<Vec<u8>, WriteError> {
    if let Some(bad) = items
        .iter()
        .filter_map(Item::index)
        .find(|&i| i >= session.messages.len())
    {
        return Err(WriteError::NoSuchMessage(bad));
    }
    let codec = session.format.codec();
    let raw = items.iter().any(|i| matches!(i, Item::InsertRecord(_)));
    if raw && codec.restores_summaries() {
        let plan = restore_plan(session, items)
            .ok_or(WriteError::InsertRecordUnsupported(session.format))?;
        return codec.restore(session, &plan);
    }
    codec.write(session, items)
}

/// What a rewrite that replaces a session's file writes ([`write_in_place`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// The whole new file.
    Whole(Vec<u8>),
    /// The bytes added after the session's document, which the new file is byte for byte
    /// followed by them.
    Appended(Vec<u8>),
}

/// [`write()`] for a rewrite that replaces the session's file (see
/// [`Codec::write_in_place`]).
pub fn write_in_place(session: &Session, items: &[Item]) -> Result<Written, WriteError> {
    let raw = items.iter().any(|i| matches!(i, Item::InsertRecord(_)));
    if raw && session.format.codec().restores_summaries() {
        return write(session, items).map(Written::Whole);
    }
    if let Some(bad) = items
        .iter()
        .filter_map(Item::index)
        .find(|&i| i >= session.messages.len())
    {
        return Err(WriteError::NoSuchMessage(bad));
    }
    session.format.codec().write_in_place(session, items)
}

/// [`write()`] into `out` (see [`Codec::write_to`]).
pub fn write_to(
    session: &Session,
    items: &[Item],
    out: &mut dyn std::io::Write,
) -> Result<(), WriteError> {
    let raw = items.iter().any(|i| matches!(i, Item::InsertRecord(_)));
    if raw && session.format.codec().restores_summaries() {
        if let Some(bad) = items
            .iter()
            .filter_map(Item::index)
            .find(|&i| i >= session.messages.len())
        {
            return Err(WriteError::NoSuchMessage(bad));
        }
        let plan = restore_plan(session, items)
            .ok_or(WriteError::InsertRecordUnsupported(session.format))?;
        return session.format.codec().restore_to(session, &plan, out);
    }
    if let Some(bad) = items
        .iter()
        .filter_map(Item::index)
        .find(|&i| i >= session.messages.len())
    {
        return Err(WriteError::NoSuchMessage(bad));
    }
    session.format.codec().write_to(session, items, out)
}

/// The session's JSONL document, for a line format's writer.
pub(crate) fn lines_doc(session: &Session) -> Result<&LinesDoc, WriteError> {
    match &session.doc {
        Document::Lines(doc) => Ok(doc),
        Document::Released | Document::Detached(_) => Err(WriteError::Released),
        Document::Json(_) => Err(WriteError::Unsupported(session.format)),
    }
}

/// The session's JSON document, for a JSON format's writer.
pub(crate) fn json_doc(session: &Session) -> Result<&JsonDoc, WriteError> {
    match &session.doc {
        Document::Json(doc) => Ok(doc),
        Document::Released | Document::Detached(_) => Err(WriteError::Released),
        Document::Lines(_) => Err(WriteError::Unsupported(session.format)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{NewMessage, Part, Role};

    #[test]
    fn format_names_round_trip() {
        for f in Format::all() {
            assert_eq!(Format::from_name(f.name()), Some(f));
        }
        assert_eq!(Format::from_name("yaml"), None);
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
