//! ctxctl keeps LLM conversation sessions inside their model's context window.
//!
//! The engine is pure — no environment, no terminal, no printing:
//! - `session`: the model (messages, parts, documents, tool pairing, the write plan);
//! - `formats`: one codec per on-disk format, behind the `formats::Codec` trait;
//! - `tokens`, `models`, `strategy`, `compact`, `summarize`, `archive`.
//!
//! Around it: `config` (settings resolved once, paths), `context` (the run), `cache` (the
//! disk caches), `ops` (services the commands share: loading, batch runs, the
//! archive-then-replace transaction), `render` (all output), and `cli`, one file per
//! command, which imports `ops` and the engine but never another command.

pub mod archive;
pub mod cache;
pub mod cli;
pub mod compact;
pub mod config;
pub mod context;
pub mod diff;
pub mod exit;
pub mod formats;
pub mod fsutil;
pub mod hint;
pub mod mem;
pub mod models;
pub mod ops;
pub mod render;
pub mod session;
pub mod strategy;
pub mod summarize;
pub mod tokens;
