//! Services the commands share, as cargo's `ops`: loading a session ([`load`], the model
//! its first bytes name: [`model_hint`]), reading one for a read-only command
//! ([`read_only`]: streamed by [`json_stream`] or read whole, figures folded by [`figures`] into a
//! [`counted::Counted`], the provider's own count by [`count_api`]), finding the input
//! files ([`walk`], [`session_files`], [`filter`], [`describe`]), listing every agent
//! session ([`sessions`]), checking one against its window ([`checked`]), running many
//! files in parallel ([`batch`]), the store, clock and per-session lock ([`store`]), where
//! a rewrite goes ([`write`]), the rewrite transaction that replaces a session: lock,
//! check, archive, stage, replace ([`rewrite`], [`retry`], [`retention`]), usage figures
//! ([`usage`]), the predicted next request ([`predict`], with the agent's [`prior`] hidden
//! part, or the one measured before the agent's own compaction: [`compacted`]) and the
//! window the agent uses ([`window`]).
//!
//! Commands (`crate::cli`) import these and the engine, never another command.

pub mod agent_stream;
pub mod agentdb;
pub mod batch;
pub mod call_names;
pub mod carry;
pub mod checked;
pub mod codex_stream;
pub mod compacted;
pub mod copilot_stream;
pub mod count_api;
pub mod counted;
pub mod data_dir;
pub mod describe;
pub mod figures;
pub mod filter;
pub mod gemini_stream;
pub mod goose_stream;
pub mod grown;
pub mod here;
pub mod json_reread;
pub mod json_stream;
pub mod live;
pub mod load;
pub mod mapped_input;
pub mod mcp;
pub mod model_hint;
pub mod ordered;
pub mod predict;
pub mod prior;
pub mod read_only;
pub mod resume;
pub mod retention;
pub mod retry;
pub mod rewrite;
pub mod search;
pub mod session_files;
pub mod sessions;
pub mod store;
pub mod stream_count;
pub mod testhook;
pub mod usage;
pub mod walk;
pub mod window;
pub mod write;
