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

use std::collections::HashMap;
use std::fs::File;
use std::path::Path;

use crate::context::{Context, ResolvedModel};
use crate::formats::message::Notes;
use crate::formats::stream::{Block, DocReader, LineReader, ListName};
use crate::formats::{chat, jsonl};
use crate::ops::counted::Counted;
use crate::ops::figures::{tool_parts, Chunk, Tally, Wants};
use crate::ops::load::{self, scale, Fingerprint};
use crate::ops::model_hint::named_model;
pub use crate::ops::ordered::{in_order, Source};
use crate::render::progress::{Reading, Transient, LARGE_FILE_BYTES};
use crate::session::{Format, Message, Part, Resume};
use crate::tokens::Counter;

/// `path` streamed and counted, or `None` when it is read whole instead.
pub fn tally(ctx: &Context, path: &Path, wants: Wants) -> anyhow::Result<Option<Counted>> {
    let Some((file, progress)) = streamable(ctx, path)? else {
        return Ok(None);
    };
    let mut reader = DocReader::new(Reading::new(file, progress.bar().clone()));
    Ok(match reader.start() {
        Ok(()) => document(ctx, path, wants, reader),
        Err(_) => {
            // What it read while looking for a message list is not needed any more.
            drop(reader);
            progress.bar().set_position(0);
            if let Some(t) = crate::ops::agent_stream::tally(ctx, path, wants, progress.bar()) {
                return Ok(Some(t));
            }
            progress.bar().set_position(0);
            lines(ctx, path, wants, progress.bar())
        }
    })
}

/// `path` opened to be streamed, with a bar over its bytes; `None` when it is read whole:
/// standard input, a database, anything but a regular file, and with `--format`,
/// `--session` or `--count-with api`.
pub(crate) fn streamable(ctx: &Context, path: &Path) -> anyhow::Result<Option<(File, Transient)>> {
    if path == Path::new("-")
        || ctx.settings.format.is_some()
        || ctx.settings.session.is_some()
        || crate::ops::count_api::enabled(ctx)?
        || load::is_database(path)
    {
        return Ok(None);
    }
    let Some(file) = open(path) else {
        return Ok(None);
    };
    let progress = progress(ctx, path, &file);
    Ok(Some((file, progress)))
}

/// A bar over the bytes of `file` when it is large (shown on a terminal only).
fn progress(ctx: &Context, path: &Path, file: &File) -> Transient {
    let len = file.metadata().map_or(0, |m| m.len());
    if len < LARGE_FILE_BYTES {
        return Transient::new(indicatif::ProgressBar::hidden());
    }
    // The file's name, which a narrow terminal keeps (the bar cuts its message's end).
    let name = path
        .file_name()
        .map_or_else(|| load::display(path), |n| n.to_string_lossy().into_owned());
    ctx.printer.bytes_bar(len, &name)
}

/// `path` opened, when it is a regular file.
fn open(path: &Path) -> Option<File> {
    let file = File::open(path).ok()?;
    file.metadata().is_ok_and(|m| m.is_file()).then_some(file)
}

/// A JSON document whose message list has started.
fn document(
    ctx: &Context,
    path: &Path,
    wants: Wants,
    mut reader: DocReader<Reading<File>>,
) -> Option<Counted> {
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
        kind: Kind::Document(key.map_or("", ListName::key)),
        offset: usize::from(system.is_some()),
    };
    let mut tally = Tally::default();
    if let Some(m) = &system {
        tally.add(run.chunk(std::slice::from_ref(m), 0));
    }
    let (block_notes, _) = run.blocks(&mut reader, &mut tally)?;
    notes.merge(block_notes);
    let outline = reader.finish().ok()?;
    let doc = chat::outline(&outline, &mut notes)?;
    match (&doc.system, doc.system_after) {
        // Message 0 after all: it comes first.
        (Some(m), true) if system.is_none() => {
            if !tally.prepend(run.chunk(std::slice::from_ref(m), 0)) {
                return None;
            }
        }
        (late, false) if *late == system => {}
        _ => return None,
    }
    let read = Read {
        format: doc.format,
        model: doc.model,
        request_extra: doc.request_extra,
        notes,
        fingerprint: Fingerprint {
            len: outline.len,
            hash: outline.hash,
        },
        resume: doc.resumable.then_some(Resume {
            len: outline.records_end,
            records: outline.records,
            hash: outline.records_hash,
            head: outline.head_end,
        }),
    };
    finish(ctx, path, (&guess, &counter), tally, read)
}

/// A plain JSONL file (not an agent's transcript).
fn lines(
    ctx: &Context,
    path: &Path,
    wants: Wants,
    progress: &indicatif::ProgressBar,
) -> Option<Counted> {
    let mut reader = LineReader::new(Reading::new(open(path)?, progress.clone()));
    let (head, lines) = reader.head().ok()?;
    // One line may be a whole document: the whole-file reader tells.
    if lines < 2 || crate::formats::detect(&head).ok()? != Format::Jsonl {
        return None;
    }
    let guess = ctx.resolve_model_quietly(named_model(&head).as_deref());
    let counter = ctx.counter(guess.encoding);
    let run = Run {
        ctx,
        counter: &counter,
        factor: guess.factor,
        wants,
        kind: Kind::Lines,
        offset: 0,
    };
    let mut tally = Tally::default();
    let (notes, model) = run.blocks(&mut reader, &mut tally)?;
    let outline = reader.finish();
    let read = Read {
        format: Format::Jsonl,
        model,
        request_extra: None,
        notes,
        fingerprint: Fingerprint {
            len: outline.len,
            hash: outline.hash,
        },
        resume: Some(Resume {
            len: outline.records_end,
            records: outline.lines,
            hash: outline.records_hash,
            head: outline.head_end,
        }),
    };
    finish(ctx, path, (&guess, &counter), tally, read)
}

/// What a streamed read found besides its messages.
struct Read {
    format: Format,
    model: Option<String>,
    request_extra: Option<String>,
    notes: Notes,
    fingerprint: Fingerprint,
    resume: Option<Resume>,
}

/// The streamed session, when the model its file names counts as the one guessed.
fn finish(
    ctx: &Context,
    path: &Path,
    (guess, counter): (&ResolvedModel, &Counter),
    tally: Tally,
    read: Read,
) -> Option<Counted> {
    let model = ctx.resolve_model_quietly(read.model.as_deref());
    if model.encoding != guess.encoding || model.factor != guess.factor {
        // Counted with another tokenizer than the model the file names calls for.
        return None;
    }
    // As a whole read gives them: the file's warnings, then the model's.
    let warnings = read.notes.into_warnings();
    let shown = load::display(path);
    for w in &warnings {
        ctx.printer.warn(&format!("{shown}: {w}"));
    }
    let model = ctx.resolve_model(&shown, read.model.as_deref());
    ctx.printer.debug(&format!(
        "{shown}: {} bytes, {} format, {} messages; model {} (from {}), {} tokenizer (streamed)",
        read.fingerprint.len,
        read.format,
        tally.len(),
        model.name,
        model.source,
        model.encoding
    ));
    let extra_tokens = read.request_extra.as_ref().map_or(0, |t| {
        let part = Part::Text(t.clone());
        let n = ctx.count_parts(counter, &[&part]);
        scale(n.first().copied().unwrap_or(0), model.factor)
    });
    let keeps = counter.keeps_counts();
    Some(Counted {
        session_model: read.model,
        extra_tokens,
        warnings,
        resume: read.resume,
        ..Counted::streamed(path, read.fingerprint, read.format, model, keeps, tally)
    })
}

/// How the records are read.
#[derive(Clone, Copy)]
enum Kind {
    /// Elements of a document's message list under this key (empty: the document is it).
    Document(&'static str),
    /// Lines of plain JSONL.
    Lines,
}

/// A block's messages folded, the notes they gave and the first model a record named.
type BlockFold = (Chunk, Notes, Option<String>);

/// One streamed read.
struct Run<'a> {
    ctx: &'a Context,
    counter: &'a Counter,
    factor: f64,
    wants: Wants,
    kind: Kind,
    /// Messages before the records (Anthropic's system prompt).
    offset: usize,
}

impl Run<'_> {
    /// Reads, counts and folds every block of `src` into `tally` in order: the notes the
    /// records gave and the first model one named, or `None` when one could not be read.
    fn blocks(&self, src: &mut impl Source, tally: &mut Tally) -> Option<(Notes, Option<String>)> {
        let (mut notes, mut model) = (Notes::default(), None);
        in_order(
            self.ctx.counting_threads(),
            src,
            &|block| self.block(block),
            |(chunk, n, m)| {
                tally.add(chunk);
                notes.merge(n);
                if model.is_none() {
                    model = m;
                }
            },
        )?;
        Some((notes, model))
    }

    /// One block parsed, counted and folded; `None` when a record is not a message as
    /// this path reads it.
    fn block(&self, block: &Block) -> Option<BlockFold> {
        let mut notes = Notes::default();
        let mut model = None;
        let mut messages = Vec::with_capacity(block.spans.len());
        for (span, &i) in block.spans.iter().zip(&block.records) {
            let raw = &block.text[span.clone()];
            let m = match self.kind {
                Kind::Document(key) => chat::parse_record(raw, key, i, &mut notes).ok()?,
                Kind::Lines => {
                    let (m, named) = jsonl::parse_record(raw, i, &mut notes).ok()?;
                    if model.is_none() {
                        model = named;
                    }
                    m
                }
            };
            messages.push(m);
        }
        let chunk = self.chunk(&messages, self.offset + block.first);
        Some((chunk, notes, model))
    }

    /// `messages` (message `first` on) counted on this thread and folded. Their tool parts,
    /// when wanted, are counted first, and their messages' counts made of those rather than
    /// tokenizing their text twice.
    fn chunk(&self, messages: &[Message], first: usize) -> Chunk {
        let (counts, tools) = if self.wants.tools {
            let parts = tool_parts(messages);
            let tools = self.ctx.count_parts_on(self.counter, &parts, 1);
            let known: HashMap<*const Part, usize> = parts
                .iter()
                .zip(&tools)
                .map(|(p, &n)| (*p as *const Part, n))
                .collect();
            let given = |p: &Part| known.get(&(p as *const Part)).copied();
            let counts = self
                .ctx
                .count_messages_given(self.counter, messages, &given);
            (counts, Some(tools))
        } else {
            (self.ctx.count_messages(self.counter, messages, 1), None)
        };
        let counts: Vec<usize> = counts.into_iter().map(|n| scale(n, self.factor)).collect();
        Chunk::of(
            self.ctx,
            self.counter,
            messages,
            &counts,
            first,
            (self.factor, 1),
            self.wants,
            tools,
        )
    }
}
