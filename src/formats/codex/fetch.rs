//! The second pass of a streamed rollout: the messages of the active history a
//! [`Planned`] read lists, each made as [`super::read`] makes it, in order. The prefix's
//! items are fetched a window at a time (the caller may parse a window's lines on several
//! threads; items of a `compacted` record's `replacement_history` come from that record,
//! parsed once); the tail's lines are handed in by the caller as it reads them again.

use serde_json::{json, Value};

use super::items::{codex_compact, item_message};
use super::reasoning::{annotate_value, is_summary_item};
use super::shell_output::Reformat;
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

/// Makes the messages of a [`Planned`] read, in order: first the system message and the
/// prefix's ([`Maker::head`]), then each of the tail's ([`Maker::tail`]).
pub struct Maker<'a> {
    planned: &'a Planned,
    notes: Notes,
    dropped: u64,
    /// The next message's index.
    k: usize,
    reformat: Reformat,
}

impl<'a> Maker<'a> {
    pub fn new(planned: &'a Planned) -> Maker<'a> {
        Maker {
            planned,
            notes: Notes::default(),
            dropped: 0,
            k: 0,
            reformat: Reformat::new(planned.patch),
        }
    }

    /// The system message and the prefix's items' messages handed to `emit`; `None` where
    /// the whole reader gives an error.
    pub fn head(&mut self, fetch: &mut Fetch, emit: &mut dyn FnMut(Message)) -> Option<()> {
        if let Some((line, text)) = &self.planned.system {
            let m = Message::new(
                Role::System,
                vec![Part::Text(text.clone())],
                Origin::Record(*line),
            );
            emit(self.done(m));
        }
        // The `compacted` line the items of a replacement history come from, parsed.
        let mut compacted: Option<(u64, Value)> = None;
        let mut rest = &self.planned.prefix[..];
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
                            Place::History(e) => {
                                payload.get("replacement_history")?.get(e as usize)?
                            }
                            _ => {
                                let text = payload.get("message").and_then(Value::as_str);
                                summary = json!({"type": "message", "role": "user",
                                    "content": [{"type": "input_text", "text": text.unwrap_or("")}]});
                                &summary
                            }
                        }
                    }
                };
                let m = self.message(s.place, s.line, v, s.billed)?;
                emit(m);
            }
        }
        Some(())
    }

    /// The message of the tail's item on `line` (`whole`, the line parsed); `None` where
    /// the whole reader gives an error.
    pub fn tail(&mut self, line: usize, whole: &Value) -> Option<Message> {
        let (place, v) = match whole.get("payload") {
            Some(p) => (Place::Payload, p),
            None => (Place::Bare, whole),
        };
        self.message(place, line, v, self.planned.tail.billed(line))
    }

    /// The message of the item `v`, read from `place` on `line`, as `Rollout::messages`
    /// makes it, then as `drop_closed_turns` leaves it.
    fn message(
        &mut self,
        place: Place,
        line: usize,
        v: &Value,
        billed: Option<usize>,
    ) -> Option<Message> {
        let at = match place {
            Place::History(e) => format!("line {}: replacement_history[{e}]", line + 1),
            _ => format!("line {}: payload", line + 1),
        };
        let mut m = item_message(v, &at, Origin::Record(line), &mut self.notes).ok()?;
        let summary = match place {
            Place::Summary => true,
            Place::History(_) => is_summary_item(v),
            _ => false,
        };
        if summary {
            m.compact = Some(Box::new(codex_compact()));
        }
        let planned = self.planned;
        annotate_value(&mut m, v, billed, &|id| planned.reasoned(call_hash(id)));
        Some(self.done(m))
    }

    /// Message `m`, the next, as `drop_closed_turns` leaves it (its shell outputs as sent).
    fn done(&mut self, mut m: Message) -> Message {
        self.reformat.message(&mut m);
        self.dropped += self.planned.closed.close(self.k, &mut m);
        self.k += 1;
        m
    }

    /// What the messages' reading adds to the plan; `None` unless every message was made.
    pub fn finish(self) -> Option<Made> {
        if self.k != self.planned.len {
            return None;
        }
        let dropped = self.dropped;
        let usage = (self.planned.usage.clone()).map(|u| ReportedUsage { dropped, ..u });
        Some(Made {
            warnings: self.notes.into_warnings(),
            usage,
        })
    }
}

/// Whether the item is its line's.
fn own(s: &Slot) -> bool {
    matches!(s.place, Place::Payload | Place::Bare)
}
