//! Counting the messages of one session on several threads: chunks of about `CHUNK_BYTES`
//! of text handed out to the threads as they finish the previous one, so uneven messages
//! still keep every thread busy.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use crate::session::{Message, Part};

/// Below this much text, threads cost more than they save.
const PARALLEL_BYTES: usize = 256 * 1024;
/// Text handed to a counting thread at a time.
const CHUNK_BYTES: usize = 64 * 1024;

/// The number of cores this process may use (1 when it cannot be told), asked once per
/// process: the standard library reads the cgroup's CPU quota from /proc and /sys each
/// time (about 0.07 ms).
pub fn available() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `count` of every message, in order, on up to `threads` threads (one when the messages
/// hold too little text to be worth it).
pub fn count(
    msgs: &[&Message],
    threads: usize,
    count: impl Fn(&Message) -> usize + Sync,
) -> Vec<usize> {
    map_by(msgs, threads, |m| approx_bytes(m), |m| count(m))
}

/// `count` of every part, in order, spread over threads like [`count`].
pub fn count_parts(
    parts: &[&Part],
    threads: usize,
    count: impl Fn(&Part) -> usize + Sync,
) -> Vec<usize> {
    map_by(parts, threads, |p| part_bytes(p), |p| count(p))
}

/// `count` (or any other per-item work) of every item, in order, on up to `threads`
/// threads when the items (`weight` bytes of text each) are worth it: chunks of about
/// `CHUNK_BYTES` are handed to the threads as they finish the previous one.
pub fn map_by<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    weight: impl Fn(&T) -> usize + Sync,
    count: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let bytes: usize = items.iter().map(&weight).sum();
    if threads < 2 || bytes < PARALLEL_BYTES {
        return items.iter().map(&count).collect();
    }
    let bounds = chunks(items, &weight);
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, Vec<R>)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads.min(bounds.len() - 1))
            .map(|_| {
                s.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let c = next.fetch_add(1, Ordering::Relaxed);
                        if c + 1 >= bounds.len() {
                            break out;
                        }
                        let chunk = &items[bounds[c]..bounds[c + 1]];
                        out.push((c, chunk.iter().map(&count).collect()));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    done.sort_unstable_by_key(|(c, _)| *c);
    done.into_iter().flat_map(|(_, v)| v).collect()
}

/// Chunk boundaries: `[0, …, items.len()]`, each chunk about `CHUNK_BYTES` of text.
fn chunks<T>(items: &[T], weight: impl Fn(&T) -> usize) -> Vec<usize> {
    let mut bounds = vec![0];
    let mut acc = 0;
    for (i, m) in items.iter().enumerate() {
        acc += weight(m);
        if acc >= CHUNK_BYTES {
            bounds.push(i + 1);
            acc = 0;
        }
    }
    if *bounds.last().unwrap_or(&0) != items.len() {
        bounds.push(items.len());
    }
    bounds
}

fn part_bytes(p: &Part) -> usize {
    match p {
        Part::Text(t) | Part::Thinking(t) => t.len(),
        Part::ToolCall { arguments, .. } => arguments.len() + 16,
        Part::ToolResult { content, .. } => content.iter().map(part_bytes).sum(),
        _ => 16,
    }
}

/// About how many bytes of text `m` holds.
pub fn approx_bytes(m: &Message) -> usize {
    16 + m.parts.iter().map(part_bytes).sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Origin, Role};

    #[test]
    fn every_thread_count_gives_the_same_counts_in_order() {
        // Enough text to take the threaded path, in messages of uneven sizes.
        let msgs: Vec<Message> = (0..200)
            .map(|i| {
                let text = "w".repeat(1000 + (i * 7919) % 9000);
                Message::new(Role::User, vec![Part::Text(text)], Origin::Record(i))
            })
            .collect();
        let refs: Vec<&Message> = msgs.iter().collect();
        let by_len = |m: &Message| approx_bytes(m);
        let one = count(&refs, 1, by_len);
        assert_eq!(one.len(), msgs.len());
        for threads in [2, 3, 8] {
            assert_eq!(count(&refs, threads, by_len), one, "{threads} threads");
        }
    }
}
