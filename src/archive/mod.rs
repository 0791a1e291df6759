//! The archive store: originals removed by compaction, one file per compaction.

mod time;

pub use time::{Timestamp, TimestampError};
