//! Progress over one large file: a bar that advances with the bytes read and is cleared
//! when the read ends, however it ends.

use std::io::Read;

use indicatif::ProgressBar;

/// Files from this size on show a progress bar while they are read (on a terminal).
pub const LARGE_FILE_BYTES: u64 = 32 << 20;

/// A progress bar cleared from the terminal when dropped (a read that gives up, an error
/// or the end), so that nothing is left behind the command's own output.
pub struct Transient(ProgressBar);

impl Transient {
    pub fn new(bar: ProgressBar) -> Transient {
        Transient(bar)
    }

    /// The bar itself (cheap to clone: clones share one bar).
    pub fn bar(&self) -> &ProgressBar {
        &self.0
    }
}

impl Drop for Transient {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

/// A spinner over a long job on one large file that names the step it is at (`trimming
/// big.jsonl: writing`), cleared when dropped. Hidden for a small file, or when the
/// printer shows no progress.
pub struct Phases {
    spinner: Option<Transient>,
    what: String,
}

impl Phases {
    /// Phases of the job `what` (`trimming big.jsonl`), shown on `spinner`; `None`: hidden.
    pub fn new(spinner: Option<ProgressBar>, what: String) -> Phases {
        Phases {
            spinner: spinner.map(Transient::new),
            what,
        }
    }

    /// Runs `f` (which writes to the terminal) with the spinner out of the way.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.spinner {
            Some(s) => s.bar().suspend(f),
            None => f(),
        }
    }

    /// Clears the spinner before the job's own output (it is also cleared when dropped).
    pub fn done(&self) {
        if let Some(s) = &self.spinner {
            s.bar().finish_and_clear();
        }
    }

    /// Says the job is now at `step`.
    pub fn at(&self, step: &str) {
        if let Some(s) = &self.spinner {
            s.bar().set_message(format!("{}: {step}", self.what));
        }
    }
}

/// A reader that advances `bar` by every byte it hands out.
pub struct Reading<R> {
    inner: R,
    bar: ProgressBar,
}

impl<R> Reading<R> {
    pub fn new(inner: R, bar: ProgressBar) -> Reading<R> {
        Reading { inner, bar }
    }
}

impl<R: Read> Read for Reading<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bar.inc(n as u64);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_name_the_job_and_its_step() {
        let bar = ProgressBar::hidden();
        let p = Phases::new(Some(bar.clone()), "trimming big.jsonl".into());
        p.at("writing");
        assert_eq!(bar.message(), "trimming big.jsonl: writing");
        Phases::new(None, "hidden".into()).at("writing");
    }

    #[test]
    fn reading_advances_the_bar_by_the_bytes_read() {
        let bar = ProgressBar::hidden();
        bar.set_length(11);
        let mut r = Reading::new(&b"hello world"[..], bar.clone());
        let mut out = String::new();
        r.read_to_string(&mut out).unwrap();
        assert_eq!(out, "hello world");
        assert_eq!(bar.position(), 11);
    }

    #[test]
    fn a_transient_bar_is_finished_when_dropped() {
        let bar = ProgressBar::hidden();
        drop(Transient::new(bar.clone()));
        assert!(bar.is_finished());
    }
}
