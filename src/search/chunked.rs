//! Searching a JSONL file the way ripgrep does: blocks of 32 KiB (a file that fits two
//! is read at once) are searched whole for the pattern's prefilter, and only the
//! lines it lands on are parsed. Nothing else is done to a block the prefilter misses:
//! its newlines are counted only when more of the file follows, and the agents'
//! compaction markers are looked for only from the first hit on (a marker before every
//! hit labels none of them). A tool's output that matches is named by its call, found by
//! searching backwards from the output for the call's id. Memory: one block (or the
//! longest line), reused from file to file.

use std::cell::RefCell;
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::OnceLock;

use memchr::{memchr, memchr_iter, memmem, memrchr};
use regex::bytes::Regex;

use super::record::{self, Tools};
use super::source::Collector;
use super::{FileHits, Place, Query, SearchError};

/// Bytes read at a time: small, as ripgrep's, so that the block read is still in the
/// processor's cache when it is searched (a 1 MiB block doubles the time the kernel
/// takes to copy it).
const BLOCK: usize = 32 << 10;

/// Bytes read at a time when looking backwards for a call.
const BACK: usize = 64 << 10;

thread_local! {
    /// The block buffer, kept from file to file.
    static BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The agents' compaction markers, in a record's bytes: literals only (a record they land
/// on is parsed and tells whether it is a marker).
fn markers() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r#"compact(?:_boundary|ed"|ion_complete")"#).expect("a valid regex")
    })
}

/// A line the prefilter or a marker landed on.
struct Found<'a> {
    /// 1-based.
    number: usize,
    /// Where it starts in the file.
    offset: u64,
    bytes: &'a [u8],
}

/// Whether the first line of a file is a record (not a JSON document, which the caller
/// reads another way): an object on one line, unless it may be a whole document (a
/// list, or an object with a `messages` list: parsed to tell).
fn is_record(first: &[u8]) -> bool {
    let t = first.trim_ascii();
    let may_be_document = t.first() == Some(&b'[')
        || memmem::find(t, b"\"messages\"").is_some()
        || t.last() != Some(&b'}');
    t.is_empty()
        || (t.first() == Some(&b'{') && !may_be_document)
        || serde_json::from_slice::<serde_json::Value>(t)
            .is_ok_and(|v| !super::source::is_document(&v))
}

/// Reads up to `want` more bytes into `buf`; false when the file ended before that.
fn fill(f: &mut File, buf: &mut Vec<u8>, want: usize) -> std::io::Result<bool> {
    buf.reserve(want);
    let n = f.take(want as u64).read_to_end(buf)?;
    Ok(n == want)
}

/// Calls `on` with each line of the file at `path` that `prefilter` matches, and from the
/// first of those on with each line a compaction marker lands on. `Ok(false)` when the
/// first line is not a record.
fn each_hit(
    path: &Path,
    prefilter: &Regex,
    on: &mut dyn FnMut(Found) -> Result<(), SearchError>,
) -> Result<bool, SearchError> {
    let io = |err| SearchError::Io {
        path: path.to_path_buf(),
        err,
    };
    let mut f = File::open(path).map_err(io)?;
    let size = f.metadata().map_err(io)?.len() as usize;
    BUF.with_borrow_mut(|buf| {
        buf.clear();
        if buf.capacity() > 64 * BLOCK {
            // A long line's room is not kept for the next file.
            buf.shrink_to(2 * BLOCK + 1);
        }
        // A file that fits is read whole, in one call (and known to be whole).
        let want = if size < BLOCK * 2 { size + 1 } else { BLOCK };
        let mut at = 0u64; // the file offset of buf[0]
        let mut lines_before = 0usize; // lines wholly before buf
        let mut first = true;
        let mut hit_yet = false;
        let mut starts: Vec<usize> = Vec::new();
        loop {
            let more = fill(&mut f, buf, want).map_err(io)?;
            let end = if !more {
                buf.len()
            } else {
                match memrchr(b'\n', buf) {
                    Some(i) => i + 1,
                    None => continue, // a line longer than a block: read on
                }
            };
            if end == 0 {
                break;
            }
            let region = &buf[..end];
            if first {
                first = false;
                if !is_record(&region[..memchr(b'\n', region).unwrap_or(end)]) {
                    return Ok(false);
                }
            }
            starts.clear();
            let mut from = 0;
            if !hit_yet {
                match prefilter.find(region) {
                    Some(m) => {
                        hit_yet = true;
                        from = memrchr(b'\n', &region[..m.start()]).map_or(0, |i| i + 1);
                    }
                    None => from = end,
                }
            }
            if from < end {
                let rest = &region[from..];
                starts.extend(prefilter.find_iter(rest).map(|m| from + m.start()));
                let before = starts.len();
                starts.extend(markers().find_iter(rest).map(|m| from + m.start()));
                if before > 0 && before < starts.len() {
                    starts.sort_unstable();
                }
            }
            let mut counted_to = 0usize; // newlines before this offset are counted
            let mut line = lines_before; // lines before counted_to
            let mut done_to = 0usize; // lines starting before this are handled
            for &pos in &starts {
                let ls = memrchr(b'\n', &region[..pos]).map_or(0, |i| i + 1);
                if ls < done_to {
                    continue;
                }
                let le = memchr(b'\n', &region[pos..]).map_or(end, |i| pos + i);
                line += memchr_iter(b'\n', &region[counted_to..ls]).count();
                counted_to = ls;
                on(Found {
                    number: line + 1,
                    offset: at + ls as u64,
                    bytes: &region[ls..le],
                })?;
                done_to = le + 1;
            }
            if !more {
                break;
            }
            // Lines are counted only when more of the file follows.
            lines_before = line + memchr_iter(b'\n', &region[counted_to..]).count();
            at += end as u64;
            buf.drain(..end);
        }
        Ok(true)
    })
}

/// Searches the JSONL file at `path` for `q` (a query with a prefilter); `None` when its
/// first line is not a JSON record (the caller reads it another way).
pub fn search_file(path: &Path, q: &Query, place: Place) -> Result<Option<FileHits>, SearchError> {
    let prefilter = q.matcher.prefilter().expect("a query with a prefilter");
    let mut c = Collector::new(q, place);
    let mut offsets: Vec<(usize, u64)> = Vec::new(); // each parsed record's line and offset
    let read = each_hit(path, prefilter, &mut |l| {
        match serde_json::from_slice(l.bytes.trim_ascii()) {
            Ok(v) => {
                let had = c.out.hits.len();
                c.record(l.number, &v);
                if c.out.hits.len() > had {
                    offsets.push((l.number, l.offset));
                }
            }
            Err(_) => c.out.bad_records += 1,
        }
        Ok(())
    })?;
    if !read {
        return Ok(None);
    }
    name_results(path, &mut c, &offsets)?;
    Ok(Some(c.finish()))
}

/// Names the tools whose output matched: each output's call is looked for by its id,
/// backwards from the output.
fn name_results(
    path: &Path,
    c: &mut Collector,
    offsets: &[(usize, u64)],
) -> Result<(), SearchError> {
    let wanted = c.unnamed();
    if wanted.is_empty() {
        return Ok(());
    }
    let io = |err| SearchError::Io {
        path: path.to_path_buf(),
        err,
    };
    let f = File::open(path).map_err(io)?;
    let mut tools = Tools::default();
    for (record, id) in wanted {
        if tools.name(Some(&id)).is_some() {
            continue;
        }
        let Some(&(_, before)) = offsets.iter().find(|(n, _)| *n == record) else {
            continue;
        };
        find_call(&f, &id, before, &mut tools).map_err(io)?;
    }
    c.name_calls(&tools);
    Ok(())
}

/// Looks in `f` before offset `end` for the record of call `id`, nearest first, until
/// one names it in `tools`.
fn find_call(f: &File, id: &str, mut end: u64, tools: &mut Tools) -> std::io::Result<()> {
    let needle = format!("\"{id}\"");
    let finder = memmem::FinderRev::new(needle.as_bytes());
    let mut window = Vec::new();
    while end > 0 {
        let start = end.saturating_sub(BACK as u64);
        window.resize((end - start) as usize, 0);
        f.read_exact_at(&mut window, start)?;
        let Some(i) = finder.rfind(&window) else {
            // Keep an overlap so that an id across the cut is seen.
            end = if start == 0 {
                0
            } else {
                start + needle.len() as u64 - 1
            };
            continue;
        };
        let line = line_at(f, start + i as u64)?;
        if !record::calls_fast(&line.1, tools) {
            if let Ok(v) = serde_json::from_slice(line.1.trim_ascii()) {
                record::read(&v, tools);
            }
        }
        if tools.name(Some(id)).is_some() {
            return Ok(());
        }
        end = line.0;
    }
    Ok(())
}

/// The line of `f` holding offset `pos`: where it starts, and its bytes.
fn line_at(f: &File, pos: u64) -> std::io::Result<(u64, Vec<u8>)> {
    let mut chunk = vec![0u8; 8 << 10];
    // Back to the line's start.
    let mut start = pos;
    while start > 0 {
        let from = start.saturating_sub(chunk.len() as u64);
        let part = &mut chunk[..(start - from) as usize];
        f.read_exact_at(part, from)?;
        if let Some(i) = memrchr(b'\n', part) {
            start = from + i as u64 + 1;
            break;
        }
        start = from;
    }
    // On to its end.
    let mut line = Vec::new();
    let mut at = start;
    loop {
        let n = f.read_at(&mut chunk, at)?;
        if n == 0 {
            break;
        }
        if let Some(i) = memchr(b'\n', &chunk[..n]) {
            line.extend_from_slice(&chunk[..i]);
            break;
        }
        line.extend_from_slice(&chunk[..n]);
        at += n as u64;
    }
    Ok((start, line))
}
