//! Settings: flag > environment (`CTXCTL_*`) > config file > built-in, each value
//! remembering where it came from (for `ctxctl config`).

pub mod env;
mod file;
pub mod paths;
mod settings;

use std::fmt;
use std::path::PathBuf;

pub use env::Env;
pub use file::{CompactConfig, ConfigError, CountApiConfig, FileConfig, LlmConfig};
pub use settings::{
    CountWith, Globals, LlmSettings, ResolveError, Settings, DEFAULT_LOCK_TIMEOUT,
    DEFAULT_THRESHOLD,
};

use crate::tokens::Encoding;

/// Where a setting's value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Flag,
    Env(&'static str),
    File,
    Session,
    Default,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Flag => f.write_str("flag"),
            Source::Env(var) => write!(f, "env {var}"),
            Source::File => f.write_str("config file"),
            Source::Session => f.write_str("session file"),
            Source::Default => f.write_str("default"),
        }
    }
}

/// A value and its source.
#[derive(Debug, Clone, PartialEq)]
pub struct Sourced<T> {
    pub value: T,
    pub source: Source,
}

impl<T> Sourced<T> {
    pub fn new(value: T, source: Source) -> Sourced<T> {
        Sourced { value, source }
    }
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum SettingError {
    #[error("{name}: expected {expected}, got {value:?}")]
    Invalid {
        name: String,
        expected: &'static str,
        value: String,
    },
    /// A value of the right type out of its range, worded by whoever checked it.
    #[error("{0}")]
    Message(String),
}

/// Picks the first of flag, environment variable and file value; `parse` turns env text
/// into a value.
pub fn layer<T>(
    flag: Option<T>,
    env: &Env,
    var: &'static str,
    file: Option<T>,
    parse: impl Fn(&str) -> Option<T>,
    expected: &'static str,
) -> Result<Option<Sourced<T>>, SettingError> {
    if let Some(v) = flag {
        return Ok(Some(Sourced::new(v, Source::Flag)));
    }
    if let Some(text) = env.get(var) {
        return match parse(text) {
            Some(v) => Ok(Some(Sourced::new(v, Source::Env(var)))),
            None => Err(SettingError::Invalid {
                name: var.to_string(),
                expected,
                value: text.to_string(),
            }),
        };
    }
    Ok(file.map(|v| Sourced::new(v, Source::File)))
}

/// `auto` means "the model's tokenizer".
pub fn parse_tokenizer(s: &str) -> Option<Option<Encoding>> {
    if s == "auto" {
        Some(None)
    } else {
        Encoding::from_name(s).map(Some)
    }
}

/// A ratio in (0, 1].
pub fn parse_ratio(s: &str) -> Option<f64> {
    s.parse::<f64>().ok().filter(|r| *r > 0.0 && *r <= 1.0)
}

/// Where the config file is: `--config`, `CTXCTL_CONFIG`, then the platform default.
pub fn config_path(flag: Option<PathBuf>, env: &Env) -> Option<(PathBuf, Source)> {
    if let Some(p) = flag {
        return Some((p, Source::Flag));
    }
    if let Some(p) = env.get(env::CTXCTL_CONFIG) {
        return Some((PathBuf::from(p), Source::Env(env::CTXCTL_CONFIG)));
    }
    crate::config::paths::default_config_file(env).map(|p| (p, Source::Default))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_is_flag_env_file() {
        let env = Env::from_pairs([("CTXCTL_THRESHOLD", "0.5")]);
        let got = layer(
            Some(0.9),
            &env,
            "CTXCTL_THRESHOLD",
            Some(0.7),
            parse_ratio,
            "r",
        )
        .unwrap();
        assert_eq!(got, Some(Sourced::new(0.9, Source::Flag)));
        let got = layer(None, &env, "CTXCTL_THRESHOLD", Some(0.7), parse_ratio, "r").unwrap();
        assert_eq!(
            got,
            Some(Sourced::new(0.5, Source::Env("CTXCTL_THRESHOLD")))
        );
        let got = layer(
            None,
            &Env::default(),
            "CTXCTL_THRESHOLD",
            Some(0.7),
            parse_ratio,
            "r",
        )
        .unwrap();
        assert_eq!(got, Some(Sourced::new(0.7, Source::File)));
    }

    #[test]
    fn bad_env_values_are_errors() {
        let env = Env::from_pairs([("CTXCTL_THRESHOLD", "lots")]);
        let e = layer(
            None,
            &env,
            "CTXCTL_THRESHOLD",
            None::<f64>,
            parse_ratio,
            "a ratio in (0, 1]",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "CTXCTL_THRESHOLD: expected a ratio in (0, 1], got \"lots\""
        );
    }

    #[test]
    fn tokenizer_names() {
        assert_eq!(parse_tokenizer("auto"), Some(None));
        assert_eq!(
            parse_tokenizer("cl100k_base"),
            Some(Some(Encoding::Cl100kBase))
        );
        assert_eq!(parse_tokenizer("bpe"), None);
    }
}
