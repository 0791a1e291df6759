//! Token budgets: how much of a model's window a session may use.

use super::ModelSpec;

/// The output reserve taken from a model's max output never exceeds this share of the
/// window (a 1M-window model with a 128k output cap still leaves 87% for the prompt,
/// and an 8k model with a 4k cap is not halved).
pub const MAX_OUTPUT_RESERVE_PERCENT: u64 = 20;

/// The output reserve for a model whose max output is unknown (still capped at
/// [`MAX_OUTPUT_RESERVE_PERCENT`] of the window).
pub const UNKNOWN_OUTPUT_RESERVE: u64 = 4_096;

/// A session's budget: `effective_limit = context_window − max_output_tokens − reserved`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The model's window (or `--max-tokens`).
    pub context_window: u64,
    /// The output reserve actually applied (see [`Limits::new`]).
    pub max_output_tokens: u64,
    /// Extra tokens held back (`--reserved`), e.g. for tool definitions.
    pub reserved: u64,
}

impl Limits {
    /// The budget for a window. `reserve_output` (`--reserve-output`) is used as given
    /// when present. Otherwise the reserve is the model's max output
    /// (`spec_max_output`, or [`UNKNOWN_OUTPUT_RESERVE`] when unknown), capped at
    /// [`MAX_OUTPUT_RESERVE_PERCENT`] of the window.
    pub fn new(
        context_window: u64,
        spec_max_output: Option<u64>,
        reserve_output: Option<u64>,
        reserved: u64,
    ) -> Limits {
        let max_output_tokens = reserve_output.unwrap_or_else(|| {
            let cap = context_window / 100 * MAX_OUTPUT_RESERVE_PERCENT
                + context_window % 100 * MAX_OUTPUT_RESERVE_PERCENT / 100;
            spec_max_output.unwrap_or(UNKNOWN_OUTPUT_RESERVE).min(cap)
        });
        Limits {
            context_window,
            max_output_tokens,
            reserved,
        }
    }

    /// The budget for a model from the registry.
    pub fn for_model(spec: &ModelSpec, reserve_output: Option<u64>, reserved: u64) -> Limits {
        Limits::new(
            spec.context_window,
            spec.max_output_tokens,
            reserve_output,
            reserved,
        )
    }

    /// `context_window − max_output_tokens − reserved`, saturating: reserves larger than
    /// the window give 0, never an underflow.
    pub fn effective_limit(&self) -> u64 {
        self.context_window
            .saturating_sub(self.max_output_tokens)
            .saturating_sub(self.reserved)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::Registry;

    #[test]
    fn contract_example() {
        let limits = Limits::new(100_000, Some(4096), None, 1000);
        assert_eq!(limits.max_output_tokens, 4096);
        assert_eq!(limits.effective_limit(), 94_904);
    }

    #[test]
    fn output_reserve_is_capped_at_a_fifth_of_the_window() {
        let limits = Limits::new(8192, Some(4096), None, 0);
        assert_eq!(limits.max_output_tokens, 1638);
        assert_eq!(limits.effective_limit(), 8192 - 1638);
        // Unknown max output: the default reserve, also capped.
        assert_eq!(Limits::new(131_072, None, None, 0).max_output_tokens, 4096);
        assert_eq!(Limits::new(10_000, None, None, 0).max_output_tokens, 2000);
        // No overflow for huge windows.
        assert_eq!(Limits::new(u64::MAX, None, None, 0).max_output_tokens, 4096);
    }

    #[test]
    fn explicit_reserve_is_used_as_is() {
        let limits = Limits::new(8192, Some(4096), Some(6000), 100);
        assert_eq!(limits.max_output_tokens, 6000);
        assert_eq!(limits.effective_limit(), 2092);
        assert_eq!(
            Limits::new(8192, Some(4096), Some(0), 0).effective_limit(),
            8192
        );
    }

    #[test]
    fn never_underflows() {
        assert_eq!(Limits::new(1000, None, Some(900), 500).effective_limit(), 0);
        assert_eq!(Limits::new(1000, None, None, 5000).effective_limit(), 0);
    }

    #[test]
    fn from_a_registry_model() {
        let spec = Registry::builtin().lookup("claude-3-opus").unwrap();
        let limits = Limits::for_model(&spec, None, 0);
        assert_eq!(limits.effective_limit(), 200_000 - 4096);
    }
}
