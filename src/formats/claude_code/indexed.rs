//! A Claude Code transcript read from its index ([`Index`], one [`Node`] per record)
//! rather than from its whole text: the live thread is traced over the nodes
//! ([`live::trace`]), then only the live records are fetched and parsed, a window of them
//! at a time (the caller may parse a window on several threads), and turned into the
//! messages [`super::read`] gives, each handed out once no later record can add to
//! it (the records of one API response may be apart in the thread's order). What the whole
//! reader finds besides the messages (model, usage, warnings, the agent's limits and
//! request extras) comes back in [`Read`], from small per-message facts.
//!
//! Whatever the whole reader would word as an error gives `None`: the caller reads the
//! file whole, and the error is its.

use std::collections::{HashMap, VecDeque};

use serde_json::Value;

use super::live::{self, Thread};
use super::skel::{Id, Kind, Node, Rare};
use super::{attach, compact_meta, Rec, DEFAULT_MODEL};
use crate::formats::message::{self, Notes};
use crate::session::{AgentLimits, Message, Origin, ReportedUsage, Role};

/// A transcript's records, indexed.
#[derive(Debug, Default)]
pub struct Index {
    /// Every record, in file order (blank lines and a truncated last line left out).
    pub nodes: Vec<Node>,
    /// What few nodes hold beyond their [`Node`].
    pub rare: Rare,
    /// The models the nodes name (`Node::model` - 1).
    pub models: Vec<String>,
    /// The warning of a truncated last line.
    pub truncated: Option<String>,
    /// The agent's version, as the latest record naming one gives it.
    pub version: Option<crate::session::AgentVersion>,
}

impl Index {
    /// The index of the file up to line `line` (the records before it), as the whole
    /// reader reads that part of the file on its own ([`super::before_compaction`]): this
    /// one cut short, so that the nodes are not held twice.
    pub fn before(mut self, line: usize) -> Index {
        let n = self.nodes.partition_point(|n| (n.line as usize) < line);
        self.nodes.truncate(n);
        self.rare.truncate(n);
        self.truncated = None;
        self
    }

    /// Numbers `model` for [`Node::model`].
    pub fn model_number(&mut self, model: Option<String>) -> u16 {
        let Some(model) = model else { return 0 };
        let at = match self.models.iter().position(|m| *m == model) {
            Some(k) => k,
            None => {
                self.models.push(model);
                self.models.len() - 1
            }
        };
        u16::try_from(at + 1).unwrap_or(u16::MAX)
    }
}

/// What the transcript holds besides its messages, as [`super::read`] gives it.
#[derive(Debug)]
pub struct Read {
    pub model: String,
    pub warnings: Vec<String>,
    pub reported_usage: Option<ReportedUsage>,
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
    group: Option<Id>,
}

/// The live thread of an indexed transcript, and the model it names.
pub struct Traced {
    thread: Thread,
    pub model: String,
}

impl Traced {
    /// The live thread starts at a record whose parent is not in the file.
    pub fn cut_short(&self) -> bool {
        !self.thread.missing.is_empty()
    }
}

/// Traces the live thread of the transcript `index` describes.
pub fn trace(index: &Index) -> Traced {
    let nodes = &index.nodes;
    let thread = live::trace(nodes, &index.rare);
    let model = (nodes.iter().enumerate().rev())
        .filter(|(i, n)| thread.live[*i] && n.model > 0)
        .map(|(_, n)| n.model)
        .next()
        .or_else(|| nodes.iter().rev().map(|n| n.model).find(|&m| m > 0))
        .map_or_else(
            || DEFAULT_MODEL.to_string(),
            |m| index.models[m as usize - 1].clone(),
        );
    Traced { thread, model }
}

/// Records fetched and parsed at a time, at most.
const WINDOW_RECORDS: usize = 1024;
/// Bytes of records fetched and parsed at a time, at most (or one record, if larger).
const WINDOW_BYTES: usize = 256 << 10;

/// Gives the parsed records of the nodes asked for, in order (`None`: one cannot be read).
pub type Fetch<'a> = dyn FnMut(&[&Node]) -> Option<Vec<Value>> + 'a;

/// Reads the transcript `index` describes, traced: `fetch` gives nodes' records, `emit`
/// gets each message, in order. `None` where the whole reader gives an error.
pub fn read(
    index: &Index,
    traced: Traced,
    fetch: &mut Fetch,
    emit: &mut dyn FnMut(Message),
) -> Option<Read> {
    let nodes = &index.nodes;
    let Traced { thread, model } = traced;
    let mut warnings: Vec<String> = index.truncated.iter().cloned().collect();
    let mut thread_warnings = thread.warnings.clone();
    for &(w, i) in &thread.missing {
        let v = fetch(&[&nodes[i]])?.pop()?;
        let p = v.get("parentUuid").and_then(Value::as_str)?;
        thread_warnings[w] = format!(
            "line {}: parent record {p} is not in this file; the thread starts here",
            nodes[i].line as usize + 1
        );
    }
    warnings.extend(thread_warnings);
    let mut notes = Notes::default();
    let facts = messages(index, &thread, fetch, emit, &mut notes)?;
    warnings.extend(notes.into_warnings());
    let request_extra = match nodes.iter().rev().find(|n| n.snapshot) {
        Some(n) => {
            let v = fetch(&[n])?.pop()?;
            attach::prompt_snapshot(&[Rec {
                line: n.line as usize,
                v,
                uuid: None,
                parent: None,
            }])
        }
        None => None,
    };
    let conversation = || nodes.iter().filter(|n| n.is_conversation());
    let reported_usage = usage(index, &thread, &facts);
    let agent_limits = AgentLimits {
        subagent: conversation().next().is_some() && conversation().all(|n| n.sidechain),
        prompt_measured: request_extra.is_some(),
        agent_version: index.version,
        compacted_at: (thread.boundary)
            .filter(|_| reported_usage.is_none())
            .map(|b| nodes[b].line as usize),
        ..AgentLimits::default()
    };
    Some(Read {
        model,
        warnings,
        reported_usage,
        agent_limits,
        request_extra,
        messages: facts.len(),
    })
}

/// The messages of the live thread handed to `emit`, as [`super::messages`] makes them:
/// the facts of each.
fn messages(
    index: &Index,
    thread: &Thread,
    fetch: &mut Fetch,
    emit: &mut dyn FnMut(Message),
    notes: &mut Notes,
) -> Option<Vec<Fact>> {
    let nodes = &index.nodes;
    let merges = |n: &Node| matches!(n.kind, Kind::User | Kind::Assistant) && !n.api_error;
    // The last place in the thread's order of each response's records.
    let mut last: HashMap<Id, usize> = HashMap::new();
    for (rank, &i) in thread.order.iter().enumerate() {
        let i = i as usize;
        if let Some(id) = nodes[i].message_id.filter(|_| merges(&nodes[i])) {
            last.insert(id, rank);
        }
    }
    let preserved_before = thread.splice_boundary.map(|b| nodes[b].line as usize);
    let mut facts: Vec<Fact> = Vec::new();
    let mut open: VecDeque<Open> = VecDeque::new();
    // Message index (in `facts`) of the first open message, and of each open response.
    let mut base = 0;
    let mut group: HashMap<Id, usize> = HashMap::new();
    let wanted = |n: &Node| n.kind == Kind::Attachment || merges(n);
    let mut parsed = std::collections::VecDeque::new();
    let mut fetched_to = 0;
    for (rank, &i) in thread.order.iter().enumerate() {
        let i = i as usize;
        let n = &nodes[i];
        if rank == fetched_to {
            // The next window of records, parsed at once.
            let (mut batch, mut bytes) = (Vec::new(), 0);
            for &j in &thread.order[rank..] {
                let j = j as usize;
                if batch.len() >= WINDOW_RECORDS || (bytes >= WINDOW_BYTES && !batch.is_empty()) {
                    break;
                }
                fetched_to += 1;
                if wanted(&nodes[j]) {
                    bytes += nodes[j].len as usize;
                    batch.push(&nodes[j]);
                }
            }
            parsed.extend(fetch(&batch)?);
        }
        if wanted(n) {
            let v = parsed.pop_front()?;
            let r = Rec {
                line: n.line as usize,
                uuid: v.get("uuid").and_then(Value::as_str).map(str::to_string),
                parent: None,
                v,
            };
            if n.kind == Kind::Attachment {
                let mut m = Message::new(Role::System, attach::parts(&r), Origin::Record(r.line));
                m.id = r.uuid.clone();
                facts.push(Fact {
                    assistant: false,
                    named: n.model > 0,
                    usage: None,
                    first_line: r.line,
                });
                open.push_back(Open {
                    message: m,
                    lines: vec![r.line],
                    group: None,
                });
            } else {
                add(
                    &r,
                    n,
                    i,
                    preserved_before,
                    thread,
                    notes,
                    &mut facts,
                    &mut open,
                    &mut group,
                    base,
                )?;
            }
        }
        // Hand out the messages no later record adds to.
        while let Some(o) = open.front() {
            if o.group
                .is_some_and(|g| last.get(&g).is_some_and(|&l| l > rank))
            {
                break;
            }
            let o = open.pop_front()?;
            if let Some(g) = o.group {
                group.remove(&g);
            }
            emit(o.message);
            base += 1;
        }
    }
    debug_assert!(open.is_empty());
    for o in open {
        emit(o.message);
    }
    Some(facts)
}

/// Record `i` (`r`, a user or assistant record) added to the open messages.
#[allow(clippy::too_many_arguments)]
fn add(
    r: &Rec,
    n: &Node,
    i: usize,
    preserved_before: Option<usize>,
    thread: &Thread,
    notes: &mut Notes,
    facts: &mut Vec<Fact>,
    open: &mut VecDeque<Open>,
    group: &mut HashMap<Id, usize>,
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
    if let Some(&m) = n.message_id.and_then(|id| group.get(&id)) {
        let o = open.get_mut(m - base)?;
        o.message.parts.extend(parts);
        o.lines.push(r.line);
        o.message.origin = Origin::Records(o.lines.clone());
        let f = &mut facts[m];
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
    m.agent_kept = preserved_before.is_some_and(|b| thread.live[i] && r.line < b);
    m.compact = compact_meta(r).map(Box::new);
    if let Some(id) = n.message_id {
        group.insert(id, facts.len());
    }
    facts.push(Fact {
        assistant: role == Role::Assistant,
        named: n.model > 0,
        usage: reported,
        first_line: r.line,
    });
    open.push_back(Open {
        message: m,
        lines: vec![r.line],
        group: n.message_id,
    });
    Some(())
}

/// The reported usage, as `usage` in `super` tells it from the messages' records.
fn usage(index: &Index, thread: &Thread, facts: &[Fact]) -> Option<ReportedUsage> {
    let nodes = &index.nodes;
    let stale = nodes.iter().rev().find(|n| n.ctxctl).map(|n| {
        if n.kind == Kind::LastPrompt {
            n.line as usize
        } else {
            usize::MAX
        }
    });
    let boundary = thread.splice_boundary.map(|b| nodes[b].line as usize);
    let live = |f: &Fact| {
        stale.is_none_or(|s| f.first_line > s) && boundary.is_none_or(|b| f.first_line >= b)
    };
    let reported: Vec<(usize, &Fact)> = (facts.iter().enumerate())
        .filter(|(_, f)| f.assistant && f.named && f.usage.is_some())
        .collect();
    let &(idx, f) = reported.last()?;
    if !live(f) {
        return None;
    }
    let (input_tokens, output_tokens) = f.usage?;
    let earlier = reported[..reported.len() - 1]
        .iter()
        .filter(|(_, f)| live(f))
        .filter_map(|&(i, f)| f.usage.map(|(input, _)| (i, input)))
        .collect();
    Some(ReportedUsage {
        input_tokens,
        output_tokens,
        after_message: Some(idx),
        request_end: Some(idx),
        earlier,
        dropped: 0,
    })
}
