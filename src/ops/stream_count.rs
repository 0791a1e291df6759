//! What the streamed agent routes ([`agent_stream`](super::agent_stream) for Claude Code,
//! [`codex_stream`](super::codex_stream) for Codex) share once they know which records
//! make the messages: reading those records at their offsets, and counting the messages
//! a batch at a time into the [`Tally`], their text gone.

use std::fs::File;
use std::os::unix::fs::FileExt;

use crate::context::Context;
use crate::ops::figures::{Chunk, Tally, Wants};
use crate::ops::load::scale;
use crate::session::Message;
use crate::tokens::Counter;

/// Bytes of message text counted at a time: enough for the counting threads to share (a
/// transcript's records are mostly ids, metadata and encrypted reasoning, so a batch cut
/// by the records' bytes held too little text to be counted on more than one thread).
const BATCH_TEXT: usize = 2 << 20;
/// Messages counted at a time, at most.
const BATCH_MESSAGES: usize = 16384;

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
            tally: Tally::default(),
        }
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
        bar.set_position(at + u64::from(len));
        texts.push(text);
    }
    Some(texts)
}
