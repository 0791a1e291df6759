//! The benchmark's reference: the least a program can do to count a session's tokens as
//! ctxctl does, on two cores and in flat memory. It streams the file (a JSON document with a
//! `messages` array, or JSONL with one message per line) through serde, keeps only the
//! fields counted, hands batches of about 64 KiB of text to two counting threads over a
//! bounded channel, and counts with ctxctl's tokenizer (tiktoken's counts, whole-token
//! shortcut included) and OpenAI's per-message formula, so its total is ctxctl `count`'s.
//! `scripts/bench.py` times ctxctl against it side by side.
//!
//! Usage: bare_count FILE [o200k_base|cl100k_base]

#![allow(clippy::print_stdout)] // a stand-alone benchmark program, not part of the CLI

use std::borrow::Cow;
use std::fmt;
use std::io::{BufRead, BufReader};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};

use ctxctl::tokens::{Encoding, Tokenizer};
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

/// Text handed to a counting thread at a time.
const BATCH_BYTES: usize = 64 * 1024;
const THREADS: usize = 2;

/// The counted fields of one message; everything else is skipped unparsed.
#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow, default)]
    role: Cow<'a, str>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<Content<'a>>,
    #[serde(borrow, default)]
    tool_calls: Vec<ToolCall<'a>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Content<'a> {
    #[serde(borrow)]
    Text(Cow<'a, str>),
    #[serde(borrow)]
    Parts(Vec<ContentPart<'a>>),
}

#[derive(Deserialize)]
struct ContentPart<'a> {
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct ToolCall<'a> {
    #[serde(borrow)]
    function: Function<'a>,
}

#[derive(Deserialize)]
struct Function<'a> {
    #[serde(borrow, default)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    arguments: Cow<'a, str>,
}

/// A batch of texts to count, and the fixed tokens of its messages (framing, names, calls).
#[derive(Default)]
struct Batch {
    texts: Vec<String>,
    bytes: usize,
    fixed: usize,
}

/// Collects the texts of messages into batches and sends each full one to the counters.
struct Batcher {
    batch: Batch,
    send: SyncSender<Batch>,
    messages: usize,
}

impl Batcher {
    fn message(&mut self, m: Message<'_>) {
        self.messages += 1;
        let b = &mut self.batch;
        b.fixed += 3; // <|start|>{role}\n … <|end|>\n
        let push = |b: &mut Batch, t: Cow<'_, str>| {
            if !t.is_empty() {
                b.bytes += t.len();
                b.texts.push(t.into_owned());
            }
        };
        push(b, m.role);
        if let Some(name) = m.name {
            b.fixed += 1;
            push(b, name);
        }
        match m.content {
            Some(Content::Text(t)) => push(b, t),
            Some(Content::Parts(parts)) => parts
                .into_iter()
                .filter_map(|p| p.text)
                .for_each(|t| push(b, t)),
            None => {}
        }
        for call in m.tool_calls {
            b.fixed += 1;
            push(b, call.function.name);
            push(b, call.function.arguments);
        }
        if b.bytes >= BATCH_BYTES {
            self.flush();
        }
    }

    fn flush(&mut self) {
        let batch = std::mem::take(&mut self.batch);
        self.send.send(batch).expect("counting threads are running");
    }
}

/// Streams the elements of the `messages` array (or a top-level array) into the batcher.
struct Messages<'b>(&'b mut Batcher);

impl<'de> Visitor<'de> for Messages<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of messages")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(m) = seq.next_element::<Message>()? {
            self.0.message(m);
        }
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for Messages<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

/// A session document: `{"messages": [...], ...}` or `[...]`.
struct Document<'b>(&'b mut Batcher);

impl<'de> Visitor<'de> for Document<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a session")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Cow<str>>()? {
            if key == "messages" {
                map.next_value_seed(Messages(&mut *self.0))?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        Messages(self.0).visit_seq(seq)
    }
}

fn counter(
    tokenizer: Arc<Tokenizer>,
    recv: Arc<Mutex<Receiver<Batch>>>,
) -> std::thread::JoinHandle<usize> {
    std::thread::spawn(move || {
        let mut total = 0;
        loop {
            let batch = match recv.lock().expect("lock").recv() {
                Ok(b) => b,
                Err(_) => break total,
            };
            total += batch.fixed
                + batch
                    .texts
                    .iter()
                    .map(|t| tokenizer.count(t))
                    .sum::<usize>();
        }
    })
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: bare_count FILE [ENCODING]");
    let encoding = match args.next().as_deref() {
        Some("cl100k_base") => Encoding::Cl100kBase,
        _ => Encoding::O200kBase,
    };
    // The tokenizer is built on its own thread while the file is read.
    let tokenizer =
        std::thread::spawn(move || Arc::new(Tokenizer::new(encoding).expect("tokenizer")));
    let (send, recv) = sync_channel::<Batch>(2 * THREADS);
    let recv = Arc::new(Mutex::new(recv));
    let counters = std::thread::spawn(move || {
        let tokenizer = tokenizer.join().expect("tokenizer thread");
        let threads: Vec<_> = (0..THREADS)
            .map(|_| counter(tokenizer.clone(), recv.clone()))
            .collect();
        threads
            .into_iter()
            .map(|t| t.join().expect("counting thread"))
            .sum::<usize>()
    });
    let mut batcher = Batcher {
        batch: Batch::default(),
        send,
        messages: 0,
    };
    let file = std::fs::File::open(&path).expect("open");
    let mut reader = BufReader::with_capacity(1 << 20, file);
    if path.ends_with(".jsonl") {
        let mut line = String::new();
        while reader.read_line(&mut line).expect("read") > 0 {
            if !line.trim().is_empty() {
                batcher.message(serde_json::from_str(&line).expect("json line"));
            }
            line.clear();
        }
    } else {
        let mut de = serde_json::Deserializer::from_reader(reader);
        serde::Deserializer::deserialize_any(&mut de, Document(&mut batcher)).expect("json");
    }
    batcher.flush();
    let messages = batcher.messages;
    drop(batcher);
    let tokens = counters.join().expect("counters");
    // The reply priming, once per non-empty session.
    println!("{}", if messages == 0 { 0 } else { tokens + 3 });
}
