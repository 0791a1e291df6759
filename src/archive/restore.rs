//! Undoing a compaction: the archived originals go back in place of its summary.

use super::ArchiveFile;
use crate::session::{Item, Session};

/// Why an archive cannot be restored into a session.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RestoreError {
    #[error(
        "the session has no summary with compact_id {id}: it was edited away, or compacted \
         again (restore the newer archive first)"
    )]
    SummaryNotFound { id: String },
    #[error("the archive holds {archive} records but the session is {session}")]
    FormatMismatch { archive: String, session: String },
}

/// The write plan that puts `archive`'s records back in place of the summary message
/// carrying its `compact_id`, keeping everything else (also messages added or changed
/// after the compaction).
pub fn restore(session: &Session, archive: &ArchiveFile) -> Result<Vec<Item>, RestoreError> {
    if archive.format != session.format.name() {
        return Err(RestoreError::FormatMismatch {
            archive: archive.format.clone(),
            session: session.format.name().to_string(),
        });
    }
    let at = session
        .messages
        .iter()
        .position(|m| {
            m.compact
                .as_ref()
                .is_some_and(|c| c.id.as_deref() == Some(archive.compact_id.as_str()))
        })
        .ok_or_else(|| RestoreError::SummaryNotFound {
            id: archive.compact_id.clone(),
        })?;
    let mut items: Vec<Item> = (0..at).map(Item::Keep).collect();
    items.extend(archive.records.iter().cloned().map(Item::InsertRecord));
    items.extend((at + 1..session.messages.len()).map(Item::Keep));
    Ok(items)
}
