//! Lone UTF-16 surrogates in JSON written by JavaScript agents.
//!
//! A JavaScript string may hold half of a surrogate pair (Claude Code cuts long tool
//! outputs by UTF-16 units, and a cut can fall inside an emoji; models have emitted one
//! too), and `JSON.stringify` writes it as an escape, `"\udc00"`. Such a file is not JSON
//! by RFC 8259 and strict parsers refuse it ("lone leading surrogate in hex escape"), as
//! ctxctl did (exit 2). Claude Code before 2.1.132 reads it back and sends it on: the
//! Anthropic API then rejects every request of the session with `400 … no low surrogate in
//! string`, the session is stuck. Later releases mend it as they load the session.
//!
//! ctxctl reads each such escape as `\ufffd` (U+FFFD, the replacement character), as
//! JavaScript's `String.prototype.toWellFormed` does, and warns. The escape has the same
//! six bytes, so every offset and length in the file stays what it was (the fingerprint
//! is of the bytes on disk). A rewrite writes the records it keeps from that text, so it
//! writes them mended; `trim --in-place` writes the file back for them alone.

use memchr::memmem;

use crate::session::{AgentLimits, AgentVersion, Format};

/// What [`mend`] changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Mended {
    /// Lone surrogate escapes replaced.
    pub count: usize,
    /// Byte offset of the first one.
    pub first_at: usize,
}

impl Mended {
    /// Adds what a later part of the same text (starting at `base`) had.
    pub fn add(&mut self, base: usize, other: Mended) {
        if other.count > 0 && self.count == 0 {
            self.first_at = base + other.first_at;
        }
        self.count += other.count;
    }
}

/// The escape that replaces a lone surrogate's.
const REPLACEMENT: &[u8; 6] = b"\\ufffd";

/// The value of the four hex digits at `b[at..]`.
fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let s = std::str::from_utf8(b.get(at..at + 4)?).ok()?;
    u32::from_str_radix(s, 16).ok()
}

const HIGH: std::ops::Range<u32> = 0xD800..0xDC00;
const LOW: std::ops::Range<u32> = 0xDC00..0xE000;

/// Where the lone surrogate escapes of JSON text `b` start, in order. A `\uD8xx`–`\uDBFF`
/// escape followed at once by a `\uDC00`–`\uDFFF` one is a pair and stays.
fn lone(b: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let finder = memmem::Finder::new(b"\\u");
    let mut i = 0;
    std::iter::from_fn(move || loop {
        let p = i + finder.find(&b[i..])?;
        i = p + 2;
        // A backslash escaped by the one before it is not an escape: count the run.
        let before = b[..p].iter().rev().take_while(|&&c| c == b'\\').count();
        if before % 2 == 1 {
            continue;
        }
        let Some(u) = hex4(b, p + 2) else { continue };
        i = p + 6;
        if HIGH.contains(&u) {
            let paired = b.get(p + 6..p + 8) == Some(b"\\u")
                && hex4(b, p + 8).is_some_and(|l| LOW.contains(&l));
            if paired {
                i = p + 12;
                continue;
            }
            return Some(p);
        }
        if LOW.contains(&u) {
            return Some(p);
        }
    })
}

/// Whether JSON text `b` holds a lone surrogate escape.
pub fn has_lone(b: &[u8]) -> bool {
    lone(b).next().is_some()
}

/// Replaces each lone surrogate escape of JSON text `b` by `\ufffd`, in place.
pub fn mend_bytes(b: &mut [u8]) -> Mended {
    let at: Vec<usize> = lone(b).collect();
    for &p in &at {
        b[p..p + 6].copy_from_slice(REPLACEMENT);
    }
    Mended {
        count: at.len(),
        first_at: at.first().copied().unwrap_or(0),
    }
}

/// [`mend_bytes`] of a string: the text is copied only when it has something to mend.
pub fn mend(text: &mut String) -> Mended {
    if !has_lone(text.as_bytes()) {
        return Mended::default();
    }
    let mut bytes = std::mem::take(text).into_bytes();
    let mended = mend_bytes(&mut bytes);
    // Six ASCII bytes for six ASCII bytes: still UTF-8.
    *text = String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    mended
}

/// The lone surrogate escapes a read of a file took as U+FFFD: how many, and the line
/// (1-based) of the first. Both routes, whole and streamed, say it the same way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Found {
    pub count: usize,
    pub line: usize,
}

impl Found {
    /// The file's warning of them (put first among its warnings), if there are any.
    pub fn warning(self) -> Option<String> {
        (self.count > 0).then(|| {
            format!(
                "line {}: {} lone UTF-16 surrogate escape(s) (half of a character, as \
                 JavaScript writes it) read as U+FFFD",
                self.line, self.count
            )
        })
    }

    /// Notes them in `limits` ([`problem`] reads them there).
    pub fn note(self, limits: &mut AgentLimits) {
        let n = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        if self.count > 0 {
            limits.lone_surrogates = Some((n(self.count), n(self.line)));
        }
    }
}

/// The first Claude Code release that mends them as it loads a session ("pre-corrupted
/// sessions are sanitized on load", its release notes; 2.1.197 and 2.1.332 send U+FFFD,
/// `scripts/e2e/claude-code`). Before it, the session is stuck.
pub const CLAUDE_CODE_MENDS: AgentVersion = [2, 1, 132];

/// The structural problem `check` reports for a Claude Code session holding lone
/// surrogates that its agent sends as they are (a release before [`CLAUDE_CODE_MENDS`], or
/// none recorded): the API refuses every request. Other agents' APIs are not known to
/// refuse them: their files get the warning only.
pub fn problem(format: Format, limits: &AgentLimits) -> Option<String> {
    let (count, line) = limits.lone_surrogates?;
    let mends = limits.agent_version.is_some_and(|v| v >= CLAUDE_CODE_MENDS);
    (format == Format::ClaudeCode && !mends).then(|| {
        format!(
            "line {line}: {count} lone UTF-16 surrogate escape(s), which Claude Code before \
             2.1.132 sends as they are and the Anthropic API refuses (\"no low surrogate in \
             string\"): `ctxctl trim --strategy fifo --in-place` writes them as U+FFFD"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mended(s: &str) -> (String, usize) {
        let mut t = s.to_string();
        let m = mend(&mut t);
        (t, m.count)
    }

    #[test]
    fn lone_halves_become_the_replacement_character_and_pairs_stay() {
        assert_eq!(
            mended(r#"{"a":"x\udc00y"}"#),
            (r#"{"a":"x\ufffdy"}"#.into(), 1)
        );
        assert_eq!(mended(r#"{"a":"\uD83D"}"#), (r#"{"a":"\ufffd"}"#.into(), 1));
        // A high half followed by text, or by another high half.
        assert_eq!(
            mended(r#"["\ud83dx","\ud83d\ud83d\ude00"]"#),
            (r#"["\ufffdx","\ufffd\ud83d\ude00"]"#.into(), 2)
        );
        // A pair, in either case, stays; so do other escapes.
        for ok in [
            r#"["\ud83d\ude00"]"#,
            r#"["\uD83D\uDE00"]"#,
            r#"["\u00e9\n\t"]"#,
        ] {
            assert_eq!(mended(ok), (ok.to_string(), 0));
        }
        // The result is what a strict parser reads, and the length is the same.
        let (t, _) = mended(r#"{"a":"\udc00\ud800"}"#);
        let v: serde_json::Value = serde_json::from_str(&t).unwrap();
        assert_eq!(v["a"], "\u{fffd}\u{fffd}");
        assert_eq!(t.len(), r#"{"a":"\udc00\ud800"}"#.len());
    }

    #[test]
    fn an_escaped_backslash_before_u_is_text_not_an_escape() {
        for text in [r#"["\\ud800"]"#, r#"["a\\\\ud800"]"#] {
            assert_eq!(mended(text), (text.to_string(), 0), "{text}");
        }
        // Three backslashes: an escaped one, then an escape.
        assert_eq!(mended(r#"["\\\ud800"]"#), (r#"["\\\ufffd"]"#.into(), 1));
    }

    #[test]
    fn the_first_place_is_reported_and_parts_add_up() {
        let mut b = br#"{"x":1}
{"a":"\udc00 and \udc01"}"#
            .to_vec();
        let m = mend_bytes(&mut b);
        assert_eq!((m.count, m.first_at), (2, 14));
        let mut all = Mended::default();
        all.add(100, Mended::default());
        all.add(200, m);
        all.add(300, m);
        assert_eq!((all.count, all.first_at), (4, 214));
        // Short or bad escapes are left to the parser.
        for text in [r#"["\ud8"]"#, r#"["\uzzzz"]"#, "\\u"] {
            assert_eq!(mended(text), (text.to_string(), 0));
        }
    }
}
