//! Automata the build script made (build/), compiled into the binary and read in place:
//! nothing is compiled at start-up. The pre-tokenizers' DFAs (`tokens::bpe::pretok`) and
//! the regexes the offline summary's gists search every tool output and assistant text
//! with ([`Regex`]): a `regex::Regex` of a few case-insensitive words takes 0.1–0.3 ms to
//! build, on every run, on the counting threads (one waiting while the other builds).

use std::ops::Range;
use std::sync::OnceLock;

use regex_automata::dfa::dense;
use regex_automata::dfa::regex::Regex as DfaRegex;
use regex_automata::util::wire::DeserializeError;

/// Bytes aligned as a DFA's transition table (of `u32`s) must be to be read in place.
#[repr(C, align(4))]
pub struct Aligned<B: ?Sized>(pub B);

/// The file `$name` the build script wrote to `OUT_DIR`, aligned for reading in place.
macro_rules! aligned {
    ($name:expr) => {{
        static TABLE: &$crate::prebuilt::Aligned<[u8]> =
            &$crate::prebuilt::Aligned(*include_bytes!(concat!(env!("OUT_DIR"), "/", $name)));
        TABLE
    }};
}
pub(crate) use aligned;

/// The regex `$pattern` as the build script compiled it under `$name` (build/regexes.rs:
/// `$name.fwd.dfa` and `$name.rev.dfa`).
macro_rules! regex {
    ($name:literal, $pattern:expr) => {
        $crate::prebuilt::Regex::new(
            $pattern,
            || $crate::prebuilt::aligned!(concat!($name, ".fwd.dfa")),
            || $crate::prebuilt::aligned!(concat!($name, ".rev.dfa")),
        )
    };
}
pub(crate) use regex;

/// A regex compiled ahead into a forward and a reverse dense DFA: found where, and as,
/// `regex::Regex::new(pattern)` finds it (leftmost first), made ready by reading its
/// tables (microseconds). Should they not read (they are checked, not trusted), the
/// pattern is compiled instead.
pub struct Regex {
    pattern: &'static str,
    forward: fn() -> &'static Aligned<[u8]>,
    reverse: fn() -> &'static Aligned<[u8]>,
    ready: OnceLock<Ready>,
}

enum Ready {
    Read(Box<DfaRegex<dense::DFA<&'static [u32]>>>),
    Compiled(regex::Regex),
}

impl Regex {
    /// `pattern`, whose DFAs (from `regex_automata::dfa::regex::Builder`'s defaults) are
    /// `forward` and `reverse`.
    pub const fn new(
        pattern: &'static str,
        forward: fn() -> &'static Aligned<[u8]>,
        reverse: fn() -> &'static Aligned<[u8]>,
    ) -> Regex {
        Regex {
            pattern,
            forward,
            reverse,
            ready: OnceLock::new(),
        }
    }

    /// Where the first match in `text` is.
    pub fn find(&self, text: &str) -> Option<Range<usize>> {
        match self.ready() {
            Ready::Read(re) => re.find(text).map(|m| m.range()),
            Ready::Compiled(re) => re.find(text).map(|m| m.range()),
        }
    }

    /// Whether `text` has a match.
    pub fn is_match(&self, text: &str) -> bool {
        match self.ready() {
            Ready::Read(re) => re.is_match(text),
            Ready::Compiled(re) => re.is_match(text),
        }
    }

    /// The pattern.
    pub fn pattern(&self) -> &'static str {
        self.pattern
    }

    fn ready(&self) -> &Ready {
        self.ready.get_or_init(|| {
            read((self.forward)(), (self.reverse)()).map_or_else(
                |_| Ready::Compiled(regex::Regex::new(self.pattern).expect("a valid pattern")),
                |re| Ready::Read(Box::new(re)),
            )
        })
    }

    /// Whether the tables read (false: the pattern is compiled instead).
    #[cfg(test)]
    pub(crate) fn is_read(&self) -> bool {
        matches!(self.ready(), Ready::Read(_))
    }
}

/// The regex of a forward and a reverse DFA's tables.
fn read(
    forward: &'static Aligned<[u8]>,
    reverse: &'static Aligned<[u8]>,
) -> Result<DfaRegex<dense::DFA<&'static [u32]>>, DeserializeError> {
    let (fwd, _) = dense::DFA::from_bytes(&forward.0)?;
    let (rev, _) = dense::DFA::from_bytes(&reverse.0)?;
    Ok(DfaRegex::builder().build_from_dfas(fwd, rev))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_that_do_not_read_leave_the_pattern_compiled() {
        fn bad() -> &'static Aligned<[u8]> {
            static BAD: &Aligned<[u8]> = &Aligned([0u8; 64]);
            BAD
        }
        let re = Regex::new("(?i)b+", bad, bad);
        assert!(!re.is_read());
        assert_eq!(re.find("aaBbBa"), Some(2..5));
        assert!(re.is_match("B") && !re.is_match("a"));
    }
}
