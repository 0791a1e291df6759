//! ctxctl keeps LLM conversation sessions inside their model's context window.
//!
//! The engine (`session`, `tokens`, `models`, `strategy`, `compact`, `summarize`) is pure:
//! no environment, no terminal, no printing. The `cli` module is the shell around it.

pub mod archive;
pub mod compact;
pub mod session;
pub mod summarize;
pub mod tokens;
