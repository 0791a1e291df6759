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
    chunks: Vec<(Stream, Vec<u8>)>,
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
                Some((s, buf)) if *s == stream => buf.extend_from_slice(bytes),
                _ => cap.chunks.push((stream, bytes.to_vec())),
            }
            None
        }
        None => Some(bytes),
    })
}

impl Captured {
    /// Writes the held-back output to the real streams. Errors on stdout (a closed pipe)
    /// are returned; stderr failures are ignored as everywhere else.
    pub fn replay(self) -> io::Result<()> {
        for (stream, bytes) in self.chunks {
            match stream {
                Stream::Stdout => {
                    let mut out = io::stdout().lock();
                    out.write_all(&bytes)?;
                    out.flush()?;
                }
                Stream::Stderr => {
                    let _ = io::stderr().lock().write_all(&bytes);
                }
            }
        }
        Ok(())
    }

    /// Everything held back for `stream`, in order, as text (lossily decoded).
    pub fn text(&self, stream: Stream) -> String {
        let bytes: Vec<u8> = (self.chunks.iter())
            .filter(|(s, _)| *s == stream)
            .flat_map(|(_, b)| b.iter().copied())
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
        assert_eq!(
            cap.chunks,
            vec![
                (Stream::Stdout, b"ab".to_vec()),
                (Stream::Stderr, b"c".to_vec())
            ]
        );
        assert_eq!(hold(Stream::Stdout, b"x"), Some(&b"x"[..]));
    }
}
