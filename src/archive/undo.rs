//! Undoing a trim: how to rebuild the original file from the file the trim wrote.
//!
//! A trim removes messages anywhere in a session and shortens others, so unlike a
//! compaction there is no one summary to put the records back in place of. What the trim
//! writes is, line for line, mostly the original's lines in order (writers keep untouched
//! records byte for byte), so the undo is an edit script over lines: runs of lines copied
//! from the written file and the original text of the lines it no longer has. Applied to
//! exactly the bytes the trim wrote (their length and hash are kept), it gives back the
//! original byte for byte, which is checked against the original's own hash.

use std::borrow::Cow;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3;

/// One step of an undo script, in original order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step<'a> {
    /// `n` lines of the written file, from line `from` on.
    Copy { from: usize, n: usize },
    /// Original text the written file does not have: borrowed from the original while the
    /// script is made and filed (a trim's removed text is as large as the file), owned once
    /// read back from an archive.
    Text(Cow<'a, str>),
}

/// How to rebuild an original file from what a rewrite wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Undo<'a> {
    /// Length and xxh3-128 (hex) of the bytes the rewrite wrote.
    pub written_len: usize,
    pub written_hash: String,
    /// Length and xxh3-128 (hex) of the original.
    pub original_len: usize,
    pub original_hash: String,
    pub steps: Vec<Step<'a>>,
}

/// Why an undo cannot be applied.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum UndoError {
    #[error(
        "the session is no longer what the trim wrote ({now} bytes, the trim wrote {written}): \
         an agent resumed it or it was edited since; `ctxctl archive show` still gives the \
         removed records"
    )]
    Changed { now: usize, written: usize },
    #[error("the archive's undo script does not rebuild the original (it is damaged)")]
    Damaged,
    #[error("already restored: the session is as it was before the trim")]
    AlreadyRestored,
}

fn hash(bytes: &[u8]) -> String {
    // A mapped original's pages are let go behind the hash (see `crate::mapped`).
    format!("{:032x}", crate::mapped::xxh3_128(bytes))
}

/// `text` split into lines, each with its terminator.
fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

impl<'a> Undo<'a> {
    /// The script that rebuilds `original` from `written`. Every original line found, in
    /// order, among the written lines is copied; the rest is kept as text, borrowed.
    pub fn new(original: &'a str, written: &[u8]) -> Undo<'a> {
        let written_text = String::from_utf8_lossy(written);
        let out = lines(&written_text);
        let mut at: HashMap<&str, Vec<usize>> = HashMap::new();
        for (j, l) in out.iter().enumerate().rev() {
            at.entry(l).or_default().push(j);
        }
        let mut steps: Vec<Step<'a>> = Vec::new();
        let mut next = 0;
        // A run of original lines the written file lacks is one slice of the original
        // (its lines are consecutive), borrowed when the run ends: never copied, since a
        // trim's removed text is as large as the file (copied, it was a second file).
        let mut text_from: Option<usize> = None;
        let mut at_byte = 0;
        // A mapped original's pages are let go behind the pass (see `crate::mapped`).
        let behind = crate::mapped::Behind::of(original);
        // Split as it goes (not collected first: that alone went over the whole text).
        for l in original.split_inclusive('\n') {
            behind.at(l);
            // The first written line at or after `next` equal to this one (positions are
            // kept in descending order, so the candidates are popped from the end).
            let found = at.get_mut(l).and_then(|v| {
                while v.last().is_some_and(|&j| j < next) {
                    v.pop();
                }
                v.pop()
            });
            match found {
                Some(j) => {
                    if let Some(from) = text_from.take() {
                        steps.push(Step::Text(Cow::Borrowed(&original[from..at_byte])));
                    }
                    match steps.last_mut() {
                        Some(Step::Copy { from, n }) if *from + *n == j => *n += 1,
                        _ => steps.push(Step::Copy { from: j, n: 1 }),
                    }
                    next = j + 1;
                }
                None => {
                    text_from.get_or_insert(at_byte);
                }
            }
            at_byte += l.len();
        }
        if let Some(from) = text_from {
            steps.push(Step::Text(Cow::Borrowed(&original[from..])));
        }
        Undo {
            written_len: written.len(),
            written_hash: hash(written),
            original_len: original.len(),
            original_hash: hash(original.as_bytes()),
            steps,
        }
    }

    /// The script that rebuilds `original` from what a rewrite that only appended `suffix`
    /// to it wrote (`original` then `suffix`, a line format's writer putting the first
    /// appended record on a line of its own): the original's complete lines copied, the
    /// unterminated rest, if any, kept as text. What [`Undo::new`] gives for those bytes,
    /// made without them being put together or the lines of either being compared, and
    /// applied to a file that begins with the original: taking it back to its length.
    pub fn appended(original: &'a str, suffix: &[u8]) -> Undo<'a> {
        let complete = original.rfind('\n').map_or(0, |i| i + 1);
        // One pass over the original, a stretch at a time: its lines counted (all of them
        // end before `complete`) and both hashes fed, a mapped original's pages let go
        // behind the pass (see `crate::mapped`; three passes held them all at once).
        const STRETCH: usize = 4 << 20;
        let behind = crate::mapped::Behind::of(original);
        let (mut lines, mut written, mut hashed) = (0, Xxh3::new(), Xxh3::new());
        for stretch in original.as_bytes().chunks(STRETCH) {
            behind.at_bytes(stretch);
            lines += memchr::memchr_iter(b'\n', stretch).count();
            written.update(stretch);
            hashed.update(stretch);
        }
        let mut steps = Vec::new();
        if lines > 0 {
            steps.push(Step::Copy { from: 0, n: lines });
        }
        if complete < original.len() {
            steps.push(Step::Text(Cow::Borrowed(&original[complete..])));
        }
        written.update(suffix);
        Undo {
            written_len: original.len() + suffix.len(),
            written_hash: format!("{:032x}", written.digest128()),
            original_len: original.len(),
            original_hash: format!("{:032x}", hashed.digest128()),
            steps,
        }
    }

    /// The script holding its own text (borrowed from the original until now).
    pub fn into_owned(self) -> Undo<'static> {
        let steps = (self.steps.into_iter())
            .map(|s| match s {
                Step::Copy { from, n } => Step::Copy { from, n },
                Step::Text(t) => Step::Text(Cow::Owned(t.into_owned())),
            })
            .collect();
        Undo {
            written_len: self.written_len,
            written_hash: self.written_hash,
            original_len: self.original_len,
            original_hash: self.original_hash,
            steps,
        }
    }

    /// The original, rebuilt from `now`, which must be exactly what the rewrite wrote.
    pub fn apply(&self, now: &[u8]) -> Result<Vec<u8>, UndoError> {
        self.check(now)?;
        let mut original = Vec::with_capacity(self.original_len);
        self.pieces(now, &mut |piece| {
            original.extend_from_slice(piece);
            Ok::<(), UndoError>(())
        })?;
        Ok(original)
    }

    /// Checks that `now` is exactly what the rewrite wrote and that the script rebuilds the
    /// original from it (its length and hash), holding nothing of the original: the errors
    /// [`Undo::apply`] gives, before anything is written ([`Undo::write_to`]).
    pub fn check(&self, now: &[u8]) -> Result<(), UndoError> {
        if now.len() != self.written_len || hash(now) != self.written_hash {
            if now.len() == self.original_len && hash(now) == self.original_hash {
                return Err(UndoError::AlreadyRestored);
            }
            return Err(UndoError::Changed {
                now: now.len(),
                written: self.written_len,
            });
        }
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        let mut len = 0;
        self.pieces(now, &mut |piece| {
            hasher.update(piece);
            len += piece.len();
            Ok::<(), UndoError>(())
        })?;
        if len != self.original_len || format!("{:032x}", hasher.digest128()) != self.original_hash
        {
            return Err(UndoError::Damaged);
        }
        Ok(())
    }

    /// The original, rebuilt from `now` into `out` piece by piece (never held whole), once
    /// [`Undo::check`] passed on the same `now`.
    pub fn write_to(&self, now: &[u8], out: &mut dyn std::io::Write) -> std::io::Result<()> {
        self.pieces(now, &mut |piece| out.write_all(piece))
            .map_err(|e| e.either(|u| std::io::Error::other(u.to_string())))
    }

    /// Hands the original's pieces, in order, to `f`: runs of `now`'s lines and the texts
    /// it no longer has.
    fn pieces<E>(
        &self,
        now: &[u8],
        f: &mut dyn FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), Either<UndoError, E>> {
        let text = std::str::from_utf8(now).map_err(|_| Either::Undo(UndoError::Damaged))?;
        // Where each line of `now` starts, and its end.
        let mut starts: Vec<usize> = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        if starts.last() == Some(&text.len()) {
            starts.pop();
        }
        starts.push(text.len());
        let lines = starts.len() - 1;
        for step in &self.steps {
            match step {
                Step::Copy { from, n } => {
                    let end = from.checked_add(*n).filter(|&e| e <= lines);
                    let Some(end) = end else {
                        return Err(Either::Undo(UndoError::Damaged));
                    };
                    f(&now[starts[*from]..starts[end]]).map_err(Either::Out)?;
                }
                Step::Text(t) => f(t.as_bytes()).map_err(Either::Out)?,
            }
        }
        Ok(())
    }
}

/// An undo's own error or its output's.
enum Either<U, E> {
    Undo(U),
    Out(E),
}

impl<E> Either<UndoError, E> {
    fn either(self, undo: impl FnOnce(UndoError) -> E) -> E {
        match self {
            Either::Undo(u) => undo(u),
            Either::Out(e) => e,
        }
    }
}

impl From<Either<UndoError, UndoError>> for UndoError {
    fn from(e: Either<UndoError, UndoError>) -> UndoError {
        match e {
            Either::Undo(u) | Either::Out(u) => u,
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn a_trim_of_lines_comes_back_byte_for_byte() {
        let original = "a\nb\nc\nd\ne";
        let written = b"a\n[2 omitted]\nd\ne";
        let undo = Undo::new(original, written);
        assert_eq!(undo.apply(written).unwrap(), original.as_bytes());
        // Only the removed lines are kept as text.
        let texts: Vec<&Step> = undo
            .steps
            .iter()
            .filter(|s| matches!(s, Step::Text(_)))
            .collect();
        assert_eq!(texts, [&Step::Text("b\nc\n".into())]);
    }

    #[test]
    fn the_removed_text_is_borrowed_from_the_original_until_made_owned() {
        let original = String::from("a\nb\nc\n");
        let undo = Undo::new(&original, b"a\nc\n");
        assert!(matches!(&undo.steps[1], Step::Text(Cow::Borrowed("b\n"))));
        let owned = undo.clone().into_owned();
        drop(original);
        assert!(matches!(&owned.steps[1], Step::Text(Cow::Owned(t)) if t == "b\n"));
        assert_eq!(owned.apply(b"a\nc\n").unwrap(), b"a\nb\nc\n");
    }

    #[test]
    fn runs_of_missing_lines_are_one_text_step_each() {
        let original = "a\nb\nc\nd\ne\nf";
        let written = b"a\nd\n";
        let undo = Undo::new(original, written);
        assert_eq!(
            undo.steps,
            [
                Step::Copy { from: 0, n: 1 },
                Step::Text("b\nc\n".into()),
                Step::Copy { from: 1, n: 1 },
                Step::Text("e\nf".into()),
            ]
        );
        assert_eq!(undo.apply(written).unwrap(), original.as_bytes());
        let undo = Undo::new("x\ny\n", b"x\ny\n");
        assert_eq!(undo.steps, [Step::Copy { from: 0, n: 2 }]);
    }

    #[test]
    fn anything_but_the_written_bytes_is_refused() {
        let undo = Undo::new("x\ny\n", b"x\n");
        assert!(matches!(
            undo.apply(b"x\nz\n"),
            Err(UndoError::Changed { .. })
        ));
        assert_eq!(undo.apply(b"x\ny\n"), Err(UndoError::AlreadyRestored));
        let mut damaged = undo.clone();
        damaged.steps.push(Step::Text("extra".into()));
        assert_eq!(damaged.apply(b"x\n"), Err(UndoError::Damaged));
        assert_eq!(damaged.check(b"x\n"), Err(UndoError::Damaged));
        let mut past_the_end = undo.clone();
        past_the_end.steps = vec![Step::Copy { from: 1, n: 1 }];
        assert_eq!(past_the_end.check(b"x\n"), Err(UndoError::Damaged));
    }

    #[test]
    fn an_append_only_rewrite_is_undone_by_taking_the_file_back_to_its_length() {
        let original = "a\nb\nc\n";
        let suffix = b"{\"compacted\":1}\n{\"event\":2}\n";
        let undo = Undo::appended(original, suffix);
        assert_eq!(undo.steps, [Step::Copy { from: 0, n: 3 }]);
        let written = [original.as_bytes(), suffix].concat();
        assert_eq!(undo, Undo::new(original, &written));
        assert_eq!(undo.check(&written), Ok(()));
        assert_eq!(undo.apply(&written).unwrap(), original.as_bytes());
        let mut streamed = Vec::new();
        undo.write_to(&written, &mut streamed).unwrap();
        assert_eq!(streamed, original.as_bytes());
        // A file changed since (an agent appended, a line edited) is refused; the original
        // itself is already restored.
        let appended_since = [&written[..], b"{\"more\":3}\n"].concat();
        assert!(matches!(
            undo.apply(&appended_since),
            Err(UndoError::Changed { .. })
        ));
        let mut edited = written.clone();
        edited[0] = b'x';
        assert!(matches!(
            undo.check(&edited),
            Err(UndoError::Changed { .. })
        ));
        assert_eq!(
            undo.apply(original.as_bytes()),
            Err(UndoError::AlreadyRestored)
        );
    }

    #[test]
    fn an_unterminated_last_line_is_kept_as_text() {
        let original = "\u{feff}a\r\nb";
        let suffix = b"\r\nz\r\n";
        let undo = Undo::appended(original, suffix);
        assert_eq!(
            undo.steps,
            [Step::Copy { from: 0, n: 1 }, Step::Text("b".into())]
        );
        let written = [original.as_bytes(), suffix].concat();
        assert_eq!(undo.apply(&written).unwrap(), original.as_bytes());
        let undo = Undo::appended("", b"z\n");
        assert!(undo.steps.is_empty());
        assert_eq!(undo.apply(b"z\n").unwrap(), b"");
    }

    #[test]
    fn an_append_only_script_of_a_long_original_is_the_whole_one() {
        // Over several of the stretches `appended` goes through the original in.
        let mut original: String = (0..800_000).map(|i| format!("{{\"é\":{i}}}\n")).collect();
        assert!(original.len() > 2 * (4 << 20));
        original.push_str("{\"rest\"");
        let suffix = "\n{\"b\":1}\n";
        let written = format!("{original}{suffix}");
        let undo = Undo::appended(&original, suffix.as_bytes());
        assert_eq!(undo, Undo::new(&original, written.as_bytes()));
        assert_eq!(undo.apply(written.as_bytes()).unwrap(), original.as_bytes());
    }

    proptest! {
        /// An append-only rewrite's script is the one made from the whole bytes.
        #[test]
        fn an_append_only_script_is_the_whole_one(
            original in proptest::collection::vec("[ab{},]{0,3}\n?", 0..40),
            suffix in proptest::collection::vec("[ab{},]{0,3}\n", 1..5),
        ) {
            let original = original.concat();
            // As a line writer appends: the first record on a line of its own.
            let lead = if original.is_empty() || original.ends_with('\n') { "" } else { "\n" };
            let suffix = format!("{lead}{}", suffix.concat());
            let written = format!("{original}{suffix}");
            let undo = Undo::appended(&original, suffix.as_bytes());
            prop_assert_eq!(&undo, &Undo::new(&original, written.as_bytes()));
            prop_assert_eq!(undo.apply(written.as_bytes()).unwrap(), original.as_bytes());
        }

        /// Whatever the two texts, the script rebuilds the original from the written one.
        #[test]
        fn the_script_always_rebuilds_the_original(
            original in proptest::collection::vec("[ab{},]{0,3}\n?", 0..40),
            written in proptest::collection::vec("[ab{},]{0,3}\n?", 0..40),
        ) {
            let (original, written) = (original.concat(), written.concat());
            let undo = Undo::new(&original, written.as_bytes());
            prop_assert_eq!(undo.apply(written.as_bytes()).unwrap(), original.as_bytes());
            // Checked, then written piece by piece: the same bytes.
            prop_assert_eq!(undo.check(written.as_bytes()), Ok(()));
            let mut streamed = Vec::new();
            undo.write_to(written.as_bytes(), &mut streamed).unwrap();
            prop_assert_eq!(streamed, original.as_bytes());
        }
    }
}
