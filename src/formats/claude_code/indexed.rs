//! A Claude Code transcript read from its index ([`Index`], one 2-byte [`Node`] per
//! record, its ids, line and place in the file kept in a few bytes besides) rather than
//! from its whole text: the live thread is traced over the nodes
//! ([`live::trace`]), which records of it make one response told in a byte a place
//! ([`Responses`]), then only the live records are fetched and parsed, a window of them
//! at a time (the caller may parse a window on several threads), and turned into the
//! messages [`super::read`] gives, each handed out once no later record can add to
//! it (the records of one API response may be apart in the thread's order). What the whole
//! reader finds besides the messages (model, usage, warnings, the agent's limits and
//! request extras) comes back in [`Read`], from small per-message facts.
//!
//! Whatever the whole reader would word as an error gives `None`: the caller reads the
//! file whole, and the error is its.

use std::collections::{HashMap, HashSet, VecDeque};

use serde_json::Value;

pub use super::index::Index;
use super::live::{self, Thread};
use super::responses::Responses;
use super::skel::{Kind, Node};
use super::{attach, compact_meta, Rec, DEFAULT_MODEL};
use crate::formats::message::{self, Notes};
use crate::session::{AgentLimits, Message, Origin, ReportedUsage, Role};

/// What the transcript holds besides its messages, as [`super::read`] gives it.
#[derive(Debug)]
pub struct Read {
    pub model: String,
    pub warnings: Vec<String>,
    /// The reported usage, kept narrow until [`Reports::usage`] is asked for it: a 2 GB
    /// transcript's 600K earlier reports take 4.8 MB so, 9.6 once widened, which the
    /// caller does once it has let the index go.
    pub reports: Reports,
    pub agent_limits: AgentLimits,
    pub request_extra: Option<String>,
    /// How many messages were handed out.
    pub messages: usize,
}

/// What the usage of a message depends on.
struct Fact {
    assistant: bool,
    /// Its first record names a model.
    named: bool,
    /// The largest (prompt, output) its records report, when one reports usage.
    usage: Option<(u64, u64)>,
    /// The first line of its records.
    first_line: usize,
}

/// A message still open to more records.
struct Open {
    message: Message,
    lines: Vec<usize>,
    /// Its response (its first place in the thread's order).
    group: Option<u32>,
    fact: Fact,
}

/// A message handed out whose usage counts (an assistant's, naming a model, reporting
/// usage): all the reader keeps of it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Reported {
    /// Its index among the messages.
    index: usize,
    first_line: usize,
    usage: (u64, u64),
}

/// The earlier reports as [`ReportedUsage::earlier`] holds them, `(message, prompt tokens)`,
/// in eight bytes each while the messages are read (a 2 GB transcript's 600K reports: 4.8
/// MB where 16 bytes each, in a vector doubled past 8 MiB, held 16.8), a pair that does not
/// fit kept aside whole.
#[derive(Debug, Default)]
struct Earlier {
    pairs: Vec<(u32, u32)>,
    /// The pairs that do not fit (`u32::MAX` tokens in `pairs`), by place in `pairs`.
    wide: Vec<(usize, (usize, u64))>,
}

impl Earlier {
    fn push(&mut self, (at, tokens): (usize, u64)) {
        match (u32::try_from(at), u32::try_from(tokens)) {
            (Ok(a), Ok(t)) if t != u32::MAX => self.pairs.push((a, t)),
            _ => {
                self.wide.push((self.pairs.len(), (at, tokens)));
                self.pairs.push((0, u32::MAX));
            }
        }
    }

    /// The pairs, as [`ReportedUsage::earlier`] holds them.
    fn widen(self) -> Vec<(usize, u64)> {
        let Earlier { pairs, wide } = self;
        let mut out = crate::mem::widen(pairs, (0, 0), |(a, t)| (a as usize, u64::from(t)));
        for (k, pair) in wide {
            out[k] = pair;
        }
        out
    }
}

/// The reports of the messages handed out, kept as `super`'s `usage` reads them: the last
/// one, and of those before it only what [`ReportedUsage::earlier`] holds of the live ones
/// (a report before ctxctl's last rewrite or before a preserved segment is stale). Each
/// report is sorted as it comes, so that a 2 GB transcript's 600K reports are not held
/// whole (24 bytes each) beside the list made from them.
#[derive(Debug)]
pub struct Reports {
    /// The line of ctxctl's last `last-prompt` record (`usize::MAX`: its last mark is
    /// another record, and every report is stale), if any.
    stale: Option<usize>,
    /// The line of the boundary of the preserved segment the thread goes through.
    boundary: Option<usize>,
    last: Option<Reported>,
    earlier: Earlier,
}

impl Reports {
    fn new(index: &Index, thread: &Thread) -> Reports {
        let nodes = &index.nodes;
        let stale = (0..nodes.len())
            .rev()
            .find(|&i| nodes[i].ctxctl())
            .map(|i| {
                if nodes[i].kind == Kind::LastPrompt {
                    index.line(i)
                } else {
                    usize::MAX
                }
            });
        Reports {
            stale,
            boundary: thread.splice_boundary.map(|b| index.line(b)),
            last: None,
            earlier: Earlier::default(),
        }
    }

    /// Whether `r` reports on the live history (is not stale).
    fn live(&self, r: &Reported) -> bool {
        let first = r.first_line;
        self.stale.is_none_or(|s| first > s) && self.boundary.is_none_or(|b| first >= b)
    }

    /// `r`, the latest report so far.
    fn push(&mut self, r: Reported) {
        if let Some(before) = self.last.replace(r) {
            if self.live(&before) {
                self.earlier.push((before.index, before.usage.0));
            }
        }
    }

    /// Whether the records report usage on the live history.
    fn any(&self) -> bool {
        self.last.as_ref().is_some_and(|l| self.live(l))
    }

    /// The reported usage, as `usage` in `super` tells it from the messages' records.
    pub fn usage(self) -> Option<ReportedUsage> {
        let last = self.last.filter(|l| self.live(l))?;
        let (input_tokens, output_tokens) = last.usage;
        Some(ReportedUsage {
            input_tokens,
            output_tokens,
            after_message: Some(last.index),
            request_end: Some(last.index),
            earlier: self.earlier.widen(),
            dropped: 0,
        })
    }
}

/// What [`messages`] handed out.
struct Handed {
    messages: usize,
    reports: Reports,
}

/// The live thread of an indexed transcript, and the model it names.
pub struct Traced {
    thread: Thread,
    /// The responses of the thread's places, so that the records' `message.id`s can go
    /// before they are read ([`Index::forget_ids`]).
    responses: Responses,
    pub model: String,
}

impl Traced {
    /// The live thread starts at a record whose parent is not in the file.
    pub fn cut_short(&self) -> bool {
        !self.thread.missing.is_empty()
    }

    /// The live thread starts after a compact boundary: only then can [`read`] give an
    /// `AgentLimits::compacted_at`, and the part of the file before it be traced again.
    pub fn after_boundary(&self) -> bool {
        self.thread.boundary.is_some()
    }
}

/// Whether node `n` is a record whose `message.id` merges it with the other records of
/// its response.
fn merges(n: &Node) -> bool {
    matches!(n.kind, Kind::User | Kind::Assistant) && !n.api_error()
}

/// Traces the live thread of the transcript `index` describes.
pub fn trace(index: &Index) -> Traced {
    let nodes = &index.nodes;
    let thread = live::trace(index);
    let responses = Responses::new(thread.order.iter(), |i| {
        let i = i as usize;
        index.message_id(i).filter(|_| merges(&nodes[i]))
    });
    // The latest live record naming a model, else the latest of all.
    let named = |i: &usize| nodes[*i].named();
    let model = ((0..nodes.len()).rev())
        .filter(named)
        .find(|&i| thread.live.get(i))
        .or_else(|| (0..nodes.len()).rev().find(named))
        .and_then(|i| index.models.of(i))
        .map_or_else(|| DEFAULT_MODEL.to_string(), str::to_string);
    Traced {
        thread,
        responses,
        model,
    }
}

/// Records fetched and parsed at a time, at most.
const WINDOW_RECORDS: usize = 1024;
/// Bytes of records fetched and parsed at a time, at most (or one record, if larger).
const WINDOW_BYTES: usize = 256 << 10;

/// Gives the parsed records of the nodes asked for (by index), in order (`None`: one
/// cannot be read).
pub type Fetch<'a> = dyn FnMut(&[usize]) -> Option<Vec<Value>> + 'a;

/// Reads the transcript `index` describes, traced: `fetch` gives nodes' records, `emit`
/// gets each message, in order. `None` where the whole reader gives an error.
pub fn read(
    index: &Index,
    traced: Traced,
    fetch: &mut Fetch,
    emit: &mut dyn FnMut(Message),
) -> Option<Read> {
    let nodes = &index.nodes;
    let Traced {
        thread,
        responses,
        model,
    } = traced;
    let mut warnings: Vec<String> = index.file_warnings.to_vec();
    let mut thread_warnings = thread.warnings.clone();
    for &(w, i) in &thread.missing {
        let v = fetch(&[i])?.pop()?;
        let p = v.get("parentUuid").and_then(Value::as_str)?;
        thread_warnings[w] = format!(
            "line {}: parent record {p} is not in this file; the thread starts here",
            index.line(i) + 1
        );
    }
    warnings.extend(thread_warnings);
    let mut notes = Notes::default();
    let handed = messages(index, &thread, &responses, fetch, emit, &mut notes)?;
    // The thread's order and live flags go before the reports are widened.
    let boundary = thread.boundary;
    drop((responses, thread));
    warnings.extend(notes.into_warnings());
    let request_extra = match (0..nodes.len()).rev().find(|&i| nodes[i].snapshot()) {
        Some(i) => {
            let v = fetch(&[i])?.pop()?;
            attach::prompt_snapshot(&[Rec {
                line: index.line(i),
                v,
                uuid: None,
                parent: None,
            }])
        }
        None => None,
    };
    let conversation = || nodes.iter().filter(|n| n.is_conversation());
    let agent_limits = AgentLimits {
        subagent: conversation().next().is_some() && conversation().all(|n| n.sidechain()),
        prompt_measured: request_extra.is_some(),
        full_tool_schemas: !super::defers_tools(&model),
        agent_version: index.version,
        compacted_at: boundary
            .filter(|_| !handed.reports.any())
            .map(|b| index.line(b)),
        ..AgentLimits::default()
    };
    Some(Read {
        model,
        warnings,
        reports: handed.reports,
        agent_limits,
        request_extra,
        messages: handed.messages,
    })
}

/// The messages of the live thread handed to `emit`, as [`super::messages`] makes them:
/// how many, and the facts of those whose usage counts.
fn messages(
    index: &Index,
    thread: &Thread,
    responses: &Responses,
    fetch: &mut Fetch,
    emit: &mut dyn FnMut(Message),
    notes: &mut Notes,
) -> Option<Handed> {
    let nodes = &index.nodes;
    // The open responses whose last record is read.
    let mut closed: HashSet<u32> = HashSet::new();
    let preserved_before = thread.splice_boundary.map(|b| index.line(b));
    let mut reports = Reports::new(index, thread);
    let mut open: VecDeque<Open> = VecDeque::new();
    // Message index of the first open message, and of each open response.
    let mut base = 0;
    let mut group: HashMap<u32, usize> = HashMap::new();
    let wanted = |n: &Node| n.kind == Kind::Attachment || merges(n);
    let mut parsed = std::collections::VecDeque::new();
    let mut fetched_to = 0;
    let mut walk = responses.walk();
    // The records not fetched yet, in order.
    let mut ahead = thread.order.iter();
    for (rank, i) in thread.order.iter().enumerate() {
        let (response, closes) = walk.next()?;
        let i = i as usize;
        let n = &nodes[i];
        if rank == fetched_to {
            // The next window of records, parsed at once.
            let (mut batch, mut bytes) = (Vec::new(), 0);
            for j in ahead.clone() {
                let j = j as usize;
                if batch.len() >= WINDOW_RECORDS || (bytes >= WINDOW_BYTES && !batch.is_empty()) {
                    break;
                }
                ahead.next();
                fetched_to += 1;
                if wanted(&nodes[j]) {
                    bytes += index.place(j).1 as usize;
                    batch.push(j);
                }
            }
            parsed.extend(fetch(&batch)?);
        }
        if closes {
            closed.extend(response);
        }
        if wanted(n) {
            let v = parsed.pop_front()?;
            let r = Rec {
                line: index.line(i),
                uuid: v.get("uuid").and_then(Value::as_str).map(str::to_string),
                parent: None,
                v,
            };
            if n.kind == Kind::Attachment {
                let mut m = Message::new(Role::System, attach::parts(&r), Origin::Record(r.line));
                m.id = r.uuid.clone();
                let fact = Fact {
                    assistant: false,
                    named: n.named(),
                    usage: None,
                    first_line: r.line,
                };
                open.push_back(Open {
                    message: m,
                    lines: vec![r.line],
                    group: None,
                    fact,
                });
            } else {
                add(
                    &r,
                    n,
                    response,
                    i,
                    preserved_before,
                    thread,
                    notes,
                    &mut open,
                    &mut group,
                    base,
                )?;
            }
        }
        // Hand out the messages no later record adds to.
        while let Some(o) = open.front() {
            if o.group.is_some_and(|g| !closed.contains(&g)) {
                break;
            }
            let o = open.pop_front()?;
            if let Some(g) = o.group {
                group.remove(&g);
                closed.remove(&g);
            }
            hand_out(o, &mut base, &mut reports, emit)?;
        }
    }
    debug_assert!(open.is_empty());
    for o in open {
        hand_out(o, &mut base, &mut reports, emit)?;
    }
    Some(Handed {
        messages: base,
        reports,
    })
}

/// Hands out `o`, message `base`, keeping its fact when its usage counts.
fn hand_out(
    o: Open,
    base: &mut usize,
    reports: &mut Reports,
    emit: &mut dyn FnMut(Message),
) -> Option<()> {
    let f = o.fact;
    if let Some(usage) = f.usage.filter(|_| f.assistant && f.named) {
        reports.push(Reported {
            index: *base,
            first_line: f.first_line,
            usage,
        });
    }
    emit(o.message);
    *base += 1;
    Some(())
}

/// Record `i` (`r`, a user or assistant record of `response`) added to the open messages.
#[allow(clippy::too_many_arguments)]
fn add(
    r: &Rec,
    n: &Node,
    response: Option<u32>,
    i: usize,
    preserved_before: Option<usize>,
    thread: &Thread,
    notes: &mut Notes,
    open: &mut VecDeque<Open>,
    group: &mut HashMap<u32, usize>,
    base: usize,
) -> Option<()> {
    let place = format!("line {}", r.line + 1);
    let msg = r.v.get("message").filter(|m| m.is_object())?;
    let parts = message::content_parts(
        msg.get("content"),
        &format!("{place}.message.content"),
        notes,
    )
    .ok()?;
    let reported = msg.get("usage").map(|u| {
        let k = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
        let input =
            k("input_tokens") + k("cache_read_input_tokens") + k("cache_creation_input_tokens");
        (input, k("output_tokens"))
    });
    if let Some(&m) = response.and_then(|id| group.get(&id)) {
        let o = open.get_mut(m - base)?;
        o.message.parts.extend(parts);
        o.lines.push(r.line);
        o.message.origin = Origin::Records(o.lines.clone());
        let f = &mut o.fact;
        f.usage = match (f.usage, reported) {
            (Some((a, b)), Some((c, d))) => Some((a.max(c), b.max(d))),
            (a, b) => a.or(b),
        };
        f.first_line = f.first_line.min(r.line);
        return Some(());
    }
    let role = if n.kind == Kind::User {
        Role::User
    } else {
        Role::Assistant
    };
    let mut m = Message::new(role, parts, Origin::Record(r.line));
    m.id = r.uuid.clone();
    m.pinned = r.v.get("_preserve").and_then(Value::as_bool) == Some(true);
    m.agent_kept = preserved_before.is_some_and(|b| thread.live.get(i) && r.line < b);
    m.compact = compact_meta(r).map(Box::new);
    if let Some(id) = response {
        group.insert(id, base + open.len());
    }
    let fact = Fact {
        assistant: role == Role::Assistant,
        named: n.named(),
        usage: reported,
        first_line: r.line,
    };
    open.push_back(Open {
        message: m,
        lines: vec![r.line],
        group: response,
        fact,
    });
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reported(index: usize, first_line: usize, input: u64) -> Reported {
        Reported {
            index,
            first_line,
            usage: (input, 7),
        }
    }

    /// What the reports were made into when all of them were kept to the end.
    fn whole(reports: &[Reported], live: impl Fn(&Reported) -> bool) -> Option<ReportedUsage> {
        let (last, earlier) = reports.split_last()?;
        live(last).then(|| ReportedUsage {
            input_tokens: last.usage.0,
            output_tokens: last.usage.1,
            after_message: Some(last.index),
            request_end: Some(last.index),
            earlier: (earlier.iter().filter(|r| live(r)))
                .map(|r| (r.index, r.usage.0))
                .collect(),
            dropped: 0,
        })
    }

    #[test]
    fn earlier_reports_kept_narrow_come_back_whole() {
        let pairs = [
            (0, 10),
            (3, u64::from(u32::MAX)),
            (4, u64::from(u32::MAX) - 1),
            (5, u64::MAX),
            (
                usize::try_from(u64::from(u32::MAX) + 1).unwrap_or(usize::MAX),
                7,
            ),
            (9, 0),
        ];
        let mut e = Earlier::default();
        pairs.iter().for_each(|&p| e.push(p));
        assert_eq!(e.pairs.len(), pairs.len());
        assert_eq!(e.widen(), pairs);
        assert!(Earlier::default().widen().is_empty());
    }

    #[test]
    fn reports_sorted_as_they_come_give_what_the_whole_list_gave() {
        let all = [
            reported(0, 1, 100),
            reported(2, 5, 200),
            reported(3, 9, 300),
            reported(5, 12, 400),
            reported(8, 20, 500),
        ];
        for (stale, boundary) in [
            (None, None),
            (Some(5), None),
            (None, Some(9)),
            (Some(9), Some(5)),
            (Some(usize::MAX), None),
            (Some(20), None),
        ] {
            for n in 0..=all.len() {
                let mut r = Reports {
                    stale,
                    boundary,
                    last: None,
                    earlier: Earlier::default(),
                };
                all[..n].iter().for_each(|&x| r.push(x));
                let live = |x: &Reported| {
                    stale.is_none_or(|s| x.first_line > s)
                        && boundary.is_none_or(|b| x.first_line >= b)
                };
                assert_eq!(
                    r.usage(),
                    whole(&all[..n], live),
                    "{stale:?} {boundary:?} {n}"
                );
            }
        }
    }
}
