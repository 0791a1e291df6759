//! A record's `uuid` or `parentUuid` kept in 16 bytes inline when it is written the way
//! Claude Code writes them (lowercase hex, hyphenated 8-4-4-4-12), else as its text. A
//! rewrite's transcript holds two a record: as strings they took a 160 MB transcript's
//! rewrite about 14 MB of small allocations.
//!
//! Only the canonical spelling is packed, so that each text has one `Uid` and gives back
//! exactly the bytes it was read from.

use std::fmt;

#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Uid {
    Packed([u8; 16]),
    Text(Box<str>),
}

/// Where the hyphens of a canonical uuid are.
const HYPHENS: [usize; 4] = [8, 13, 18, 23];

fn nibble(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    }
}

fn pack(s: &str) -> Option<[u8; 16]> {
    let b = s.as_bytes();
    if b.len() != 36 || HYPHENS.iter().any(|&h| b[h] != b'-') {
        return None;
    }
    let mut digits = b
        .iter()
        .enumerate()
        .filter(|(k, _)| !HYPHENS.contains(k))
        .map(|(_, &c)| nibble(c));
    let mut out = [0u8; 16];
    for byte in &mut out {
        *byte = (digits.next()?? << 4) | digits.next()??;
    }
    Some(out)
}

impl Uid {
    pub fn new(s: &str) -> Uid {
        match pack(s) {
            Some(p) => Uid::Packed(p),
            None => Uid::Text(s.into()),
        }
    }

    /// Whether it is the uuid `s`.
    pub fn is(&self, s: &str) -> bool {
        match self {
            Uid::Packed(p) => pack(s).as_ref() == Some(p),
            Uid::Text(t) => **t == *s,
        }
    }
}

impl fmt::Display for Uid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Uid::Packed(p) => {
                for (k, byte) in p.iter().enumerate() {
                    if matches!(k, 4 | 6 | 8 | 10) {
                        f.write_str("-")?;
                    }
                    write!(f, "{byte:02x}")?;
                }
                Ok(())
            }
            Uid::Text(t) => f.write_str(t),
        }
    }
}

impl fmt::Debug for Uid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.to_string())
    }
}

/// `u`'s text, when there is one.
pub fn text(u: &Option<Uid>) -> Option<String> {
    u.as_ref().map(Uid::to_string)
}

/// Whether `a` (a uuid's text, `None` for null) is `b`.
pub fn same(a: Option<&str>, b: Option<&Uid>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => b.is(a),
        (a, b) => a.is_none() && b.is_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_text_comes_back_as_it_was() {
        for s in [
            "0f3c6a1e-9b2d-4c8e-a7f1-23456789abcd",
            "00000000-0000-0000-0000-000000000000",
            "0F3C6A1E-9B2D-4C8E-A7F1-23456789ABCD",
            "0f3c6a1e9b2d4c8ea7f123456789abcd",
            "0f3c6a1e-9b2d-4c8e-a7f1-23456789abcg",
            "0f3c6a1e_9b2d-4c8e-a7f1-23456789abcd",
            "0f3c6a1e-9b2d-4c8e-a7f1-23456789abcde",
            "",
            "u1",
            "é-uuid",
        ] {
            let u = Uid::new(s);
            assert_eq!(u.to_string(), s);
            assert!(u.is(s), "{s:?}");
            assert_eq!(format!("{u:?}"), format!("{s:?}"));
        }
    }

    #[test]
    fn only_the_canonical_spelling_is_packed() {
        let canonical = "0f3c6a1e-9b2d-4c8e-a7f1-23456789abcd";
        assert!(matches!(Uid::new(canonical), Uid::Packed(_)));
        let upper = canonical.to_uppercase();
        assert!(matches!(Uid::new(&upper), Uid::Text(_)));
        assert!(
            !Uid::new(canonical).is(&upper),
            "another text, another uuid"
        );
        assert_ne!(Uid::new(canonical), Uid::new(&upper));
        assert!(!Uid::new("u1").is("u2") && !Uid::new(canonical).is("u1"));
    }

    #[test]
    fn a_uid_takes_no_more_room_than_a_string() {
        assert_eq!(std::mem::size_of::<Option<Uid>>(), 24);
        assert_eq!(text(&None), None);
        assert_eq!(text(&Some(Uid::new("x"))).as_deref(), Some("x"));
        let x = Uid::new("x");
        assert!(same(None, None) && same(Some("x"), Some(&x)));
        assert!(!same(Some("x"), None) && !same(None, Some(&x)) && !same(Some("y"), Some(&x)));
    }
}
