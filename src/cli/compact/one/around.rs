//! Compacting a session streamed as `count` reads it (see [`crate::ops::json_reread`]): its
//! file is read again while the summary is made, the summarized records going to the
//! archive as they come and the rest put back to be written.

use std::sync::mpsc;

use super::{Archiving, Done, Job};
use crate::archive::{self, ArchiveEnd, ArchiveRecord};
use crate::compact::CompactInfo;
use crate::formats::stream::around::Around;
use crate::ops::json_reread::{self, Reread};
use crate::ops::load::Loaded;
use crate::ops::rewrite::Transaction;
use crate::summarize::{Gist, Summarizer};

impl Job<'_> {
    /// Compacts a streamed session whose summarized records are `hole` of its file: the
    /// file is read again while the summary is made, the originals archived as they come
    /// and the rest put back to be written. The text comes back as soon as it is read; when
    /// the "after" figure needs nothing written ([`Job::known_after`]), the archive's end
    /// goes to the pass, which writes and syncs it while the result is put together (the
    /// archive is linked into place when the result is ready, as any other).
    pub(super) fn compact_around(
        &self,
        loaded: &mut Loaded,
        summarizer: &dyn Summarizer,
        gists: Option<Vec<(Gist, bool)>>,
        hole: json_reread::Hole,
    ) -> anyhow::Result<Done> {
        let (dest, tx, slot) = self.claim(loaded)?;
        let id = CompactInfo::new_id();
        let reread = Reread::of(loaded, &hole)?;
        let record = (slot.as_ref().ok()).map(|&(seq, _)| {
            let record = tx.record_to_feed(loaded, &dest, &self.originals(&id), seq);
            (seq, record)
        });
        let header = self.header(&id, &slot);
        std::thread::scope(|scope| {
            let (sent, text) = mpsc::sync_channel(1);
            let (end, ends) = mpsc::sync_channel(1);
            let (reread, tx) = (&reread, &tx);
            let pass = scope.spawn(move || self.archive_around(tx, reread, record, sent, ends));
            let mut made = match self.summarize(loaded, summarizer, gists)? {
                Ok(made) => made,
                Err(done) => return Ok(done),
            };
            // A compaction that is smaller and keeps no message in the middle (which the
            // archive would tell how to put back) has its archive's end now.
            let known = self.known_after(loaded, &made.summary, &header);
            if let Some(n) = known.filter(|&n| n < loaded.total && self.part.kept.is_empty()) {
                let end_now = self.archive_end(loaded, made.used, &made.summary, n, None);
                let _ = end.send(end_now.into_owned());
            }
            drop(end);
            // Should the pass still be reading, the recall is measured meanwhile, rather
            // than on a thread of its own while the compaction is written.
            let sent = match text.try_recv() {
                Ok(around) => Ok(around),
                Err(_) => {
                    made.recall = made.recall.now(&made.summary);
                    text.recv()
                }
            };
            let Ok(around) = sent else {
                // The pass sends the text whatever happens, unless it panicked.
                let panic = pass.join().err();
                std::panic::resume_unwind(panic.unwrap_or_else(|| Box::new("no text was sent")));
            };
            if !json_reread::reattach_around(loaded, &hole, around?) {
                loaded.reattach()?;
            }
            let early = || pass.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
            self.apply(tx, loaded, made, &dest, &id, slot, early, known)
        })
    }

    /// Reads a streamed session's file again, archiving the records in the hole as
    /// `record` says (when there is one) as they come. The text around the hole goes to
    /// `sent` as soon as it is read (or why it could not be); what is returned is the
    /// archive begun, its records on their way to disk, and sealed if its end came from
    /// `ends` (or why it could not be).
    fn archive_around(
        &self,
        tx: &Transaction,
        reread: &Reread,
        record: Option<(u64, ArchiveRecord<'_>)>,
        sent: mpsc::SyncSender<anyhow::Result<Around>>,
        ends: mpsc::Receiver<ArchiveEnd<'static>>,
    ) -> Option<anyhow::Result<Archiving>> {
        let Some((seq, record)) = record else {
            let _ = sent.send(reread.read(&mut |_| Ok(())));
            return None;
        };
        // The file is read to its end whatever the archive does with the records: its text
        // is written either way.
        let mut read = false;
        let mut feed = |push: archive::Push| {
            let mut refused = None;
            let mut emit = |r: &[u8]| {
                if refused.is_none() {
                    refused = push(r).err();
                }
                Ok(())
            };
            let around = reread.read(&mut emit);
            let failed = around.is_err();
            let _ = sent.send(around);
            read = true;
            match refused {
                Some(e) => Err(e),
                None if failed => Err(std::io::Error::other("the session was not read again")),
                None => Ok(()),
            }
        };
        let pending = tx.feed_archive(seq, &record, &mut feed);
        if !read {
            // The archive could not even be begun.
            let _ = sent.send(reread.read(&mut |_| Ok(())));
        }
        let archiving = pending.and_then(|pending| match ends.recv() {
            Ok(end) => tx.seal_archive(pending, &end).map(Archiving::Sealed),
            // The end is given once the result is written.
            Err(_) => Ok(Archiving::Pending(Box::new(pending))),
        });
        Some(archiving.map_err(Into::into))
    }
}
