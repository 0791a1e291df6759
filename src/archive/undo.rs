//! Undoing a trim: how to rebuild the original file from the file the trim wrote.
//!
//! A trim removes messages anywhere in a session and shortens others, so unlike a
//! compaction there is no one summary to put the records back in place of. What the trim
//! writes is, line for line, mostly the original's lines in order (writers keep untouched
//! records byte for byte), so the undo is an edit script over lines: runs of lines copied
//! from the written file and the original text of the lines it no longer has. Applied to
//! exactly the bytes the trim wrote (their length and hash are kept), it gives back the
//! original byte for byte, which is checked against the original's own hash.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

/// One step of an undo script, in original order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// `n` lines of the written file, from line `from` on.
    Copy { from: usize, n: usize },
    /// Original text the written file does not have.
    Text(String),
}

/// How to rebuild an original file from what a rewrite wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Undo {
    /// Length and xxh3-128 (hex) of the bytes the rewrite wrote.
    pub written_len: usize,
    pub written_hash: String,
    /// Length and xxh3-128 (hex) of the original.
    pub original_len: usize,
    pub original_hash: String,
    pub steps: Vec<Step>,
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
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(bytes))
}

/// `text` split into lines, each with its terminator.
fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

impl Undo {
    /// The script that rebuilds `original` from `written`. Every original line found, in
    /// order, among the written lines is copied; the rest is kept as text.
    pub fn new(original: &str, written: &[u8]) -> Undo {
        let written_text = String::from_utf8_lossy(written);
        let out = lines(&written_text);
        let mut at: HashMap<&str, Vec<usize>> = HashMap::new();
        for (j, l) in out.iter().enumerate().rev() {
            at.entry(l).or_default().push(j);
        }
        let mut steps: Vec<Step> = Vec::new();
        let mut next = 0;
        for l in lines(original) {
            // The first written line at or after `next` equal to this one (positions are
            // kept in descending order, so the candidates are popped from the end).
            let found = at.get_mut(l).and_then(|v| {
                while v.last().is_some_and(|&j| j < next) {
                    v.pop();
                }
                v.pop()
            });
            match (found, steps.last_mut()) {
                (Some(j), Some(Step::Copy { from, n })) if *from + *n == j => *n += 1,
                (Some(j), _) => steps.push(Step::Copy { from: j, n: 1 }),
                (None, Some(Step::Text(t))) => t.push_str(l),
                (None, _) => steps.push(Step::Text(l.to_string())),
            }
            if let Some(j) = found {
                next = j + 1;
            }
        }
        Undo {
            written_len: written.len(),
            written_hash: hash(written),
            original_len: original.len(),
            original_hash: hash(original.as_bytes()),
            steps,
        }
    }

    /// The original, rebuilt from `now`, which must be exactly what the rewrite wrote.
    pub fn apply(&self, now: &[u8]) -> Result<Vec<u8>, UndoError> {
        if now.len() != self.written_len || hash(now) != self.written_hash {
            if now.len() == self.original_len && hash(now) == self.original_hash {
                return Err(UndoError::AlreadyRestored);
            }
            return Err(UndoError::Changed {
                now: now.len(),
                written: self.written_len,
            });
        }
        let text = std::str::from_utf8(now).map_err(|_| UndoError::Damaged)?;
        let out = lines(text);
        let mut original = String::with_capacity(self.original_len);
        for step in &self.steps {
            match step {
                Step::Copy { from, n } => {
                    let run = out.get(*from..from + n).ok_or(UndoError::Damaged)?;
                    run.iter().for_each(|l| original.push_str(l));
                }
                Step::Text(t) => original.push_str(t),
            }
        }
        if original.len() != self.original_len || hash(original.as_bytes()) != self.original_hash {
            return Err(UndoError::Damaged);
        }
        Ok(original.into_bytes())
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
    }

    proptest! {
        /// Whatever the two texts, the script rebuilds the original from the written one.
        #[test]
        fn the_script_always_rebuilds_the_original(
            original in proptest::collection::vec("[ab{},]{0,3}\n?", 0..40),
            written in proptest::collection::vec("[ab{},]{0,3}\n?", 0..40),
        ) {
            let (original, written) = (original.concat(), written.concat());
            let undo = Undo::new(&original, written.as_bytes());
            prop_assert_eq!(undo.apply(written.as_bytes()).unwrap(), original.as_bytes());
        }
    }
}
