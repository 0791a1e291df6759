//! Reading a session file that grew past its digest's resume point, once. The bytes
//! before the point are hashed as they stream by (the hash of the point must match, or
//! the file is not a longer version of the one the digest describes) and dropped, all but
//! the first few records that tell the file's format; the same hasher goes on over the new
//! bytes, so the whole file's fingerprint comes out of the same pass. What is parsed is a
//! stand-in text: those first records, records of no content standing in for the rest of
//! the old ones ([`crate::formats::filler`]), and the new bytes. Read from the stand-in's
//! point, it gives what the whole file read from its point gives (the readers skip the
//! records before the point either way, and detection sees only the head), at the cost
//! of the new records.

use std::io::Read;
use std::path::Path;

use xxhash_rust::xxh3::Xxh3;

use crate::ops::load::Fingerprint;
use crate::session::{Format, Resume};

/// Bytes read at a time.
const READ_BYTES: usize = 1 << 20;

/// A grown file, read once.
pub struct Grown {
    /// The stand-in text, to be read from `point`.
    pub text: Vec<u8>,
    pub point: Resume,
    /// The whole file's length and hash.
    pub fingerprint: Fingerprint,
    /// The file's resume point (that of the digest).
    real: Resume,
    /// The hasher after the bytes before `real`.
    at_point: Xxh3,
}

/// `path` read as a longer version of the file `point` was taken of, as `format`; `None`
/// when it is not one (its bytes before the point changed, it did not grow) or `format`
/// is not read from a point. Errors are the file's (the caller reads it whole then, and
/// reports them as a first read would).
pub fn read(path: &Path, point: &Resume, format: Format) -> std::io::Result<Option<Grown>> {
    let mut file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    if len <= point.len as u64 || point.head > point.len {
        return Ok(None);
    }
    let mut hasher = Xxh3::new();
    let mut text = vec![0; point.head];
    file.read_exact(&mut text)?;
    hasher.update(&text);
    let Some(newlines) = skip(&mut file, point.len - point.head, &mut hasher)? else {
        return Ok(None);
    };
    if hasher.digest128() != point.hash {
        return Ok(None);
    }
    let Some(filler) = crate::formats::filler(format, point, newlines) else {
        return Ok(None);
    };
    text.extend_from_slice(&filler);
    let stand_in = text.len();
    let at_point = hasher.clone();
    file.read_to_end(&mut text)?;
    hasher.update(&text[stand_in..]);
    let added = text.len() - stand_in;
    if added == 0 {
        return Ok(None);
    }
    Ok(Some(Grown {
        point: Resume {
            len: stand_in,
            // Not checked by the readers: the caller checked the file's own point.
            hash: 0,
            ..*point
        },
        fingerprint: Fingerprint {
            len: point.len + added,
            hash: hasher.digest128(),
        },
        real: *point,
        at_point,
        text,
    }))
}

/// Hashes the next `n` bytes of `file` without keeping them: how many line breaks they
/// hold, or `None` when the file ends first.
fn skip(file: &mut std::fs::File, n: usize, hasher: &mut Xxh3) -> std::io::Result<Option<usize>> {
    let mut buf = vec![0; READ_BYTES.min(n)];
    let (mut left, mut newlines) = (n, 0);
    while left > 0 {
        let want = buf.len().min(left);
        let got = match file.read(&mut buf[..want]) {
            Ok(0) => return Ok(None),
            Ok(got) => got,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buf[..got]);
        newlines += memchr::memchr_iter(b'\n', &buf[..got]).count();
        left -= got;
    }
    Ok(Some(newlines))
}

impl Grown {
    /// The new bytes (those after the stand-in's point): kept to hash the file's next
    /// resume point, once the stand-in text has been handed to the reader.
    pub fn added(&self) -> Vec<u8> {
        self.text[self.point.len..].to_vec()
    }

    /// `p`, a resume point of the stand-in text past its own point whose new bytes are
    /// `added`, as a point of the file; `None` when it cannot be one (its head within the
    /// stand-ins).
    pub fn real(&self, p: Resume, added: &[u8]) -> Option<Resume> {
        let past = p.len.checked_sub(self.point.len)?;
        let mut hasher = self.at_point.clone();
        hasher.update(added.get(..past)?);
        let head = if p.head <= self.real.head {
            p.head
        } else {
            p.head
                .checked_sub(self.point.len)
                .map(|h| self.real.len + h)?
        };
        Some(Resume {
            len: self.real.len + past,
            records: p.records,
            hash: hasher.digest128(),
            head,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats;
    use crate::session::Keep;

    /// A file's resume point, as a first read of `text` takes it.
    fn point_of(text: &str, format: Format) -> Resume {
        let s = formats::read_keeping(text.as_bytes().to_vec(), Some(format), Keep::After(None));
        s.unwrap().resume.unwrap()
    }

    #[test]
    fn a_grown_file_reads_from_its_point_as_the_whole_file_would() {
        let line = |i: usize| format!("{{\"role\":\"user\",\"content\":\"line {i}\"}}\n");
        let record = |i: usize| format!("{{\"role\":\"user\",\"content\":\"record {i}\"}}");
        let doc = |n: usize| {
            let records: Vec<String> = (0..n).map(record).collect();
            format!(
                "{{\"model\": \"gpt-4o\",\n\"messages\": [{}]}}",
                records.join(",\n")
            )
        };
        let jsonl = |n: usize| (0..n).map(line).collect::<String>();
        let cases: [(Format, String, String); 2] = [
            (Format::Jsonl, jsonl(100), jsonl(110)),
            (Format::OpenAi, doc(100), doc(110)),
        ];
        let dir = tempfile::tempdir().unwrap();
        for (format, old, new) in cases {
            let path = dir.path().join("s");
            let point = point_of(&old, format);
            assert!(point.head < point.len, "{format:?}: {point:?}");
            std::fs::write(&path, &new).unwrap();
            let mut grown = read(&path, &point, format).unwrap().unwrap();
            assert!(grown.text.len() < new.len());
            assert_eq!(grown.fingerprint, Fingerprint::of(new.as_bytes()));
            let added = grown.added();
            let text = std::mem::take(&mut grown.text);
            let s = formats::read_keeping(text, None, Keep::After(Some(grown.point))).unwrap();
            assert!(s.skipped && s.format == format, "{format:?}");
            assert_eq!(s.messages.len(), 10);
            let whole = point_of(&new, format);
            assert_eq!(grown.real(s.resume.unwrap(), &added), Some(whole));
            // Not a longer version: its bytes before the point changed, or it did not grow.
            std::fs::write(&path, new.replacen("0", "9", 1)).unwrap();
            assert!(read(&path, &point, format).unwrap().is_none());
            std::fs::write(&path, &old[..point.len]).unwrap();
            assert!(read(&path, &point, format).unwrap().is_none());
        }
    }
}
