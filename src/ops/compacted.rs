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

use std::fs::File;
use std::os::unix::fs::FileExt;

use crate::context::Context;
use crate::formats::claude_code::{self, indexed, indexed::Index};
use crate::ops::predict;
use crate::session::{AgentLimits, Document, Message, ReportedUsage};
use crate::tokens::Counter;

/// The hidden part `u`'s thread measures over `held` (the messages its latest request
/// held), their counts scaled by `factor` as the session's are.
pub fn measure(
    ctx: &Context,
    counter: &Counter,
    factor: f64,
    held: &[Message],
    u: &ReportedUsage,
) -> Option<u64> {
    let counts: Vec<usize> = ctx
        .count_messages(counter, held, ctx.counting_threads())
        .into_iter()
        .map(|n| scaled(n, factor))
        .collect();
    predict::first_hidden_part(u, &counts, factor).map(|h| h as u64)
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

/// Sets `agent.hidden_before_compaction` of a session read whole (`doc` its document)
/// that the reader marked as compacted with no report since.
pub fn whole(
    ctx: &Context,
    counter: &Counter,
    factor: f64,
    doc: &Document,
    agent: &mut AgentLimits,
) {
    let (Some(line), Document::Lines(doc)) = (agent.compacted_at, doc) else {
        return;
    };
    if doc.text.is_empty() {
        return;
    }
    agent.hidden_before_compaction = claude_code::before_compaction(doc, line)
        .and_then(|(held, u)| measure(ctx, counter, factor, &held, &u));
}

/// The same for a transcript streamed from `file` (indexed as `index`). `None` when a
/// record before the boundary cannot be read as the whole reader reads it (the caller
/// reads the file whole then).
pub fn streamed(
    ctx: &Context,
    counter: &Counter,
    factor: f64,
    file: &File,
    index: &Index,
    agent: &mut AgentLimits,
) -> Option<()> {
    let Some(line) = agent.compacted_at else {
        return Some(());
    };
    let before = index.before(line);
    let traced = indexed::trace(&before);
    if traced.cut_short() {
        // An excerpt, as [`claude_code::before_compaction`] has it.
        agent.hidden_before_compaction = None;
        return Some(());
    }
    let mut fetch = |nodes: &[&claude_code::skel::Node]| -> Option<Vec<serde_json::Value>> {
        (nodes.iter())
            .map(|n| {
                let mut text = vec![0; n.len as usize];
                file.read_exact_at(&mut text, n.at).ok()?;
                serde_json::from_slice(&text).ok()
            })
            .collect()
    };
    let mut messages = Vec::new();
    let read = indexed::read(&before, traced, &mut fetch, &mut |m| messages.push(m))?;
    agent.hidden_before_compaction = read.reported_usage.and_then(|u| {
        let held = u.request_end?.min(messages.len());
        measure(ctx, counter, factor, &messages[..held], &u)
    });
    Some(())
}
