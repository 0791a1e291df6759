//! Loading a JSON document (OpenAI or Anthropic) for a compaction the way `count` reads
//! it: one thread reads the file a block of records at a time, the others parse, count and
//! look at each message and drop its text, and the document's text is never held. Only
//! each record's place is kept; once the compaction knows which records it summarizes,
//! [`Reread::read`] reads the file again, keeping what it writes (the document less those
//! records) and handing those to the archive as they are read.
//!
//! Whatever this path does not take exactly as the whole-document reader would (another
//! format, a model named after the list that needs another tokenizer, a record it cannot
//! parse) gives `None`: the caller reads the file whole, and words any error.

use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::context::Context;
use crate::formats::chat;
use crate::formats::message::Notes;
use crate::formats::stream::around::{self, Around, AroundError};
use crate::formats::stream::{Block, DocReader, ListName};
use crate::ops::json_stream::{in_order, streamable};
use crate::ops::load::{self, Changed, Fingerprint, Loaded};
use crate::render::progress::Reading;
use crate::session::{Document, JsonDoc, JsonStyle, ListKey, Message, Session};

/// One block's messages, counted and looked at, their text gone.
struct Parsed<T> {
    messages: Vec<Message>,
    counts: Vec<usize>,
    seen: Vec<T>,
    spans: Vec<Range<usize>>,
    notes: Notes,
}

/// `path` streamed as [`load::load_observing`] loads it: `observe` sees each message on
/// the thread that parsed it, before its text goes, and what it gives comes back in
/// message order. The session's document is detached, its text left in the file: a
/// compaction puts back what it writes with [`Reread::read`], anything else with
/// [`Loaded::reattach`]. `None` when the file is not read this way.
pub fn load_observing<T: Send>(
    ctx: &Context,
    path: &Path,
    observe: &(dyn Fn(&Message) -> T + Sync),
) -> anyhow::Result<Option<(Loaded, Vec<T>)>> {
    let Some((file, progress)) = streamable(ctx, path)? else {
        return Ok(None);
    };
    let mut reader = DocReader::new(Reading::new(file, progress.bar().clone()));
    if reader.start().is_err() {
        return Ok(None);
    }
    let (prefix, key) = (reader.prefix(), reader.key());
    let mut notes = Notes::default();
    let guess = ctx.resolve_model_quietly(chat::early_model(prefix, key).as_deref());
    let early_system = chat::early_system(prefix, key, &mut notes);
    let counter = ctx.counter(guess.encoding);
    let key_name = key.map_or("", ListName::key);
    let work = |block: &Block| {
        let mut notes = Notes::default();
        let mut messages = Vec::with_capacity(block.spans.len());
        for (span, &i) in block.spans.iter().zip(&block.records) {
            let raw = &block.text[span.clone()];
            messages.push(chat::parse_record(raw, key_name, i, &mut notes).ok()?);
        }
        let counts = ctx.count_messages(&counter, &messages, 1);
        let seen = messages.iter().map(observe).collect();
        messages.iter_mut().for_each(load::release_for_plan);
        let spans = (block.spans.iter())
            .map(|s| block.at + s.start..block.at + s.end)
            .collect();
        Some(Parsed {
            messages,
            counts,
            seen,
            spans,
            notes,
        })
    };
    let (mut messages, mut counts, mut seen, mut records) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let read = in_order(ctx.counting_threads(), &mut reader, &work, |p| {
        messages.extend(p.messages);
        counts.extend(p.counts);
        seen.extend(p.seen);
        records.extend(p.spans);
        notes.merge(p.notes);
    });
    if read.is_none() {
        return Ok(None);
    }
    let Ok(outline) = reader.finish() else {
        return Ok(None);
    };
    let Some(doc) = chat::outline(&outline, &mut notes) else {
        return Ok(None);
    };
    let system = match (doc.system, doc.system_after) {
        (Some(m), true) if early_system.is_none() => Some(m),
        (late, false) if late == early_system => late,
        _ => return Ok(None),
    };
    let model = ctx.resolve_model_quietly(doc.model.as_deref());
    if model.encoding != guess.encoding || model.factor != guess.factor {
        return Ok(None);
    }
    // The system prompt is message 0, wherever it is in the document.
    if let Some(mut m) = system {
        counts.insert(
            0,
            ctx.count_messages(&counter, std::slice::from_ref(&m), 1)[0],
        );
        seen.insert(0, observe(&m));
        load::release_for_plan(&mut m);
        messages.insert(0, m);
    }
    let json = JsonDoc {
        text: String::new(),
        list: match key {
            Some(k) => ListKey::Key(k.key().to_string()),
            None => ListKey::Root,
        },
        list_span: outline.list_at..outline.list_end + 1,
        records,
        system_span: doc.system_span,
        // Told once the text is back.
        style: JsonStyle::of(""),
    };
    let session = Session {
        format: doc.format,
        doc: Document::Detached(Box::new(Document::Json(json))),
        messages,
        model: doc.model,
        warnings: notes.into_warnings(),
        reported_usage: None,
        agent_limits: Default::default(),
        request_extra: doc.request_extra,
        resume: None,
        skipped: false,
    };
    load::warn_session(ctx, path, &session);
    ctx.printer.debug(&format!(
        "{}: streamed, each message's text dropped once counted (the plan reads none)",
        load::display(path)
    ));
    let fingerprint = Fingerprint {
        len: outline.len,
        hash: outline.hash,
    };
    let mut loaded =
        load::counted_session(ctx, path, session, fingerprint, Some((counter, counts)))?;
    loaded.streamed = true;
    Ok(Some((loaded, seen)))
}

/// What a compaction leaves out of a streamed session's file: its summarized records
/// (`records`, indices of the list), and the bytes not put back (`bytes`): those records'
/// text, less the first record's and what follows it (the writer takes the list's
/// punctuation from there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hole {
    pub records: Range<usize>,
    pub bytes: Range<usize>,
}

/// Where a streamed session's messages `summarized` lie in its file, when a compaction
/// can write the file without them: their records are one run of the list, every record
/// in it theirs (a compaction keeping some of its middle verbatim reads the file whole).
pub fn hole(loaded: &Loaded, summarized: &[usize]) -> Option<Hole> {
    let doc = detached_json(&loaded.session.doc).filter(|_| loaded.streamed)?;
    let mut indices =
        (summarized.iter()).flat_map(|&i| loaded.session.messages[i].origin.records());
    let first = *indices.next()?;
    let mut last = first;
    for &r in indices {
        if r != last + 1 {
            return None;
        }
        last = r;
    }
    let start = doc.records.get(first.max(1))?.start;
    let end = doc.records.get(last)?.end;
    (start < end).then_some(Hole {
        records: first..last + 1,
        bytes: start..end,
    })
}

/// A streamed session's file to be read again around a hole ([`Reread::read`]): what the
/// read needs, taken from the session, so that it goes on while the session is changed.
#[derive(Debug)]
pub struct Reread {
    path: PathBuf,
    shown: String,
    fingerprint: (usize, u128),
    hole: Range<usize>,
    /// Where the records in the hole are in the file.
    records: Vec<Range<usize>>,
}

impl Reread {
    /// The read around `hole` of `loaded`'s file.
    pub fn of(loaded: &Loaded, hole: &Hole) -> anyhow::Result<Reread> {
        let doc =
            detached_json(&loaded.session.doc).ok_or_else(|| anyhow::anyhow!("not streamed"))?;
        Ok(Reread {
            path: loaded.path.clone(),
            shown: loaded.display(),
            fingerprint: (loaded.fingerprint.len, loaded.fingerprint.hash),
            hole: hole.bytes.clone(),
            records: doc.records[hole.records.clone()].to_vec(),
        })
    }

    /// Reads the file again, handing the hole's records to `emit`: the text the document
    /// keeps (the file's, less the hole's bytes). A file that changed since it was read is
    /// a [`Changed`] error.
    pub fn read(&self, emit: around::Emit) -> anyhow::Result<Around> {
        let (hole, records) = (self.hole.clone(), &self.records);
        around::read_around(&self.path, self.fingerprint, hole, records, emit).map_err(
            |e| match e {
                AroundError::Changed => Changed {
                    path: self.path.clone(),
                }
                .into(),
                AroundError::Io(e) => anyhow::Error::new(e).context(self.shown.clone()),
            },
        )
    }
}

/// Puts the text `around` (read with [`Reread::read`] over `hole`) back into a streamed
/// session's document; `false` (and the document left detached) when the document's style
/// cannot be told from it, the caller then reads the file whole ([`Loaded::reattach`]).
/// The records in the hole are then empty: only the others can be written.
pub fn reattach_around(loaded: &mut Loaded, hole: &Hole, around: Around) -> bool {
    let hole = &hole.bytes;
    let Some(doc) = detached_json(&loaded.session.doc) else {
        return false;
    };
    let Some(style) = style(&around, hole) else {
        return false;
    };
    let gap = hole.len();
    let at = |p: usize| {
        if p <= hole.start {
            p
        } else if p >= hole.end {
            p - gap
        } else {
            hole.start
        }
    };
    let span = |r: &Range<usize>| at(r.start)..at(r.end);
    let json = JsonDoc {
        text: around.text,
        list: doc.list.clone(),
        list_span: span(&doc.list_span),
        records: doc.records.iter().map(span).collect(),
        system_span: doc.system_span.as_ref().map(span),
        style,
    };
    loaded.session.doc = Document::Json(json);
    true
}

fn detached_json(doc: &Document) -> Option<&JsonDoc> {
    match doc {
        Document::Detached(d) => match &**d {
            Document::Json(j) => Some(j),
            _ => None,
        },
        _ => None,
    }
}

/// The style [`JsonStyle::of`] tells of the whole file, told from the text around `hole`
/// when that holds what it looks at: the first line break after the content's start, and
/// the first line after it that is not blank, up to its first character.
fn style(around: &Around, hole: &Range<usize>) -> Option<JsonStyle> {
    let text = &around.text;
    let Some(b) = around.first_break else {
        return Some(JsonStyle::with_break(text, None));
    };
    if b >= hole.end {
        return Some(JsonStyle::with_break(text, Some(b - hole.len())));
    }
    if b >= hole.start {
        return None;
    }
    // The first line after the break that is not blank must start before the hole.
    let mut at = b + 1;
    for line in text[b + 1..].split_inclusive('\n') {
        if !line.trim().is_empty() {
            let first = at + (line.len() - line.trim_start().len());
            return (first < hole.start).then(|| JsonStyle::with_break(text, Some(b)));
        }
        at += line.len();
        if at > hole.start {
            return None;
        }
    }
    Some(JsonStyle::with_break(text, Some(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What [`around::read_around`] gives of `doc` around `hole`.
    fn around(doc: &str, hole: &Range<usize>) -> Around {
        let body = doc.trim_start_matches('\u{feff}');
        let content = doc.len() - body.trim_start().len();
        Around {
            text: format!("{}{}", &doc[..hole.start], &doc[hole.end..]),
            first_break: doc[content..].find('\n').map(|i| content + i),
        }
    }

    #[test]
    fn the_style_told_around_a_hole_is_the_whole_documents_or_none() {
        let docs = [
            "{\"model\": \"m\", \"messages\": [{\"a\": 1}, {\"b\": 2}, {\"c\": 3}, {\"d\": 4}]}",
            "{\"model\": \"m\", \"messages\": [{\"a\": 1}, {\"b\": 2}, {\"c\": 3}, {\"d\": 4}]}\n",
            "{\n  \"messages\": [\n    {\"a\": 1},\n    {\"b\": 2},\n    {\"c\": 3},\n    {\"d\": 4}\n  ]\n}\n",
            "\u{feff}{\r\n\t\"messages\": [\r\n\t\t{\"a\": 1},\r\n\t\t{\"b\": 2},\r\n\t\t{\"c\": 3}\r\n\t]\r\n}",
            "[{\"a\": 1},\n\n   \n  {\"b\": 2}, {\"c\": 3},\n{\"d\": 4}]",
            "{\"messages\": [{\"a\": 1}, {\"b\": 2},\n   {\"c\": 3}, {\"d\": 4}]}",
            "\n\n  [{\"a\": 1}, {\"b\": 2}, {\"c\": 3}]",
        ];
        for doc in docs {
            let want = JsonStyle::of(doc);
            let records: Vec<usize> = doc.match_indices("{\"").map(|(i, _)| i).collect();
            let mut told = 0;
            // Every hole from one record's start to a later record's end.
            for (k, &start) in records.iter().enumerate() {
                for &from in &records[k..] {
                    let end = from + doc[from..].find('}').unwrap() + 1;
                    let hole = start..end;
                    if let Some(got) = style(&around(doc, &hole), &hole) {
                        assert_eq!(got, want, "{doc:?} around {hole:?}");
                        told += 1;
                    }
                }
            }
            assert!(told > 0, "{doc:?}: never told");
        }
    }

    #[test]
    fn a_pretty_document_is_told_whatever_its_middle() {
        let doc =
            "{\n  \"messages\": [\n    {\"a\": 1},\n    {\"b\": 2},\n    {\"c\": 3}\n  ]\n}\n";
        let start = doc.find("{\"b\"").unwrap();
        let hole = start..start + 8;
        assert_eq!(style(&around(doc, &hole), &hole), Some(JsonStyle::of(doc)));
        // A one-line document whose only break ends it.
        let doc = "{\"messages\": [{\"a\": 1}, {\"b\": 2}, {\"c\": 3}]}\n";
        let start = doc.find("{\"b\"").unwrap();
        let hole = start..start + 8;
        assert_eq!(style(&around(doc, &hole), &hole), Some(JsonStyle::of(doc)));
    }

    #[test]
    fn a_break_inside_the_hole_is_not_guessed_at() {
        let doc = "{\"messages\": [{\"a\": 1}, {\"b\":\n 2}, {\"c\": 3}]}";
        let start = doc.find("{\"b\"").unwrap();
        let hole = start..doc.find(", {\"c\"").unwrap();
        assert_eq!(style(&around(doc, &hole), &hole), None);
    }
}
