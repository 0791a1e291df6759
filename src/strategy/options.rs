//! Strategy names and options: what `--strategy` and the strategy flags of `trim` say.

use std::fmt;
use std::str::FromStr;

use super::{Selector, StrategyError};
use crate::session::Role;

/// The trimming strategies of `ctxctl trim --strategy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StrategyKind {
    /// Drop the oldest messages until the session fits.
    Fifo,
    /// Keep the last `window` messages (or as many recent ones as fit).
    SlidingWindow,
    /// Keep the first `keep_first` and last `keep_last` messages, a marker in between.
    Smart,
    /// Keep the roles in `keep_roles` (and marked messages), drop others oldest first.
    Selective,
    /// Apply `chain` in order, stopping as soon as the session fits.
    Composite,
    /// Cut tool results over `max_result_tokens` to their head and tail.
    ToolResults,
    /// Replace all but the `keep_recent` latest tool results by a placeholder.
    MaskToolResults,
}

impl StrategyKind {
    /// Every strategy, in the order the CLI documents them.
    pub const ALL: [StrategyKind; 7] = [
        StrategyKind::Fifo,
        StrategyKind::SlidingWindow,
        StrategyKind::Smart,
        StrategyKind::Selective,
        StrategyKind::Composite,
        StrategyKind::ToolResults,
        StrategyKind::MaskToolResults,
    ];

    /// The name used by `--strategy` and `--chain`.
    pub fn name(self) -> &'static str {
        match self {
            StrategyKind::Fifo => "fifo",
            StrategyKind::SlidingWindow => "sliding-window",
            StrategyKind::Smart => "smart",
            StrategyKind::Selective => "selective",
            StrategyKind::Composite => "composite",
            StrategyKind::ToolResults => "tool-results",
            StrategyKind::MaskToolResults => "mask-tool-results",
        }
    }

    /// Parses a strategy name; the error lists the valid ones.
    pub fn from_name(name: &str) -> Result<StrategyKind, StrategyError> {
        StrategyKind::ALL
            .into_iter()
            .find(|k| k.name() == name)
            .ok_or_else(|| StrategyError::UnknownStrategy(name.to_string()))
    }

    /// Parses a `--chain` list such as `smart,fifo` (blanks around names are ignored).
    pub fn parse_list(list: &str) -> Result<Vec<StrategyKind>, StrategyError> {
        list.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(StrategyKind::from_name)
            .collect()
    }

    /// Whether the strategy drops messages only as far as the budget requires (as opposed
    /// to applying a fixed shape and reporting when the result is still too large).
    pub(crate) fn is_budget_driven(self, opts: &Options) -> bool {
        match self {
            StrategyKind::Fifo | StrategyKind::Selective => true,
            StrategyKind::SlidingWindow => opts.window.is_none(),
            StrategyKind::Composite => opts.chain.last().is_some_and(|k| k.is_budget_driven(opts)),
            _ => false,
        }
    }
}

impl fmt::Display for StrategyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for StrategyKind {
    type Err = StrategyError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        StrategyKind::from_name(s)
    }
}

/// Default of `--keep-first` (smart).
pub const DEFAULT_KEEP_FIRST: usize = 2;
/// Default of `--keep-last` (smart).
pub const DEFAULT_KEEP_LAST: usize = 5;
/// Default of `--max-result-tokens` (tool-results).
pub const DEFAULT_MAX_RESULT_TOKENS: usize = 2000;
/// Default of `--keep-recent` (mask-tool-results): the ten most recent results stay
/// verbatim.
pub const DEFAULT_KEEP_RECENT: usize = 10;

/// Strategy options, one field per `trim` flag. Message counts (`window`, `keep_first`,
/// `keep_last`) count non-system messages; a tool call's unit is never split, so a unit
/// that does not fit whole in such a window is left out of it.
#[derive(Debug, Clone)]
pub struct Options {
    /// `--window N` (sliding-window). `None`: as many recent messages as fit the budget.
    pub window: Option<usize>,
    /// `--keep-first N` (smart), default [`DEFAULT_KEEP_FIRST`].
    pub keep_first: usize,
    /// `--keep-last N` (smart), default [`DEFAULT_KEEP_LAST`].
    pub keep_last: usize,
    /// `--keep-roles` (selective). A user message holding only tool results counts as a
    /// `tool` message here, so `user` means the human turns in every format.
    pub keep_roles: Vec<Role>,
    /// `--keep-marked` (selective). Marked and pinned messages are protected by every
    /// strategy (invariant 6); for selective this flag is the criterion when no roles are
    /// given (keep marked messages, drop the rest oldest first).
    pub keep_marked: bool,
    /// `--pin SELECTOR`, repeatable.
    pub pins: Vec<Selector>,
    /// `--chain a,b` (composite).
    pub chain: Vec<StrategyKind>,
    /// `--max-result-tokens N` (tool-results), default [`DEFAULT_MAX_RESULT_TOKENS`].
    pub max_result_tokens: usize,
    /// `--keep-recent N` (mask-tool-results), default [`DEFAULT_KEEP_RECENT`].
    pub keep_recent: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            window: None,
            keep_first: DEFAULT_KEEP_FIRST,
            keep_last: DEFAULT_KEEP_LAST,
            keep_roles: Vec::new(),
            keep_marked: false,
            pins: Vec::new(),
            chain: Vec::new(),
            max_result_tokens: DEFAULT_MAX_RESULT_TOKENS,
            keep_recent: DEFAULT_KEEP_RECENT,
        }
    }
}

/// Parses a `--keep-roles` list such as `system,user`.
pub fn parse_roles(list: &str) -> Result<Vec<Role>, StrategyError> {
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| Role::parse(s).ok_or_else(|| StrategyError::UnknownRole(s.to_string())))
        .collect()
}

pub(crate) fn strategy_names() -> String {
    let names: Vec<&str> = StrategyKind::ALL.iter().map(|k| k.name()).collect();
    names.join(", ")
}
