//! Errors from reading a session, each naming the place in the file that is wrong.

use super::Format;

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("the file is empty; expected a JSON or JSONL session")]
    Empty,
    #[error("invalid UTF-8 at line {line}, column {column}; sessions must be UTF-8 text")]
    Utf8 { line: usize, column: usize },
    #[error("invalid JSON at line {line}, column {column}: {message}")]
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{place}: expected {expected}")]
    Shape { place: String, expected: String },
    #[error("cannot tell the format: {0}")]
    Detect(String),
    #[error("reading {0} sessions is not supported")]
    Unsupported(Format),
    /// A JSON file that is something else than a session (a recording, an event stream).
    #[error("this is {what}, not a conversation session; {hint}")]
    NotSession { what: String, hint: String },
}

impl ReadError {
    pub fn shape(place: impl Into<String>, expected: impl Into<String>) -> ReadError {
        ReadError::Shape {
            place: place.into(),
            expected: expected.into(),
        }
    }

    /// Converts a serde_json error, shifting its line by `line_offset` (for JSONL lines).
    pub fn json(err: &serde_json::Error, line_offset: usize) -> ReadError {
        let message = err.to_string();
        // serde_json appends " at line L column C"; drop it, we report the place ourselves.
        let message = match message.rfind(" at line ") {
            Some(i) => message[..i].to_string(),
            None => message,
        };
        ReadError::Json {
            line: err.line() + line_offset,
            column: err.column(),
            message,
        }
    }
}

/// Checks that `bytes` are UTF-8, naming the line and column of the first bad byte.
pub fn check_utf8(bytes: &[u8]) -> Result<&str, ReadError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let good = &bytes[..e.valid_up_to()];
        let line = memchr::memchr_iter(b'\n', good).count() + 1;
        let line_start = memchr::memrchr(b'\n', good).map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&good[line_start..]).chars().count() + 1;
        ReadError::Utf8 { line, column }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_error_names_line_and_column() {
        let err = check_utf8(b"ab\ncd\xff").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid UTF-8 at line 2, column 3; sessions must be UTF-8 text"
        );
    }

    #[test]
    fn json_error_has_place() {
        let e = serde_json::from_str::<serde_json::Value>("{\n  \"a\": ,\n}").unwrap_err();
        let err = ReadError::json(&e, 0);
        assert!(matches!(err, ReadError::Json { line: 2, .. }), "{err}");
        assert!(!err.to_string().contains(" at line 2 column"), "{err}");
    }
}
