//! Searching a JSONL file the way ripgrep does: blocks of about 1 MiB are searched whole
//! for the pattern's prefilter and for the agents' compaction markers, and only the lines
//! those land on are parsed. A tool's output that matches is named by its call in a
//! second pass over the file for just those calls' ids, so tool calls cost nothing when
//! nothing they answer matches. Memory: one block (or the longest line).

use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::sync::OnceLock;

use memchr::{memchr, memrchr};
use regex::bytes::Regex;

use super::record::{self, Tools};
use super::source::Collector;
use super::{FileHits, Place, Query, SearchError};

/// Bytes read at a time.
const BLOCK: usize = 1 << 20;

/// The agents' compaction markers, in a record's bytes: literals only (found as fast as
/// the pattern; a record they land on is parsed and tells whether it is a marker).
fn markers() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r#"compact(?:_boundary|ed")"#).expect("a valid regex"))
}

/// What [`each_line`] hands a line to.
type OnLine<'a> = dyn FnMut(usize, &[u8]) -> Result<(), SearchError> + 'a;

/// Calls `on` with each line of `path` (its number, 1-based, and its bytes) that one of
/// `finders` matches; `first` sees the first line, whatever it holds.
fn each_line(
    path: &Path,
    finders: &[&Regex],
    first: &mut dyn FnMut(&[u8]) -> bool,
    on: &mut OnLine,
) -> Result<bool, SearchError> {
    let io = |err| SearchError::Io {
        path: path.to_path_buf(),
        err,
    };
    let mut f = File::open(path).map_err(io)?;
    let mut buf: Vec<u8> = Vec::with_capacity(BLOCK + (64 << 10));
    let mut lines_before = 0usize; // lines wholly before buf
    let mut eof = false;
    let mut at_start = true;
    let mut starts: Vec<usize> = Vec::new();
    while !eof {
        // Into the spare capacity, which is not zeroed again for each block.
        let n = (&mut f)
            .take(BLOCK as u64)
            .read_to_end(&mut buf)
            .map_err(io)?;
        eof = n == 0;
        let end = if eof {
            buf.len()
        } else {
            match memrchr(b'\n', &buf) {
                Some(i) => i + 1,
                None => continue, // a line longer than a block: read on
            }
        };
        let region = &buf[..end];
        if at_start {
            at_start = false;
            let first_end = memchr(b'\n', region).unwrap_or(end);
            if !first(&region[..first_end]) {
                return Ok(false);
            }
        }
        starts.clear();
        for re in finders {
            starts.extend(re.find_iter(region).map(|m| m.start()));
        }
        starts.sort_unstable();
        let mut counted_to = 0usize; // newlines before this offset are counted
        let mut line = lines_before; // lines before counted_to
        let mut done_to = 0usize; // lines starting before this are handled
        for &pos in &starts {
            let ls = memrchr(b'\n', &region[..pos]).map_or(0, |i| i + 1);
            if ls < done_to {
                continue;
            }
            let le = memchr(b'\n', &region[pos..]).map_or(end, |i| pos + i);
            line += memchr::memchr_iter(b'\n', &region[counted_to..ls]).count();
            counted_to = ls;
            on(line + 1, &region[ls..le])?;
            done_to = le + 1;
        }
        lines_before = line + memchr::memchr_iter(b'\n', &region[counted_to..]).count();
        buf.drain(..end);
    }
    Ok(true)
}

/// Searches the JSONL file at `path` for `q` (a query with a prefilter); `None` when its
/// first line is not a JSON record (the caller reads it another way).
pub fn search_file(path: &Path, q: &Query, place: Place) -> Result<Option<FileHits>, SearchError> {
    let prefilter = q.matcher.prefilter().expect("a query with a prefilter");
    let mut c = Collector::new(q, place);
    // A record on one line, unless it may be a whole document (a list, or an object
    // with a `messages` list: parsed to tell); a first line that is not whole JSON (a
    // document over several lines) is never a record.
    let is_jsonl = |first: &[u8]| {
        let t = first.trim_ascii();
        let may_be_document = t.first() == Some(&b'[')
            || memchr::memmem::find(t, b"\"messages\"").is_some()
            || t.last() != Some(&b'}');
        t.is_empty()
            || (t.first() == Some(&b'{') && !may_be_document)
            || serde_json::from_slice::<serde_json::Value>(t)
                .is_ok_and(|v| !super::source::is_document(&v))
    };
    let mut first = is_jsonl;
    let read = each_line(path, &[prefilter, markers()], &mut first, &mut |n, line| {
        let line = line.trim_ascii();
        match serde_json::from_slice(line) {
            Ok(v) => c.record(n, &v),
            Err(_) => c.out.bad_records += 1,
        }
        Ok(())
    })?;
    if !read {
        return Ok(None);
    }
    name_results(path, &mut c)?;
    Ok(Some(c.finish()))
}

/// Names the tools whose output matched, from their calls' records found by id.
fn name_results(path: &Path, c: &mut Collector) -> Result<(), SearchError> {
    let ids: Vec<String> = c.unnamed_calls();
    if ids.is_empty() {
        return Ok(());
    }
    let alts: Vec<String> = ids
        .iter()
        .map(|i| regex::escape(&format!("\"{i}\"")))
        .collect();
    let re = Regex::new(&alts.join("|")).map_err(|e| SearchError::Pattern {
        pattern: "call ids".into(),
        why: e.to_string(),
    })?;
    let mut tools = Tools::default();
    each_line(path, &[&re], &mut |_| true, &mut |_, line| {
        if !record::calls_fast(line, &mut tools) {
            if let Ok(v) = serde_json::from_slice(line.trim_ascii()) {
                record::read(&v, &mut tools);
            }
        }
        Ok(())
    })?;
    c.name_calls(&tools);
    Ok(())
}
