//! Reading a file again around a hole: what a compaction writes (the document less the
//! records it summarizes) is kept, the records in the hole are handed out one by one (to
//! be archived), and the whole file is hashed on the way, so that a file changed since it
//! was first read is noticed. Never more than a read's bytes and one record are held
//! besides what is kept.

use std::io::Read;
use std::ops::Range;
use std::path::Path;

use xxhash_rust::xxh3::Xxh3;

/// Bytes read at a time: few enough that they are hashed and copied on while still in the
/// processor's cache (1 MiB reads made the pass over a 44 MB file ~10 ms slower), as the
/// first read's ([`crate::formats::stream`]); and a small compaction's peak holds no more.
const READ_BYTES: usize = 64 << 10;

/// What the file holds around the hole.
#[derive(Debug)]
pub struct Around {
    /// The file's bytes before the hole, then those after it.
    pub text: String,
    /// Where the first line break after the document's first content byte is in the
    /// file (see [`crate::session::JsonStyle::of`]).
    pub first_break: Option<usize>,
}

#[derive(Debug, thiserror::Error)]
pub enum AroundError {
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The file is not what was read before (its length or hash differ, or a record in
    /// the hole no longer reads as one).
    #[error("the file changed since it was read")]
    Changed,
}

/// Reads `path` again, expecting `len` bytes of xxh3-128 `hash`: keeps what lies outside
/// `hole` and hands `records` (in order) to `emit` as they are read.
/// `emit` may stop the read with an error of its own.
pub fn read_around(
    path: &Path,
    (len, hash): (usize, u128),
    hole: Range<usize>,
    records: &[Range<usize>],
    emit: Emit,
) -> Result<Around, AroundError> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Xxh3::new();
    let mut kept = Vec::with_capacity(len.saturating_sub(hole.len()));
    let mut chunk = vec![0; READ_BYTES];
    // The start of a record that goes on past the bytes read so far.
    let mut carry: Vec<u8> = Vec::new();
    let mut next = 0;
    let mut breaks = Breaks::default();
    let mut a = 0;
    loop {
        let n = match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        let (bytes, b) = (&chunk[..n], a + n);
        if b > len {
            return Err(AroundError::Changed);
        }
        hasher.update(bytes);
        breaks.feed(a, bytes);
        if a < hole.start {
            kept.extend_from_slice(&bytes[..hole.start.min(b) - a]);
        }
        if b > hole.end {
            kept.extend_from_slice(&bytes[hole.end.max(a) - a..]);
        }
        while let Some(r) = records.get(next).filter(|r| r.start < b) {
            if r.end > b {
                // Goes on in the next read.
                carry.extend_from_slice(&bytes[r.start.max(a) - a..]);
                break;
            }
            if carry.is_empty() {
                emit_record(&bytes[r.start - a..r.end - a], emit)?;
            } else {
                carry.extend_from_slice(&bytes[..r.end - a]);
                emit_record(&carry, emit)?;
                carry.clear();
            }
            next += 1;
        }
        a = b;
    }
    if a != len || next != records.len() || hasher.digest128() != hash {
        return Err(AroundError::Changed);
    }
    Ok(Around {
        text: String::from_utf8(kept).map_err(|_| AroundError::Changed)?,
        first_break: breaks.found,
    })
}

/// One record, without the whitespace around it. Not parsed again: should the file have
/// changed since it was parsed, its hash tells at the end (and the caller drops what it
/// was handed).
fn emit_record(bytes: &[u8], emit: Emit) -> Result<(), AroundError> {
    let record = crate::archive::RecordText::read_bytes(bytes).ok_or(AroundError::Changed)?;
    Ok(emit(record)?)
}

/// Takes a record's bytes.
pub type Emit<'e> = &'e mut dyn FnMut(&[u8]) -> std::io::Result<()>;

/// Looks for the first line break after the first byte of content (a JSON document opens
/// with an optional byte order mark and whitespace).
#[derive(Default)]
struct Breaks {
    content: bool,
    found: Option<usize>,
}

impl Breaks {
    fn feed(&mut self, at: usize, bytes: &[u8]) {
        if self.found.is_some() {
            return;
        }
        let mut from = 0;
        if !self.content {
            let Some(i) = bytes
                .iter()
                .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0xEF | 0xBB | 0xBF))
            else {
                return;
            };
            self.content = true;
            from = i;
        }
        self.found = memchr::memchr(b'\n', &bytes[from..]).map(|i| at + from + i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn around(
        doc: &str,
        hole: Range<usize>,
        records: &[Range<usize>],
    ) -> Result<(Around, Vec<String>), AroundError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.json");
        std::fs::write(&path, doc).unwrap();
        let mut seen = Vec::new();
        let fp = (doc.len(), xxhash_rust::xxh3::xxh3_128(doc.as_bytes()));
        let got = read_around(&path, fp, hole, records, &mut |r| {
            seen.push(String::from_utf8(r.to_vec()).unwrap());
            Ok(())
        })?;
        Ok((got, seen))
    }

    /// The spans of a one-line document's records, found by hand.
    fn spans(doc: &str, records: &[&str]) -> Vec<Range<usize>> {
        records
            .iter()
            .map(|r| {
                let at = doc.find(r).unwrap();
                at..at + r.len()
            })
            .collect()
    }

    #[test]
    fn keeps_what_is_around_the_hole_and_hands_out_what_is_in_it() {
        let recs = ["{\"a\":1}", "{\"b\":\"é\"}", "{\"c\":[3]}", "{\"d\":4}"];
        let doc = format!("{{\"messages\": [{}]}}\n", recs.join(", "));
        let s = spans(&doc, &recs);
        let hole = s[1].start..s[2].end;
        let (got, seen) = around(&doc, hole.clone(), &s[1..3]).unwrap();
        assert_eq!(seen, ["{\"b\":\"é\"}", "{\"c\":[3]}"]);
        assert_eq!(
            got.text,
            format!("{}{}", &doc[..hole.start], &doc[hole.end..])
        );
        assert_eq!(got.first_break, Some(doc.len() - 1));
    }

    #[test]
    fn records_longer_than_a_read_come_out_whole() {
        let big = format!("{{\"t\":\"{}\"}}", "x".repeat(3 * READ_BYTES + 17));
        let recs = ["{\"a\":1}", big.as_str(), "{\"c\":3}", big.as_str()];
        let doc = format!(
            "[\n  {},\n  {},\n  {},\n  {}\n]",
            recs[0], recs[1], recs[2], recs[3]
        );
        let mut s = spans(&doc, &recs[..3]);
        let last = doc.rfind(&big).unwrap();
        s.push(last..last + big.len());
        let hole = s[1].start..s[3].end;
        let (got, seen) = around(&doc, hole.clone(), &s[1..]).unwrap();
        assert_eq!(seen, [big.as_str(), "{\"c\":3}", big.as_str()]);
        assert_eq!(
            got.text,
            format!("{}{}", &doc[..hole.start], &doc[hole.end..])
        );
        assert_eq!(got.first_break, Some(1));
    }

    #[test]
    fn a_file_that_changed_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.json");
        let doc = "[{\"a\":1},{\"b\":2}]";
        std::fs::write(&path, doc).unwrap();
        let fp = (doc.len(), xxhash_rust::xxh3::xxh3_128(doc.as_bytes()));
        let mut ok = |_: &[u8]| Ok(());
        // Same length, other bytes; longer; shorter.
        for now in [
            "[{\"a\":1},{\"b\":3}]",
            "[{\"a\":1},{\"b\":2}] ",
            "[{\"a\":1}]",
        ] {
            std::fs::write(&path, now).unwrap();
            let got = read_around(&path, fp, 9..16, std::slice::from_ref(&(9..16)), &mut ok);
            assert!(matches!(got, Err(AroundError::Changed)), "{now}: {got:?}");
        }
        // A record that is no longer one value.
        let now = "[{\"a\":1},{\"b\":2]";
        std::fs::write(&path, now).unwrap();
        let fp = (now.len(), xxhash_rust::xxh3::xxh3_128(now.as_bytes()));
        let got = read_around(&path, fp, 9..15, std::slice::from_ref(&(9..15)), &mut ok);
        assert!(matches!(got, Err(AroundError::Changed)), "{got:?}");
    }

    #[test]
    fn the_first_break_is_after_the_content_starts() {
        for (doc, want) in [
            ("\n\n {\"messages\": []}", None),
            ("\u{feff}\r\n{\n \"messages\": []}", Some(6)),
            ("[]", None),
        ] {
            let (got, _) = around(doc, 0..0, &[]).unwrap();
            assert_eq!(got.first_break, want, "{doc:?}");
            assert_eq!(got.text, doc);
        }
    }
}
