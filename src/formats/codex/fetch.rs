//! The second pass of a streamed rollout: the active history a [`Planned`] read lists,
//! fetched a window of items at a time (the caller may parse a window's lines on several
//! threads), each made into the message [`super::read`] gives, in order. Items of a
//! `compacted` record's `replacement_history` come from that record, parsed once.

use serde_json::{json, Value};

use super::items::{codex_compact, item_message};
use super::reasoning::{annotate_value, is_summary_item};
use super::skel::call_hash;
use super::stream::{Place, Planned, Slot};
use crate::formats::message::Notes;
use crate::session::{Message, Origin, Part, ReportedUsage, Role};

/// Items fetched at a time, at most.
const WINDOW_ITEMS: usize = 1024;
/// Bytes of lines fetched at a time, at most (or one line, if larger).
const WINDOW_BYTES: usize = 256 << 10;

/// Gives the parsed lines at these places (offset, length), in order (`None`: one cannot
/// be read).
pub type Fetch<'a> = dyn FnMut(&[(u64, u32)]) -> Option<Vec<Value>> + 'a;

/// What the messages' reading adds to the plan: the warnings their items gave, and the
/// reported usage with the reasoning the next request no longer sends.
#[derive(Debug)]
pub struct Made {
    pub warnings: Vec<String>,
    pub usage: Option<ReportedUsage>,
}

/// The messages of `planned` handed to `emit`, in order; `None` where the whole reader
/// gives an error.
pub fn messages(
    planned: &Planned,
    fetch: &mut Fetch,
    emit: &mut dyn FnMut(Message),
) -> Option<Made> {
    let mut notes = Notes::default();
    let closed = &planned.closed;
    let mut dropped = 0;
    let mut k = 0;
    if let Some((line, text)) = &planned.system {
        let mut m = Message::new(
            Role::System,
            vec![Part::Text(text.clone())],
            Origin::Record(*line),
        );
        dropped += closed.close(k, &mut m);
        emit(m);
        k += 1;
    }
    let reasoned = |id: &str| planned.reasoned_calls.contains(&call_hash(id));
    // The `compacted` line the items of a replacement history come from, parsed.
    let mut compacted: Option<(u64, Value)> = None;
    let mut rest = &planned.items[..];
    while !rest.is_empty() {
        let (mut n, mut bytes) = (0, 0);
        for s in rest {
            if n >= WINDOW_ITEMS || (bytes >= WINDOW_BYTES && n > 0) {
                break;
            }
            n += 1;
            if own(s) {
                bytes += s.len as usize;
            }
        }
        let (window, after) = rest.split_at(n);
        rest = after;
        let places: Vec<(u64, u32)> = (window.iter().filter(|s| own(s)))
            .map(|s| (s.at, s.len))
            .collect();
        let mut lines = fetch(&places)?.into_iter();
        for s in window {
            let line = s.line as usize;
            let whole;
            let summary;
            let v = match s.place {
                Place::Payload => {
                    whole = lines.next()?;
                    whole.get("payload")?
                }
                Place::Bare => {
                    whole = lines.next()?;
                    &whole
                }
                Place::History(_) | Place::Summary => {
                    if compacted.as_ref().is_none_or(|(at, _)| *at != s.at) {
                        compacted = Some((s.at, fetch(&[(s.at, s.len)])?.pop()?));
                    }
                    let payload = compacted.as_ref()?.1.get("payload")?;
                    match s.place {
                        Place::History(e) => payload.get("replacement_history")?.get(e as usize)?,
                        _ => {
                            let text = payload.get("message").and_then(Value::as_str);
                            summary = json!({"type": "message", "role": "user",
                                "content": [{"type": "input_text", "text": text.unwrap_or("")}]});
                            &summary
                        }
                    }
                }
            };
            let mut m = message(s, v, line, &mut notes)?;
            annotate_value(&mut m, v, s.billed(), &reasoned);
            dropped += closed.close(k, &mut m);
            emit(m);
            k += 1;
        }
    }
    let usage = (planned.usage.clone()).map(|u| ReportedUsage { dropped, ..u });
    Some(Made {
        warnings: notes.into_warnings(),
        usage,
    })
}

/// Whether the item is its line's.
fn own(s: &Slot) -> bool {
    matches!(s.place, Place::Payload | Place::Bare)
}

/// The message of the item `v` of `s`, as `Rollout::messages` makes it.
fn message(s: &Slot, v: &Value, line: usize, notes: &mut Notes) -> Option<Message> {
    let place = match s.place {
        Place::History(e) => format!("line {}: replacement_history[{e}]", line + 1),
        _ => format!("line {}: payload", line + 1),
    };
    let mut m = item_message(v, &place, Origin::Record(line), notes).ok()?;
    let summary = match s.place {
        Place::Summary => true,
        Place::History(_) => is_summary_item(v),
        _ => false,
    };
    if summary {
        m.compact = Some(Box::new(codex_compact()));
    }
    Some(m)
}
