//! Running the engine's plans over an in-memory conversation: the strategies and the
//! compaction assembler plan against a [`Session`]; here a message list becomes one and a
//! plan's items become the new list.

use crate::compact::CompactInfo;
use crate::session::{
    AgentLimits, CompactMeta, Document, Format, Item, Message, Origin, Part, PartEdit, Session,
};
use crate::tokens::Counter;

/// A session holding `messages` and nothing of a file.
pub(crate) fn session_of(messages: Vec<Message>) -> Session {
    Session {
        format: Format::OpenAi,
        doc: Document::Released,
        messages,
        model: None,
        warnings: Vec::new(),
        reported_usage: None,
        agent_limits: AgentLimits::default(),
        request_extra: None,
        resume: None,
        skipped: false,
    }
}

/// The messages and per-message counts `items` describe, taking kept messages out of
/// `messages` (their counts from `counts`) and counting only what is new or edited.
/// `info` marks an inserted summary as a compaction's.
pub(crate) fn apply(
    messages: Vec<Message>,
    counts: &[usize],
    items: &[Item],
    counter: &Counter,
    info: Option<&CompactInfo>,
) -> (Vec<Message>, Vec<usize>) {
    let mut old: Vec<Option<Message>> = messages.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(items.len());
    let mut out_counts = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Item::Keep(i) => {
                if let Some(m) = old.get_mut(*i).and_then(Option::take) {
                    out.push(m);
                    out_counts.push(counts[*i]);
                }
            }
            Item::Edit { index, edits } => {
                if let Some(mut m) = old.get_mut(*index).and_then(Option::take) {
                    for PartEdit::ResultText { call_id, text } in edits {
                        edit_result(&mut m, call_id, text);
                    }
                    out_counts.push(counter.message(&m));
                    out.push(m);
                }
            }
            Item::Insert(new) => {
                let mut m = Message::new(
                    new.role,
                    vec![Part::Text(new.text.clone())],
                    Origin::Record(0),
                );
                if let Some(info) = info {
                    m.compact = Some(Box::new(CompactMeta {
                        id: Some(info.id.clone()),
                        seq: Some(info.seq),
                        timestamp: Some(info.timestamp.clone()),
                        by: "ctxctl",
                    }));
                }
                out_counts.push(counter.message(&m));
                out.push(m);
            }
            // Only `archive restore` writes records; no plan made here has them.
            Item::InsertRecord(_) => {}
        }
    }
    (out, out_counts)
}

/// Replaces the content of the result answering `call_id` in `m` by `text`.
fn edit_result(m: &mut Message, call_id: &str, text: &str) {
    for part in &mut m.parts {
        if let Part::ToolResult {
            call_id: id,
            content,
            ..
        } = part
        {
            if id == call_id {
                *content = vec![Part::Text(text.to_string())];
            }
        }
    }
}
