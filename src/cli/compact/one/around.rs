//! Compacting a session streamed as `count` reads it (see [`crate::ops::streamed`]): its
//! file is read again while the summary is made, the summarized records going to the
//! archive as they come and the rest put back to be written.

use super::{Done, Job};
use crate::archive::PendingArchive;
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
        let (mut around, mut failed, mut refused) = (None, None, false);
        let mut feed = |push: &mut dyn FnMut(&[u8]) -> std::io::Result<()>| {
            let mut emit = |r: &[u8]| push(r).inspect_err(|_| refused = true);
            match streamed::read_around(loaded, hole, &mut emit) {
                Ok(a) => around = Some(a),
                Err(e) => failed = Some(e),
            }
            match (&around, refused) {
                (Some(_), _) => Ok(()),
                (None, true) => Err(std::io::Error::other("the archive refused a record")),
                (None, false) => Err(std::io::Error::other("the session could not be read")),
            }
        };
        let pending = self.store.begin_feeding(self.name, seq, &record, &mut feed);
        match (pending, around) {
            (Ok(pending), Some(around)) => Ok((Some(Ok(pending)), around)),
            // Archiving failed, not reading: the text is read on its own.
            (Err(e), _) if failed.is_none() || refused => {
                let around = streamed::read_around(loaded, hole, &mut |_| Ok(()))?;
                Ok((Some(Err(e.into())), around))
            }
            _ => Err(failed.unwrap_or_else(|| anyhow::anyhow!("reading the session again"))),
        }
    }
}
