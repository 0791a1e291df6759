//! Reading a JSON document's message list a block at a time, never the whole file at
//! once: the records (the list's elements) come out in [`Block`]s of about 256 KiB, each
//! with its own text, and what lies around the list (the document with its list emptied)
//! is kept for the end ([`Outline`]), where the codec tells the format from it. Anything
//! this reader does not stream (no message list, punctuation it does not expect, bytes
//! that are not UTF-8) stops it with [`Stop::Unstreamable`]: the whole-document reader then
//! reads the file and words any error, as it always did.

pub mod around;
mod lines;
pub mod loose;
mod scan;

use std::io::Read;
use std::ops::Range;

use xxhash_rust::xxh3::Xxh3;

pub use lines::{is_blank, LineReader, LinesOutline};
pub use scan::{Event, ListName, Scanner};

/// Bytes read from the source at a time.
const READ_BYTES: usize = 64 << 10;
/// Records handed out at a time (a block holds at least one whole record). Small enough
/// that a small session is shared evenly by the counting threads and the first block goes
/// out early: a 256 KiB block takes a thread ~10 ms to count, so a 1 MB session made three
/// or four blocks and one thread sat idle for the last of them (counting 200K tokens took
/// 20% longer). Per-block costs (a channel send, a fold) stay negligible at 64 KiB.
const BLOCK_BYTES: usize = 64 << 10;
/// A document whose list starts later than this is read whole.
const PREFIX_LIMIT: usize = 64 << 20;
/// Records kept for detection (as many as a format's sniff looks at).
const HEAD_RECORDS: usize = crate::formats::sniff::MAX_ITEMS;

/// Consecutive records (of a document's list, or a JSONL file's lines that are not blank).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// Index of the first record's message among all the records' messages.
    pub first: usize,
    /// Where `text` starts in the file.
    pub at: usize,
    pub text: String,
    /// Each record's range in `text`.
    pub spans: Vec<Range<usize>>,
    /// Each record's index (in the list, or its line's in the file).
    pub records: Vec<usize>,
}

/// Reads up to [`READ_BYTES`] more from `src` onto `buf`: how many (0 at the end).
///
/// A buffer full of one long record grows by a quarter of what it holds, not by doubling
/// (a 5 MB `compacted` record of a Codex rollout left 8.4 MB of buffer); a large buffer
/// is reallocated in place or remapped, so the extra reallocations cost little.
fn read_some(src: &mut impl Read, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    let old = buf.len();
    if buf.capacity() < old + READ_BYTES {
        buf.reserve_exact(grown_by(old));
    }
    buf.resize(old + READ_BYTES, 0);
    loop {
        match src.read(&mut buf[old..]) {
            Ok(n) => {
                buf.truncate(old + n);
                return Ok(n);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                buf.truncate(old);
                return Err(e);
            }
        }
    }
}

/// How many bytes a buffer holding `len` grows by when a read needs room.
fn grown_by(len: usize) -> usize {
    READ_BYTES.max(len / 4)
}

/// Why a document is not streamed.
#[derive(Debug, thiserror::Error)]
pub enum Stop {
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// Not a document this reader streams: the whole-document reader decides.
    #[error("not a document that can be streamed")]
    Unstreamable,
}

/// What the document holds around its message list, known once it is read.
#[derive(Debug, Clone)]
pub struct Outline {
    /// The document with its list emptied: everything before the list, `[]`, everything
    /// after it.
    pub text: String,
    /// Where the emptied list (`[]`) is in `text`, and where the list's `[` is in the
    /// document.
    pub list_at: usize,
    /// Where the list's `]` is in the document.
    pub list_end: usize,
    pub key: Option<ListName>,
    /// How many records the list holds.
    pub records: usize,
    /// The first records' text, for detection.
    pub head: Vec<String>,
    /// The document's content is one line.
    pub one_line: bool,
    /// Length and xxh3-128 of the whole file.
    pub len: usize,
    pub hash: u128,
    /// Where the records end (past the last one, or past the list's `[`) and the xxh3-128
    /// of the bytes before that.
    pub records_end: usize,
    pub records_hash: u128,
    /// Where the first records (those kept in `head`) end, or the list's `[`.
    pub head_end: usize,
}

/// Reads the records of a JSON document's message list from `src`, block by block.
pub struct DocReader<R> {
    src: R,
    /// Bytes read and not handed out yet, from offset `base` of the document on.
    buf: Vec<u8>,
    base: usize,
    scan: Scanner,
    events: Vec<Event>,
    eof: bool,
    full: Xxh3,
    /// Hash of the bytes before `hashed` (the end of the last record).
    upto: Xxh3,
    hashed: usize,
    list: Option<(usize, Option<ListName>)>,
    list_end: Option<usize>,
    prefix: Vec<u8>,
    records: usize,
    head: Vec<String>,
    head_end: usize,
    /// Records found and not yet handed out (offsets in the document).
    pending: Vec<Range<usize>>,
}

impl<R: Read> DocReader<R> {
    pub fn new(src: R) -> DocReader<R> {
        DocReader {
            src,
            buf: Vec::new(),
            base: 0,
            scan: Scanner::new(),
            events: Vec::new(),
            eof: false,
            full: Xxh3::new(),
            upto: Xxh3::new(),
            hashed: 0,
            list: None,
            list_end: None,
            prefix: Vec::new(),
            records: 0,
            head: Vec::new(),
            head_end: 0,
            pending: Vec::new(),
        }
    }

    /// Reads on until the message list has started.
    pub fn start(&mut self) -> Result<(), Stop> {
        while self.list.is_none() {
            if self.eof {
                return Err(Stop::Unstreamable);
            }
            self.read_more()?;
        }
        Ok(())
    }

    /// The bytes before the list (once it has started).
    pub fn prefix(&self) -> &[u8] {
        &self.prefix
    }

    /// The top-level key of the list, once it has started (`None` for a document that is
    /// the list).
    pub fn key(&self) -> Option<ListName> {
        self.list.and_then(|(_, key)| key)
    }

    /// The next records, `None` once the list is done.
    pub fn next_block(&mut self) -> Result<Option<Block>, Stop> {
        loop {
            let pending = match (self.pending.first(), self.pending.last()) {
                (Some(a), Some(b)) => b.end - a.start,
                _ => 0,
            };
            let list_done = self.list_end.is_some() || self.eof;
            if pending >= BLOCK_BYTES || (list_done && pending > 0) {
                return self.cut().map(Some);
            }
            if list_done {
                return Ok(None);
            }
            self.read_more()?;
        }
    }

    /// Reads the rest of the document (after the list) and tells what is around the list.
    pub fn finish(mut self) -> Result<Outline, Stop> {
        while !self.eof {
            self.read_more()?;
        }
        let (Some((list_at, key)), Some(end)) = (self.list, self.list_end) else {
            return Err(Stop::Unstreamable);
        };
        if !self.pending.is_empty() {
            return Err(Stop::Unstreamable);
        }
        let suffix = &self.buf[end + 1 - self.base..];
        let mut text = std::mem::take(&mut self.prefix);
        text.extend_from_slice(b"[]");
        text.extend_from_slice(suffix);
        let text = String::from_utf8(text).map_err(|_| Stop::Unstreamable)?;
        let len = self.base + self.buf.len();
        Ok(Outline {
            text,
            list_at,
            list_end: end,
            key,
            records: self.records,
            head: self.head,
            one_line: self.scan.is_one_line(),
            len,
            hash: self.full.digest128(),
            records_end: self.hashed,
            records_hash: self.upto.digest128(),
            head_end: self.head_end,
        })
    }

    /// Reads up to [`READ_BYTES`] more and scans them.
    fn read_more(&mut self) -> Result<(), Stop> {
        let old = self.buf.len();
        let n = read_some(&mut self.src, &mut self.buf)?;
        if n == 0 {
            self.eof = true;
            return Ok(());
        }
        self.full.update(&self.buf[old..]);
        self.scan.feed(&self.buf[old..], &mut self.events);
        if self.scan.is_invalid() || self.scan.no_list() {
            return Err(Stop::Unstreamable);
        }
        let events = std::mem::take(&mut self.events);
        for e in &events {
            self.event(e);
        }
        self.events = events;
        self.events.clear();
        if self.list.is_none() && self.buf.len() > PREFIX_LIMIT {
            return Err(Stop::Unstreamable);
        }
        Ok(())
    }

    fn event(&mut self, e: &Event) {
        match e {
            Event::ListStart { at, key } => {
                let rel = at - self.base;
                self.prefix = self.buf[..rel].to_vec();
                self.upto.update(&self.buf[..rel + 1]);
                self.hashed = at + 1;
                self.head_end = at + 1;
                self.buf.drain(..rel + 1);
                self.base = at + 1;
                self.list = Some((*at, *key));
            }
            Event::Record(r) => {
                self.upto
                    .update(&self.buf[self.hashed - self.base..r.end - self.base]);
                self.hashed = r.end;
                if self.head.len() < HEAD_RECORDS {
                    let raw = &self.buf[r.start - self.base..r.end - self.base];
                    self.head.push(String::from_utf8_lossy(raw).into_owned());
                    self.head_end = r.end;
                }
                self.records += 1;
                self.pending.push(r.clone());
            }
            Event::ListEnd { at } => self.list_end = Some(*at),
        }
    }

    /// Hands out the pending records.
    fn cut(&mut self) -> Result<Block, Stop> {
        let spans = std::mem::take(&mut self.pending);
        let (start, end) = (spans[0].start, spans[spans.len() - 1].end);
        let text = self.buf[start - self.base..end - self.base].to_vec();
        let text = String::from_utf8(text).map_err(|_| Stop::Unstreamable)?;
        self.buf.drain(..end - self.base);
        self.base = end;
        let first = self.records - spans.len();
        Ok(Block {
            first,
            at: start,
            records: (first..self.records).collect(),
            text,
            spans: spans
                .into_iter()
                .map(|r| r.start - start..r.end - start)
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A source that gives at most `step` bytes a read, as a pipe might.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    fn read_all(doc: &str, step: usize) -> Result<(Vec<String>, Outline), Stop> {
        let mut r = DocReader::new(Trickle {
            data: doc.as_bytes(),
            step,
        });
        r.start()?;
        let mut records = Vec::new();
        let mut next = 0;
        while let Some(b) = r.next_block()? {
            assert_eq!(b.first, next);
            next += b.spans.len();
            for s in &b.spans {
                // The block's text is the document's from `at` on.
                let whole = &doc.as_bytes()[b.at + s.start..b.at + s.end];
                assert_eq!(whole, b.text[s.clone()].as_bytes());
            }
            records.extend(b.spans.iter().map(|s| b.text[s.clone()].to_string()));
        }
        Ok((records, r.finish()?))
    }

    #[test]
    fn records_and_what_is_around_them() {
        let doc = "\u{feff}{\"model\": \"gpt-4o\",\n \"messages\": [\n  {\"role\":\"user\",\"content\":\"é\"},\n  {\"role\":\"assistant\",\"content\":\"[b]\"}\n ],\n \"tools\": []\n}\n";
        for step in [1, 2, 3, 7, 64, 1 << 20] {
            let (records, o) = read_all(doc, step).unwrap();
            assert_eq!(
                records,
                [
                    "{\"role\":\"user\",\"content\":\"é\"}",
                    "{\"role\":\"assistant\",\"content\":\"[b]\"}"
                ]
            );
            assert_eq!(
                o.text,
                "\u{feff}{\"model\": \"gpt-4o\",\n \"messages\": [],\n \"tools\": []\n}\n"
            );
            assert_eq!(&o.text[o.list_at..o.list_at + 2], "[]");
            assert_eq!(&doc[o.list_at..o.list_at + 1], "[");
            assert_eq!(&doc[o.list_end..o.list_end + 1], "]");
            assert_eq!(o.key, Some(ListName::Messages));
            assert_eq!(o.records, 2);
            assert_eq!(o.head.len(), 2);
            assert!(!o.one_line);
            assert_eq!(o.len, doc.len());
            assert_eq!(o.hash, xxhash_rust::xxh3::xxh3_128(doc.as_bytes()));
            let end = doc.find("]\"}").unwrap() + 3;
            assert_eq!(o.records_end, end);
            assert_eq!(
                o.records_hash,
                xxhash_rust::xxh3::xxh3_128(&doc.as_bytes()[..end])
            );
        }
    }

    #[test]
    fn an_empty_list_ends_past_its_bracket() {
        let doc = "[ ]";
        let (records, o) = read_all(doc, 1).unwrap();
        assert!(records.is_empty());
        assert_eq!(o.records_end, 1);
        assert_eq!(o.text, "[]");
    }

    #[test]
    fn what_is_not_streamed() {
        for doc in [
            "",
            "  ",
            "{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"user\",\"content\":\"b\"}\n",
            "{\"messages\": [{\"a\":1}",
            "[{\"a\":1},]",
        ] {
            assert!(
                matches!(read_all(doc, 3), Err(Stop::Unstreamable)),
                "{doc:?}"
            );
        }
        // Not UTF-8.
        let mut r = DocReader::new(&b"[{\"a\":\"\xff\"}]"[..]);
        r.start().unwrap();
        assert!(matches!(r.next_block(), Err(Stop::Unstreamable)));
    }

    #[test]
    fn large_lists_come_in_several_blocks() {
        let record = format!("{{\"role\":\"user\",\"content\":\"{}\"}}", "x".repeat(1000));
        let doc = format!("[{}]", vec![record.as_str(); 3000].join(","));
        let mut r = DocReader::new(doc.as_bytes());
        r.start().unwrap();
        let mut blocks = 0;
        let mut n = 0;
        while let Some(b) = r.next_block().unwrap() {
            blocks += 1;
            n += b.spans.len();
            assert!(b.spans.iter().all(|s| b.text[s.clone()] == record));
        }
        assert!(blocks > 1);
        assert_eq!(n, 3000);
        assert_eq!(r.finish().unwrap().records, 3000);
    }
}
