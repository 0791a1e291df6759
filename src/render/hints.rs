//! The hints an error carries (see [`crate::hint`]), as the lines printed under it.

use crate::config::{ConfigError, ResolveError};
use crate::hint::{Hint, Hinted};
use crate::ops::data_dir::DataDirError;
use crate::session::ReadError;

/// The hints of every error along `err`'s chain, in order, each once.
pub fn for_error(err: &anyhow::Error) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in err.chain() {
        let hint = if let Some(e) = e.downcast_ref::<ReadError>() {
            e.hint()
        } else if let Some(e) = e.downcast_ref::<ConfigError>() {
            e.hint()
        } else if let Some(e) = e.downcast_ref::<ResolveError>() {
            e.hint()
        } else if let Some(e) = e.downcast_ref::<DataDirError>() {
            e.hint()
        } else {
            None
        };
        if let Some(text) = hint.map(text) {
            if !out.contains(&text) {
                out.push(text);
            }
        }
    }
    out
}

/// What a hint says.
pub fn text(hint: Hint) -> String {
    match hint {
        Hint::PassFormat => format!(
            "not a session (package.json, a config file)? leave it out, or let `check \
             --skip-non-sessions` skip it; a session? pass --format {}",
            crate::formats::names("|")
        ),
        Hint::FixConfig => "fix or remove the file (see the example config in docs/CONFIG.md), \
                            or pass --no-config to ignore it"
            .to_string(),
        Hint::DataDir => format!(
            "make the directory writable, or point {} (or data_dir in the config file) at \
             one you can write; `ctxctl doctor` shows which is used",
            crate::config::env::CTXCTL_DATA_DIR
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_come_from_the_error_type_not_its_text() {
        let detect = anyhow::Error::new(ReadError::Detect("odd".into())).context("a.json");
        assert_eq!(
            for_error(&detect),
            [
                "not a session (package.json, a config file)? leave it out, or let `check \
              --skip-non-sessions` skip it; a session? pass --format \
              openai|anthropic|jsonl|claude-code|codex|goose|gemini-cli|goose-db|opencode|copilot-cli"
            ]
        );
        // The same words in another error carry no hint.
        let text = anyhow::anyhow!("cannot tell the format: invalid config file");
        assert!(for_error(&text).is_empty());
        let config = anyhow::Error::new(ConfigError::Parse {
            path: "c.toml".into(),
            message: "bad".into(),
        });
        assert_eq!(for_error(&config).len(), 1);
    }
}
