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
    /// The top-level object closed without a message list (a JSONL file's first record,
    /// say): known at once, whatever follows in the same block.
    closed: bool,
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
            closed: false,
        }
    }

    /// Whether the list's punctuation was wrong (or the document is no object or array).
    pub fn is_invalid(&self) -> bool {
        self.invalid
    }

    /// The first line break after the document's first byte of content.
    pub fn first_break(&self) -> Option<usize> {
        self.first_break
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
        self.closed
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
                // Checked as it happens: at the end of a block the next line's record
                // may be open, and the reader would hold the file's head up to its limit.
                self.closed |= self.depth == 0;
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{json, Value};

    /// The events of `doc` fed in pieces cut at `cuts`.
    fn events(doc: &[u8], cuts: &[usize]) -> (Vec<Event>, bool) {
        let mut s = Scanner::new();
        let mut out = Vec::new();
        let mut at = 0;
        for &c in cuts.iter().chain(std::iter::once(&doc.len())) {
            let c = c.clamp(at, doc.len());
            s.feed(&doc[at..c], &mut out);
            at = c;
        }
        (out, s.is_invalid())
    }

    /// The records serde_json finds in the list of `doc`, as byte ranges.
    fn serde_records(doc: &str, list: &str) -> Vec<Range<usize>> {
        let v: Value = serde_json::from_str(doc.trim_start_matches('\u{feff}')).unwrap();
        let n = if list.is_empty() {
            v.as_array().unwrap().len()
        } else {
            v[list].as_array().unwrap().len()
        };
        let (events, _) = events(doc.as_bytes(), &[]);
        let found: Vec<Range<usize>> = events
            .into_iter()
            .filter_map(|e| match e {
                Event::Record(r) => Some(r),
                _ => None,
            })
            .collect();
        assert_eq!(found.len(), n);
        for (r, want) in found.iter().zip(if list.is_empty() {
            v.as_array().unwrap()
        } else {
            v[list].as_array().unwrap()
        }) {
            let got: Value = serde_json::from_str(&doc[r.clone()]).unwrap();
            assert_eq!(&got, want);
        }
        found
    }

    #[test]
    fn finds_the_list_under_its_key() {
        let doc = r#"{"model":"m","x":{"messages":[1]},"system":"messages","messages" : [ {"a":"]"}, {"b":[{}]} ],"t":[]}"#;
        let (ev, invalid) = events(doc.as_bytes(), &[]);
        assert!(!invalid);
        let start = doc.find("[ {").unwrap();
        assert_eq!(
            ev[0],
            Event::ListStart {
                at: start,
                key: Some(ListName::Messages)
            }
        );
        serde_records(doc, "messages");
        assert!(matches!(ev.last(), Some(Event::ListEnd { .. })));
    }

    #[test]
    fn a_root_list_and_a_bom() {
        let doc = "\u{feff} [\n{\"role\":\"user\",\"content\":\"a\\\"]\"}\n]\n";
        let (ev, invalid) = events(doc.as_bytes(), &[]);
        assert!(!invalid);
        assert_eq!(ev[0], Event::ListStart { at: 4, key: None });
        serde_records(doc, "");
    }

    #[test]
    fn wrong_punctuation_and_non_objects_are_not_streamed() {
        for doc in [
            "[{},]",
            "[,{}]",
            "[{} {}]",
            "[1]",
            "[\"a\"]",
            "[[]]",
            "[{}}]",
            "x",
            "{\"messages\":[{},,{}]}",
        ] {
            assert!(events(doc.as_bytes(), &[]).1, "{doc}");
        }
        for doc in ["[]", "[ ]", "[{}]", "{\"messages\":[]}"] {
            assert!(!events(doc.as_bytes(), &[]).1, "{doc}");
        }
    }

    #[test]
    fn an_object_closed_without_a_list_is_told_within_its_block() {
        // JSONL: the first record closes, the next opens in the same block.
        let mut s = Scanner::new();
        s.feed(b"{\"type\":\"user\"}\n{\"type\":\"assist", &mut Vec::new());
        assert!(s.no_list() && !s.is_invalid());
        let mut s = Scanner::new();
        s.feed(b"{\"model\":\"m\",\"messages\":[{}]}\n{", &mut Vec::new());
        assert!(!s.no_list());
        let mut s = Scanner::new();
        s.feed(b"{\"a\":{\"b\":1}", &mut Vec::new());
        assert!(!s.no_list());
    }

    #[test]
    fn one_line_is_told_apart() {
        let one = |d: &str| {
            let mut s = Scanner::new();
            s.feed(d.as_bytes(), &mut Vec::new());
            s.is_one_line()
        };
        assert!(one("\n\n{\"messages\":[]}\n\n"));
        assert!(!one("{\n\"messages\":[]}"));
        assert!(one("[]"));
    }

    fn message() -> impl Strategy<Value = Value> {
        let text = "[\\[\\]{},:\"\\\\ a-zé\\n\\t\\u{1}]{0,12}";
        (text, prop::collection::vec(any::<i32>(), 0..3), any::<bool>()).prop_map(
            |(t, nums, pretty)| {
                json!({"role": "user", "content": t, "n": nums, "pretty": pretty, "o": {"k": [t]}})
            },
        )
    }

    proptest! {
        /// However the document is cut into blocks, the scan finds the same records, and
        /// they are the list's elements as serde_json reads them.
        #[test]
        fn blocks_do_not_change_what_is_found(
            msgs in prop::collection::vec(message(), 0..8),
            pretty in any::<bool>(),
            root in any::<bool>(),
            cuts in prop::collection::vec(0usize..2000, 0..6),
        ) {
            let v = if root {
                Value::Array(msgs)
            } else {
                json!({"model": "m", "messages": msgs, "tools": [{"a": "]"}]})
            };
            let doc = if pretty {
                serde_json::to_string_pretty(&v).unwrap()
            } else {
                serde_json::to_string(&v).unwrap()
            };
            let whole = serde_records(&doc, if root { "" } else { "messages" });
            let mut cuts = cuts;
            cuts.sort_unstable();
            let (ev, invalid) = events(doc.as_bytes(), &cuts);
            prop_assert!(!invalid);
            let found: Vec<Range<usize>> = ev
                .into_iter()
                .filter_map(|e| match e { Event::Record(r) => Some(r), _ => None })
                .collect();
            prop_assert_eq!(found, whole);
        }

        /// Cut at every byte, a document still splits as it does whole.
        #[test]
        fn every_boundary(msgs in prop::collection::vec(message(), 1..3)) {
            let doc = serde_json::to_string(&json!({"messages": msgs})).unwrap();
            let whole = events(doc.as_bytes(), &[]);
            let cuts: Vec<usize> = (0..doc.len()).collect();
            prop_assert_eq!(events(doc.as_bytes(), &cuts), whole);
        }
    }
}
