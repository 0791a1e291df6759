//! Counting a JSON document (OpenAI or Anthropic) as it is read, in flat memory: one
//! thread reads the file a block of records at a time ([`DocReader`]), the counting
//! threads parse and count each block and fold it into a [`Chunk`], and the chunks are
//! added to the [`Tally`] in order, their text gone. Only what lies around the message
//! list is kept whole, to tell the format, the model and the request's extras at the end.
//!
//! Whatever this path does not take exactly as the whole-document reader would (another
//! format, a model named only after the list that needs another tokenizer, a system prompt
//! after the list, malformed JSON) gives `None`, and the caller reads the file whole: the
//! figures, warnings and errors are then the whole-document reader's.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, sync_channel};
use std::sync::Mutex;

use crate::context::Context;
use crate::formats::chat;
use crate::formats::message::Notes;
use crate::formats::stream::{Block, DocReader, ListName, Outline, Stop};
use crate::ops::load::{self, scale, Fingerprint};
use crate::ops::tallied::Tallied;
use crate::ops::tally::{Chunk, Tally, Wants};
use crate::session::{Message, Part, Resume};
use crate::tokens::Counter;

/// Blocks read ahead of the counting threads, per thread.
const AHEAD: usize = 2;

/// `path` streamed and counted, or `None` when it is read whole instead.
pub fn tally(ctx: &Context, path: &Path, wants: Wants) -> anyhow::Result<Option<Tallied>> {
    if path == Path::new("-")
        || ctx.settings.format.is_some()
        || ctx.settings.session.is_some()
        || crate::ops::exact::enabled(ctx)?
        || load::is_database(path)
    {
        return Ok(None);
    }
    let Ok(file) = File::open(path) else {
        return Ok(None);
    };
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Ok(None);
    }
    let mut reader = DocReader::new(file);
    if reader.start().is_err() {
        return Ok(None);
    }
    let (prefix, key) = (reader.prefix(), reader.key());
    let mut notes = Notes::default();
    let guess = ctx.resolve_model_quietly(chat::early_model(prefix, key).as_deref());
    let system = chat::early_system(prefix, key, &mut notes);
    let counter = ctx.counter(guess.encoding);
    let run = Run {
        ctx,
        counter: &counter,
        factor: guess.factor,
        wants,
        list_key: key.map_or("", ListName::key),
        offset: usize::from(system.is_some()),
    };
    let mut tally = Tally::default();
    if let Some(m) = &system {
        tally.add(run.chunk(std::slice::from_ref(m), 0, 1));
    }
    let Some((outline, block_notes)) = run.blocks(reader, &mut tally) else {
        return Ok(None);
    };
    notes.merge(block_notes);
    let Some(doc) = chat::outline(&outline) else {
        return Ok(None);
    };
    if doc.system != system {
        return Ok(None);
    }
    let model = ctx.resolve_model_quietly(doc.model.as_deref());
    if model.encoding != guess.encoding || model.factor != guess.factor {
        // Counted with another model's tokenizer than the file names after its list.
        return Ok(None);
    }
    // As a whole read gives them: the file's warnings, then the model's.
    let warnings = notes.into_warnings();
    let shown = load::display(path);
    for w in &warnings {
        ctx.printer.warn(&format!("{shown}: {w}"));
    }
    let model = ctx.resolve_model(doc.model.as_deref());
    ctx.printer.debug(&format!(
        "{shown}: {} bytes, {} format, {} messages; model {} (from {}), {} tokenizer (streamed)",
        outline.len,
        doc.format,
        tally.len(),
        model.name,
        model.source,
        model.encoding
    ));
    let extra_tokens = doc.request_extra.as_ref().map_or(0, |t| {
        let part = Part::Text(t.clone());
        let n = ctx.count_parts(&counter, &[&part]);
        scale(n.first().copied().unwrap_or(0), model.factor)
    });
    Ok(Some(Tallied {
        path: path.to_path_buf(),
        fingerprint: Fingerprint {
            len: outline.len,
            hash: outline.hash,
        },
        format: doc.format,
        session_model: doc.model,
        keeps_counts: counter.keeps_counts(),
        total: Counter::total(&tally.counts),
        usage: None,
        agent_limits: Default::default(),
        extra_tokens,
        warnings,
        resume: doc.resumable.then_some(Resume {
            len: outline.records_end,
            records: outline.records,
            hash: outline.records_hash,
        }),
        skipped: false,
        model,
        tally,
        api: None,
    }))
}

/// One streamed read.
struct Run<'a> {
    ctx: &'a Context,
    counter: &'a Counter,
    factor: f64,
    wants: Wants,
    list_key: &'static str,
    /// Messages before the records (Anthropic's system prompt).
    offset: usize,
}

impl Run<'_> {
    /// Reads, counts and folds every block into `tally` in order; the outline of the
    /// document and the notes its records gave, or `None` when one could not be read.
    fn blocks(
        &self,
        mut reader: DocReader<impl std::io::Read + Send>,
        tally: &mut Tally,
    ) -> Option<(Outline, Notes)> {
        let threads = self.ctx.counting_threads();
        let stopped = AtomicBool::new(false);
        let stop = &stopped;
        let (to_count, blocks) = sync_channel::<(usize, Block)>(threads * AHEAD);
        let blocks = Mutex::new(blocks);
        let (to_fold, counted) = channel::<(usize, Option<(Chunk, Notes)>)>();
        std::thread::scope(|s| {
            let read = s.spawn(move || {
                let mut seq = 0;
                while let Some(block) = reader.next_block()? {
                    if stop.load(Ordering::Relaxed) || to_count.send((seq, block)).is_err() {
                        return Err(Stop::Unstreamable);
                    }
                    seq += 1;
                }
                drop(to_count);
                reader.finish()
            });
            for _ in 0..threads {
                let to_fold = to_fold.clone();
                let blocks = &blocks;
                s.spawn(move || loop {
                    let next = blocks.lock().unwrap_or_else(|e| e.into_inner()).recv();
                    let Ok((seq, block)) = next else { break };
                    if to_fold.send((seq, self.block(&block))).is_err() {
                        break;
                    }
                });
            }
            drop(to_fold);
            let mut waiting = BTreeMap::new();
            let (mut next, mut notes, mut failed) = (0, Notes::default(), false);
            for (seq, chunk) in counted {
                let Some(chunk) = chunk else {
                    failed = true;
                    stop.store(true, Ordering::Relaxed);
                    continue;
                };
                waiting.insert(seq, chunk);
                while let Some((chunk, n)) = waiting.remove(&next) {
                    tally.add(chunk);
                    notes.merge(n);
                    next += 1;
                }
            }
            let outline = read.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
            match (outline, failed) {
                (Ok(o), false) if waiting.is_empty() => Some((o, notes)),
                _ => None,
            }
        })
    }

    /// One block parsed, counted and folded; `None` when a record is not a message as
    /// this path reads it.
    fn block(&self, block: &Block) -> Option<(Chunk, Notes)> {
        let mut notes = Notes::default();
        let mut messages = Vec::with_capacity(block.spans.len());
        for (i, span) in block.spans.iter().enumerate() {
            let raw = &block.text[span.clone()];
            let m = chat::parse_record(raw, self.list_key, block.first + i, &mut notes).ok()?;
            messages.push(m);
        }
        Some((
            self.chunk(&messages, self.offset + block.first, 1),
            notes,
        ))
    }

    /// `messages` (message `first` on) counted on `threads` threads and folded.
    fn chunk(&self, messages: &[Message], first: usize, threads: usize) -> Chunk {
        let counts: Vec<usize> = self
            .ctx
            .count_messages(self.counter, messages, threads)
            .into_iter()
            .map(|n| scale(n, self.factor))
            .collect();
        Chunk::of(
            self.ctx,
            self.counter,
            messages,
            &counts,
            first,
            (self.factor, threads),
            self.wants,
        )
    }
}
