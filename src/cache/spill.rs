//! What a run learns for a cache, kept out of memory until the cache is saved: bytes
//! appended to an unnamed temp file beside the cache (the system removes it when the run
//! ends, however it ends) and copied back at saving. A cold listing of 3,000 sessions held
//! ~16 MB of them to its end ([`super::listing`]'s entries, [`super::counts`]'s recorded
//! counts), beside the largest file it was measuring. Where no temp file can be made, the
//! bytes are held in memory, as before.

use std::fs;
use std::io::{self, Write};
use std::ops::Range;
use std::path::Path;

/// Bytes appended by a run, read back by place.
#[derive(Debug, Default)]
pub(super) struct Spill {
    /// `None` until the first bytes; then the temp file, or `None` in it when none could
    /// be made (the bytes are in `held`).
    file: Option<Option<fs::File>>,
    held: Vec<u8>,
    len: u64,
}

impl Spill {
    /// Appends `bytes` (to a temp file made in `dir` for the first ones) and says where
    /// they are. On an error nothing is appended.
    pub(super) fn push(&mut self, dir: &Path, bytes: &[u8]) -> io::Result<Range<u64>> {
        let at = self.len..self.len + bytes.len() as u64;
        match self.file.get_or_insert_with(|| temp_in(dir)) {
            Some(f) => write_at(f, bytes, at.start)?,
            None => self.held.extend_from_slice(bytes),
        }
        self.len = at.end;
        Ok(at)
    }

    /// How many bytes were appended.
    pub(super) fn len(&self) -> u64 {
        self.len
    }

    /// Copies the bytes at `at` to `out`, a block at a time.
    pub(super) fn copy(&self, at: &Range<u64>, out: &mut dyn Write) -> io::Result<()> {
        let Some(Some(f)) = &self.file else {
            let held = usize::try_from(at.start)
                .ok()
                .zip(usize::try_from(at.end).ok())
                .and_then(|(start, end)| self.held.get(start..end));
            return out.write_all(held.ok_or(io::ErrorKind::UnexpectedEof)?);
        };
        let mut block = vec![0u8; (at.end.saturating_sub(at.start)).min(64 << 10) as usize];
        let mut from = at.start;
        while from < at.end {
            let n = (at.end - from).min(block.len() as u64) as usize;
            read_at(f, &mut block[..n], from)?;
            out.write_all(&block[..n])?;
            from += n as u64;
        }
        Ok(())
    }
}

/// An unnamed temp file in `dir` (made, private, if missing), if one can be made.
fn temp_in(dir: &Path) -> Option<fs::File> {
    if !cfg!(unix) {
        return None;
    }
    crate::fsutil::create_private_dir(dir).ok()?;
    tempfile::tempfile_in(dir).ok()
}

#[cfg(unix)]
fn write_at(f: &fs::File, b: &[u8], at: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(f, b, at)
}

#[cfg(unix)]
fn read_at(f: &fs::File, b: &mut [u8], at: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(f, b, at)
}

#[cfg(not(unix))]
fn write_at(_: &fs::File, _: &[u8], _: u64) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}

#[cfg(not(unix))]
fn read_at(_: &fs::File, _: &mut [u8], _: u64) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_kept_out_of_memory_and_in_it_alike() {
        let dir = tempfile::tempdir().unwrap();
        let (one, two) = (b"first entry".as_slice(), vec![7u8; 150_000]);
        let mut on_disk = Spill::default();
        let mut held = Spill {
            file: Some(None),
            ..Spill::default()
        };
        let mut places = Vec::new();
        for spill in [&mut on_disk, &mut held] {
            let first = spill.push(dir.path(), one).unwrap();
            let second = spill.push(dir.path(), &two).unwrap();
            places.push((first, second));
        }
        assert!(
            matches!(on_disk.file, Some(Some(_))),
            "a temp file was made"
        );
        assert!(on_disk.held.is_empty());
        assert_eq!(places[0], places[1]);
        let (first, second) = places[0].clone();
        assert_eq!((first.clone(), second.start), (0..11, 11));
        assert_eq!(on_disk.len(), 150_011);
        for spill in [&on_disk, &held] {
            let mut out = Vec::new();
            spill.copy(&second, &mut out).unwrap();
            spill.copy(&first, &mut out).unwrap();
            assert_eq!(out, [&two[..], one].concat());
            let past = spill.len()..spill.len() + 1;
            assert!(spill.copy(&past, &mut Vec::new()).is_err(), "nothing there");
        }
        // Unnamed: nothing is left in the directory.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_missing_directory_is_made_private() {
        let dir = tempfile::tempdir().unwrap();
        let inner = dir.path().join("a/b");
        let mut spill = Spill::default();
        spill.push(&inner, b"x").unwrap();
        assert!(matches!(spill.file, Some(Some(_))));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&inner).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700);
        }
    }
}
