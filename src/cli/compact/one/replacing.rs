//! Compacting a Claude Code transcript in place without holding its result: the result is
//! written to a temp file beside the session as it is made, counted back from there, and
//! copied into the session's replacement once the originals are archived.

use std::io::Write as _;

use super::{compacted, report, unchanged, Archiving, Done, Job, Made, NoSlot, Slot};
use crate::compact::CompactInfo;
use crate::formats;
use crate::ops::load::Loaded;
use crate::ops::rewrite::{self, Transaction};
use crate::ops::write::Destination;
use crate::session::{Format, Item};

impl Job<'_> {
    /// Whether [`Job::apply_replacing`] writes the compaction of `loaded` to `dest`: a
    /// Claude Code transcript file replaced in place with an archive to file and no undo
    /// script to make (no message kept in the middle: the script is made from the whole
    /// result).
    pub(super) fn replaces_streamed(
        &self,
        loaded: &Loaded,
        dest: &Destination,
        slot: &Slot,
    ) -> bool {
        matches!(dest, Destination::InPlace(_))
            && slot.is_ok()
            && self.part.kept.is_empty()
            && loaded.db_session.is_none()
            && loaded.session.format == Format::ClaudeCode
    }

    /// [`Job::apply`] of a compaction [`Job::replaces_streamed`] says is written as it is
    /// made: the result never held whole (with the file's text, it was the peak).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn apply_replacing(
        &self,
        tx: &Transaction,
        loaded: &Loaded,
        made: Made,
        dest: &Destination,
        id: &str,
        slot: Slot,
        early: impl FnOnce() -> Option<anyhow::Result<Archiving>>,
        known: Option<usize>,
        items: &[Item],
        header: &CompactInfo,
    ) -> anyhow::Result<Done> {
        let (ctx, shown, part) = (self.ctx, self.shown, self.part);
        let Made {
            summary,
            used,
            recall,
        } = made;
        let Destination::InPlace(path) = dest else {
            unreachable!("only a session replaced in place is written here")
        };
        let mut result = crate::fsutil::temp_beside(path)
            .map_err(|e| anyhow::anyhow!("writing beside {}: {e}", path.display()))?;
        // The output's I/O errors name the temp file's place; what the format cannot write
        // names the session.
        let mut refused = None;
        let written = {
            let mut out = std::io::BufWriter::with_capacity(1 << 20, result.as_file_mut());
            formats::write_to(&loaded.session, items, &mut out)
                .map_err(|e| match e {
                    crate::session::WriteError::Io(e) => e,
                    e => {
                        let said = std::io::Error::other(e.to_string());
                        refused = Some(e);
                        said
                    }
                })
                .and_then(|()| out.flush())
        };
        if let Some(e) = refused {
            return Err(anyhow::Error::new(e).context(loaded.display()));
        }
        written.map_err(|e| anyhow::anyhow!("writing beside {}: {e}", path.display()))?;
        let planned = match known {
            Some(n) => Some(n),
            None if loaded.plan_is_exact(items) => Some(compacted(loaded, part, &summary, header)),
            None => rewrite::recount::streamed(ctx, loaded, result.path()),
        };
        if let Some(after) = planned.filter(|&n| n >= loaded.total) {
            let reason = report::not_smaller(loaded.total, after, self.summarized.len());
            return Ok(unchanged(ctx, shown, used, reason, false, self.batch));
        }
        let tokens = planned.unwrap_or_else(|| compacted(loaded, part, &summary, header));
        let end = self.archive_end(loaded, used, &summary, tokens, None);
        let archived = match slot {
            Ok((seq, _)) => self.file_originals(tx, loaded, dest, id, seq, early, &end),
            Err(NoSlot::Failed(e)) => Err(anyhow::Error::from(e)),
            Err(NoSlot::Untouched) => unreachable!("a session replaced in place is archived"),
        };
        let archived = archived.map_err(|e| {
            e.context(format!(
                "archiving the originals of {shown}; nothing was changed"
            ))
        })?;
        tx.commit_from(dest, loaded, result.path(), Some(&archived))?;
        let recall = recall.measured(&summary);
        Ok(self.report(loaded, dest, used, &recall, Some(archived), tokens))
    }
}
