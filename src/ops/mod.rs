//! Services the commands share, as cargo's `ops`: loading a session ([`load`]), finding
//! the input files ([`walk`], [`filter`], [`describe`]), listing every agent session
//! ([`sessions`]), checking one against its window ([`checked`]), running many files in parallel ([`batch`]), the store, clock
//! and per-session lock ([`store`]), writing a rewrite atomically after checking that its
//! input did not change ([`write`], [`retry`]), usage figures ([`usage`]), the predicted
//! next request ([`predict`], with the agent's [`prior`] hidden part) and the window the agent uses ([`window`]).
//!
//! Commands (`crate::cli`) import these and the engine, never another command.

pub mod agent_stream;
pub mod agentdb;
pub mod batch;
pub mod carry;
pub mod checked;
pub mod describe;
pub mod exact;
pub mod filter;
pub mod grown;
pub mod here;
pub mod live;
pub mod load;
pub mod mcp;
pub mod predict;
pub mod prior;
pub mod resume;
pub mod retention;
pub mod retry;
pub mod search;
pub mod sessions;
pub mod store;
pub mod stream;
pub mod streamed;
pub mod tallied;
pub mod tally;
pub mod testhook;
pub mod usage;
pub mod walk;
pub mod window;
pub mod write;
