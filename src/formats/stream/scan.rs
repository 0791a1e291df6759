//! An incremental scan of a JSON document for the elements of its message list, fed the
//! document a block at a time: strings are skipped at memchr speed, a string or an escape
//! cut by a block boundary is carried over, and positions are offsets in the whole
//! document. The scan validates only the list's punctuation (commas and brackets between
//! the elements); the elements themselves, and everything around the list, are checked by
//! whoever parses them.

use std::ops::Range;

/// What the scan found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The message list opens at this offset (its `[`), under the top-level key `key`
    /// (`None` for a document that is the list).
    ListStart { at: usize, key: Option<ListName> },
    /// One element of the list, without the whitespace around it.
    Record(Range<usize>),
    /// The list closes at this offset (its `]`).
    ListEnd { at: usize },
}

/// The top-level members that may hold the message list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListName {
    Messages,
    History,
}

impl ListName {
    pub fn key(self) -> &'static str {
        match self {
            ListName::Messages => "messages",
            ListName::History => "history",
        }
    }
}

/// Where the scan is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before the first value.
    Start,
    /// Inside the top-level object, before its message list.
    Top,
    /// Inside the message list.
    List,
    /// Past the list.
    After,
}

/// Inside the list: what may come next at the list's own depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// Right after `[`: an element or `]`.
    First,
    /// After a comma: an element.
    Element,
    /// Inside an element (an object) that started at `start`.
    In { start: usize },
    /// After an element: a comma or `]`.
    Next,
}

/// The scan's state between blocks.
#[derive(Debug, Clone)]
pub struct Scanner {
    /// Offset of the next byte fed.
    pos: usize,
    phase: Phase,
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// The key being read at the top level (up to 9 bytes; `None` once it cannot match).
    key: Option<Vec<u8>>,
    /// The last top-level string read, when it may be a list's key.
    last_key: Option<ListName>,
    /// A list's key followed by its colon: a `[` now opens the message list.
    colon: Option<ListName>,
    /// The depth of the list's elements.
    list_depth: usize,
    expect: Expect,
    /// The punctuation of the list is wrong: this is not a document to stream.
    invalid: bool,
    /// The first and last bytes of content (not whitespace, not the BOM).
    first_content: Option<usize>,
    last_content: Option<usize>,
    /// The first line break after the first byte of content.
    first_break: Option<usize>,
}

impl Default for Scanner {
    fn default() -> Self {
        Scanner::new()
    }
}

impl Scanner {
    pub fn new() -> Scanner {
        Scanner {
            pos: 0,
            phase: Phase::Start,
            depth: 0,
            in_string: false,
            escaped: false,
            key: None,
            last_key: None,
            colon: None,
            list_depth: 0,
            expect: Expect::First,
            invalid: false,
            first_content: None,
            last_content: None,
            first_break: None,
        }
    }

    /// Whether the list's punctuation was wrong (or the document is no object or array).
    pub fn is_invalid(&self) -> bool {
        self.invalid
    }

    /// Whether the document's content (BOM and surrounding whitespace aside) is one line.
    pub fn is_one_line(&self) -> bool {
        match (self.first_break, self.last_content) {
            (Some(b), Some(last)) => b > last,
            _ => true,
        }
    }

    /// Whether the top-level object closed without a message list this scan can stream.
    pub fn no_list(&self) -> bool {
        self.phase == Phase::Top && self.depth == 0
    }

    /// Scans the next bytes of the document, pushing what it finds onto `out`.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<Event>) {
        let base = self.pos;
        let mut i = 0;
        while i < bytes.len() && !self.invalid {
            if self.in_string {
                i = self.string(bytes, i, base);
                continue;
            }
            let b = bytes[i];
            let at = base + i;
            match b {
                b' ' | b'\t' | b'\r' => {}
                b'\n' => {
                    if self.first_content.is_some() && self.first_break.is_none() {
                        self.first_break = Some(at);
                    }
                }
                0xEF | 0xBB | 0xBF if at < 3 && self.phase == Phase::Start => {}
                _ => {
                    self.first_content.get_or_insert(at);
                    self.last_content = Some(at);
                    self.structural(b, at, out);
                }
            }
            i += 1;
        }
        self.pos = base + bytes.len();
    }

    /// Inside a string from `bytes[i]` on: the index past its closing quote, or the end.
    fn string(&mut self, bytes: &[u8], mut i: usize, base: usize) -> usize {
        if self.escaped {
            self.escaped = false;
            self.key = None;
            i += 1;
        }
        while i < bytes.len() {
            let Some(off) = memchr::memchr2(b'"', b'\\', &bytes[i..]) else {
                self.key_bytes(&bytes[i..]);
                return bytes.len();
            };
            self.key_bytes(&bytes[i..i + off]);
            let at = i + off;
            if bytes[at] == b'\\' {
                self.key = None;
                if at + 1 < bytes.len() {
                    i = at + 2;
                } else {
                    self.escaped = true;
                    return bytes.len();
                }
            } else {
                self.in_string = false;
                self.last_content = Some(base + at);
                self.string_end();
                return at + 1;
            }
        }
        bytes.len()
    }

    fn key_bytes(&mut self, b: &[u8]) {
        if let Some(k) = &mut self.key {
            if k.len() + b.len() > 9 {
                self.key = None;
            } else {
                k.extend_from_slice(b);
            }
        }
    }

    /// A string closed: a top-level one may be the message list's key.
    fn string_end(&mut self) {
        if self.phase == Phase::Top && self.depth == 1 {
            self.last_key = match self.key.take().as_deref() {
                Some(b"messages") => Some(ListName::Messages),
                Some(b"history") => Some(ListName::History),
                _ => None,
            };
        }
    }

    fn structural(&mut self, b: u8, at: usize, out: &mut Vec<Event>) {
        match self.phase {
            Phase::Start => match b {
                b'[' => {
                    self.depth = 1;
                    self.start_list(at, None, out);
                }
                b'{' => {
                    self.depth = 1;
                    self.phase = Phase::Top;
                }
                _ => self.invalid = true,
            },
            Phase::Top => self.top(b, at, out),
            Phase::List => self.list(b, at, out),
            Phase::After => self.nest(b),
        }
    }

    fn top(&mut self, b: u8, at: usize, out: &mut Vec<Event>) {
        let colon = self.colon.take();
        match b {
            b'"' => {
                self.in_string = true;
                self.key = (self.depth == 1).then(Vec::new);
                self.last_key = None;
            }
            b':' if self.depth == 1 => self.colon = self.last_key.take(),
            b'[' if self.depth == 1 && colon.is_some() => {
                self.depth += 1;
                self.start_list(at, colon, out);
            }
            _ => {
                self.last_key = None;
                self.nest(b);
            }
        }
    }

    fn start_list(&mut self, at: usize, key: Option<ListName>, out: &mut Vec<Event>) {
        self.phase = Phase::List;
        self.list_depth = self.depth;
        self.expect = Expect::First;
        out.push(Event::ListStart { at, key });
    }

    /// Depth changes and strings outside the list's own level.
    fn nest(&mut self, b: u8) {
        match b {
            b'"' => self.in_string = true,
            b'[' | b'{' => self.depth += 1,
            b']' | b'}' => match self.depth.checked_sub(1) {
                Some(d) => self.depth = d,
                None => self.invalid = true,
            },
            _ => {}
        }
    }

    fn list(&mut self, b: u8, at: usize, out: &mut Vec<Event>) {
        if self.depth > self.list_depth {
            // Inside an element.
            self.nest(b);
            if self.depth == self.list_depth {
                if let Expect::In { start } = self.expect {
                    out.push(Event::Record(start..at + 1));
                }
                self.expect = Expect::Next;
            }
            return;
        }
        match (b, self.expect) {
            (b',', Expect::Next) => self.expect = Expect::Element,
            (b']', Expect::Next | Expect::First) => {
                self.depth -= 1;
                self.phase = Phase::After;
                out.push(Event::ListEnd { at });
            }
            // Only objects can be messages: anything else is left to the whole-document
            // reader, which words the error.
            (b'{', Expect::First | Expect::Element) => {
                self.expect = Expect::In { start: at };
                self.depth += 1;
            }
            _ => self.invalid = true,
        }
    }
}
