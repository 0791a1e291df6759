//! All output goes through the [`Printer`]: it knows quiet, verbose, JSON and colour, and
//! keeps machine output on stdout and everything else on stderr.

pub mod bar;
pub mod capture;
pub mod hints;
pub mod json;
pub mod preview;
pub mod progress;
pub mod table;

use std::io::{self, IsTerminal, Write};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;

/// A command's result as one value that both `--json` and the human output render
/// ([`Printer::report`]), so that the two cannot say different things.
pub trait Report: Serialize {
    /// Prints the result for a person.
    fn human(&self, p: &Printer) -> anyhow::Result<()>;
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// Log levels for `-v`, `-vv` and `CTXCTL_LOG`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Error,
    Warn,
    Info,
    Debug,
    Trace,
}

impl Level {
    pub fn parse(s: &str) -> Option<Level> {
        Some(match s.to_ascii_lowercase().as_str() {
            "error" => Level::Error,
            "warn" | "warning" => Level::Warn,
            "info" => Level::Info,
            "debug" => Level::Debug,
            "trace" => Level::Trace,
            _ => return None,
        })
    }
}

/// ANSI styles used in human output.
#[derive(Debug, Clone, Copy)]
pub enum Style {
    Bold,
    Dim,
    Red,
    Yellow,
    Green,
    Cyan,
}

impl Style {
    fn code(self) -> &'static str {
        match self {
            Style::Bold => "1",
            Style::Dim => "2",
            Style::Red => "31",
            Style::Yellow => "33",
            Style::Green => "32",
            Style::Cyan => "36",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Printer {
    pub quiet: bool,
    pub json: bool,
    /// Tables as tab-separated values with raw numbers (`--tsv`).
    pub tsv: bool,
    /// Colour on stdout.
    pub color: bool,
    /// Colour on stderr.
    pub err_color: bool,
    pub level: Level,
    pub progress: bool,
    /// The terminal's width when stdout is one (tables are fitted to it); `None` when
    /// piped: nothing is cut.
    pub width: Option<usize>,
    /// The warnings printed once per run (shared by the printer's clones).
    once: std::sync::Arc<capture::Once>,
}

impl Printer {
    /// Decides colour, progress and verbosity from the flags and the terminal.
    pub fn new(
        quiet: bool,
        verbose: u8,
        json: bool,
        color: ColorChoice,
        no_color_env: bool,
        no_progress: bool,
        log_env: Option<&str>,
    ) -> Printer {
        let decide = |is_tty: bool| match color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => is_tty && !no_color_env,
        };
        let level = match (verbose, log_env.and_then(Level::parse)) {
            (0, Some(l)) => l,
            (0, None) => Level::Warn,
            (1, _) => Level::Debug,
            _ => Level::Trace,
        };
        let stderr_tty = io::stderr().is_terminal();
        Printer {
            quiet,
            json,
            tsv: false,
            color: !json && decide(io::stdout().is_terminal()),
            err_color: decide(stderr_tty),
            level: if quiet { Level::Error } else { level },
            progress: stderr_tty && !quiet && !json && !no_progress && level <= Level::Warn,
            width: None,
            once: Default::default(),
        }
    }

    /// Fits tables to the terminal stdout is, `columns` (the `COLUMNS` variable) wide, or
    /// as wide as the terminal says; off a terminal, nothing is cut.
    pub fn fit_to_terminal(&mut self, columns: Option<&str>) {
        if !io::stdout().is_terminal() {
            return;
        }
        let asked = columns.and_then(|c| c.trim().parse::<usize>().ok());
        self.width = asked.filter(|&w| w > 0).or_else(terminal_width);
    }

    /// A printer that prints plainly (tests, library use).
    pub fn plain() -> Printer {
        Printer {
            quiet: false,
            json: false,
            tsv: false,
            color: false,
            err_color: false,
            level: Level::Warn,
            progress: false,
            width: None,
            once: Default::default(),
        }
    }

    /// A line of human output on stdout (nothing with `--quiet`).
    pub fn line(&self, text: &str) -> io::Result<()> {
        if self.quiet {
            return Ok(());
        }
        stdout(format!("{text}\n").as_bytes())
    }

    /// A table on stdout: aligned for people, tab-separated with `--tsv`.
    pub fn table(&self, t: &table::Table) -> io::Result<()> {
        if self.tsv {
            self.line(&t.tsv())
        } else {
            self.line(&t.human_within(self.width))
        }
    }

    /// A command's result: as JSON under `--json`, else for a person ([`Report::human`]).
    pub fn report<R: Report + ?Sized>(&self, report: &R) -> anyhow::Result<()> {
        if self.json {
            self.json(report)?;
            Ok(())
        } else {
            report.human(self)
        }
    }

    /// JSON output on stdout, pretty-printed, one document.
    pub fn json<T: Serialize + ?Sized>(&self, value: &T) -> io::Result<()> {
        if self.quiet {
            return Ok(());
        }
        if capture::active() {
            let mut doc = serde_json::to_vec_pretty(value)?;
            doc.push(b'\n');
            return stdout(&doc);
        }
        let mut out = io::stdout().lock();
        serde_json::to_writer_pretty(&mut out, value)?;
        out.write_all(b"\n")?;
        out.flush()
    }

    /// Data the user asked for on stdout (`-o -`): written even with `--quiet`.
    pub fn data(&self, bytes: &[u8]) -> io::Result<()> {
        stdout(bytes)
    }

    /// [`Printer::data`] written piece by piece (a rewritten session that is never held
    /// whole): buffered, held back like every output when it is captured. Flush it.
    pub fn data_writer(&self) -> impl Write {
        io::BufWriter::with_capacity(1 << 20, DataOut)
    }

    /// A human note on stderr (summaries of what was done), hidden by `--quiet`.
    pub fn note(&self, text: &str) {
        if !self.quiet {
            eprintln_raw(text);
        }
    }

    /// A line on stderr about something the run changed, or that needs a person (a
    /// session that needs compaction but is live): printed even with `--quiet`, which
    /// means "only what matters" for an unattended run.
    pub fn changed(&self, text: &str) {
        eprintln_raw(text);
    }

    /// A question on stderr for the user at the terminal, without a line end (the
    /// answer is typed after it); shown even with `--quiet`, since it waits for an answer.
    pub fn prompt(&self, text: &str) {
        if let Some(bytes) = capture::hold(capture::Stream::Stderr, text.as_bytes()) {
            let mut err = io::stderr().lock();
            let _ = err.write_all(bytes);
            let _ = err.flush();
        }
    }

    pub fn warn(&self, text: &str) {
        if self.level >= Level::Warn {
            let label = self.paint_err("warning:", Style::Yellow);
            eprintln_raw(&format!("ctxctl: {label} {text}"));
        }
    }

    /// A warning printed at most once per run for `key` (the same fallback would otherwise
    /// repeat per file of a batch). Held back by a batch worker, it is decided when replayed
    /// in input order: the file it names is the first that needed it, whatever thread ran
    /// first.
    pub fn warn_once(&self, key: &str, text: &str) {
        if self.level < Level::Warn {
            return;
        }
        let label = self.paint_err("warning:", Style::Yellow);
        let line = format!("ctxctl: {label} {text}\n");
        if !capture::hold_once(key, line.as_bytes()) && self.once.first(key) {
            let _ = io::stderr().lock().write_all(line.as_bytes());
        }
    }

    /// Writes output a batch worker held back (see [`capture`]).
    pub fn replay(&self, captured: capture::Captured) -> io::Result<()> {
        captured.replay(&self.once)
    }

    /// Prints an error chain once, on one line (`ctxctl: error: a: b: c`).
    pub fn error(&self, err: &anyhow::Error) {
        let label = self.paint_err("error:", Style::Red);
        eprintln_raw(&format!("ctxctl: {label} {err:#}"));
    }

    /// A hint line under an error.
    pub fn hint(&self, text: &str) {
        let label = self.paint_err("hint:", Style::Cyan);
        eprintln_raw(&format!("ctxctl: {label} {text}"));
    }

    pub fn log(&self, level: Level, text: &str) {
        if self.level >= level && level >= Level::Info {
            let tag = format!("{level:?}").to_ascii_lowercase();
            eprintln_raw(&format!("ctxctl: [{tag}] {text}"));
        }
    }

    pub fn debug(&self, text: &str) {
        self.log(Level::Debug, text);
    }

    /// `text` in `style` when stdout has colour.
    pub fn paint(&self, text: &str, style: Style) -> String {
        paint(text, style, self.color)
    }

    fn paint_err(&self, text: &str, style: Style) -> String {
        paint(text, style, self.err_color)
    }

    /// A progress bar on stderr, hidden unless stderr is an attended terminal and neither
    /// `--quiet`, `--json`, `--no-progress` nor verbose logging is on.
    pub fn progress_bar(&self, len: u64, what: &str) -> ProgressBar {
        if !self.progress || capture::active() {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {pos}/{len}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        bar.set_style(style);
        bar.set_message(what.to_string());
        bar
    }

    /// A bar over the `len` bytes of the file `what` names, with the same visibility rules
    /// as [`Printer::progress_bar`] (and hidden inside a batch, whose own bar counts files).
    pub fn bytes_bar(&self, len: u64, what: &str) -> progress::Transient {
        if !self.progress || capture::active() {
            return progress::Transient::new(ProgressBar::hidden());
        }
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{spinner} {wide_msg} [{bar:30}] {bytes}/{total_bytes} {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
        bar.set_style(style);
        bar.set_message(what.to_string());
        progress::Transient::new(bar)
    }

    /// The steps of the job `what` on the file at `path` (`trimming`), named on a spinner
    /// when the file is large ([`progress::LARGE_FILE_BYTES`]), with the same visibility
    /// rules as the progress bar.
    pub fn phases(&self, path: &std::path::Path, what: &str) -> progress::Phases {
        let large = std::fs::metadata(path)
            .is_ok_and(|m| m.is_file() && m.len() >= progress::LARGE_FILE_BYTES);
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let what = format!("{what} {name}");
        let shown = large && self.progress && !capture::active();
        progress::Phases::new(shown.then(|| self.spinner(&what)), what)
    }

    /// A spinner on stderr with the same visibility rules as the progress bar.
    pub fn spinner(&self, what: &str) -> ProgressBar {
        if !self.progress || capture::active() {
            return ProgressBar::hidden();
        }
        let s = ProgressBar::new_spinner();
        s.set_message(what.to_string());
        s.enable_steady_tick(std::time::Duration::from_millis(100));
        s
    }
}

fn paint(text: &str, style: Style, on: bool) -> String {
    if on {
        format!("\x1b[{}m{text}\x1b[0m", style.code())
    } else {
        text.to_string()
    }
}

/// Writes to stdout, or holds the bytes back while this thread is capturing.
/// Standard output for [`Printer::data_writer`].
struct DataOut;

impl Write for DataOut {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        stdout(bytes)?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn stdout(bytes: &[u8]) -> io::Result<()> {
    match capture::hold(capture::Stream::Stdout, bytes) {
        Some(bytes) => {
            let mut out = io::stdout().lock();
            out.write_all(bytes)?;
            out.flush()
        }
        None => Ok(()),
    }
}

/// Writes a line to stderr, ignoring failures (there is nowhere left to report them).
fn eprintln_raw(text: &str) {
    let line = format!("{text}\n");
    if let Some(bytes) = capture::hold(capture::Stream::Stderr, line.as_bytes()) {
        let _ = io::stderr().lock().write_all(bytes);
    }
}

/// The width of the terminal stdout is, as the kernel tells it.
fn terminal_width() -> Option<usize> {
    #[cfg(unix)]
    {
        // SAFETY: TIOCGWINSZ fills the zeroed winsize it is given, and nothing else.
        let mut size: libc::winsize = unsafe { std::mem::zeroed() };
        let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
        (ok && size.ws_col > 0).then_some(size.ws_col as usize)
    }
    #[cfg(not(unix))]
    {
        None
    }
}
