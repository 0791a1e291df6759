//! What the read-only commands (`count`, `check`, `stats`, `sessions`) need of a session,
//! folded message by message so that no message's text outlives its counting: roles and
//! token counts, pairing shapes for `check`, tool figures and the largest messages for
//! `stats`. A streamed session ([`crate::ops::json_stream`]) folds one block at a time; a
//! session read whole folds once, through the same [`Chunk::of`], so both give the same
//! figures.

use std::collections::BTreeMap;

use crate::context::Context;
use crate::ops::call_names::CallNames;
use crate::render::preview::preview;
use crate::session::pairing::Pairing;
use crate::session::pairs::{Shape, Shapes};
use crate::session::{Format, Message, Part, Role};
use crate::tokens::Counter;

/// How many of the largest messages are kept.
pub const LARGEST: usize = 5;
/// Characters of a message's preview.
const PREVIEW: usize = 60;

/// What a command wants besides roles and counts.
#[derive(Debug, Clone, Copy, Default)]
pub struct Wants {
    /// Pairing shapes (`check`).
    pub shapes: bool,
    /// Tool calls and results by tool (`stats`).
    pub tools: bool,
    /// A preview of every message (`count --per-message`).
    pub previews: bool,
    /// Where the records end, for reading a grown file from there (`check`'s digest).
    pub resume: bool,
}

/// A compaction summary among the messages.
#[derive(Debug, Clone, PartialEq)]
pub struct Compaction {
    pub index: usize,
    pub by: &'static str,
    pub id: Option<String>,
}

/// One of the largest messages.
#[derive(Debug, Clone, PartialEq)]
pub struct Largest {
    pub index: usize,
    pub role: Role,
    pub tokens: usize,
    pub preview: String,
}

/// Calls and tokens of one tool.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolTally {
    pub name: String,
    pub calls: usize,
    pub call_tokens: usize,
    pub result_tokens: usize,
    pub errors: usize,
}

/// A tool part, in message order.
#[derive(Debug, Clone)]
enum ToolPart {
    Call {
        id: String,
        name: String,
        tokens: usize,
    },
    Result {
        call_id: String,
        tokens: usize,
        is_error: bool,
    },
}

/// Consecutive messages, reduced to what [`Tally`] keeps.
#[derive(Debug, Default)]
pub struct Chunk {
    roles: Vec<Role>,
    counts: Vec<usize>,
    estimated: usize,
    shapes: Shapes,
    previews: Vec<String>,
    compactions: Vec<Compaction>,
    largest: Vec<Largest>,
    tools: Vec<ToolPart>,
}

impl Chunk {
    /// `messages` (the first being message `first` of the session), whose tokens are
    /// `counts` (scaled by `factor`, as tool parts are); `tools` are the tokens of their
    /// [`tool_parts`] (unscaled), when already counted.
    #[allow(clippy::too_many_arguments)]
    pub fn of(
        ctx: &Context,
        counter: &Counter,
        messages: &[Message],
        counts: &[usize],
        first: usize,
        (factor, threads): (f64, usize),
        wants: Wants,
        tools: Option<Vec<usize>>,
    ) -> Chunk {
        let mut c = Chunk {
            roles: messages.iter().map(|m| m.role).collect(),
            counts: counts.to_vec(),
            estimated: messages.iter().map(Message::estimated_parts).sum(),
            ..Chunk::default()
        };
        if wants.shapes {
            for m in messages {
                c.shapes.push(Shape::of(m));
            }
        }
        if wants.previews {
            c.previews = messages
                .iter()
                .map(|m| preview(&m.text(), PREVIEW))
                .collect();
        }
        for (i, m) in messages.iter().enumerate() {
            if let Some(meta) = &m.compact {
                c.compactions.push(Compaction {
                    index: first + i,
                    by: meta.by,
                    id: meta.id.clone(),
                });
            }
        }
        // The largest first; previews only for those kept.
        let mut order: Vec<usize> = (0..messages.len()).collect();
        order.sort_by(|&a, &b| counts[b].cmp(&counts[a]).then(a.cmp(&b)));
        order.truncate(LARGEST);
        c.largest = order
            .into_iter()
            .map(|i| Largest {
                index: first + i,
                role: messages[i].role,
                tokens: counts[i],
                preview: preview(&messages[i].text(), PREVIEW),
            })
            .collect();
        if wants.tools {
            let parts = tool_parts(messages);
            let counts = tools.unwrap_or_else(|| ctx.count_parts_on(counter, &parts, threads));
            c.tools = tool_facts(&parts, counts, factor);
        }
        c
    }
}

/// The tool calls and results of `messages`, in order.
pub fn tool_parts(messages: &[Message]) -> Vec<&Part> {
    messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter(|p| matches!(p, Part::ToolCall { .. } | Part::ToolResult { .. }))
        .collect()
}

/// The tool `parts` whose tokens are `counts` (unscaled).
fn tool_facts(parts: &[&Part], counts: Vec<usize>, factor: f64) -> Vec<ToolPart> {
    parts
        .iter()
        .zip(counts)
        .filter_map(|(p, n)| {
            let tokens = crate::ops::load::scale(n, factor);
            match p {
                Part::ToolCall { id, name, .. } => Some(ToolPart::Call {
                    id: id.clone(),
                    name: name.clone(),
                    tokens,
                }),
                Part::ToolResult {
                    call_id, is_error, ..
                } => Some(ToolPart::Result {
                    call_id: call_id.clone(),
                    tokens,
                    is_error: *is_error,
                }),
                _ => None,
            }
        })
        .collect()
}

/// A session's messages folded, chunk by chunk, in order.
#[derive(Debug, Default)]
pub struct Tally {
    pub roles: Vec<Role>,
    /// Tokens of each message (scaled).
    pub counts: Vec<usize>,
    /// The counts while they are added, four bytes each (see [`Tally::narrow`]); `counts`
    /// is empty meanwhile.
    narrow: Option<Narrow>,
    /// Parts counted by their size (see [`Message::estimated_parts`]).
    pub estimated: usize,
    /// Each message's pairing shape, when wanted (and not [`Tally::pair_as_read`]).
    pub shapes: Shapes,
    /// The pairing checked as the messages were added, instead of keeping their shapes
    /// (see [`Tally::pair_as_read`]).
    pub pairing: Option<Pairing>,
    /// Each message's preview, when wanted.
    pub previews: Vec<String>,
    pub compactions: Vec<Compaction>,
    /// The largest messages, largest first (the earlier first among equals).
    pub largest: Vec<Largest>,
    tools: BTreeMap<String, ToolTally>,
    /// The tool each call id called, where two strings per call took ~100 bytes.
    calls: CallNames,
}

/// Per-message counts in four bytes each, a count that does not fit kept aside whole: half
/// of what a `usize` a message holds through a long streamed read (8 MiB of a 2 GB
/// transcript's peak), made `usize`s again once the read is done ([`Tally::widen`]).
#[derive(Debug, Default)]
struct Narrow {
    counts: Vec<u32>,
    /// The counts that do not fit (`u32::MAX` in `counts`), by message index.
    wide: Vec<(usize, usize)>,
}

impl Narrow {
    fn extend(&mut self, counts: Vec<usize>) {
        for n in counts {
            match u32::try_from(n) {
                Ok(k) if k != u32::MAX => self.counts.push(k),
                _ => {
                    self.wide.push((self.counts.len(), n));
                    self.counts.push(u32::MAX);
                }
            }
        }
    }

    fn widen(self) -> Vec<usize> {
        let Narrow { counts, wide } = self;
        let mut out = crate::mem::widen(counts, 0, |n| n as usize);
        for (i, n) in wide {
            out[i] = n;
        }
        out
    }
}

impl Tally {
    /// Adds the next messages.
    pub fn add(&mut self, c: Chunk) {
        self.roles.extend(c.roles);
        match &mut self.narrow {
            Some(n) => n.extend(c.counts),
            None => self.counts.extend(c.counts),
        }
        self.estimated += c.estimated;
        match &mut self.pairing {
            Some(p) => c.shapes.turns().iter().for_each(|t| p.take(t)),
            None => self.shapes.append(c.shapes),
        }
        self.previews.extend(c.previews);
        self.compactions.extend(c.compactions);
        self.largest.extend(c.largest);
        self.largest
            .sort_by(|a, b| b.tokens.cmp(&a.tokens).then(a.index.cmp(&b.index)));
        self.largest.truncate(LARGEST);
        for part in c.tools {
            match part {
                ToolPart::Call { id, name, tokens } => {
                    let e = tool(&mut self.tools, &name);
                    e.calls += 1;
                    e.call_tokens += tokens;
                    self.calls.insert(&id, name);
                }
                ToolPart::Result {
                    call_id,
                    tokens,
                    is_error,
                } => {
                    let name = (self.calls.get(&call_id))
                        .unwrap_or("(unknown)")
                        .to_string();
                    let e = tool(&mut self.tools, &name);
                    e.result_tokens += tokens;
                    e.errors += usize::from(is_error);
                }
            }
        }
    }

    /// Puts messages read last before all the others (Anthropic's system prompt, written
    /// after the message list): `false`, and nothing changed, when they hold tool parts,
    /// which would pair with the others in another order.
    pub fn prepend(&mut self, c: Chunk) -> bool {
        if !c.tools.is_empty() || self.pairing.is_some() {
            return false;
        }
        self.widen();
        let n = c.roles.len();
        for m in &mut self.largest {
            m.index += n;
        }
        for m in &mut self.compactions {
            m.index += n;
        }
        let mut rest = std::mem::take(self);
        self.add(c);
        self.roles.append(&mut rest.roles);
        self.counts.append(&mut rest.counts);
        self.estimated += rest.estimated;
        self.shapes.append(std::mem::take(&mut rest.shapes));
        self.previews.append(&mut rest.previews);
        self.compactions.append(&mut rest.compactions);
        self.largest.append(&mut rest.largest);
        self.largest
            .sort_by(|a, b| b.tokens.cmp(&a.tokens).then(a.index.cmp(&b.index)));
        self.largest.truncate(LARGEST);
        self.tools = rest.tools;
        self.calls = rest.calls;
        true
    }

    /// From now on (before any message is added), keeps the counts in four bytes each
    /// until [`Tally::widen`] makes them `counts` again: for a read that adds many messages
    /// and reads no count before it is done (a streamed read's batches).
    pub fn narrow(&mut self) {
        if self.is_empty() {
            self.narrow = Some(Narrow::default());
        }
    }

    /// Makes the counts kept narrow (see [`Tally::narrow`]) `counts` again, sized to fit.
    pub fn widen(&mut self) {
        if let Some(n) = self.narrow.take() {
            self.counts = n.widen();
        }
    }

    /// From now on (before any message is added), checks the messages' pairing as they
    /// are added ([`Pairing`]) instead of keeping their shapes: memory that follows the
    /// calls still open, not the session's length. For a read that needs no shapes
    /// afterwards (no resume point for `check`'s digest, no earlier messages to put
    /// before these). A session sent to the Anthropic API has its ordering rules checked
    /// as the messages are added too ([`Pairing::anthropic`]).
    pub fn pair_as_read(&mut self, format: Format) {
        if self.is_empty() {
            self.pairing = Some(if format.anthropic_bound() {
                Pairing::anthropic()
            } else {
                Pairing::default()
            });
        }
    }

    /// The pairing problems of the messages (as [`crate::session::pairs::problems`] finds
    /// them), however they were kept.
    pub fn pairing_problems(&self) -> Vec<crate::session::pairs::Problem> {
        match &self.pairing {
            Some(p) => p.problems(),
            None => crate::session::pairs::problems(&self.shapes.turns()),
        }
    }

    /// Calls, tokens and failures per tool name, the most tokens first (results are
    /// matched to calls by id).
    pub fn tools(&self) -> Vec<ToolTally> {
        let mut v: Vec<ToolTally> = self.tools.values().cloned().collect();
        v.sort_by(|a, b| {
            (b.call_tokens + b.result_tokens)
                .cmp(&(a.call_tokens + a.result_tokens))
                .then_with(|| a.name.cmp(&b.name))
        });
        v
    }

    pub fn len(&self) -> usize {
        self.roles.len()
    }

    pub fn is_empty(&self) -> bool {
        self.roles.is_empty()
    }
}

fn tool<'a>(map: &'a mut BTreeMap<String, ToolTally>, name: &str) -> &'a mut ToolTally {
    map.entry(name.to_string()).or_insert_with(|| ToolTally {
        name: name.to_string(),
        ..ToolTally::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(counts: &[usize]) -> Chunk {
        Chunk {
            roles: vec![Role::User; counts.len()],
            counts: counts.to_vec(),
            ..Chunk::default()
        }
    }

    #[test]
    fn counts_kept_narrow_come_back_as_they_were_added() {
        let big = usize::try_from(u64::from(u32::MAX) + 5).unwrap_or(usize::MAX);
        let chunks: [&[usize]; 3] = [&[3, 0, u32::MAX as usize], &[], &[big, 7]];
        let mut wide = Tally::default();
        let mut narrow = Tally::default();
        narrow.narrow();
        for c in chunks {
            wide.add(chunk(c));
            narrow.add(chunk(c));
        }
        assert!(narrow.counts.is_empty(), "kept aside until widened");
        assert_eq!(narrow.len(), 5);
        narrow.widen();
        assert_eq!(narrow.counts, wide.counts);
        assert_eq!(narrow.counts, [3, 0, u32::MAX as usize, big, 7]);
        narrow.widen();
        assert_eq!(narrow.counts.len(), 5, "widening twice changes nothing");
    }

    #[test]
    fn a_tally_narrowed_once_messages_are_added_stays_wide() {
        let mut t = Tally::default();
        t.add(chunk(&[1, 2]));
        t.narrow();
        t.add(chunk(&[4]));
        assert_eq!(t.counts, [1, 2, 4]);
    }

    #[test]
    fn messages_put_first_widen_the_counts() {
        let mut t = Tally::default();
        t.narrow();
        t.add(chunk(&[5, 6]));
        assert!(t.prepend(chunk(&[9])));
        assert_eq!(t.counts, [9, 5, 6]);
    }
}
