//! Hints printed under an error, carried by the error's type (as jj's `CommandError`
//! carries its hints) instead of being found by matching the error's text: a typed error
//! says which [`Hint`] applies, and the edge finds them along the error's chain
//! ([`crate::render::hints`]).

/// A likely fix to print under an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hint {
    /// The format could not be detected: say which with `--format`.
    PassFormat,
    /// The config file does not parse.
    FixConfig,
    /// ctxctl's data directory cannot be written: say where it is set.
    DataDir,
}

/// An error that knows the hint to print under it.
pub trait Hinted {
    fn hint(&self) -> Option<Hint>;
}

impl Hinted for crate::session::ReadError {
    fn hint(&self) -> Option<Hint> {
        matches!(self, crate::session::ReadError::Detect(_)).then_some(Hint::PassFormat)
    }
}

impl Hinted for crate::config::ConfigError {
    fn hint(&self) -> Option<Hint> {
        matches!(self, crate::config::ConfigError::Parse { .. }).then_some(Hint::FixConfig)
    }
}

impl Hinted for crate::config::ResolveError {
    fn hint(&self) -> Option<Hint> {
        match self {
            crate::config::ResolveError::Config(e) => e.hint(),
            _ => None,
        }
    }
}
