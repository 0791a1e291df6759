//! Holding back what one thread prints, so that files processed in parallel are reported
//! in input order: a batch worker runs each file inside [`capture`], and the main thread
//! [`Captured::replay`]s the output when that file's turn comes.

use std::cell::RefCell;
use std::io::{self, Write};

/// Which stream a piece of output was meant for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// Output held back by [`capture`], in the order it was printed.
#[derive(Debug, Default)]
pub struct Captured {
    chunks: Vec<Chunk>,
}

/// A run of output for one stream; `once` keys a line printed at most once per run,
/// decided when it is replayed (in input order), not when a worker printed it.
#[derive(Debug, PartialEq, Eq)]
struct Chunk {
    stream: Stream,
    bytes: Vec<u8>,
    once: Option<String>,
}

/// The keys of the lines printed once per run (see [`super::Printer::warn_once`]).
#[derive(Debug, Default)]
pub struct Once(std::sync::Mutex<std::collections::HashSet<String>>);

impl Once {
    /// Whether `key` is new (and now taken).
    pub fn first(&self, key: &str) -> bool {
        let mut seen = self.0.lock().unwrap_or_else(|e| e.into_inner());
        !seen.contains(key) && seen.insert(key.to_string())
    }
}

thread_local! {
    static CAPTURE: RefCell<Option<Captured>> = const { RefCell::new(None) };
}

/// Runs `f`, holding back everything the [`super::Printer`] prints on this thread.
pub fn capture<T>(f: impl FnOnce() -> T) -> (T, Captured) {
    let outer = CAPTURE.with(|c| c.borrow_mut().replace(Captured::default()));
    let value = f();
    let captured = CAPTURE.with(|c| std::mem::replace(&mut *c.borrow_mut(), outer));
    (value, captured.unwrap_or_default())
}

/// Whether output on this thread is being held back (live drawing such as spinners is
/// then pointless).
pub fn active() -> bool {
    CAPTURE.with(|c| c.borrow().is_some())
}

/// Holds `bytes` back if this thread is capturing; gives them back otherwise.
pub(super) fn hold(stream: Stream, bytes: &[u8]) -> Option<&[u8]> {
    CAPTURE.with(|c| match c.borrow_mut().as_mut() {
        Some(cap) => {
            match cap.chunks.last_mut() {
                Some(last) if last.stream == stream && last.once.is_none() => {
                    last.bytes.extend_from_slice(bytes)
                }
                _ => cap.chunks.push(Chunk {
                    stream,
                    bytes: bytes.to_vec(),
                    once: None,
                }),
            }
            None
        }
        None => Some(bytes),
    })
}

/// Holds back a stderr `line` to be printed only if `key` was not yet printed when it is
/// replayed; whether this thread is capturing.
pub(super) fn hold_once(key: &str, line: &[u8]) -> bool {
    CAPTURE.with(|c| match c.borrow_mut().as_mut() {
        Some(cap) => {
            cap.chunks.push(Chunk {
                stream: Stream::Stderr,
                bytes: line.to_vec(),
                once: Some(key.to_string()),
            });
            true
        }
        None => false,
    })
}

impl Captured {
    /// Writes the held-back output on: to the real streams, or held back again when this
    /// thread captures too. A line printed once per run is written if its key is `once`'s
    /// first. Errors on stdout (a closed pipe) are returned; stderr failures are ignored as
    /// everywhere else.
    pub fn replay(self, once: &Once) -> io::Result<()> {
        for chunk in self.chunks {
            if chunk.once.as_deref().is_some_and(|key| !once.first(key)) {
                continue;
            }
            let Some(bytes) = hold(chunk.stream, &chunk.bytes) else {
                continue;
            };
            match chunk.stream {
                Stream::Stdout => {
                    let mut out = io::stdout().lock();
                    out.write_all(bytes)?;
                    out.flush()?;
                }
                Stream::Stderr => {
                    let _ = io::stderr().lock().write_all(bytes);
                }
            }
        }
        Ok(())
    }

    /// Everything held back for `stream`, in order, as text (lossily decoded); a line
    /// printed once per run shows where the first of its key was held.
    pub fn text(&self, stream: Stream) -> String {
        let mut seen = std::collections::HashSet::new();
        let bytes: Vec<u8> = (self.chunks.iter())
            .filter(|c| c.stream == stream)
            .filter(|c| c.once.as_ref().is_none_or(|k| seen.insert(k.clone())))
            .flat_map(|c| c.bytes.iter().copied())
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Whether nothing was printed.
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_in_order_and_only_on_its_thread() {
        let ((), cap) = capture(|| {
            assert!(active());
            assert!(hold(Stream::Stdout, b"a").is_none());
            assert!(hold(Stream::Stdout, b"b").is_none());
            assert!(hold(Stream::Stderr, b"c").is_none());
            std::thread::spawn(|| assert!(!active())).join().unwrap();
        });
        assert!(!active());
        assert_eq!(cap.text(Stream::Stdout), "ab");
        assert_eq!(cap.text(Stream::Stderr), "c");
        assert_eq!(cap.chunks.len(), 2);
        assert_eq!(hold(Stream::Stdout, b"x"), Some(&b"x"[..]));
    }

    #[test]
    fn a_line_printed_once_is_kept_where_it_comes_first_in_replay_order() {
        // Two workers both hold the same once-line; the one replayed first keeps it, and
        // a replay on a capturing thread holds its output again rather than printing it.
        let hold_two = |tag: &str| {
            capture(|| {
                assert!(hold(Stream::Stderr, format!("{tag} before\n").as_bytes()).is_none());
                assert!(hold_once("k", format!("{tag} once\n").as_bytes()));
            })
            .1
        };
        let (late, early) = (hold_two("late"), hold_two("early"));
        let once = Once::default();
        let ((), outer) = capture(|| {
            early.replay(&once).unwrap();
            late.replay(&once).unwrap();
        });
        assert_eq!(
            outer.text(Stream::Stderr),
            "early before\nearly once\nlate before\n"
        );
        assert!(!hold_once("k", b"not capturing"));
    }
}
