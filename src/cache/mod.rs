//! ctxctl's disk caches under `~/.cache/ctxctl`: token counts of texts seen before
//! ([`counts`], keyed by [`crate::tokens::key`]) and one digest per checked session file
//! ([`digest`]). Both are only ever a shortcut: a missing, stale or damaged cache gives
//! the same answers, slower. [`crate::tokens`] stays pure counting.

pub mod counts;
pub mod digest;
mod entry;
mod log;

pub use counts::CountStore;
