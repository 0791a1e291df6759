//! What the streamed agent routes ([`agent_stream`](super::agent_stream) for Claude Code,
//! [`codex_stream`](super::codex_stream) for Codex, [`gemini_stream`](super::gemini_stream)
//! for Gemini CLI, [`goose_stream`](super::goose_stream) for goose) share: a first pass
//! over the lines ([`first_pass`]: each line made into what the route keeps of it on the
//! counting threads, a truncated last line told as the whole reader tells it), reading
//! records at their offsets, and counting the messages a batch at a time into the
//! [`Tally`], their text gone.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::Arc;

use crate::context::{Context, ResolvedModel};
use crate::formats::stream::{Block, LineReader};
use crate::formats::surrogates::Found;
use crate::ops::figures::{Chunk, Tally, Wants};
use crate::ops::load::{scale, Fingerprint};
use crate::ops::ordered::in_order;
use crate::session::{Format, Message};
use crate::tokens::Counter;

/// Bytes of message text counted at a time: enough for the counting threads to share (a
/// transcript's records are mostly ids, metadata and encrypted reasoning, so a batch cut
/// by the records' bytes held too little text to be counted on more than one thread).
const BATCH_TEXT: usize = 2 << 20;
/// Messages counted at a time, at most.
const BATCH_MESSAGES: usize = 16384;

/// What a streamed read counts with: the model guessed from what its first pass found
/// (the one the user asked for still wins when the figures are resolved, see
/// [`resolved`]), its tokenizer, and the counting threads.
pub struct Counting {
    pub guess: ResolvedModel,
    pub counter: Arc<Counter>,
    pub threads: usize,
}

impl Counting {
    /// The counting of a session whose file names `session_model` (or none).
    pub fn for_model(ctx: &Context, session_model: Option<&str>) -> Self {
        let guess = ctx.resolve_model_quietly(session_model);
        Counting {
            counter: ctx.counter(guess.encoding),
            threads: ctx.counting_threads(),
            guess,
        }
    }

    /// Batches counted with this model's tokenizer and factor.
    pub fn batches<'a>(&'a self, ctx: &'a Context, wants: Wants) -> Batches<'a> {
        Batches::new(ctx, &self.counter, (self.guess.factor, self.threads), wants)
    }
}

/// Messages counted a batch at a time and folded into a [`Tally`].
pub struct Batches<'a> {
    ctx: &'a Context,
    counter: &'a Counter,
    /// The model's count factor, and the counting threads.
    factor: f64,
    threads: usize,
    wants: Wants,
    messages: Vec<Message>,
    text: usize,
    tally: Tally,
}

impl<'a> Batches<'a> {
    pub fn new(
        ctx: &'a Context,
        counter: &'a Counter,
        (factor, threads): (f64, usize),
        wants: Wants,
    ) -> Self {
        Batches {
            ctx,
            counter,
            factor,
            threads,
            wants,
            messages: Vec::new(),
            text: 0,
            tally: {
                // No count is read before `finish`.
                let mut t = Tally::default();
                t.narrow();
                t
            },
        }
    }

    /// Checks the messages' pairing as they are counted rather than keeping their shapes
    /// (see [`Tally::pair_as_read`]), when shapes are wanted.
    pub fn pair_as_read(&mut self, format: Format) {
        if self.wants.shapes {
            self.tally.pair_as_read(format);
        }
    }

    /// These batches, pairing checked as read (see [`Batches::pair_as_read`]).
    pub fn paired_as_read(mut self, format: Format) -> Self {
        self.pair_as_read(format);
        self
    }

    /// Takes the next message, counting the batch when it is full.
    pub fn push(&mut self, m: Message) {
        self.text += crate::tokens::parallel::approx_bytes(&m);
        self.messages.push(m);
        if self.messages.len() >= BATCH_MESSAGES || self.text >= BATCH_TEXT {
            self.count();
        }
    }

    /// The tally of every message taken.
    pub fn finish(mut self) -> Tally {
        if !self.messages.is_empty() {
            self.count();
        }
        self.tally.widen();
        self.tally
    }

    fn count(&mut self) {
        let messages = std::mem::take(&mut self.messages);
        self.text = 0;
        let counts = (self.ctx).count_messages(self.counter, &messages, self.threads);
        let counts: Vec<usize> = (counts.into_iter())
            .map(|n| scale(n, self.factor))
            .collect();
        let chunk = Chunk::of(
            self.ctx,
            self.counter,
            &messages,
            &counts,
            self.tally.len(),
            (self.factor, self.threads),
            self.wants,
            None,
        );
        self.tally.add(chunk);
    }
}

/// The records at `places` (offset, length) of `file`, the progress bar following them.
pub fn read_at(
    file: &File,
    bar: &indicatif::ProgressBar,
    places: impl Iterator<Item = (u64, u32)>,
) -> Option<Vec<Vec<u8>>> {
    let mut texts = Vec::with_capacity(places.size_hint().0);
    for (at, len) in places {
        let mut text = vec![0; len as usize];
        file.read_exact_at(&mut text, at).ok()?;
        // As the first pass read it (its warning counted them).
        crate::formats::surrogates::mend_bytes(&mut text);
        bar.set_position(at + u64::from(len));
        texts.push(text);
    }
    Some(texts)
}

/// One line of a first pass: what the route made of it, or a line that does not parse as
/// JSON because it ends early (a truncated last line, if it is the last).
pub enum Line<T> {
    Made(T),
    Cut { line: usize, end: u64 },
}

/// Each line of `block` made by `make` (its text, its line's index, its offset); a line
/// `make` cannot take is a cut one if it ends early, else the block gives `None`.
pub fn lines_of<T>(
    block: &Block,
    make: &impl Fn(&str, usize, u64) -> Option<T>,
) -> Option<Vec<Line<T>>> {
    let mut out = Vec::with_capacity(block.spans.len());
    for (span, &line) in block.spans.iter().zip(&block.records) {
        let text = &block.text[span.clone()];
        match make(text, line, (block.at + span.start) as u64) {
            Some(t) => out.push(Line::Made(t)),
            None => match serde_json::from_str::<serde_json::Value>(text) {
                Err(e) if e.is_eof() => out.push(Line::Cut {
                    line,
                    end: (block.at + span.end) as u64,
                }),
                _ => return None,
            },
        }
    }
    Some(out)
}

/// A first pass over the lines of `reader`: each made by `make` on the counting threads
/// and `fold`ed in file order. Gives the file's fingerprint, the whole reader's warning
/// for a truncated last line and the lone surrogates read as U+FFFD; `None` when a line is
/// not read as the whole reader reads it (or a line other than the last is cut short).
pub fn first_pass<T: Send, R: std::io::Read + Send>(
    ctx: &Context,
    mut reader: LineReader<R>,
    make: &(impl Fn(&str, usize, u64) -> Option<T> + Sync),
    mut fold: impl FnMut(T),
) -> Option<(Fingerprint, Option<String>, Found)> {
    let mut cut = None;
    let work = |b: &Block| lines_of(b, make);
    in_order(ctx.counting_threads(), &mut reader, &work, |lines| {
        for l in lines {
            match l {
                // Only the last line may be cut short.
                _ if cut.is_some() => cut = Some(None),
                Line::Made(t) => fold(t),
                Line::Cut { line, end } => cut = Some(Some((line, end))),
            }
        }
    })?;
    let outline = reader.finish();
    let truncated = match cut {
        None => None,
        Some(cut) => {
            let (line, end) = cut?;
            if line + 1 != outline.lines || end != outline.len as u64 {
                return None;
            }
            Some(format!(
                "line {}: incomplete last line (still being written?); ignored and kept as is",
                line + 1
            ))
        }
    };
    let fingerprint = Fingerprint {
        len: outline.len,
        hash: outline.hash,
    };
    Some((fingerprint, truncated, outline.mended))
}

/// What a streamed read ends with, as a whole read of the file at `path` ends: its
/// `warnings` printed (named by the file), the model resolved from `session_model`, and
/// the debug line of `n` messages read from `len` bytes.
pub fn resolved(
    ctx: &Context,
    path: &std::path::Path,
    warnings: &[String],
    session_model: Option<&str>,
    (len, format, n): (usize, Format, usize),
) -> ResolvedModel {
    let shown = crate::ops::load::display(path);
    for w in warnings {
        ctx.printer.warn(&format!("{shown}: {w}"));
    }
    let model = ctx.resolve_model(&shown, session_model);
    debug_line(ctx, &shown, len, format, n, &model);
    model
}

/// The debug line of a streamed read.
pub fn debug_line(
    ctx: &Context,
    shown: &str,
    len: usize,
    format: Format,
    n: usize,
    model: &ResolvedModel,
) {
    ctx.printer.debug(&format!(
        "{shown}: {len} bytes, {format} format, {n} messages; model {} (from {}), {} tokenizer (streamed)",
        model.name, model.source, model.encoding
    ));
}
