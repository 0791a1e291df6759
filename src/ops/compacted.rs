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

use std::fs::File;
use std::os::unix::fs::FileExt;

use crate::context::Context;
use crate::formats::claude_code::reattach::{self, Reattach};
use crate::formats::claude_code::{self, indexed, indexed::Index};
use crate::ops::predict;
use crate::session::{AgentLimits, AgentVersion, Document, Message, Origin, Part};
use crate::session::{ReportedUsage, Role};
use crate::tokens::Counter;

/// The hidden part `u`'s thread measures over `held` (the messages its latest request
/// held), their counts scaled by `factor` as the session's are, plus what Claude Code
/// `version` re-attaches of `files` without writing it ([`reattached`]).
pub fn measure(
    ctx: &Context,
    counter: &Counter,
    factor: f64,
    held: &[Message],
    u: &ReportedUsage,
    files: &Reattach,
    version: Option<AgentVersion>,
) -> Option<u64> {
    let counts: Vec<usize> = ctx
        .count_messages(counter, held, ctx.counting_threads())
        .into_iter()
        .map(|n| scaled(n, factor))
        .collect();
    let hidden = predict::first_hidden_part(u, &counts, factor)?;
    Some((hidden + reattached(ctx, counter, factor, files, version)) as u64)
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
    let version = agent.agent_version;
    agent.hidden_before_compaction = claude_code::before_compaction(doc, line)
        .and_then(|(held, u, files)| measure(ctx, counter, factor, &held, &u, &files, version));
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
    // The thread's records as the reader fetches them, by place in the file: the files
    // they leave for Claude Code to re-attach are traced in file order, as the whole
    // reader traces them.
    let mut seen: std::collections::BTreeMap<u64, serde_json::Value> = Default::default();
    let mut fetch = |nodes: &[usize]| -> Option<Vec<serde_json::Value>> {
        (nodes.iter())
            .map(|&i| {
                let (at, len) = before.place(i);
                let mut text = vec![0; usize::try_from(len).ok()?];
                file.read_exact_at(&mut text, at).ok()?;
                let v: serde_json::Value = serde_json::from_slice(&text).ok()?;
                if matches!(
                    v.get("type").and_then(serde_json::Value::as_str),
                    Some("user" | "assistant")
                ) {
                    seen.entry(at).or_insert_with(|| v.clone());
                }
                Some(v)
            })
            .collect()
    };
    let mut messages = Vec::new();
    let read = indexed::read(&before, traced, &mut fetch, &mut |m| messages.push(m))?;
    let mut files = Reattach::new();
    for v in seen.values() {
        files.observe(v);
    }
    let version = agent.agent_version;
    agent.hidden_before_compaction = read.reported_usage.and_then(|u| {
        let held = u.request_end?.min(messages.len());
        measure(ctx, counter, factor, &messages[..held], &u, &files, version)
    });
    Some(())
}
