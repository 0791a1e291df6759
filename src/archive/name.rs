//! Session names and archive ids (`NAME/SEQ`), checked before they become paths.

use super::ArchiveError;

/// Longest accepted session name (a file name must stay under the usual 255 bytes).
const MAX_NAME: usize = 200;

/// Checks a session name: `[A-Za-z0-9._-]`, not starting with `.`, so it can never
/// leave its directory.
pub fn validate_name(name: &str) -> Result<(), ArchiveError> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if ok {
        Ok(())
    } else {
        Err(ArchiveError::BadName(name.to_string()))
    }
}

/// Splits an archive id `NAME/SEQ`.
pub fn parse_id(id: &str) -> Result<(&str, u64), ArchiveError> {
    let bad = || ArchiveError::BadId(id.to_string());
    let (name, seq) = id.rsplit_once('/').ok_or_else(bad)?;
    validate_name(name).map_err(|_| bad())?;
    let seq: u64 = seq.parse().map_err(|_| bad())?;
    if seq == 0 || seq.to_string().len() != id.len() - name.len() - 1 {
        return Err(bad());
    }
    Ok((name, seq))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for ok in ["a", "my-session_2.v1", "A.b"] {
            assert!(validate_name(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            ".hidden",
            "..",
            "a/b",
            "a\\b",
            "ä",
            "a b",
            &"x".repeat(201),
        ] {
            assert!(validate_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn ids() {
        assert_eq!(parse_id("s/3").unwrap(), ("s", 3));
        for bad in [
            "s", "s/0", "s/-1", "s/+1", "s/01", "../x/1", "a/b/1", "/1", "s/x",
        ] {
            assert!(parse_id(bad).is_err(), "{bad}");
        }
    }
}
