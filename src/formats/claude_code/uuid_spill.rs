//! The uuids of a streamed transcript's records kept out of memory (docs/design-uuid-spill.md):
//! at 2 GB their 8-byte hashes are 14.7 MB that the trace reads only to find a record by
//! its uuid. They are appended, in record order, to an unnamed temp file ([`UuidSpill`]),
//! and the few lookups the trace starts from a hash (far parents, `leafUuid`s, preserved
//! segments) are answered by reading it again ([`resolve`]), together with the records
//! whose uuid a later record gives again (a uuid given twice names its last record).
//! Where no temp file can be made or written, the hashes are held in memory: the same
//! answers, the old memory.

use std::fs::File;
use std::io;

use super::skel::Id;

/// Bytes gathered before they are written.
const BLOCK: usize = 64 << 10;
/// Hashes one resolution pass sorts, about (16 bytes each: 2 MB), where the uuids are
/// spread: a pass takes every record of the hashes in its slice, so a uuid given by many
/// records puts them all in one pass.
pub const SLICE: usize = 128 << 10;

/// The hashes of the records with a uuid, by rank (their place among those records).
#[derive(Debug, Default)]
pub struct UuidSpill {
    /// The temp file, or `None`: the hashes are in `held`.
    file: Option<File>,
    /// Bytes not yet written to `file`.
    pending: Vec<u8>,
    /// What `file` holds, in bytes.
    written: u64,
    held: Vec<u64>,
    /// A write failed and what was written could not be read back: nothing can be read.
    broken: bool,
    len: usize,
}

impl UuidSpill {
    /// A spill writing to `file` (an unnamed temp file), or holding the hashes where `None`.
    pub fn new(file: Option<File>) -> UuidSpill {
        UuidSpill {
            file,
            ..UuidSpill::default()
        }
    }

    /// Appends the next record's uuid.
    pub fn push(&mut self, id: Id) {
        self.len += 1;
        if self.file.is_none() {
            self.held.push(id.get());
            return;
        }
        self.pending.extend_from_slice(&id.get().to_le_bytes());
        if self.pending.len() >= BLOCK {
            self.flush();
        }
    }

    /// How many hashes were pushed.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Writes what is pending; on an error, goes on in memory with what was written
    /// read back (or, failing that, is broken: every read errs).
    fn flush(&mut self) {
        let Some(f) = &self.file else { return };
        if self.pending.is_empty() {
            return;
        }
        match write_at(f, &self.pending, self.written) {
            Ok(()) => {
                self.written += self.pending.len() as u64;
                self.pending.clear();
            }
            Err(_) => self.hold_in_memory(),
        }
    }

    /// Moves the hashes into `held` and lets the file go.
    fn hold_in_memory(&mut self) {
        let Some(f) = self.file.take() else { return };
        let mut bytes = vec![0u8; self.written as usize];
        if read_at(&f, &mut bytes, 0).is_err() {
            self.broken = true;
        }
        bytes.extend_from_slice(&self.pending);
        self.pending = Vec::new();
        self.held = (bytes.chunks_exact(8))
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
    }

    /// Makes every hash pushed readable (writes what is pending).
    pub fn finish(&mut self) -> io::Result<()> {
        self.flush();
        self.pending = Vec::new();
        match self.broken {
            true => Err(io::Error::other(
                "the uuids' temp file could not be read back",
            )),
            false => Ok(()),
        }
    }

    /// The hashes of ranks `from` to `from + out.len()`, into `out` (one read of the
    /// file; [`UuidSpill::finish`] first).
    ///
    /// # Panics
    /// When fewer than `from + out.len()` hashes were pushed.
    pub fn read(&self, from: usize, out: &mut [u64]) -> io::Result<()> {
        let to = from + out.len();
        assert!(to <= self.len, "ranks {from}..{to} of {}", self.len);
        debug_assert!(
            self.pending.is_empty(),
            "the spill is read before it is finished"
        );
        let Some(file) = &self.file else {
            if self.broken {
                return Err(io::Error::other(
                    "the uuids' temp file could not be read back",
                ));
            }
            out.copy_from_slice(&self.held[from..to]);
            return Ok(());
        };
        let mut bytes = vec![0u8; out.len() * 8];
        read_at(file, &mut bytes, from as u64 * 8)?;
        for (o, c) in out.iter_mut().zip(bytes.chunks_exact(8)) {
            *o = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        }
        Ok(())
    }

    /// Calls `f` with each of the first `n` hashes and its rank, in order, a block at a
    /// time.
    pub fn for_each(&self, n: usize, mut f: impl FnMut(usize, u64)) -> io::Result<()> {
        let n = n.min(self.len);
        let Some(file) = &self.file else {
            if self.broken {
                return Err(io::Error::other(
                    "the uuids' temp file could not be read back",
                ));
            }
            self.held[..n]
                .iter()
                .enumerate()
                .for_each(|(r, &h)| f(r, h));
            return Ok(());
        };
        let mut block = vec![0u8; BLOCK.min(n * 8)];
        let mut rank = 0;
        while rank < n {
            let take = (n - rank).min(BLOCK / 8);
            let bytes = &mut block[..take * 8];
            read_at(file, bytes, rank as u64 * 8)?;
            for c in bytes.chunks_exact(8) {
                f(rank, u64::from_le_bytes(c.try_into().expect("8 bytes")));
                rank += 1;
            }
        }
        Ok(())
    }
}

/// What the trace looks up by uuid, answered by ranks.
#[derive(Debug, Default, PartialEq)]
pub struct Resolved {
    /// Each hash asked that some record gives, with the last such record's rank; by hash.
    answers: Vec<(u64, u32)>,
    /// Each record whose uuid a later record gives again, with the last one's rank; by rank.
    later: Vec<(u32, u32)>,
}

impl Resolved {
    /// The rank of the last record with the uuid `id`, if it was asked and is there.
    pub fn last_of(&self, id: Id) -> Option<usize> {
        let k = self.answers.partition_point(|&(h, _)| h < id.get());
        (self.answers.get(k))
            .filter(|&&(h, _)| h == id.get())
            .map(|&(_, r)| r as usize)
    }

    /// The rank of the last record giving the uuid of the record at `rank`.
    pub fn last(&self, rank: usize) -> usize {
        let k = self.later.partition_point(|&(r, _)| (r as usize) < rank);
        match self.later.get(k) {
            Some(&(r, last)) if r as usize == rank => last as usize,
            _ => rank,
        }
    }
}

/// Reads the first `n` hashes of `spill` again, `slice` at most held at once (in as many
/// passes as that takes), to answer `queries` and find the uuids given twice.
pub fn resolve(spill: &UuidSpill, n: usize, queries: &[Id], slice: usize) -> io::Result<Resolved> {
    let n = n.min(spill.len());
    let mut asked: Vec<u64> = queries.iter().map(|q| q.get()).collect();
    asked.sort_unstable();
    asked.dedup();
    let passes = n.div_ceil(slice.max(1)).max(1);
    // The hashes are spread evenly over 64 bits: each pass takes a range of them.
    let pass_of = |h: u64| ((u128::from(h) * passes as u128) >> 64) as usize;
    let mut out = Resolved::default();
    let mut pairs: Vec<(u64, u32)> = Vec::new();
    for p in 0..passes {
        pairs.clear();
        spill.for_each(n, |r, h| {
            if pass_of(h) == p {
                pairs.push((h, r as u32));
            }
        })?;
        pairs.sort_unstable();
        for run in pairs.chunk_by(|a, b| a.0 == b.0) {
            let &(h, last) = run.last().expect("a run is never empty");
            (out.later).extend(run[..run.len() - 1].iter().map(|&(_, r)| (r, last)));
            if asked.binary_search(&h).is_ok() {
                out.answers.push((h, last));
            }
        }
    }
    out.answers.sort_unstable();
    out.later.sort_unstable();
    Ok(out)
}

#[cfg(unix)]
fn write_at(f: &File, b: &[u8], at: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(f, b, at)
}

#[cfg(unix)]
fn read_at(f: &File, b: &mut [u8], at: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(f, b, at)
}

#[cfg(not(unix))]
fn write_at(_: &File, _: &[u8], _: u64) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}

#[cfg(not(unix))]
fn read_at(_: &File, _: &mut [u8], _: u64) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}

#[cfg(test)]
#[path = "uuid_spill_tests.rs"]
mod tests;
