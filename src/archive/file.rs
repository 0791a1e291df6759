//! What an archive holds: the removed records and the facts around them
//! ([`ArchiveRecord`]), what the rewrite made of them ([`ArchiveEnd`]), the whole file as
//! read back ([`ArchiveFile`]), and how archive files are compressed.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::records::RecordText;
use super::undo::Undo;
use super::Timestamp;

/// What a compaction archives: the removed records and the facts around them. What the
/// rewrite made of them ([`ArchiveEnd`]) is written after them, so that a large archive's
/// records can be written while the summary is made ([`super::ArchiveStore::begin`]).
#[derive(Debug, Clone)]
pub struct ArchiveRecord<'a> {
    /// The sequence number to use; `None` takes the next free one.
    pub seq: Option<u64>,
    pub compact_id: String,
    pub created: Timestamp,
    /// The session file the records came from.
    pub source: Option<String>,
    /// Where the compacted session was written (what `archive restore` rewrites).
    pub output: Option<String>,
    /// The session format's name (`openai`, `jsonl` …).
    pub format: String,
    pub model: Option<String>,
    /// Index of the first archived message in the session it came from.
    pub first_message: usize,
    /// Number of archived messages.
    pub messages: usize,
    /// The removed records verbatim (their original text, usually borrowed from the
    /// session), in order.
    pub records: Vec<RecordText<'a>>,
    /// The session inside the agent's database `source` names (goose's `sessions.db`).
    pub agent_session: Option<String>,
}

/// What a rewrite made of the records it archives: known once its summary is made.
#[derive(Debug, Clone, Default)]
pub struct ArchiveEnd<'a> {
    pub summarizer: String,
    pub tokens: Tokens,
    pub summary: String,
    /// For a trim: how to rebuild the original file from what the trim wrote (its text
    /// borrowed from the original while it is filed).
    pub undo: Option<Undo<'a>>,
}

impl ArchiveEnd<'_> {
    /// The end holding its own text (an undo script's, borrowed until now), to be handed
    /// on past what it borrowed from.
    pub fn into_owned(self) -> ArchiveEnd<'static> {
        ArchiveEnd {
            summarizer: self.summarizer,
            tokens: self.tokens,
            summary: self.summary,
            undo: self.undo.map(Undo::into_owned),
        }
    }
}

/// Token counts recorded with an archive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    /// The session before compaction.
    pub original: usize,
    /// The session after compaction.
    pub compacted: usize,
    /// The archived messages.
    pub archived: usize,
}

/// An archive file's content.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ArchiveFile {
    pub ctxctl_version: String,
    pub session: String,
    pub seq: u64,
    pub compact_id: String,
    /// RFC 3339 UTC.
    pub created: String,
    pub source: Option<String>,
    #[serde(default)]
    pub output: Option<String>,
    pub format: String,
    pub model: Option<String>,
    pub summarizer: String,
    pub tokens: Tokens,
    pub first_message: usize,
    pub messages: usize,
    pub summary: String,
    /// The removed records as the archive holds them: each one's original text (archives
    /// written before ctxctl kept that hold them pretty-printed; see
    /// [`super::archived_record`]).
    pub records: Vec<Box<RawValue>>,
    /// For a trim: how to rebuild the original file from what the trim wrote (archives of
    /// compactions, and of trims by ctxctl before 0.1, have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo: Option<Undo<'static>>,
    /// The session inside the agent's database `output` names (goose's `sessions.db`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_session: Option<String>,
}

/// Archives are equal when their facts are and their records have the same text.
impl PartialEq for ArchiveFile {
    fn eq(&self, other: &ArchiveFile) -> bool {
        // Every field named, so a new one cannot be left out of the comparison.
        let ArchiveFile {
            ctxctl_version,
            session,
            seq,
            compact_id,
            created,
            source,
            output,
            format,
            model,
            summarizer,
            tokens,
            first_message,
            messages,
            summary,
            records,
            undo,
            agent_session,
        } = self;
        *ctxctl_version == other.ctxctl_version
            && *session == other.session
            && *seq == other.seq
            && *compact_id == other.compact_id
            && *created == other.created
            && *source == other.source
            && *output == other.output
            && *format == other.format
            && *model == other.model
            && *summarizer == other.summarizer
            && *tokens == other.tokens
            && *first_message == other.first_message
            && *messages == other.messages
            && *summary == other.summary
            && records.len() == other.records.len()
            && records
                .iter()
                .zip(&other.records)
                .all(|(a, b)| a.get() == b.get())
            && *undo == other.undo
            && *agent_session == other.agent_session
    }
}

/// Where an archive was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    pub seq: u64,
    pub path: PathBuf,
}

/// How new archive files are written (existing ones are read whatever they are).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compression {
    /// Plain pretty JSON (`.json`).
    None,
    /// zstd level 3 (`.json.zst`): JSON sessions shrink several times over. The default.
    #[default]
    Zstd,
}

impl Compression {
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Zstd => "zstd",
        }
    }

    pub fn from_name(s: &str) -> Option<Compression> {
        match s {
            "none" => Some(Compression::None),
            "zstd" => Some(Compression::Zstd),
            _ => None,
        }
    }

    pub(super) fn extension(self) -> &'static str {
        match self {
            Compression::None => "json",
            Compression::Zstd => "json.zst",
        }
    }
}

/// The first bytes of every zstd frame.
pub(super) const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// The zstd level archives are written at: fast, and most of what higher levels gain on JSON.
pub(super) const ZSTD_LEVEL: i32 = 3;
