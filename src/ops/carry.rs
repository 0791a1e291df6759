//! Replacing a session that an agent may append to at any moment, without losing what it
//! appends. The input is checked through a handle opened before the check; after the rename
//! that handle still reads the replaced file, so whole records the agent appended to it in
//! the window between the check and the rename are carried to the end of the new file. A
//! partial record that does not complete, or any change to a whole-document (JSON) file,
//! rolls the replacement back: the replaced file's full content goes back in place.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::Duration;

use super::load::Fingerprint;
use crate::fsutil;

/// What happened to bytes appended during the replacement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carried {
    /// Nothing was appended.
    Nothing,
    /// This many bytes of whole records were appended to the new file.
    Appended(usize),
    /// The replacement was undone: the file holds the old content and what was appended.
    RolledBack,
}

/// How long a half-written appended record is given to complete.
const PARTIAL_GRACE: Duration = Duration::from_millis(500);

/// How long the replaced file must stay still after the rename before it is let go: an
/// agent that opened the path just before the rename writes into the replaced file a moment
/// later.
const SETTLE: Duration = Duration::from_millis(20);

/// How long the replaced file is watched while another process (or thread) holds it open
/// for writing. An agent that keeps its session open for good (Codex, while it runs) is
/// not waited out: what it writes after this is lost (docs/HARDENING.md).
const WRITER_GRACE: Duration = Duration::from_secs(2);

/// Whether any process, this one included, holds the file `f` is open on for writing
/// (Linux: `/proc/*/fd`, then the access mode in `fdinfo`; processes of other users are
/// not visible). Elsewhere: never known, `false`.
#[cfg(target_os = "linux")]
fn held_for_writing(f: &File) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(me) = f.metadata() else {
        return false;
    };
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return false;
    };
    for proc in procs.flatten() {
        let pid = proc.file_name();
        if !pid
            .to_str()
            .is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit()))
        {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(proc.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            let same = std::fs::metadata(fd.path())
                .is_ok_and(|m| m.dev() == me.dev() && m.ino() == me.ino());
            if !same {
                continue;
            }
            if super::live::opened_for_writing(&proc.path(), &fd.file_name()) {
                return true;
            }
        }
    }
    false
}

#[cfg(not(target_os = "linux"))]
fn held_for_writing(_f: &File) -> bool {
    false
}

/// Opens `path` for the guarded replacement and checks that it still holds exactly what
/// `original` describes. `Ok(None)`: it changed.
pub fn open_unchanged(path: &Path, original: Fingerprint) -> io::Result<Option<File>> {
    let mut f = File::open(path)?;
    let now = Fingerprint::of_reader(&mut f)?;
    Ok((now == original).then_some(f))
}

/// Appends `tail` to `path` (open as `old`, checked to hold `old_len` bytes) instead of
/// replacing it, for a rewrite whose output is the file as it is plus `tail` (a Claude Code
/// compaction's boundary and summary, a Codex `compacted` record): a writer that still
/// holds the file loses nothing, and no byte of the original moves. `Ok(false)` when the
/// file grew or was replaced since the check (nothing written); a failed write is cut
/// back off, so the file holds what it held.
pub fn append(path: &Path, tail: &[u8], old: &File, old_len: usize) -> io::Result<bool> {
    let mut f = OpenOptions::new().append(true).open(path)?;
    let (now, then) = (f.metadata()?, old.metadata()?);
    if !same_file(&now, &then) || now.len() != old_len as u64 {
        return Ok(false);
    }
    let written = f.write_all(tail).and_then(|()| f.sync_data());
    if let Err(e) = written {
        // Only what this write added goes: the file is exactly as long as it was checked.
        let _ = f.set_len(old_len as u64).and_then(|()| f.sync_data());
        return Err(e);
    }
    Ok(true)
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_a: &std::fs::Metadata, _b: &std::fs::Metadata) -> bool {
    true
}

/// Replaces `path` with `bytes`, then carries over what was appended to the replaced file
/// (open as `old`, which held `old_len` bytes when checked). `lines`: the format is JSONL,
/// where whole appended lines can follow the rewrite.
pub fn replace(
    path: &Path,
    bytes: &[u8],
    old: File,
    old_len: usize,
    lines: bool,
) -> io::Result<Carried> {
    replace_by(path, &mut |f| f.write_all(bytes), old, old_len, lines)
}

/// [`replace`] with what `produce` writes, piece by piece (a large rewrite is never held
/// whole).
pub fn replace_by(
    path: &Path,
    produce: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
    mut old: File,
    old_len: usize,
    lines: bool,
) -> io::Result<Carried> {
    // Whether what was written ends a line: carried records start on a line of their own.
    let mut last = None;
    fsutil::write_atomic_by(path, false, &mut |f| {
        let mut out = LastByte {
            inner: f,
            last: None,
        };
        produce(&mut out)?;
        last = out.last;
        Ok(())
    })?;
    old.seek(SeekFrom::Start(old_len as u64))?;
    let mut carried = 0;
    let mut pending = Vec::new();
    let mut quiet_since = std::time::Instant::now();
    let started = quiet_since;
    loop {
        let before = pending.len();
        old.read_to_end(&mut pending)?;
        if pending.len() > before {
            quiet_since = std::time::Instant::now();
        }
        if !pending.is_empty() && !lines {
            return roll_back(path, &mut old);
        }
        // Whole records go to the new file as soon as they are complete.
        if let Some(end) = pending.iter().rposition(|&b| b == b'\n') {
            let whole: Vec<u8> = pending.drain(..=end).collect();
            let mut new = OpenOptions::new().append(true).open(path)?;
            if carried == 0 && last.is_some_and(|b| b != b'\n') {
                new.write_all(b"\n")?;
            }
            new.write_all(&whole)?;
            new.sync_all()?;
            carried += whole.len();
        }
        let quiet = quiet_since.elapsed();
        if pending.is_empty() && quiet >= SETTLE {
            // An agent that opened the path just before the rename may be about to write
            // into the replaced file (it was descheduled, say): while a process holds it
            // open for writing, keep watching, for a while. Once none does, one last read
            // takes what was written before it closed the file.
            if started.elapsed() < WRITER_GRACE && held_for_writing(&old) {
                std::thread::sleep(Duration::from_millis(1));
                continue;
            }
            let before = pending.len();
            old.read_to_end(&mut pending)?;
            if pending.len() == before {
                break;
            }
            quiet_since = std::time::Instant::now();
            continue;
        }
        if !pending.is_empty() && quiet >= PARTIAL_GRACE {
            // A record that never completed: the agent is still writing it. Whole records
            // already carried are in the old file too, so putting it back loses nothing.
            return roll_back(path, &mut old);
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    Ok(if carried == 0 {
        Carried::Nothing
    } else {
        Carried::Appended(carried)
    })
}

/// A writer that remembers the last byte written through it.
struct LastByte<'a> {
    inner: &'a mut dyn Write,
    last: Option<u8>,
}

impl Write for LastByte<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        if n > 0 {
            self.last = Some(buf[n - 1]);
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Puts the replaced file (open as `old`) back in place, with everything appended to it.
fn roll_back(path: &Path, old: &mut File) -> io::Result<Carried> {
    let mut all = Vec::new();
    old.seek(SeekFrom::Start(0))?;
    old.read_to_end(&mut all)?;
    fsutil::write_atomic(path, &all, false)?;
    Ok(Carried::RolledBack)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    /// An appender writes numbered lines (opening the path for each line, as agents do) while the main thread rewrites the file thousands of times (dropping
    /// nothing, only re-encoding the header line). Every appended line must survive.
    #[test]
    fn a_racing_appender_loses_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("s.jsonl");
        std::fs::write(&path, b"{\"header\":0}\n").unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let appender = {
            let (path, stop) = (path.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let mut f = OpenOptions::new().append(true).open(&path).unwrap();
                    f.write_all(format!("{{\"n\":{n}}}\n").as_bytes()).unwrap();
                    n += 1;
                    // Agents append in bursts (a tool call, its result, the answer), then
                    // think; the varying pauses land appends at every point of a replacement.
                    let pause = if n.is_multiple_of(5) {
                        2_000 + (n % 3) * 1_000
                    } else {
                        50
                    };
                    std::thread::sleep(Duration::from_micros(pause));
                }
                n
            })
        };
        let (mut replaced, mut carried, mut changed) = (0, 0, 0);
        // Enough replacements to land appends at every point of one, however loaded the
        // machine (a busy one sees more rounds where the file changed under the read).
        let mut round = 0;
        while replaced < 250 && round < 50_000 {
            round += 1;
            let bytes = std::fs::read(&path).unwrap();
            let fp = Fingerprint::of(&bytes);
            let Some(old) = open_unchanged(&path, fp).unwrap() else {
                changed += 1;
                continue;
            };
            let mut new = format!("{{\"header\":{round}}}\n").into_bytes();
            let first = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
            new.extend_from_slice(&bytes[first..]);
            match replace(&path, &new, old, bytes.len(), true).unwrap() {
                Carried::Appended(_) => carried += 1,
                Carried::Nothing | Carried::RolledBack => {}
            }
            replaced += 1;
        }
        stop.store(true, Ordering::Relaxed);
        let written = appender.join().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut seen = vec![false; written as usize];
        for line in text.lines().skip(1) {
            let v: serde_json::Value = serde_json::from_str(line).expect(line);
            let n = v["n"].as_u64().unwrap() as usize;
            assert!(!seen[n], "line {n} twice");
            seen[n] = true;
        }
        let lost = seen.iter().filter(|s| !**s).count();
        assert_eq!(lost, 0, "{lost} of {written} appended lines lost ({replaced} replaced, {carried} carried, {changed} changed)");
        assert!(replaced > 200, "{replaced} replaced, {changed} changed");
    }

    /// A JSONL session holding `before`, checked, then `appended` to by the agent, then
    /// replaced with `rewrite`: what was carried, and what the file then holds.
    fn append_after_the_check(
        before: &[u8],
        appended: &[u8],
        rewrite: &[u8],
    ) -> (Carried, Vec<u8>) {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("s.jsonl");
        std::fs::write(&path, before).unwrap();
        let old = open_unchanged(&path, Fingerprint::of(before))
            .unwrap()
            .unwrap();
        OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(appended)
            .unwrap();
        let carried = replace(&path, rewrite, old, before.len(), true).unwrap();
        (carried, std::fs::read(&path).unwrap())
    }

    /// Whole lines the agent appends between the check and the rename follow the new
    /// content, once each.
    #[test]
    fn lines_appended_after_the_check_are_carried_into_the_new_file() {
        let appended = b"{\"n\":2}\n{\"n\":3}\n";
        let (carried, now) =
            append_after_the_check(b"{\"n\":0}\n{\"n\":1}\n", appended, b"{\"n\":1}\n");
        assert_eq!(carried, Carried::Appended(appended.len()));
        assert_eq!(now, b"{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n");
    }

    /// A rewrite that does not end its last line still gets the carried lines on lines
    /// of their own.
    #[test]
    fn carried_lines_start_on_a_line_of_their_own() {
        let (carried, now) = append_after_the_check(b"{\"n\":0}\n", b"{\"n\":1}\n", b"{\"n\":0}");
        assert_eq!(carried, Carried::Appended(8));
        assert_eq!(now, b"{\"n\":0}\n{\"n\":1}\n");
    }

    #[test]
    fn a_changed_json_document_is_rolled_back() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("s.json");
        std::fs::write(&path, b"[1,2,3]").unwrap();
        let fp = Fingerprint::of(b"[1,2,3]");
        let old = open_unchanged(&path, fp).unwrap().unwrap();
        // The "agent" writes through the same inode after the check.
        OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b" ")
            .unwrap();
        assert_eq!(
            replace(&path, b"[3]", old, 7, false).unwrap(),
            Carried::RolledBack
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"[1,2,3] ");
        assert!(open_unchanged(&path, fp).unwrap().is_none());
    }
}
