//! ctxctl keeps LLM conversation sessions inside their model's context window.
//!
//! This crate is the engine of the `ctxctl` command-line tool, usable on its own by an
//! agent loop that wants to count, trim or compact its conversation in process instead of
//! shelling out. Depend on it without the command line:
//!
//! ```toml
//! [dependencies]
//! ctxctl = { version = "0.1", default-features = false }          # engine only
//! # ctxctl = { version = "0.1", default-features = false, features = ["llm"] }  # + LLM summaries
//! ```
//!
//! # The context manager
//!
//! [`ContextManager`] is fed the conversation message by message and hands back what to
//! send, inside the model's window. Each [`ContextManager::add_message`] counts only the new
//! message; when the window would overflow, room is made by the [`Mode`] (a sliding
//! window, first/last messages with an omission marker, or a summary of the middle),
//! never separating a tool call from its result and never touching the system prompt.
//!
//! ```
//! use ctxctl::{Compaction, ContextLimits, ContextManager, Message, Mode};
//!
//! let mut cm = ContextManager::for_model("claude-3-opus")
//!     .with_mode(Mode::Summarize)
//!     .with_limits(ContextLimits::new(4_000, 1_000, 0)); // a small window for the example
//! cm.set_system_prompt("You are a coding agent.");
//! for turn in 0..200 {
//!     cm.add_message(Message::user(format!("step {turn}: run the tests again")));
//!     let id = format!("call_{turn}");
//!     cm.add_message(Message::tool_calls([(id.as_str(), "bash", r#"{"cmd":"cargo test"}"#)]));
//!     cm.add_message(Message::tool_result(id.as_str(), "test result: ok. 12 passed"));
//!     cm.add_message(Message::assistant("All green."));
//!     assert!(cm.tokens_used() <= cm.limit());
//! }
//! let stats = cm.stats();
//! assert!(stats.times_made_room > 0);
//! assert_eq!(cm.context_for_request()[0].text(), "You are a coding agent.");
//! # let _ = Compaction::Skipped { reason: "" };
//! ```
//!
//! In short:
//!
//! ```
//! use ctxctl::{ContextManager, Message, Mode};
//!
//! let mut cm = ContextManager::for_model("claude-3-opus").with_mode(Mode::Summarize);
//! cm.set_system_prompt("You are a coding agent.");
//! cm.add_message(Message::user("Fix the failing test"));
//! cm.add_message(Message::tool_calls([("c1", "bash", r#"{"cmd":"cargo test"}"#)]));
//! cm.add_message(Message::tool_result("c1", "test result: FAILED. 1 failed"));
//! let request = cm.context_for_request(); // system prompt first, within the limit
//! assert_eq!(request.len(), 4);
//! println!("{:.1}% used, near the limit: {}", cm.stats().usage_percent, cm.is_near_limit());
//! ```
//!
//! # The pieces
//!
//! - Limits and budgets: [`ContextLimits`] (a model's window from the built-in registry of
//!   current models, `effective_limit = window − max output − reserved`), [`ContextBudget`]
//!   (allocations for the system prompt, tools and the reply), [`UsageTracker`].
//! - Counting: [`Counter`] counts texts, messages and sessions with a tiktoken encoding
//!   ([`Encoding::O200kBase`], [`Encoding::Cl100kBase`], exactly as tiktoken does) or an
//!   estimate ([`Encoding::Approx`], [`Encoding::Words`]), remembering texts it has seen.
//! - Trimming: [`plan_trim`] plans any [`StrategyKind`] over a [`Session`];
//!   [`compact::partition`], [`compact::assemble`] and a [`Summarizer`]
//!   ([`OfflineSummarizer`], or the `llm` feature's `summarize::LlmSummarizer`) compact one.
//! - Files: [`read_session`] reads every format ctxctl knows (OpenAI and Anthropic request
//!   bodies, JSONL, Claude Code, Codex, goose, Gemini CLI transcripts) into a [`Session`] and
//!   [`write_session`] writes a plan's result back in the same format, untouched records
//!   byte for byte.
//!
//! ```
//! use ctxctl::{plan_trim, read_session, write_session, Counter, StrategyKind, TrimOptions};
//!
//! let file = br#"[{"role":"system","content":"Be brief."},
//!                 {"role":"user","content":"Hello there, how are you today?"},
//!                 {"role":"assistant","content":"Fine, thanks."},
//!                 {"role":"user","content":"Good."}]"#;
//! let session = read_session(file, None)?;
//! let counter = Counter::lazy(ctxctl::Encoding::O200kBase);
//! let counts = counter.messages(&session);
//! let plan = plan_trim(&session, &counts, &counter, StrategyKind::Fifo, &TrimOptions::default(), 20)?;
//! assert!(plan.fits);
//! let trimmed = write_session(&session, &plan.items)?;
//! assert!(String::from_utf8(trimmed)?.contains("Be brief."));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Features
//!
//! - `cli` (default): the command-line tool (clap, progress bars, completions, man pages);
//!   implies `llm`. The modules behind it are hidden from these docs.
//! - `llm`: the LLM summarizer (reqwest, tokio) for OpenAI- and Anthropic-compatible
//!   servers.
//!
//! The other modules are public for the command-line tool and its tests, and hidden from
//! these docs: they may change between versions.

#![deny(missing_docs)]
// The hidden modules document their internals for maintainers (`cargo doc
// --document-private-items`), linking to private items as they go.
#![allow(rustdoc::private_intra_doc_links)]

pub mod manager;

#[doc(hidden)]
pub mod archive;
#[doc(hidden)]
pub mod cache;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod cli;
pub mod compact;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod config;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod context;
#[doc(hidden)]
pub mod diff;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod exit;
#[doc(hidden)]
pub mod fasthash;
#[doc(hidden)]
pub mod formats;
#[doc(hidden)]
pub mod fsutil;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod hint;
#[doc(hidden)]
pub mod idmap;
#[doc(hidden)]
pub mod mapped;
#[doc(hidden)]
pub mod mem;
#[doc(hidden)]
pub mod models;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod ops;
#[doc(hidden)]
pub mod prebuilt;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod render;
#[doc(hidden)]
pub mod search;
#[doc(hidden)]
pub mod session;
#[doc(hidden)]
pub mod strategy;
pub mod summarize;
#[doc(hidden)]
pub mod tokens;

pub use formats::{read as read_session, write as write_session};
pub use manager::{
    Added, Compaction, ContextBudget, ContextLimits, ContextManager, ManagerError, Mode, Room,
    Stats, UsageTracker,
};
pub use session::{Format, Item, Message, Part, ReadError, Role, Session, WriteError};
pub use strategy::{plan as plan_trim, Options as TrimOptions, Plan, StrategyError, StrategyKind};
pub use summarize::{Input as SummaryInput, OfflineSummarizer, SummarizeError, Summarizer};
pub use tokens::{Counter, Encoding};
