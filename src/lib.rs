//! ctxctl keeps LLM conversation sessions inside their model's context window.
//!
//! The engine (`session`, `tokens`, `models`, `strategy`, `compact`, `summarize`) is pure:
//! no environment, no terminal, no printing. The `cli` module is the shell around it, with
//! `context`, `config`, `paths`, `render` and `fsutil` as its helpers.

pub mod archive;
pub mod cache;
pub mod cli;
pub mod compact;
pub mod config;
pub mod context;
pub mod exit;
pub mod formats;
pub mod fsutil;
pub mod mem;
pub mod models;
pub mod ops;
pub mod paths;
pub mod render;
pub mod session;
pub mod strategy;
pub mod summarize;
pub mod tokens;
