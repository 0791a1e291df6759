//! Counting a Claude Code transcript as it is read, holding some tens of bytes per record
//! (a Codex rollout is handed to [`crate::ops::codex_stream`], a Gemini CLI log to
//! [`crate::ops::gemini_stream`], a goose JSONL session to [`crate::ops::goose_stream`], a
//! Copilot CLI event log to [`crate::ops::copilot_stream`]).
//!
//! Two passes over the file. The first reads it a block of lines at a time
//! ([`LineReader`]), the counting threads reducing each line to its [`Node`](skel::Node)
//! (2 bytes: its type and a few flags) and its ids (hashed: the `message.id`s and parents
//! kept until the thread is traced, the uuids written to a temp file; message text, tool
//! results and images are skipped unparsed), and keeps only those in an [`Index`] (lines, offsets in ~2 bytes a
//! record, models and the fields few records hold kept aside). The live thread is traced over the nodes
//! ([`indexed::trace`]); the second pass fetches the live records by their offsets, makes
//! them into messages as the whole-file reader does ([`indexed::read`]), counts the
//! messages a batch at a time and folds each batch into the
//! [`Tally`](crate::ops::figures::Tally), its text gone.
//!
//! The figures are the whole-file reader's, held equal on every fixture by
//! `tests/agent_stream.rs`. Whatever this path does not take as that reader would (a line
//! it cannot parse, a record the reader would refuse) gives `None`: the caller reads the
//! file whole, and words any error. So does a file that changed between the passes other
//! than by appending (a fetched record whose `uuid` is not the one the first pass indexed
//! there, by a 32-bit check of it, or a file shorter than the first pass read): an agent's
//! appends leave every indexed record where it was, and a file replaced by a rename is
//! still read through the open handle.

use std::fs::File;
use std::path::Path;

use crate::context::Context;
use crate::formats::claude_code::indexed::{self, Index};
use crate::formats::claude_code::skel;
use crate::formats::stream::LineReader;
use crate::formats::surrogates::Found;
use crate::ops::counted::Counted;
use crate::ops::figures::Wants;
use crate::ops::load::{self, scale, Fingerprint};
use crate::ops::ordered::parse_json;
use crate::ops::stream_count::{debug_line, first_pass, read_at, Counting};
use crate::ops::testhook::{self, UuidSpill};
use crate::render::progress::Reading;
use crate::session::{Format, Message, Part};

/// `path` streamed and counted when it is a Claude Code transcript or another line-based
/// agent's session (Codex, Gemini CLI, goose, Copilot CLI), else `None`.
pub fn tally(
    ctx: &Context,
    path: &Path,
    wants: Wants,
    bar: &indicatif::ProgressBar,
) -> Option<Counted> {
    let file = File::open(path).ok()?;
    let mut reader = LineReader::new(Reading::new(file.try_clone().ok()?, bar.clone()));
    let (head, lines) = reader.head().ok()?;
    if lines < 2 {
        return None;
    }
    // Every route's index and tally grow with the file, beside windows of text.
    crate::mem::for_large_vectors();
    match crate::formats::detect(&head).ok()? {
        Format::ClaudeCode => {}
        Format::Codex => {
            return crate::ops::codex_stream::tally(ctx, path, wants, bar, &file, reader);
        }
        Format::Gemini => {
            return crate::ops::gemini_stream::tally(ctx, path, wants, bar, &file, reader);
        }
        Format::Copilot => {
            return crate::ops::copilot_stream::tally(ctx, path, wants, bar, &file, reader);
        }
        Format::Goose => return crate::ops::goose_stream::tally(ctx, path, wants, reader),
        _ => return None,
    }
    let (mut index, fingerprint, mended) = index(ctx, reader)?;
    let traced = indexed::trace(&index);
    if !traced.after_boundary() {
        // No part of the file is traced again (`compacted::streamed` traces the records
        // before the boundary the thread starts after): the ids go before the records are
        // read, the uuids' spill left to check them by.
        index.forget_ids();
    }
    let counting = Counting::for_model(ctx, Some(&traced.model));
    let (guess, counter, threads) = (&counting.guess, &counting.counter, counting.threads);
    // No resume point and nothing put before: the shapes are not kept (Claude Code is
    // sent to the Anthropic API, whose ordering rules are checked as the messages go by).
    let mut batches = counting
        .batches(ctx, wants)
        .paired_as_read(Format::ClaudeCode);
    bar.set_position(0);
    let mut fetch = |nodes: &[usize]| -> Option<Vec<serde_json::Value>> {
        let places = (nodes.iter())
            .map(|&i| {
                let (at, len) = index.place(i);
                Some((at, u32::try_from(len).ok()?))
            })
            .collect::<Option<Vec<_>>>()?;
        let texts = read_at(&file, bar, places.into_iter())?;
        let parsed = parse_json(&texts, threads)?;
        let checks = index.checks(nodes)?;
        skel::unchanged(&checks, &parsed).then_some(parsed)
    };
    let mut emit = |m: Message| batches.push(m);
    let read = indexed::read(&index, traced, &mut fetch, &mut emit)?;
    // Only a thread after a compact boundary reads the index again
    // (`compacted::streamed`): else it goes before the reports and the counts are
    // widened (at 2 GB, 4.8 MB more each, the read's peak when the index was still held).
    let index = read.agent_limits.compacted_at.is_some().then_some(index);
    let usage = read.reports.usage();
    let tally = batches.finish();
    // Cut short between the passes: what the first pass saw is gone.
    let now = file.metadata().ok()?.len();
    if tally.len() != read.messages || now < fingerprint.len as u64 {
        return None;
    }
    // As a whole read gives them: the file's warnings, then the model's.
    let shown = load::display(path);
    for w in &read.warnings {
        ctx.printer.warn(&format!("{shown}: {w}"));
    }
    let model = ctx.resolve_model(&shown, Some(&read.model));
    if model.encoding != guess.encoding || model.factor != guess.factor {
        return None;
    }
    debug_line(
        ctx,
        &shown,
        fingerprint.len,
        Format::ClaudeCode,
        tally.len(),
        &model,
    );
    let mut agent_limits = read.agent_limits;
    mended.note(&mut agent_limits);
    if let Some(index) = index {
        crate::ops::compacted::streamed(
            ctx,
            counter,
            model.factor,
            &file,
            index,
            &mut agent_limits,
        )?;
    }
    let extra_tokens = read.request_extra.as_ref().map_or(0, |t| {
        let part = Part::Text(t.clone());
        let n = ctx.count_parts(counter, &[&part]);
        scale(n.first().copied().unwrap_or(0), model.factor)
    });
    let keeps = counter.keeps_counts();
    Some(Counted {
        session_model: Some(read.model),
        usage,
        agent_limits,
        extra_tokens,
        warnings: read.warnings,
        ..Counted::streamed(path, fingerprint, Format::ClaudeCode, model, keeps, tally)
    })
}

/// The first pass: every line's node, and the file's fingerprint.
fn index(ctx: &Context, reader: LineReader<Reading<File>>) -> Option<(Index, Fingerprint, Found)> {
    let (file, slice) = match testhook::uuid_spill(ctx) {
        Some(UuidSpill::Memory) => (None, None),
        Some(UuidSpill::Slice(n)) => (uuid_temp(ctx), Some(n)),
        None => (uuid_temp(ctx), None),
    };
    let mut index = Index::spilling(file, slice);
    let mut refused = false;
    let make = |text: &str, line: usize, at: u64| skel::node(text, line, at);
    let fold = |made: skel::Made| {
        // A file of 2^32 records, or a record the index cannot place, is left to the
        // whole reader.
        refused |= index.push(made).is_none();
    };
    let (fingerprint, truncated, mended) = first_pass(ctx, reader, &make, fold)?;
    if refused {
        return None;
    }
    index.file_warnings = mended.warning().into_iter().chain(truncated).collect();
    index.resolve()?;
    Some((index, fingerprint, mended))
}

/// An unnamed temp file for the uuids' hashes (8 bytes a record with a uuid: 14.7 MB at
/// 2 GB), in the cache directory where it exists (rather than a temp directory that may
/// be in memory; never made for this), else in the system's; `None` (they are held in
/// memory) where none can be made.
fn uuid_temp(ctx: &Context) -> Option<File> {
    if !cfg!(unix) {
        return None;
    }
    let dir = crate::config::paths::cache_dir(&ctx.env).filter(|d| d.is_dir());
    dir.and_then(|d| tempfile::tempfile_in(d).ok())
        .or_else(|| tempfile::tempfile().ok())
}
