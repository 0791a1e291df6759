//! A document's whole text, owned or mapped read-only from its file.
//!
//! A rewrite of a large agent transcript (Claude Code's, a Codex rollout) reads the file's
//! text several times (the load's parse, the writer's, the copy of every untouched line),
//! but each time in order and only a little at a time. Held in the heap, the whole text
//! stood beside everything else the rewrite holds (160 MB of a 300 MB peak on a 160 MB
//! transcript). Mapped from the file, the pages a pass has gone past are let go behind it
//! ([`Text::passing`]): they stay in the page cache, and a later pass (or a look back)
//! maps them in again from there. The bytes are the file's, the same as a read would have given; what the
//! text is used for does not change.
//!
//! A mapping sees the file as it is now, so it is made only of a regular file and checked
//! as it is made (UTF-8, and the fingerprint the rewrite compares the file against before
//! replacing it). Claude Code and Codex only append to their files, which leaves the mapped
//! bytes as they were; ctxctl and editors replace a file by renaming a new one over it,
//! which leaves the mapping on the old file. Writing into the file in place meanwhile is
//! what a rewrite's check of the input refuses before replacing anything. A file cut short
//! meanwhile (neither agent does; `truncate` would) stops ctxctl (SIGBUS) at the next read
//! past its new end, as `kill -9` would: before the replace step the file stays as it is
//! (an archive written for it undoes nothing), after it only the run's report is lost.

use std::cell::Cell;
use std::fmt;
use std::ops::{Deref, Range};
use std::sync::Arc;

/// The text of a document: owned, or mapped from a large file ([`Text::map`]).
#[derive(Clone)]
pub struct Text(Repr);

#[derive(Clone)]
enum Repr {
    Owned(String),
    Mapped(Arc<Mapping>),
}

impl Text {
    /// Lets go of the mapped pages before `pos` once a pass going forward has gone far
    /// enough past the last place it let go ([`STRIDE`]), keeping [`KEEP`] bytes behind
    /// it; a position well before the last starts a new pass. Nothing changes in what the
    /// text reads: only which of its pages the process holds. An owned text is left as it
    /// is.
    pub fn passing(&self, pos: usize) {
        if let Repr::Mapped(m) = &self.0 {
            m.passing(pos);
        }
    }

    /// Lets go of the mapped pages wholly inside `range` (see [`Text::passing`]).
    pub fn let_go(&self, range: Range<usize>) {
        if let Repr::Mapped(m) = &self.0 {
            m.let_go(range);
        }
    }

    /// The xxh3-128 hash of the text's bytes, a mapped text's pages let go of behind it.
    pub fn xxh3_128(&self) -> u128 {
        xxh3_128(self.as_bytes())
    }

    /// Whether the text is mapped from its file.
    pub fn is_mapped(&self) -> bool {
        matches!(self.0, Repr::Mapped(_))
    }

    /// The owned text, for a reader that cuts it short as it goes (a mapped text is
    /// copied first).
    pub fn to_mut(&mut self) -> &mut String {
        if let Repr::Mapped(m) = &self.0 {
            let owned = m.as_str().to_string();
            self.0 = Repr::Owned(owned);
        }
        match &mut self.0 {
            Repr::Owned(s) => s,
            Repr::Mapped(_) => unreachable!("made owned above"),
        }
    }

    /// The text as a `String` (a copy of a mapped one).
    pub fn into_string(self) -> String {
        match self.0 {
            Repr::Owned(s) => s,
            Repr::Mapped(m) => m.as_str().to_string(),
        }
    }

    /// Maps `file`, `len` bytes long, and checks it as the text of a document: valid
    /// UTF-8, hashed on the way (xxh3-128, as [`xxhash_rust::xxh3::xxh3_128`] hashes the
    /// whole), each stretch let go once checked. `None` when the file cannot be mapped here
    /// or is not UTF-8 (the caller reads it as before, and words any error then).
    pub fn map(file: &std::fs::File, len: usize) -> Option<(Text, u128)> {
        let m = Mapping::new(file, len)?;
        let bytes = m.bytes();
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        let mut start = 0;
        while start < bytes.len() {
            let mut end = (start + CHECK_BYTES).min(bytes.len());
            // A stretch ends before a character's first byte, so that each is whole.
            while end < bytes.len() && end > start && (bytes[end] & 0xC0) == 0x80 {
                end -= 1;
            }
            if end == start {
                return None;
            }
            std::str::from_utf8(&bytes[start..end]).ok()?;
            hasher.update(&bytes[start..end]);
            m.let_go(start..end);
            start = end;
        }
        let m = Arc::new(m);
        let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
        live.retain(|w| w.strong_count() > 0);
        live.push(Arc::downgrade(&m));
        Some((Text(Repr::Mapped(m)), hasher.digest128()))
    }
}

/// The mappings alive, for a pass that has only a `&str` of one ([`Behind`]).
static LIVE: std::sync::Mutex<Vec<std::sync::Weak<Mapping>>> = std::sync::Mutex::new(Vec::new());

/// A pass over `&str`s that may be parts of a mapped text: [`Behind::at`] lets go behind
/// it as [`Text::passing`] does. For `&str`s of no mapping it does nothing.
pub struct Behind {
    map: Option<Arc<Mapping>>,
}

impl Behind {
    /// The pass over `s` (or over slices of the text `s` is part of).
    pub fn of(s: &str) -> Behind {
        Behind {
            map: mapping_of(s.as_bytes()),
        }
    }

    /// The pass over `b` (or over slices of the text `b` is part of).
    pub fn of_bytes(b: &[u8]) -> Behind {
        Behind { map: mapping_of(b) }
    }

    /// The pass is at the start of `s`.
    pub fn at(&self, s: &str) {
        self.at_bytes(s.as_bytes());
    }

    /// The pass is at the start of `b`.
    pub fn at_bytes(&self, b: &[u8]) {
        if let Some(m) = &self.map {
            if let Some(pos) = m.offset(b) {
                m.passing(pos);
            }
        }
    }
}

/// The live mapping `b` is part of.
fn mapping_of(b: &[u8]) -> Option<Arc<Mapping>> {
    if MAPPED.load(std::sync::atomic::Ordering::Relaxed) == 0 {
        return None;
    }
    let live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    (live.iter().filter_map(std::sync::Weak::upgrade)).find(|m| m.offset(b).is_some())
}

/// The xxh3-128 hash of `bytes` (as [`xxhash_rust::xxh3::xxh3_128`] gives it), letting go
/// behind the hash when they are part of a mapped text.
pub fn xxh3_128(bytes: &[u8]) -> u128 {
    let Some(map) = mapping_of(bytes) else {
        return xxhash_rust::xxh3::xxh3_128(bytes);
    };
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    for chunk in bytes.chunks(CHECK_BYTES) {
        hasher.update(chunk);
        if let Some(at) = map.offset(chunk) {
            map.let_go(at..at + chunk.len());
        }
    }
    hasher.digest128()
}

/// How many mappings are alive: none, and a pass has nothing to look up.
static MAPPED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A writer handed slices of a text it writes out (a serializer writes a string's
/// unescaped runs as slices of it): lets go behind them when they are part of a mapped
/// text, as [`Text::passing`] does.
pub struct LettingGo<W> {
    w: W,
    behind: Option<Behind>,
}

impl<W: std::io::Write> LettingGo<W> {
    pub fn new(w: W) -> LettingGo<W> {
        LettingGo { w, behind: None }
    }
}

impl<W: std::io::Write> std::io::Write for LettingGo<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &self.behind {
            Some(b) => b.at_bytes(buf),
            None => {
                if let Some(map) = mapping_of(buf) {
                    self.behind = Some(Behind { map: Some(map) });
                }
            }
        }
        self.w.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.w.flush()
    }
}

/// A reader of bytes that may be part of a mapped text, letting go behind what it has
/// read as [`Text::passing`] does (a stream over a mapped text read as a file would be).
pub struct Reading<'a> {
    rest: &'a [u8],
    behind: Behind,
}

impl<'a> Reading<'a> {
    pub fn new(bytes: &'a [u8]) -> Reading<'a> {
        Reading {
            rest: bytes,
            behind: Behind::of_bytes(bytes),
        }
    }
}

impl std::io::Read for Reading<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.behind.at_bytes(self.rest);
        self.rest.read(buf)
    }
}

/// Bytes checked at a time as a file is mapped ([`Text::map`]).
const CHECK_BYTES: usize = 4 << 20;
/// How far a pass goes past the place it last let go before it lets go again.
const STRIDE: usize = 8 << 20;
/// Bytes kept behind a pass when it lets go: a record it is reading stays.
const KEEP: usize = 2 << 20;

impl Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        match &self.0 {
            Repr::Owned(s) => s,
            Repr::Mapped(m) => m.as_str(),
        }
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text(Repr::Owned(s))
    }
}

impl Default for Text {
    fn default() -> Text {
        Text(Repr::Owned(String::new()))
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// A read-only private mapping of a whole file, checked as UTF-8 when made.
struct Mapping {
    ptr: *const u8,
    len: usize,
    page: usize,
}

// SAFETY: the mapping is read-only and lives until the `Mapping` is dropped; reading it
// from several threads at once is reading shared immutable memory.
unsafe impl Send for Mapping {}
// SAFETY: as above.
unsafe impl Sync for Mapping {}

impl Mapping {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn new(file: &std::fs::File, len: usize) -> Option<Mapping> {
        use std::os::fd::AsRawFd;
        if len == 0 {
            return None;
        }
        // SAFETY: sysconf reads no memory of ours.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).ok()?;
        // SAFETY: a fresh read-only mapping of an open descriptor, at an address the kernel
        // picks: no memory of ours is touched. It is unmapped once, in `drop`.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED || page == 0 {
            return None;
        }
        MAPPED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Some(Mapping {
            ptr: ptr as *const u8,
            len,
            page,
        })
    }

    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    fn new(_file: &std::fs::File, _len: usize) -> Option<Mapping> {
        None
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` maps `len` readable bytes for as long as `self` lives.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    fn as_str(&self) -> &str {
        // SAFETY: checked as UTF-8 when the text was made (`Text::map`); no `Text` is made
        // of a mapping that failed the check.
        unsafe { std::str::from_utf8_unchecked(self.bytes()) }
    }

    /// Where `b` starts in the mapping, if it is part of it.
    fn offset(&self, b: &[u8]) -> Option<usize> {
        let at = (b.as_ptr() as usize).checked_sub(self.ptr as usize)?;
        (at < self.len).then_some(at)
    }

    /// Each thread's pass keeps its own mark: passes on two threads at once (the writer's
    /// and the archive's) would otherwise move one mark back and forth, letting go at
    /// every step.
    fn passing(&self, pos: usize) {
        thread_local! {
            /// The mapping (its address) this thread's pass is over, and its mark.
            static MARK: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
        }
        let id = self.ptr as usize;
        MARK.with(|m| {
            let (of, mark) = m.get();
            let mark = if of == id { mark } else { pos };
            if pos >= mark.saturating_add(STRIDE) {
                m.set((id, pos));
                self.let_go(0..pos.saturating_sub(KEEP));
            } else if pos.saturating_add(STRIDE) < mark {
                m.set((id, pos));
            } else {
                m.set((id, mark));
            }
        });
    }

    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn let_go(&self, range: Range<usize>) {
        let start = range.start.div_ceil(self.page) * self.page;
        let end = range.end.min(self.len) / self.page * self.page;
        if start >= end {
            return;
        }
        // SAFETY: whole pages inside the mapping, which is private and never written: the
        // kernel drops them from the process and maps them in again from the file (its page
        // cache) when read. A hint: a failure changes nothing.
        unsafe {
            libc::madvise(
                self.ptr.add(start) as *mut libc::c_void,
                end - start,
                libc::MADV_DONTNEED,
            );
        }
    }

    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    fn let_go(&self, _range: Range<usize>) {}
}

impl Drop for Mapping {
    fn drop(&mut self) {
        MAPPED.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        // SAFETY: the mapping made in `new`, unmapped once; no `&str` of it outlives the
        // `Text`s that share this `Mapping`.
        unsafe {
            libc::munmap(self.ptr as *mut libc::c_void, self.len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_mapped_file_reads_as_its_text_and_hashes_as_a_whole() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        // Several check stretches, a multi-byte character across each boundary.
        let line = "{\"a\":\"é€😀\"}\n";
        let text: String = line.repeat(CHECK_BYTES / line.len() * 3 + 7);
        f.write_all(text.as_bytes()).unwrap();
        let file = f.reopen().unwrap();
        let made = Text::map(&file, text.len());
        if !cfg!(all(target_os = "linux", target_env = "gnu")) {
            assert!(made.is_none(), "mapped only where it is let go of");
            return;
        }
        let (mapped, hash) = made.expect("a UTF-8 file is mapped");
        assert!(mapped.is_mapped());
        assert_eq!(hash, xxhash_rust::xxh3::xxh3_128(text.as_bytes()));
        assert_eq!(mapped.xxh3_128(), hash);
        assert_eq!(
            xxh3_128(&mapped.as_bytes()[1..]),
            xxhash_rust::xxh3::xxh3_128(&text.as_bytes()[1..])
        );
        for pos in (0..text.len()).step_by(1 << 20).chain([text.len() / 2, 0]) {
            mapped.passing(pos);
        }
        // Let go of, the pages read again as they were.
        assert_eq!(&*mapped, text.as_str());
        assert_eq!(mapped.clone().into_string(), text);
        let behind = Behind::of(&mapped[3..]);
        assert!(behind.map.is_some());
        behind.at(&mapped[text.len() - line.len()..]);
        assert_eq!(&*mapped, text.as_str());
        assert!(
            Behind::of(&text).map.is_none(),
            "an owned text is no mapping's"
        );
        let mut read = Vec::new();
        let mut reading = Reading::new(&mapped.as_bytes()[2..]);
        assert!(reading.behind.map.is_some());
        std::io::Read::read_to_end(&mut reading, &mut read).unwrap();
        assert_eq!(read, text.as_bytes()[2..]);
        let mut out = LettingGo::new(Vec::new());
        std::io::Write::write_all(&mut out, &mapped.as_bytes()[5..9]).unwrap();
        assert!(out.behind.is_some());
        std::io::Write::write_all(&mut out, b"xy").unwrap();
        assert_eq!(out.w, [&text.as_bytes()[5..9], b"xy"].concat());
    }

    #[test]
    fn a_file_that_is_not_utf8_is_not_mapped() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        let bad = b"{\"a\":\"\xff\"}\n";
        f.write_all(bad).unwrap();
        assert!(Text::map(&f.reopen().unwrap(), bad.len()).is_none());
        let owned = Text::from("x".to_string());
        owned.passing(1 << 30);
        assert!(!owned.is_mapped());
        assert_eq!(owned.xxh3_128(), xxhash_rust::xxh3::xxh3_128(b"x"));
        assert_eq!(owned.into_string(), "x");
    }
}
