//! ctxctl's disk caches under `~/.cache/ctxctl`: token counts of texts seen before
//! ([`counts`], keyed by [`crate::tokens::key`]) and one digest per checked session file
//! ([`digest`]), what session files' heads said ([`heads`]), what `sessions` listed ([`listing`]), and the hidden part a rewrite carries to the file it wrote ([`carried`]).
//! All are only ever a shortcut: a missing, stale or damaged cache gives
//! the same answers, slower. [`crate::tokens`] stays pure counting.

pub mod carried;
pub mod counts;
pub mod digest;
mod entry;
#[cfg(feature = "cli")]
pub mod heads;
pub mod listing;
mod log;
mod spill;

pub use counts::CountStore;
