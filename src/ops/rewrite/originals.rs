//! The archive step of the [rewrite transaction](super): what a rewrite archives of the
//! session it replaces ([`Originals`]), assembled into the store's record and end here, and
//! filed whole ([`Transaction::file`]), begun to be finished once the result is known
//! ([`Transaction::begin_archive`]), or fed record by record from a second read of the file
//! ([`Transaction::feed_archive`]).

use std::path::Path;

use super::{Destination, Transaction};
use crate::archive::{
    self, ArchiveEnd, ArchiveError, ArchiveRecord, Feed, PendingArchive, RecordText, SealedArchive,
    Stored, Tokens, Undo,
};
use crate::ops::load::Loaded;

/// How the archive records the session's paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paths {
    /// As the user gave them (a trim).
    AsGiven,
    /// Made absolute, `-` left out (a compaction).
    Absolute,
}

/// What a rewrite archives of the session it replaces.
#[derive(Debug, Clone, Copy)]
pub struct Originals<'s> {
    /// The rewrite's id (its summary's header names it).
    pub id: &'s str,
    /// The messages archived, in order.
    pub messages: &'s [usize],
    /// Index of the first archived message when none is (where the summary stands).
    pub first_message: usize,
    pub paths: Paths,
}

/// What the rewrite made of the originals: known once its result is.
#[derive(Debug, Clone, Copy)]
pub struct Made<'s> {
    /// Who made it (`offline`, `llm`, `trim:fifo` …).
    pub by: &'s str,
    /// The summary, or what a trim did.
    pub summary: &'s str,
    /// The "after" figure.
    pub tokens: usize,
    /// What was written, when the archive is to say how to rebuild the original from it.
    pub undo_from: Option<UndoFrom<'s>>,
}

/// What a rewrite wrote, for its archive's undo script.
#[derive(Debug, Clone, Copy)]
pub enum UndoFrom<'s> {
    /// The whole new file.
    Whole(&'s [u8]),
    /// What was appended to the session's document, which the new file begins with: the
    /// script is made without the two being put together ([`Undo::appended`]).
    Appended(&'s [u8]),
}

impl Originals<'_> {
    /// The archive's end: what the rewrite of `loaded` made of these originals.
    pub fn end<'l>(&self, loaded: &'l Loaded, made: Made<'_>) -> ArchiveEnd<'l> {
        let undo = made.undo_from.and_then(|written| {
            let original = loaded.session.doc.text()?;
            Some(match written {
                UndoFrom::Whole(bytes) => Undo::new(original, bytes),
                UndoFrom::Appended(suffix) => Undo::appended(original, suffix),
            })
        });
        ArchiveEnd {
            summarizer: made.by.to_string(),
            tokens: Tokens {
                original: loaded.total,
                compacted: made.tokens,
                archived: self.messages.iter().map(|&i| loaded.counts[i]).sum(),
            },
            summary: made.summary.to_string(),
            undo,
        }
    }
}

impl Transaction<'_> {
    /// The facts of archive number `seq` (`None`: the next free one) of `o`, with their
    /// `records`.
    fn record<'r>(
        &self,
        loaded: &Loaded,
        dest: &Destination,
        o: &Originals,
        seq: Option<u64>,
        records: Vec<RecordText<'r>>,
    ) -> ArchiveRecord<'r> {
        let (source, output) = match o.paths {
            Paths::AsGiven => (
                Some(loaded.path.display().to_string()),
                Some(dest.display()),
            ),
            Paths::Absolute => (
                (loaded.path != Path::new("-")).then(|| absolute(&loaded.path)),
                match dest {
                    Destination::Stdout => None,
                    d => Some(absolute(Path::new(&d.display()))),
                },
            ),
        };
        ArchiveRecord {
            seq,
            compact_id: o.id.to_string(),
            created: self.now,
            source,
            output,
            format: loaded.session.format.name().to_string(),
            model: Some(loaded.model.name.clone()),
            first_message: o.messages.first().copied().unwrap_or(o.first_message),
            messages: o.messages.len(),
            records,
            agent_session: loaded.db_session.as_ref().map(|s| s.id.clone()),
        }
    }

    /// The facts of archive number `seq` of `o`, its records left to be fed
    /// ([`Transaction::feed_archive`]).
    pub fn record_to_feed(
        &self,
        loaded: &Loaded,
        dest: &Destination,
        o: &Originals,
        seq: u64,
    ) -> ArchiveRecord<'static> {
        self.record(loaded, dest, o, Some(seq), Vec::new())
    }

    /// Files the archive of `o` whole, as the next free number, and returns where.
    pub fn file(
        &self,
        loaded: &Loaded,
        dest: &Destination,
        o: &Originals,
        end: &ArchiveEnd,
    ) -> anyhow::Result<Stored> {
        let records = archive::records_of(&loaded.session, o.messages)?;
        let record = self.record(loaded, dest, o, None, records);
        Ok(self.store.put(&self.name, &record, end)?)
    }

    /// Starts archiving `o` as number `seq`: their records and facts, going to a temp
    /// file; [`PendingArchive::finish`] adds the end and files it.
    pub fn begin_archive(
        &self,
        loaded: &Loaded,
        dest: &Destination,
        o: &Originals,
        seq: u64,
    ) -> anyhow::Result<PendingArchive> {
        let records = archive::records_of(&loaded.session, o.messages)?;
        let record = self.record(loaded, dest, o, Some(seq), records);
        Ok(self.store.begin(&self.name, &record)?)
    }

    /// [`Transaction::begin_archive`] of `record` (from [`Transaction::record_to_feed`]) as
    /// number `seq`, its records handed over by `feed` one by one as the file is read again.
    pub fn feed_archive(
        &self,
        seq: u64,
        record: &ArchiveRecord<'_>,
        feed: Feed,
    ) -> Result<PendingArchive, ArchiveError> {
        self.store.begin_feeding(&self.name, seq, record, feed)
    }

    /// Files `pending` with its `end`: linked into place, synced.
    pub fn finish_archive(
        &self,
        pending: PendingArchive,
        end: &ArchiveEnd,
    ) -> anyhow::Result<Stored> {
        Ok(pending.finish(end)?)
    }

    /// Writes and syncs the `end` of `pending` while the result is still being made; it is
    /// filed by [`Transaction::file_sealed`] once the result is ready.
    pub fn seal_archive(
        &self,
        pending: PendingArchive,
        end: &ArchiveEnd,
    ) -> Result<SealedArchive, ArchiveError> {
        pending.seal(end)
    }

    /// Files an archive sealed by [`Transaction::seal_archive`].
    pub fn file_sealed(&self, sealed: SealedArchive) -> anyhow::Result<Stored> {
        Ok(sealed.file()?)
    }
}

/// `p` made absolute (the way archives record session paths), without resolving symlinks.
fn absolute(p: &Path) -> String {
    std::path::absolute(p)
        .unwrap_or_else(|_| p.to_path_buf())
        .display()
        .to_string()
}
