//! Compacting a session streamed as `count` reads it (see [`crate::ops::streamed`]): its
//! file is read again while the summary is made, the summarized records going to the
//! archive as they come and the rest put back to be written.

use super::{Done, Job};
use crate::archive::{self, PendingArchive};
use crate::compact::CompactInfo;
use crate::formats::stream::around::Around;
use crate::ops::load::Loaded;
use crate::ops::streamed;
use crate::ops::write::Destination;
use crate::summarize::{Gist, Summarizer};

impl Job<'_> {
    /// Compacts a streamed session whose summarized records are `hole` of its file: the
    /// file is read again while the summary is made, the originals archived as they come
    /// and the rest put back to be written.
    pub(super) fn compact_around(
        &self,
        loaded: &mut Loaded,
        summarizer: &dyn Summarizer,
        gists: Option<Vec<(Gist, bool)>>,
        hole: streamed::Hole,
    ) -> anyhow::Result<Done> {
        let (dest, _lock, slot) = self.claim(loaded)?;
        let id = CompactInfo::new_id();
        let seq = slot.as_ref().ok().map(|&(seq, _)| seq);
        let (made, read) = std::thread::scope(|scope| {
            let (reading, dest, id, hole) = (&*loaded, &dest, &id, &hole);
            let read = scope.spawn(move || self.archive_around(reading, dest, id, seq, hole));
            let made = self.summarize(loaded, summarizer, gists);
            let read = read.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
            (made, read)
        });
        let made = match made? {
            Ok(made) => made,
            Err(done) => return Ok(done),
        };
        let (early, around) = read?;
        if !streamed::reattach_around(loaded, &hole, around) {
            loaded.reattach()?;
        }
        self.apply(loaded, made, &dest, &id, slot, early)
    }

    /// Reads a streamed session's file again around `hole`, archiving the records in it as
    /// number `seq` (when there is one) as they come: the archive begun (or why it could
    /// not be), and the text around the hole.
    fn archive_around(
        &self,
        loaded: &Loaded,
        dest: &Destination,
        id: &str,
        seq: Option<u64>,
        hole: &streamed::Hole,
    ) -> anyhow::Result<(Option<anyhow::Result<PendingArchive>>, Around)> {
        let Some(seq) = seq else {
            return Ok((None, streamed::read_around(loaded, hole, &mut |_| Ok(()))?));
        };
        let record = self.archive_record(loaded, dest, id, seq, Vec::new());
        // The file is read to its end whatever the archive does with the records: its text
        // is written either way.
        let (mut read, mut refused) = (None, None);
        let mut feed = |push: archive::Push| {
            let mut emit = |r: &[u8]| {
                if refused.is_none() {
                    refused = push(r).err();
                }
                Ok(())
            };
            let around = streamed::read_around(loaded, hole, &mut emit);
            let failed = around.is_err();
            read = Some(around);
            match refused.take() {
                Some(e) => Err(e),
                None if failed => Err(std::io::Error::other("the session was not read again")),
                None => Ok(()),
            }
        };
        let pending = self.store.begin_feeding(self.name, seq, &record, &mut feed);
        let around = match read {
            Some(around) => around?,
            // The archive could not even be begun.
            None => streamed::read_around(loaded, hole, &mut |_| Ok(()))?,
        };
        Ok((Some(pending.map_err(Into::into)), around))
    }
}
