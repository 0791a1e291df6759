//! How many tokens a loaded session takes, reconciled with what its provider reported.

use crate::ops::load::Loaded;
use crate::render::json::Reported;

/// The provider-reported usage beside ctxctl's count of the same messages.
pub fn reported(l: &Loaded) -> Option<Reported> {
    let r = l.live_usage()?;
    let upto = r
        .after_message
        .map_or(l.counts.len(), |i| (i + 1).min(l.counts.len()));
    let ours = crate::tokens::Counter::total(&l.counts[..upto]) as i64;
    Some(Reported {
        input_tokens: r.input_tokens,
        output_tokens: r.output_tokens,
        difference: ours - r.input_tokens as i64,
    })
}
