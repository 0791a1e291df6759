//! Reading a JSONL file a block of lines at a time, lines cut as [`LinesDoc`] cuts them
//! (`\n` or `\r\n`, a BOM before the first): blank lines are counted, not handed out.
//!
//! [`LinesDoc`]: crate::session::LinesDoc

use std::io::Read;
use std::ops::Range;

use xxhash_rust::xxh3::Xxh3;

use super::{read_some, Block, Stop, BLOCK_BYTES};

use crate::formats::{surrogates, HEAD_LINES};

/// Whether a line's content is blank (spaces, tabs, a `\r`): counted, not handed out.
pub fn is_blank(content: &[u8]) -> bool {
    content.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'))
}

/// Blocks from this size on take the reader's buffer as their text instead of a copy of
/// it (a Codex rollout's `compacted` record is megabytes: copied, it was held twice).
const TAKE_BYTES: usize = 1 << 20;

/// What a JSONL file held besides its lines' records, known once it is read.
#[derive(Debug, Clone)]
pub struct LinesOutline {
    /// Lines (blank ones included).
    pub lines: usize,
    pub len: usize,
    pub hash: u128,
    /// Where the last line's content ends, and the xxh3-128 of the bytes before that.
    pub records_end: usize,
    pub records_hash: u128,
    /// Where the first lines (up to [`HEAD_LINES`] of them not blank) end.
    pub head_end: usize,
    /// Lone UTF-16 surrogate escapes the blocks held, read as U+FFFD.
    pub mended: surrogates::Found,
}

/// Reads the lines of a JSONL file from `src`, block by block.
pub struct LineReader<R> {
    src: R,
    /// Bytes read and not handed out yet, from offset `base` of the file on.
    buf: Vec<u8>,
    base: usize,
    /// Where the line being read starts (an offset in the file).
    line_start: usize,
    eof: bool,
    full: Xxh3,
    upto: Xxh3,
    hashed: usize,
    lines: usize,
    messages: usize,
    /// Where the first lines (up to [`HEAD_LINES`] of them not blank) end.
    head_end: usize,
    head_lines: usize,
    /// Lines found and not yet handed out: (line index, content range in the file).
    pending: Vec<(usize, Range<usize>)>,
    /// Lone surrogate escapes read as U+FFFD so far, and the line of the first.
    mended: surrogates::Found,
}

impl<R: Read> LineReader<R> {
    pub fn new(src: R) -> LineReader<R> {
        LineReader {
            src,
            buf: Vec::new(),
            base: 0,
            line_start: 0,
            eof: false,
            full: Xxh3::new(),
            upto: Xxh3::new(),
            hashed: 0,
            lines: 0,
            messages: 0,
            head_end: 0,
            head_lines: 0,
            pending: Vec::new(),
            mended: surrogates::Found::default(),
        }
    }

    /// Reads on until the first lines are in (call before [`Self::next_block`]): their
    /// text, BOM removed, for detection, and how many of them are not blank.
    pub fn head(&mut self) -> Result<(String, usize), Stop> {
        while self.head_lines < HEAD_LINES && !self.eof {
            self.read_more()?;
        }
        let head = &self.buf[..self.head_end - self.base];
        let head = head.strip_prefix("\u{feff}".as_bytes()).unwrap_or(head);
        let mut head = String::from_utf8(head.to_vec()).map_err(|_| Stop::Unstreamable)?;
        surrogates::mend(&mut head);
        Ok((head, self.head_lines))
    }

    /// The next non-blank lines, `None` once the file is read.
    pub fn next_block(&mut self) -> Result<Option<Block>, Stop> {
        loop {
            let pending = match (self.pending.first(), self.pending.last()) {
                (Some(a), Some(b)) => b.1.end - a.1.start,
                _ => 0,
            };
            if pending >= BLOCK_BYTES || (self.eof && pending > 0) {
                return self.cut().map(Some);
            }
            if self.eof {
                return Ok(None);
            }
            self.read_more()?;
        }
    }

    /// What the file held besides its records (call once [`Self::next_block`] gave `None`).
    pub fn finish(self) -> LinesOutline {
        LinesOutline {
            lines: self.lines,
            len: self.base + self.buf.len(),
            hash: self.full.digest128(),
            records_end: self.hashed,
            records_hash: self.upto.digest128(),
            head_end: self.head_end,
            mended: self.mended,
        }
    }

    fn read_more(&mut self) -> Result<(), Stop> {
        let old = self.buf.len();
        let mut n = read_some(&mut self.src, &mut self.buf)?;
        // The first bytes may be a BOM, whole.
        while self.base == 0 && self.buf.len() < 3 && n > 0 {
            n = read_some(&mut self.src, &mut self.buf)?;
        }
        let n = self.buf.len() - old;
        if n == 0 {
            self.eof = true;
            let end = self.base + self.buf.len();
            if self.line_start < end {
                self.line(self.line_start..end);
            }
            return Ok(());
        }
        self.full.update(&self.buf[old..]);
        if old == 0 && self.base == 0 && self.buf.starts_with("\u{feff}".as_bytes()) {
            self.line_start = 3;
        }
        let mut from = (self.line_start - self.base).max(old);
        while let Some(off) = memchr::memchr(b'\n', &self.buf[from..]) {
            let nl = from + off;
            let start = self.line_start - self.base;
            let end = if nl > start && self.buf[nl - 1] == b'\r' {
                nl - 1
            } else {
                nl
            };
            self.line(self.base + start..self.base + end);
            self.line_start = self.base + nl + 1;
            from = nl + 1;
        }
        Ok(())
    }

    /// Line `self.lines` has its content at `r`.
    fn line(&mut self, r: Range<usize>) {
        let rel = r.start - self.base..r.end - self.base;
        self.upto
            .update(&self.buf[self.hashed - self.base..rel.end]);
        self.hashed = r.end;
        let blank = is_blank(&self.buf[rel]);
        if self.head_lines < HEAD_LINES {
            self.head_end = r.end;
            self.head_lines += usize::from(!blank);
        }
        if !blank {
            self.pending.push((self.lines, r));
            self.messages += 1;
        }
        self.lines += 1;
    }

    fn cut(&mut self) -> Result<Block, Stop> {
        let pending = std::mem::take(&mut self.pending);
        let (start, end) = (pending[0].1.start, pending[pending.len() - 1].1.end);
        let (from, to) = (start - self.base, end - self.base);
        let keep = self.line_start.min(end) - self.base;
        let text = if to - from >= TAKE_BYTES {
            // A long record: the buffer becomes the block's text rather than being copied
            // beside it; the bytes after it (less than a read) start a new buffer.
            let rest = self.buf[keep..].to_vec();
            let mut text = std::mem::replace(&mut self.buf, rest);
            text.truncate(to);
            text.drain(..from);
            text.shrink_to_fit();
            text
        } else {
            let text = self.buf[from..to].to_vec();
            self.buf.drain(..keep);
            text
        };
        let mut text = text;
        let m = surrogates::mend_bytes(&mut text);
        if m.count > 0 {
            if self.mended.count == 0 {
                let at = start + m.first_at;
                let (line, _) = (pending.iter())
                    .find(|(_, r)| r.end >= at)
                    .unwrap_or(&pending[0]);
                self.mended.line = line + 1;
            }
            self.mended.count += m.count;
        }
        let text = String::from_utf8(text).map_err(|_| Stop::Unstreamable)?;
        self.base += keep;
        Ok(Block {
            first: self.messages - pending.len(),
            at: start,
            text,
            spans: pending
                .iter()
                .map(|(_, r)| r.start - start..r.end - start)
                .collect(),
            records: pending.iter().map(|(i, _)| *i).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The blocks and outline of `text` read by a [`LineReader`] (and the largest buffer
    /// capacity it had after a block was cut).
    fn read_all(text: &[u8]) -> (Vec<Block>, LinesOutline, usize) {
        let mut r = LineReader::new(text);
        r.head().unwrap();
        let (mut blocks, mut cap) = (Vec::new(), 0);
        while let Some(b) = r.next_block().unwrap() {
            cap = cap.max(r.buf.capacity());
            blocks.push(b);
        }
        (blocks, r.finish(), cap)
    }

    #[test]
    fn a_long_line_comes_out_whole_and_alone_in_its_buffer() {
        let long = format!("{{\"t\":\"{}\"}}", "x".repeat(3 * TAKE_BYTES));
        let mut text = String::from("\u{feff}{\"a\":1}\r\n\n");
        for i in 0..3000 {
            text.push_str(&format!("{{\"i\":{i}}}\n"));
        }
        text.push_str(&long);
        text.push_str("\r\n   \n{\"z\":2}\n{\"y\":3}");
        let (blocks, outline, cap) = read_all(text.as_bytes());
        let records: Vec<&str> = (blocks.iter())
            .flat_map(|b| b.spans.iter().map(|s| &b.text[s.clone()]))
            .collect();
        assert_eq!(records.len(), 3004);
        assert_eq!(records[0], "{\"a\":1}");
        assert_eq!(records[3001], long);
        assert_eq!(&records[3002..], ["{\"z\":2}", "{\"y\":3}"]);
        // Each block's text is the file's bytes at its place.
        for b in &blocks {
            assert_eq!(
                &text.as_bytes()[b.at..b.at + b.text.len()],
                b.text.as_bytes()
            );
        }
        let taken = blocks.iter().find(|b| b.text.len() >= TAKE_BYTES).unwrap();
        assert_eq!(
            taken.text.capacity(),
            taken.text.len(),
            "shrunk to the block"
        );
        assert!(
            cap < TAKE_BYTES,
            "the bytes after the long line, in a new buffer"
        );
        assert_eq!(outline.len, text.len());
        assert_eq!(outline.lines, 3006);
    }

    #[test]
    fn a_buffer_grows_by_a_quarter_once_large() {
        assert_eq!(super::super::grown_by(0), 64 << 10);
        assert_eq!(super::super::grown_by(8 << 20), 2 << 20);
    }
}
