//! The error of a data directory ctxctl cannot write (its locks, archives, stored
//! sessions), with the hint that says where that directory is set.

/// ctxctl's data directory (its locks, archives and stored sessions) cannot be written:
/// which session it was for and why; its hint says where the directory is set.
#[derive(Debug, thiserror::Error)]
#[error("{doing} in ctxctl's data directory: {detail}")]
pub struct DataDirError {
    /// What could not be done: `cannot lock session NAME`.
    pub doing: String,
    pub detail: String,
}

impl crate::hint::Hinted for DataDirError {
    fn hint(&self) -> Option<crate::hint::Hint> {
        Some(crate::hint::Hint::DataDir)
    }
}
