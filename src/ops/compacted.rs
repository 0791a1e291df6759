//! The hidden part of a session the agent compacted itself and has not answered since.
//!
//! After Claude Code's `compact_boundary` the live thread is the summary and what follows;
//! the reports before the boundary describe a history no longer sent, so the live thread
//! has no usage. The agent still sends the same system prompt and tools, though: the
//! hidden part the thread's earliest report before the boundary measured (its prompt less
//! ctxctl's count of the messages that request held, calibrated as [`predict`] does;
//! [`predict::first_hidden_part`]) is the session's own figure, where the prior is only
//! an agent's average ([`crate::ops::prior::of`]). Not the latest report's: over a long
//! history it also holds what ctxctl's count of that history misses, which the
//! compaction took away. The reader marks such a session
//! ([`AgentLimits::compacted_at`]); this module counts the thread before the boundary, the
//! whole reader's way ([`claude_code::before_compaction`]) or the streamed route's
//! ([`Index::before`]), both through [`measure`], so the two give the same figure.
//!
//! Builds before 2.1.97 also send, after the boundary, the files the thread read or wrote
//! last and do not write them to the file: [`measure`] adds Claude Code's re-attachment
//! of them, rebuilt from that thread's records ([`reattach`]), to the hidden part.
//!
//! The messages after the agent's own boundary (its summary, the files it re-attached)
//! are the provider's tokens at the session's ratio, as a calibrated prediction counts
//! the whole thread: [`measure`] gives the ratio the reports before the boundary
//! calibrate, and the prediction counts those messages at it
//! ([`AgentLimits::ratio_before_compaction`]). Not after a boundary ctxctl wrote (its
//! compaction): what Claude Code sends after ctxctl's summary is what the rewrite
//! reported (the hidden part and ctxctl's count, [`crate::ops::load::Loaded`]), and
//! Claude Code re-attaches nothing there.

use std::borrow::Cow;
use std::fs::File;
use std::os::unix::fs::FileExt;

use crate::context::Context;
use crate::formats::claude_code::reattach::{self, Reattach};
use crate::formats::claude_code::{self, indexed, indexed::Index, skel};
use crate::ops::predict;
use crate::session::{AgentLimits, AgentVersion, Document, LinesDoc, Message, Origin, Part};
use crate::session::{ReportedUsage, Role};
use crate::tokens::Counter;

/// How many messages before the boundary the streamed route holds at once, to count them.
const BATCH: usize = 512;

/// What the thread before a boundary measures: the hidden part and the session's ratio.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    pub hidden: u64,
    /// The ratio of the provider's count to ctxctl's tokenizer the reports calibrate
    /// ([`predict::session_ratio`]).
    pub ratio: Option<f64>,
}

/// `messages` counted, each count scaled by `factor` as the session's are.
fn counted(ctx: &Context, counter: &Counter, factor: f64, messages: &[Message]) -> Vec<usize> {
    (ctx.count_messages(counter, messages, ctx.counting_threads())
        .into_iter())
    .map(|n| scaled(n, factor))
    .collect()
}

/// The hidden part `u`'s thread measures over `counts` (of the messages its latest
/// request held, scaled by `factor` as the session's are, [`counted`]). After the agent's own
/// boundary (`own`: the files its thread left and the agent's version; `None` after a
/// boundary ctxctl wrote), also the session's ratio and what Claude Code re-attaches of
/// those files without writing it ([`reattached`], counted at that ratio where the
/// reports calibrate one).
pub fn measure(
    ctx: &Context,
    counter: &Counter,
    factor: f64,
    counts: &[usize],
    u: &ReportedUsage,
    own: Option<(&Reattach, Option<AgentVersion>)>,
) -> Option<Measured> {
    let hidden = predict::first_hidden_part(u, counts, factor)?;
    let Some((files, version)) = own else {
        return Some(Measured {
            hidden: hidden as u64,
            ratio: None,
        });
    };
    let ratio = predict::session_ratio(u, counts, factor);
    let files = reattached(ctx, counter, ratio.unwrap_or(factor), files, version);
    Some(Measured {
        hidden: (hidden + files) as u64,
        ratio,
    })
}

/// Sets `agent`'s hidden part and ratio from what [`measure`] gave.
fn set(agent: &mut AgentLimits, measured: Option<Measured>) {
    agent.hidden_before_compaction = measured.map(|m| m.hidden);
    agent.ratio_before_compaction = measured
        .and_then(|m| m.ratio)
        .map(|r| (r * 1e6).round() as u32);
}

/// ctxctl's count (scaled by `factor`) of the files Claude Code `version` re-attaches
/// after its compaction and does not write to the file (0 for a build that writes them,
/// or an unknown one).
pub fn reattached(
    ctx: &Context,
    counter: &Counter,
    factor: f64,
    files: &Reattach,
    version: Option<AgentVersion>,
) -> usize {
    let Some(v) = version.filter(|_| reattach::modelled(version)) else {
        return 0;
    };
    let tokens = |text: &str| scaled(counter.text(text), factor);
    let messages: Vec<Message> = (files.texts(v, &tokens).into_iter())
        .map(|t| Message::new(Role::User, vec![Part::Text(t)], Origin::Record(0)))
        .collect();
    (ctx.count_messages(counter, &messages, ctx.counting_threads())
        .into_iter())
    .map(|n| scaled(n, factor))
    .sum()
}

/// `n` scaled by `factor` as the session's counts are (the loader's rounding; kept here so
/// the loader, which calls this module, is not imported back).
fn scaled(n: usize, factor: f64) -> usize {
    if factor == 1.0 {
        n
    } else {
        (n as f64 * factor).ceil() as usize
    }
}

/// A document from this size up has its thread before the boundary counted through an
/// index of its records, a batch at a time, as a streamed read counts it ([`from_index`]):
/// read whole into messages, that history held about 125 MB beside a 160 MB transcript's
/// text (a rewrite of a session compacted before, its `archive restore`).
const INDEXED_FROM: usize = 8 << 20;

/// Sets `agent.hidden_before_compaction` of a session read whole (`doc` its document)
/// that the reader marked as compacted with no report since.
pub fn whole(
    ctx: &Context,
    counter: &Counter,
    factor: f64,
    doc: &Document,
    agent: &mut AgentLimits,
) {
    whole_from(ctx, counter, factor, doc, agent, INDEXED_FROM);
}

/// [`whole`], through the index for a document of `indexed_from` bytes or more.
fn whole_from(
    ctx: &Context,
    counter: &Counter,
    factor: f64,
    doc: &Document,
    agent: &mut AgentLimits,
    indexed_from: usize,
) {
    let (Some(line), Document::Lines(doc)) = (agent.compacted_at, doc) else {
        return;
    };
    if doc.text.is_empty() {
        return;
    }
    // A record the index cannot take is left to the whole reader's way, below.
    if doc.text.len() >= indexed_from && by_index(ctx, counter, factor, doc, agent).is_some() {
        return;
    }
    let version = agent.agent_version;
    // ctxctl's compaction marks its summary (and every rewrite its last record).
    let own = !(line..doc.lines.len()).any(|i| written_by_ctxctl(doc.line(i)));
    let measured = claude_code::before_compaction(doc, line).and_then(|(held, u, files)| {
        let own = own.then_some((&files, version));
        measure(
            ctx,
            counter,
            factor,
            &counted(ctx, counter, factor, &held),
            &u,
            own,
        )
    });
    set(agent, measured);
}

/// Whether a record carries the `ctxctl` key ctxctl's rewrites put on what they write.
fn written_by_ctxctl(line: &str) -> bool {
    line.contains("\"ctxctl\"")
        && serde_json::from_str::<serde_json::Value>(line).is_ok_and(|v| v.get("ctxctl").is_some())
}

/// [`whole`] of `doc` through the index of its records ([`from_index`]); `None` (nothing
/// set) when a record is one the index or the reading from it cannot take.
fn by_index(
    ctx: &Context,
    counter: &Counter,
    factor: f64,
    doc: &LinesDoc,
    agent: &mut AgentLimits,
) -> Option<()> {
    let text = doc.text.as_bytes();
    let bytes = |at: u64, len: u64| -> Option<Cow<'_, [u8]>> {
        let (at, len) = (usize::try_from(at).ok()?, usize::try_from(len).ok()?);
        // A mapped text's pages are let go of behind the reading (see `crate::mapped`).
        doc.text.passing(at);
        text.get(at..at.checked_add(len)?).map(Cow::Borrowed)
    };
    from_index(ctx, counter, factor, &bytes, index_of(doc)?, agent)
}

/// The index of a document's records, as the streamed route's first pass makes it
/// (blank lines and a truncated last line left out); `None` when a record is one the
/// skeleton cannot take.
fn index_of(doc: &LinesDoc) -> Option<Index> {
    let mut index = Index::default();
    for (i, span) in doc.lines.iter().enumerate() {
        let text = doc.line(i);
        if doc.truncated_tail == Some(i) || text.trim().is_empty() {
            continue;
        }
        index.push(skel::node(text, i, span.start as u64)?)?;
    }
    index.resolve()?;
    Some(index)
}

/// The same for a transcript streamed from `file` (indexed as `index`). `None` when a
/// record before the boundary cannot be read as the whole reader reads it (the caller
/// reads the file whole then).
pub fn streamed(
    ctx: &Context,
    counter: &Counter,
    factor: f64,
    file: &File,
    index: Index,
    agent: &mut AgentLimits,
) -> Option<()> {
    let read = |at: u64, len: u64| -> Option<Cow<'_, [u8]>> {
        let mut text = vec![0; usize::try_from(len).ok()?];
        file.read_exact_at(&mut text, at).ok()?;
        Some(Cow::Owned(text))
    };
    from_index(ctx, counter, factor, &read, index, agent)
}

/// The bytes `len` bytes long at `at` of a transcript.
type ReadAt<'a> = dyn Fn(u64, u64) -> Option<Cow<'a, [u8]>> + 'a;

/// [`streamed`] of a transcript whose records `bytes` gives, indexed as `index`.
fn from_index<'a>(
    ctx: &Context,
    counter: &Counter,
    factor: f64,
    bytes: &ReadAt<'a>,
    index: Index,
    agent: &mut AgentLimits,
) -> Option<()> {
    let Some(line) = agent.compacted_at else {
        return Some(());
    };
    // Re-attached files are modelled only where Claude Code kept them in memory: its own
    // boundary, for a build that does not write them, and no ctxctl rewrite since
    // (ctxctl's compaction marks its summary, and every rewrite its last record).
    let own = !(0..index.nodes.len())
        .rev()
        .take_while(|&i| index.line(i) >= line)
        .any(|i| index.nodes[i].ctxctl());
    let version = agent.agent_version;
    let modelled = own && reattach::modelled(version);
    let mut before = index.before(line);
    before.resolve()?;
    let traced = indexed::trace(&before);
    if traced.cut_short() {
        // An excerpt, as [`claude_code::before_compaction`] has it.
        set(agent, None);
        return Some(());
    }
    // The thread's user and assistant records by place in the file (offset → length):
    // the files they leave for Claude Code to re-attach are traced in file order, as the
    // whole reader traces them, each record read again then rather than held.
    let mut places: std::collections::BTreeMap<u64, u64> = Default::default();
    let mut fetch = |nodes: &[usize]| -> Option<Vec<serde_json::Value>> {
        let parsed = (nodes.iter())
            .map(|&i| {
                let (at, len) = before.place(i);
                let v: serde_json::Value = serde_json::from_slice(&bytes(at, len)?).ok()?;
                if modelled
                    && matches!(
                        v.get("type").and_then(serde_json::Value::as_str),
                        Some("user" | "assistant")
                    )
                {
                    places.insert(at, len);
                }
                Some(v)
            })
            .collect::<Option<Vec<_>>>()?;
        // A file rewritten in place since the first pass is read whole instead.
        let checks = before.checks(nodes)?;
        skel::unchanged(&checks, &parsed).then_some(parsed)
    };
    // Counted a batch at a time as the reader hands them out: only their counts are kept.
    let (mut counts, mut batch) = (Vec::new(), Vec::new());
    let mut emit = |m: Message| {
        batch.push(m);
        if batch.len() == BATCH {
            counts.extend(counted(ctx, counter, factor, &batch));
            batch.clear();
        }
    };
    let read = indexed::read(&before, traced, &mut fetch, &mut emit)?;
    counts.extend(counted(ctx, counter, factor, &batch));
    let mut files = Reattach::new();
    for (&at, &len) in &places {
        files.observe(&serde_json::from_slice(&bytes(at, len)?).ok()?);
    }
    let measured = read.reports.usage().and_then(|u| {
        let held = u.request_end?.min(counts.len());
        let own = own.then_some((&files, version));
        measure(ctx, counter, factor, &counts[..held], &u, own)
    });
    set(agent, measured);
    Some(())
}

#[cfg(test)]
#[path = "compacted_tests.rs"]
mod tests;
