//! Putting a compacted session together: head, one summary message, tail.

use serde_json::{Map, Value};

use super::{Continuation, Partition};
use crate::session::summary::{CLOSE, OPEN};
use crate::session::{Item, NewMessage, Role, Session};

/// Identity of one compaction, written into the summary message's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactInfo {
    /// A UUID (v4), the key `archive restore` looks for.
    pub id: String,
    /// When the compaction ran, RFC 3339 UTC.
    pub timestamp: String,
    /// The archive's sequence number for this session.
    pub seq: u64,
    /// Where the originals were archived (`None` when the archive could not be written).
    pub archive: Option<String>,
}

impl CompactInfo {
    /// A fresh random compaction id.
    pub fn new_id() -> String {
        uuid::Uuid::new_v4().to_string()
    }
}

/// The summary message's role.
pub const SUMMARY_ROLE: Role = Role::User;

/// The summary message's text: a note for the model saying what happened, where the
/// originals are and how to go on ([`Continuation`]), then the summary between
/// `<summary>` tags.
pub fn summary_message_text(
    summary: &str,
    messages: usize,
    info: &CompactInfo,
    how: Continuation,
) -> String {
    let (before, after) = summary_message_frame(messages, info, how);
    format!("{before}{}{after}", summary.trim())
}

/// What a summary message's text holds before the summary (trimmed) and after it.
pub fn summary_message_frame(
    messages: usize,
    info: &CompactInfo,
    how: Continuation,
) -> (String, String) {
    let whence = match &info.archive {
        Some(path) => format!("The original messages are archived at {path}."),
        None => "The original messages were not archived.".to_string(),
    };
    let next = match how {
        Continuation::Conversation => {
            "Continue from the summary and the messages after it; ask the user if something you \
             need is missing."
        }
        Continuation::ToolLoop => {
            "You were in the middle of working on the user's latest request (quoted in the \
             summary): carry on from the messages after the summary, without asking the user to \
             repeat anything."
        }
        Continuation::Manual => {
            "The conversation was compacted between turns: the summary and the messages after it \
             are what came before; wait for the user's next message and answer it with them in \
             mind."
        }
    };
    let before = format!(
        "[ctxctl compaction {seq}] The earlier part of this conversation ({messages} message{s}) \
         was replaced by the summary below to save context. {whence} {next}\n\n{OPEN}\n",
        seq = info.seq,
        s = if messages == 1 { "" } else { "s" },
    );
    (before, format!("\n{CLOSE}"))
}

/// The summary message for `summary` replacing the middle of `partition`: a `user` message
/// whose record carries `compact_boundary`, `compact_id`, `compact_timestamp` and
/// `compact_seq`.
pub fn summary_message(summary: &str, partition: &Partition, info: &CompactInfo) -> NewMessage {
    let mut meta = Map::new();
    meta.insert("compact_boundary".into(), Value::Bool(true));
    meta.insert("compact_id".into(), Value::String(info.id.clone()));
    meta.insert(
        "compact_timestamp".into(),
        Value::String(info.timestamp.clone()),
    );
    meta.insert("compact_seq".into(), Value::from(info.seq));
    NewMessage {
        role: SUMMARY_ROLE,
        text: summary_message_text(
            summary,
            partition.summarized().count(),
            info,
            partition.continuation,
        ),
        meta,
    }
}

/// The write plan of the compacted session: `[head…, summary message, tail…]`, the
/// messages of the middle it keeps ([`Partition::kept`]) in their places around the
/// summary, which takes the place of the first message it replaces.
pub fn assemble(
    session: &Session,
    partition: &Partition,
    summary: &str,
    info: &CompactInfo,
) -> Vec<Item> {
    debug_assert_eq!(partition.tail.end, session.messages.len());
    let mut items: Vec<Item> = partition.head.clone().map(Item::Keep).collect();
    let first = partition.summarized().next();
    for i in partition.middle.clone() {
        if partition.kept.binary_search(&i).is_ok() {
            items.push(Item::Keep(i));
        } else if Some(i) == first {
            items.push(Item::Insert(summary_message(summary, partition, info)));
        }
    }
    items.extend(partition.tail.clone().map(Item::Keep));
    items
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{read, write};
    use crate::session::Format;
    use crate::session::{previous_summaries, summary_body};

    fn info() -> CompactInfo {
        CompactInfo {
            id: "0000-id".into(),
            timestamp: "2024-05-01T12:00:00Z".into(),
            seq: 3,
            archive: Some("/data/archives/s/compact-20240501T120000Z-3.json".into()),
        }
    }

    #[test]
    fn assembled_session_reads_back_with_its_summary_recognised() {
        let input = concat!(
            r#"{"role":"system","content":"sys"}"#,
            "\n",
            r#"{"role":"user","content":"old question"}"#,
            "\n",
            r#"{"role":"assistant","content":"old answer"}"#,
            "\n",
            r#"{"role":"user","content":"new question"}"#,
            "\n"
        );
        let s = read(input.as_bytes(), Some(Format::Jsonl)).unwrap();
        let p = Partition {
            head: 0..1,
            middle: 1..3,
            tail: 3..4,
            ..Default::default()
        };
        let items = assemble(&s, &p, "They talked.", &info());
        let out = write(&s, &items).unwrap();
        let back = read(&out, None).unwrap();
        assert_eq!(back.messages.len(), 3);
        assert_eq!(back.messages[0].text(), "sys");
        assert_eq!(back.messages[2].text(), "new question");
        let summary = &back.messages[1];
        assert_eq!(summary.role, Role::User);
        let meta = summary.compact.as_ref().expect("summary recognised");
        assert_eq!(meta.id.as_deref(), Some("0000-id"));
        assert_eq!(meta.seq, Some(3));
        assert_eq!(meta.timestamp.as_deref(), Some("2024-05-01T12:00:00Z"));
        let text = summary.text();
        assert!(text.contains("2 messages"), "{text}");
        assert!(text.contains("compact-20240501T120000Z-3.json"), "{text}");
        assert_eq!(summary_body(&text), "They talked.");
        assert_eq!(previous_summaries(&back.messages), ["They talked."]);
    }

    #[test]
    fn kept_messages_stay_in_place_around_the_summary() {
        let input = concat!(
            r#"{"role":"user","content":"old question"}"#,
            "\n",
            r#"{"role":"assistant","content":"keep me","_preserve":true}"#,
            "\n",
            r#"{"role":"assistant","content":"old answer"}"#,
            "\n",
            r#"{"role":"user","content":"new question"}"#,
            "\n"
        );
        let s = read(input.as_bytes(), Some(Format::Jsonl)).unwrap();
        let p = Partition {
            head: 0..0,
            middle: 0..3,
            tail: 3..4,
            kept: vec![1],
            ..Default::default()
        };
        let items = assemble(&s, &p, "They talked.", &info());
        assert!(matches!(items[0], Item::Insert(_)));
        assert_eq!(items[1..], [Item::Keep(1), Item::Keep(3)]);
        let out = String::from_utf8(write(&s, &items).unwrap()).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[1],
            input.lines().nth(1).unwrap(),
            "kept byte for byte"
        );
        assert!(lines[0].contains("(2 messages)"), "{}", lines[0]);
    }

    #[test]
    fn summary_body_of_foreign_text_is_the_text() {
        assert_eq!(summary_body("  plain summary \n"), "plain summary");
        assert_eq!(
            summary_body("</summary> odd <summary>"),
            "</summary> odd <summary>"
        );
        let no_archive = CompactInfo {
            archive: None,
            ..info()
        };
        let t = summary_message_text("x", 1, &no_archive, Continuation::ToolLoop);
        assert!(t.contains("without asking the user to repeat"), "{t}");
        assert!(
            t.contains("(1 message)") && t.contains("not archived"),
            "{t}"
        );
    }

    #[test]
    fn ids_are_v4_uuids() {
        let id = CompactInfo::new_id();
        let u = uuid::Uuid::parse_str(&id).unwrap();
        assert_eq!(u.get_version_num(), 4);
        assert_ne!(id, CompactInfo::new_id());
    }
}
