//! Blocks of records read on a thread of their own, worked on by several threads, and
//! folded back in the order they were read: the streamed read routes' engine (chat JSON
//! documents and JSONL in [`crate::ops::json_stream`], agent transcripts in
//! [`crate::ops::agent_stream`]).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::sync_channel;
use std::sync::Mutex;

use crate::formats::stream::{Block, DocReader, LineReader, Stop};

/// Blocks read ahead of the counting threads, per thread.
const AHEAD: usize = 1;

/// A reader of records, block by block.
pub trait Source: Send {
    fn next_block(&mut self) -> Result<Option<Block>, Stop>;
}

impl<R: std::io::Read + Send> Source for DocReader<R> {
    fn next_block(&mut self) -> Result<Option<Block>, Stop> {
        DocReader::next_block(self)
    }
}

impl<R: std::io::Read + Send> Source for LineReader<R> {
    fn next_block(&mut self) -> Result<Option<Block>, Stop> {
        LineReader::next_block(self)
    }
}

/// Every block of `src` read on a thread of its own, `work`ed on `threads` threads as the
/// reading goes on, and what each gives `fold`ed in block order on this one; `None` when
/// the source stops or a block's work gives `None` (the blocks after it are not read).
pub fn in_order<T: Send>(
    threads: usize,
    src: &mut impl Source,
    work: &(dyn Fn(&Block) -> Option<T> + Sync),
    mut fold: impl FnMut(T),
) -> Option<()> {
    let stopped = AtomicBool::new(false);
    let stop = &stopped;
    let (to_work, blocks) = sync_channel::<(usize, Block)>(threads * AHEAD);
    let blocks = Mutex::new(blocks);
    // Bounded too: a slow fold (one that counts what the blocks give) holds the workers
    // back rather than letting their results pile up.
    let (to_fold, done) = sync_channel::<(usize, Option<T>)>(threads * AHEAD);
    std::thread::scope(|s| {
        let read = s.spawn(move || {
            let mut seq = 0;
            while let Some(block) = src.next_block()? {
                if stop.load(Ordering::Relaxed) || to_work.send((seq, block)).is_err() {
                    return Err(Stop::Unstreamable);
                }
                seq += 1;
            }
            Ok(())
        });
        for _ in 0..threads {
            let to_fold = to_fold.clone();
            let blocks = &blocks;
            s.spawn(move || loop {
                let next = blocks.lock().unwrap_or_else(|e| e.into_inner()).recv();
                let Ok((seq, block)) = next else { break };
                if to_fold.send((seq, work(&block))).is_err() {
                    break;
                }
            });
        }
        drop(to_fold);
        let mut waiting = BTreeMap::new();
        let (mut next, mut failed) = (0, false);
        for (seq, done) in done {
            let Some(done) = done else {
                failed = true;
                stop.store(true, Ordering::Relaxed);
                continue;
            };
            waiting.insert(seq, done);
            while let Some(t) = waiting.remove(&next) {
                fold(t);
                next += 1;
            }
        }
        let read = read.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        (read.is_ok() && !failed && waiting.is_empty()).then_some(())
    })
}

/// `texts` parsed as JSON on up to `threads` threads, in order.
pub fn parse_json(texts: &[Vec<u8>], threads: usize) -> Option<Vec<serde_json::Value>> {
    let one = |texts: &[Vec<u8>]| -> Option<Vec<serde_json::Value>> {
        // Checked as UTF-8 at once, then parsed without checking each string again.
        (texts.iter())
            .map(|t| serde_json::from_str(std::str::from_utf8(t).ok()?).ok())
            .collect()
    };
    if threads < 2 || texts.len() < 2 {
        return one(texts);
    }
    let per = texts.len().div_ceil(threads);
    let parts: Vec<Option<Vec<serde_json::Value>>> = std::thread::scope(|s| {
        let handles: Vec<_> = (texts.chunks(per))
            .map(|c| s.spawn(move || one(c)))
            .collect();
        (handles.into_iter())
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let mut out = Vec::with_capacity(texts.len());
    for p in parts {
        out.extend(p?);
    }
    Some(out)
}
