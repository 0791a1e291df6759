//! Compacting one session: partition, summarize, archive the middle, write the result.

mod around;
mod replacing;
mod summarizing;

use summarizing::{Made, Recalled};

use std::path::{Path, PathBuf};

use anyhow::Context as _;

use super::report::{self, dry_run, recall_line, unchanged, Doc, Done, Report};
use super::settings::{self, tail_budget};
use super::{compacted, info, ratio, CompactArgs};
use crate::archive::{
    ArchiveEnd, ArchiveError, ArchiveStore, PendingArchive, SealedArchive, Stored, Timestamp,
};
use crate::cli::args::budget;
use crate::compact::{self, CompactInfo, Continuation};
use crate::context::Context;
use crate::exit::ExitStatus;
use crate::formats::{self, Written};
use crate::ops::json_reread;
use crate::ops::live::Scope;
use crate::ops::load::{self, Loaded};
use crate::ops::rewrite::{self, originals, Bound, Originals, Paths, Transaction, UndoFrom};
use crate::ops::store::clock;
use crate::ops::write::{self, Destination};
use crate::render::table::thousands;
use crate::session::Message;
use crate::summarize::{recall, Gist, Summarizer};

/// Compacts one session (`from_store`: the store's copy of `--name`, compacted in place;
/// `session`: that session of the agent's database `path`, as a walk found it).
/// Prints its human report; the `--json` document is returned for the caller to print.
pub fn compact_file(
    ctx: &Context,
    args: &CompactArgs,
    summarizer: &dyn Summarizer,
    path: &Path,
    session: Option<&str>,
    from_store: bool,
    scope: Scope,
) -> anyhow::Result<Done> {
    let batch = scope == Scope::Batch;
    if session.is_none() && !batch {
        rewrite::guard_input(ctx, &args.output.choice(), path, from_store)?;
    }
    // `--name` found in goose's database rather than in the store: that goose session.
    let goose_name = (from_store && load::is_database(path))
        .then_some(args.name.as_deref())
        .flatten();
    // A summary made from the messages' facts alone lets a large session's text go as it
    // is read: each message's gist is taken first (and whether it is a finished answer,
    // the one thing the partition reads of the text).
    let from_gists =
        !summarizer.reads_text() && !args.redact && !crate::ops::count_api::enabled(ctx)?;
    let (mut loaded, gists) = match session.or(goose_name) {
        Some(n) => (load::load_selected(ctx, path, Some(n))?, None),
        None if from_gists => {
            let look = |m: &Message| (Gist::of(m), Continuation::finishes(m));
            // A JSON document streams under its own bar; another large file names the step.
            let (loaded, gists) = match json_reread::load_observing(ctx, path, &look)? {
                Some(read) => read,
                None => {
                    let _step = reading(ctx, path);
                    load::load_observing(ctx, path, &look)?
                }
            };
            (loaded, Some(gists))
        }
        None => {
            let _step = reading(ctx, path);
            let loaded = load::load_for_rewrite(ctx, path, load::PlanReads::Text)?;
            (loaded, None)
        }
    };
    // A session a walk found in a database is named as `ctxctl sessions` names it.
    let shown = match session {
        Some(id) => format!("{}#{id}", loaded.display()),
        None => loaded.display(),
    };
    let agent = loaded.session.agent_limits;
    let window = loaded.window();
    let next = crate::ops::count_api::prediction(ctx, &loaded)?;
    // The limit for the messages: the effective limit less what the agent sends besides
    // them (its system prompt and tools, from the reported usage).
    let effective = args
        .limits
        .limits(ctx, &loaded.model, &window)?
        .effective_limit() as usize;
    let mut limit = effective.saturating_sub(next.overhead);
    if agent.overflow && args.limits.max_tokens.is_none() {
        // The agent's last request was refused: what fits is less than what is there now.
        limit = limit.min(loaded.total);
        ctx.printer.note(&format!(
            "{shown}: the agent's last request exceeded its context window; compacting to fit \
             under {} tokens",
            thousands(limit as u64)
        ));
    }

    if args.if_needed && !agent.overflow {
        // The same figure `check` uses: the predicted next request against the effective
        // limit.
        let t = budget::threshold(ctx, args.threshold)?.value;
        if !compact::needs_compaction(next.tokens, effective, t) {
            let reason = format!(
                "below the threshold: next request {} of {} tokens ({:.0}% < {:.0}%)",
                thousands(next.tokens as u64),
                thousands(effective as u64),
                ratio(next.tokens, effective) * 100.0,
                t * 100.0
            );
            return Ok(unchanged(
                ctx,
                &shown,
                summarizer.name(),
                reason,
                args.output.dry_run,
                batch,
            ));
        }
    }
    let budget = tail_budget(ctx, args, limit)?;
    let part = match &gists {
        Some(g) => {
            let finished = g.last().is_some_and(|g| g.1);
            compact::partition_ending(&loaded.session, &loaded.counts, budget, finished)
        }
        None => compact::partition(&loaded.session, &loaded.counts, budget),
    };
    if !part.has_middle() {
        let reason = format!(
            "nothing to compact: with a tail of {} tokens no messages are left between the head \
             and the tail (the session has {} tokens)",
            thousands(budget as u64),
            thousands(loaded.total as u64)
        );
        return Ok(unchanged(
            ctx,
            &shown,
            summarizer.name(),
            reason,
            args.output.dry_run,
            batch,
        ));
    }
    // A batch leaves a live session alone only once it would rewrite it: a healthy one
    // is not even mentioned, one that needs compaction is (it needs a person).
    if batch && session.is_none() && args.output.choice().replaces(path) {
        rewrite::guard_batch(ctx, path)?;
    }

    // What `check` on the written file will say besides the messages: the provider's
    // count where it counted, else the hidden part the compaction leaves (carried over
    // with the file too).
    if next.source != crate::ops::predict::NextSource::Api {
        loaded.hidden_after = Some(loaded.hidden_after_rewrite(Some(part.tail.start)));
    }
    let summarized: Vec<usize> = part.summarized().collect();
    let name = rewrite::archive_name(&loaded, args.name.as_deref())?;
    let store = rewrite::open_store(ctx)?;
    let now = clock(ctx)?;
    let job = Job {
        ctx,
        args,
        path,
        from_store,
        shown: &shown,
        // What `check` on the written file will say: the provider's count where it
        // counted, else the hidden part a rewrite leaves (the same figure `carry` keeps).
        next: loaded.hidden_after.unwrap_or(next.overhead),
        part: &part,
        summarized: &summarized,
        name: &name,
        store: &store,
        now,
        batch,
    };

    // A session streamed: its file is read again meanwhile, the originals archived as
    // they come and the rest kept to be written.
    let hole = (gists.is_some() && !args.output.dry_run)
        .then(|| json_reread::hole(&loaded, &summarized))
        .flatten();
    if let Some(hole) = hole {
        return job.compact_around(&mut loaded, summarizer, gists, hole);
    }
    // A summary made here takes moments: the originals, at hand, are archived meanwhile
    // (the lock held from now on; nothing is filed unless the compaction is written).
    if gists.is_some() && !args.output.dry_run && !loaded.session.doc.is_detached() {
        let (dest, tx, slot) = job.claim(&loaded)?;
        let id = CompactInfo::new_id();
        return std::thread::scope(|scope| {
            let early = slot.as_ref().ok().map(|&(seq, _)| {
                let (loaded, job, dest, id, tx) = (&loaded, &job, &dest, &id, &tx);
                scope.spawn(move || tx.begin_archive(loaded, dest, &job.originals(id), seq))
            });
            let made = match job.summarize(&loaded, summarizer, gists)? {
                Ok(made) => made,
                Err(done) => return Ok(done),
            };
            let early = || {
                early.map(|h| {
                    let begun = h.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
                    begun.map(|p| Archiving::Pending(Box::new(p)))
                })
            };
            job.apply(&tx, &loaded, made, &dest, &id, slot, early, None)
        });
    }

    let made = match job.summarize(&loaded, summarizer, gists)? {
        Ok(made) => made,
        Err(done) => return Ok(done),
    };
    if args.output.dry_run {
        // The header names the archive only where one would be filed (the input replaced).
        let replaces =
            (from_store && args.output.output.is_none()) || args.output.choice().replaces(path);
        let info = match replaces {
            true => {
                let (seq, archive) = rewrite::preview_slot(ctx, &name, now)?;
                info(&CompactInfo::new_id(), seq, Some(archive), now)
            }
            false => info(&CompactInfo::new_id(), 0, None, now),
        };
        // The figure the real run decides by: the written result's own count.
        loaded.reattach()?;
        let items = compact::assemble(&loaded.session, &part, &made.summary, &info);
        let planned = formats::write(&loaded.session, &items)
            .ok()
            .and_then(|written| after(ctx, &loaded, &part, &items, &made.summary, &info, &written));
        let tokens = planned.unwrap_or_else(|| compacted(&loaded, &part, &made.summary, &info));
        return dry_run(
            ctx,
            &loaded,
            &part,
            &made.summary,
            tokens,
            made.used,
            &made.recall.measured(&made.summary),
            replaces,
        );
    }
    // Summarized: the messages' text goes, the document's comes back for archiving and
    // writing.
    loaded.reattach()?;
    let (dest, tx, slot) = job.claim(&loaded)?;
    job.apply(
        &tx,
        &loaded,
        made,
        &dest,
        &CompactInfo::new_id(),
        slot,
        || None,
        None,
    )
}

/// The "after" figure of `written`, the compacted session `items` written: the figure a
/// later `count` of it gives. When the format writes nothing but the items and the counts
/// are not scaled (as for trim's plans: [`Loaded::plan_is_exact`]), it is the kept
/// messages' counts and the summary's, and the result need not be read again (debug builds
/// do, to check); otherwise the bytes are counted ([`rewrite::recount::of_bytes`]: never
/// copied when large). `None` when they do not read back.
fn after(
    ctx: &Context,
    loaded: &Loaded,
    part: &compact::Partition,
    items: &[crate::session::Item],
    summary: &str,
    header: &CompactInfo,
    written: &[u8],
) -> Option<usize> {
    if !loaded.plan_is_exact(items) {
        return rewrite::recount::of_bytes(ctx, loaded, written);
    }
    let n = compacted(loaded, part, summary, header);
    debug_assert_eq!(Some(n), loaded.recount(written), "{}", loaded.display());
    Some(n)
}

/// [`after`] of what a compaction wrote: the whole file, or what it appended to the
/// session's document, counted with it (`None` without the document).
fn after_written(
    ctx: &Context,
    loaded: &Loaded,
    part: &compact::Partition,
    items: &[crate::session::Item],
    summary: &str,
    header: &CompactInfo,
    written: &Written,
) -> Option<usize> {
    match written {
        Written::Whole(bytes) => after(ctx, loaded, part, items, summary, header, bytes),
        Written::Appended(_) if loaded.plan_is_exact(items) => {
            Some(compacted(loaded, part, summary, header))
        }
        Written::Appended(suffix) => rewrite::recount::appended(ctx, loaded, suffix),
    }
}

/// One compaction's plan, shared by its steps.
struct Job<'a> {
    ctx: &'a Context,
    args: &'a CompactArgs,
    path: &'a Path,
    from_store: bool,
    shown: &'a str,
    /// What the next request sends besides the messages.
    next: usize,
    part: &'a compact::Partition,
    /// The messages the summary replaces (the middle less those it keeps).
    summarized: &'a [usize],
    /// The session's name in the store.
    name: &'a str,
    /// Opened early: its settings are checked before any work.
    store: &'a ArchiveStore,
    now: Timestamp,
    /// One session of a batch run (`-r`, several files).
    batch: bool,
}

/// The number and file an archive gets, or why there is none.
type Slot = Result<(u64, PathBuf), NoSlot>;

/// Why a compaction files no archive.
#[derive(Debug)]
enum NoSlot {
    /// The result goes elsewhere than the input (`-o`, `--name` with a FILE): the input
    /// keeps every message, so nothing is removed and nothing is archived.
    Untouched,
    /// The store could not give the archive a number or a file.
    Failed(ArchiveError),
}

/// The originals' archive as whatever began it hands it over: still to be finished with
/// its end, or sealed with it already (its end was known before the result was written),
/// to be filed once the result is.
enum Archiving {
    Pending(Box<PendingArchive>),
    Sealed(SealedArchive),
}

impl<'a> Job<'a> {
    /// Where the compacted session goes, its rewrite transaction (holding the session's
    /// lock until it is written), and the number and file its archive gets. A session to be
    /// replaced that changed since it was read is not even archived.
    fn claim(&self, loaded: &Loaded) -> anyhow::Result<(Destination, Transaction<'a>, Slot)> {
        let dest = if self.from_store && self.args.output.output.is_none() {
            Destination::InPlace(self.path.to_path_buf())
        } else {
            let choice = self.args.output.choice();
            write::destination(self.ctx, &choice, Some(self.name), loaded)?
        };
        let bound = if self.batch { Bound::Later } else { Bound::Now };
        let tx =
            Transaction::begin_at(self.ctx, self.store.clone(), self.name, self.now)?.bound(bound);
        tx.ensure_unchanged(&dest, loaded)?;
        let slot = match dest.replaces_input() {
            true => tx.slot().map_err(NoSlot::Failed),
            false => Err(NoSlot::Untouched),
        };
        Ok((dest, tx, slot))
    }

    /// What the compaction archives: the summarized messages.
    fn originals<'o>(&'o self, id: &'o str) -> Originals<'o> {
        Originals {
            id,
            messages: self.summarized,
            first_message: self.part.middle.start,
            paths: Paths::Absolute,
        }
    }

    /// The summary's header, which names the archive `slot` says.
    fn header(&self, id: &str, slot: &Slot) -> CompactInfo {
        match slot {
            Ok((seq, path)) => info(id, *seq, Some(path.clone()), self.now),
            Err(_) => info(id, 0, None, self.now),
        }
    }

    /// The "after" figure of the compaction with `summary` under `header`, when it is known
    /// without writing the result ([`Loaded::new_items_are_exact`]; see [`after`]).
    fn known_after(&self, loaded: &Loaded, summary: &str, header: &CompactInfo) -> Option<usize> {
        loaded
            .new_items_are_exact()
            .then(|| compacted(loaded, self.part, summary, header))
    }

    /// The end of the originals' archive: the summary and the figures (`compacted`: the
    /// "after" figure), and for a compaction that keeps messages in the middle, how to
    /// rebuild the original file from `written`.
    fn archive_end<'l>(
        &self,
        loaded: &'l Loaded,
        used: &str,
        summary: &str,
        compacted: usize,
        written: Option<UndoFrom>,
    ) -> ArchiveEnd<'l> {
        let made = originals::Made {
            by: used,
            summary,
            tokens: compacted,
            undo_from: written,
        };
        self.originals("").end(loaded, made)
    }

    /// Files the originals' archive with its `end`: the one `early` already made (sealed,
    /// or pending), else one begun now as archive `seq`.
    #[allow(clippy::too_many_arguments)]
    fn file_originals(
        &self,
        tx: &Transaction,
        loaded: &Loaded,
        dest: &Destination,
        id: &str,
        seq: u64,
        early: impl FnOnce() -> Option<anyhow::Result<Archiving>>,
        end: &ArchiveEnd,
    ) -> anyhow::Result<Stored> {
        let pending = match early() {
            Some(archiving) => match archiving? {
                Archiving::Sealed(sealed) => return tx.file_sealed(sealed),
                Archiving::Pending(pending) => *pending,
            },
            None => tx.begin_archive(loaded, dest, &self.originals(id), seq)?,
        };
        tx.finish_archive(pending, end)
    }

    /// Writes the compaction: the originals archived first (`early`: whatever is already
    /// archiving them as `slot` says, waited for when the rest is ready), then the
    /// compacted session to `dest`. A compaction that does not make the session smaller
    /// is not applied. `known`: the "after" figure, when known before the result was
    /// written ([`Job::known_after`]).
    #[allow(clippy::too_many_arguments)]
    fn apply(
        &self,
        tx: &Transaction,
        loaded: &Loaded,
        made: Made,
        dest: &Destination,
        id: &str,
        slot: Slot,
        early: impl FnOnce() -> Option<anyhow::Result<Archiving>>,
        known: Option<usize>,
    ) -> anyhow::Result<Done> {
        let (ctx, shown, part) = (self.ctx, self.shown, self.part);
        // The summary's header names the archive. Written once: writers may give new
        // records fresh ids.
        let header = self.header(id, &slot);
        let items = compact::assemble(&loaded.session, part, &made.summary, &header);
        // A device or pipe (`-o /dev/null`) is written to, not staged.
        let regular = match dest {
            Destination::File(p) => !crate::fsutil::is_device(p),
            _ => true,
        };
        if matches!(slot, Err(NoSlot::Untouched)) && Transaction::stages(dest) && regular {
            return self.apply_streamed(tx, loaded, made, dest, &items, &header, known);
        }
        if self.replaces_streamed(loaded, dest, &slot) {
            return self.apply_replacing(
                tx, loaded, made, dest, id, slot, early, known, &items, &header,
            );
        }
        let Made {
            summary,
            used,
            recall,
        } = made;
        // A rewrite that only appends to the input (a Codex rollout's) makes only what it
        // appends: the file is not copied to be written, nor to be archived.
        let written = match rewrite::appends_in_place(dest, loaded) {
            true => formats::write_in_place(&loaded.session, &items),
            false => formats::write(&loaded.session, &items).map(Written::Whole),
        }
        .with_context(|| loaded.display())?;
        let written = &written;
        std::thread::scope(|scope| {
            // The recall, when only the report needs it and it was not measured yet, is
            // measured meanwhile.
            let recall = match recall {
                Recalled::Measured(measured) => Err(measured),
                facts => {
                    let summary = &summary;
                    Ok(scope.spawn(move || facts.measured(summary)))
                }
            };
            // A new file is written and synced beside its destination while the result is
            // counted and the originals filed: only its rename waits for the archive.
            let staging = match written {
                Written::Whole(bytes) if slot.is_ok() && Transaction::stages(dest) => {
                    Some(scope.spawn(|| tx.stage(dest, bytes)))
                }
                _ => None,
            };
            let planned = match known {
                Some(n) => {
                    debug_assert_eq!(
                        after_written(ctx, loaded, part, &items, &summary, &header, written),
                        Some(n)
                    );
                    Some(n)
                }
                None => after_written(ctx, loaded, part, &items, &summary, &header, written),
            };
            if let Some(after) = planned.filter(|&n| n >= loaded.total) {
                let reason = report::not_smaller(loaded.total, after, self.summarized.len());
                return Ok(unchanged(ctx, shown, used, reason, false, self.batch));
            }
            // Messages kept in the middle stand between the summary and the originals'
            // place: `archive restore` rebuilds the file from what is written instead.
            let undo_from = (!part.kept.is_empty()).then_some(match written {
                Written::Whole(bytes) => UndoFrom::Whole(bytes),
                Written::Appended(suffix) => UndoFrom::Appended(suffix),
            });
            let figure = planned.unwrap_or_else(|| compacted(loaded, part, &summary, &header));
            let end = self.archive_end(loaded, used, &summary, figure, undo_from);
            // Archive the originals before the input is replaced (a result written elsewhere
            // leaves them in the input: nothing is archived).
            let archived = match slot {
                Err(NoSlot::Untouched) => None,
                Err(NoSlot::Failed(e)) => Some(Err(anyhow::Error::from(e))),
                Ok((seq, _)) => Some(self.file_originals(tx, loaded, dest, id, seq, early, &end)),
            };
            let staged = staging
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .and_then(Result::transpose);
            let archived = archived.transpose().map_err(|e| {
                e.context(format!(
                    "archiving the originals of {shown}; nothing was changed"
                ))
            })?;
            let tokens = planned.unwrap_or_else(|| compacted(loaded, part, &summary, &header));
            match written {
                Written::Whole(bytes) => {
                    tx.commit(dest, loaded, bytes, archived.as_ref(), staged)?
                }
                Written::Appended(suffix) => {
                    tx.commit_appended(dest, loaded, suffix, archived.as_ref())?
                }
            }
            let recall = match recall {
                Ok(h) => h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
                Err(measured) => measured,
            };
            Ok(self.report(loaded, dest, used, &recall, archived, tokens))
        })
    }

    /// [`Job::apply`] of a compaction written to a new file (`-o FILE`, the store), which
    /// archives nothing: written beside it as it is made, never held whole, counted back
    /// from there as `count` reads a file when the format adds records a plan does not
    /// count, and renamed into place unless it is no smaller.
    #[allow(clippy::too_many_arguments)]
    fn apply_streamed(
        &self,
        tx: &Transaction,
        loaded: &Loaded,
        made: Made,
        dest: &Destination,
        items: &[crate::session::Item],
        header: &CompactInfo,
        known: Option<usize>,
    ) -> anyhow::Result<Done> {
        let (ctx, shown, part) = (self.ctx, self.shown, self.part);
        let Made {
            summary,
            used,
            recall,
        } = made;
        // The output's I/O errors name the output (as a whole write's do); what the format
        // cannot write names the session.
        let mut refused = None;
        let staged = tx.stage_by(dest, &mut |out| {
            formats::write_to(&loaded.session, items, out).map_err(|e| match e {
                crate::session::WriteError::Io(e) => e,
                e => {
                    let said = std::io::Error::other(e.to_string());
                    refused = Some(e);
                    said
                }
            })
        });
        if let Some(e) = refused {
            return Err(anyhow::Error::new(e).context(loaded.display()));
        }
        let staged = staged?.with_context(|| format!("{}: cannot be staged", dest.display()))?;
        let planned = match known {
            Some(n) => Some(n),
            None if loaded.plan_is_exact(items) => Some(compacted(loaded, part, &summary, header)),
            None => crate::ops::rewrite::recount::streamed(ctx, loaded, staged.staged_path()),
        };
        if let Some(after) = planned.filter(|&n| n >= loaded.total) {
            // Dropped uncommitted: the staged file goes.
            drop(staged);
            let reason = report::not_smaller(loaded.total, after, self.summarized.len());
            return Ok(unchanged(ctx, shown, used, reason, false, self.batch));
        }
        let tokens = planned.unwrap_or_else(|| compacted(loaded, part, &summary, header));
        tx.commit_staged(dest, loaded, staged)?;
        let recall = recall.measured(&summary);
        Ok(self.report(loaded, dest, used, &recall, None, tokens))
    }

    /// What a compaction written to `dest` says (its `--json` document, or its lines).
    fn report(
        &self,
        loaded: &Loaded,
        dest: &Destination,
        used: &'static str,
        recall: &recall::Recall,
        archived: Option<Stored>,
        tokens: usize,
    ) -> Done {
        let (ctx, shown) = (self.ctx, self.shown);
        let name = self.name;
        let filed = archived.as_ref().map(|a| a.path.clone());
        let report = Report {
            compacted: true,
            original_tokens: loaded.total,
            compacted_tokens: tokens,
            compaction_ratio: ratio(tokens, loaded.total),
            compacted_messages: self.summarized.len(),
            retained_messages: loaded.session.messages.len() - self.summarized.len(),
            archive: archived.as_ref().map(|a| a.path.display().to_string()),
            output: Some(dest.display()),
            archive_id: archived.map(|a| format!("{name}/{}", a.seq)),
            summarizer: used,
            reason: None,
            next_request_tokens: Some(self.next + tokens),
            dry_run: false,
            recall: Some(report::RecallFigures::of(recall)),
        };
        let doc = if ctx.printer.json {
            (*dest != Destination::Stdout).then_some(Doc::Report(report))
        } else {
            ctx.printer.changed(&format!(
                "compacted {shown}: {} → {} tokens ({:.0}%{}), summarized {} of {} messages{} → {}",
                thousands(report.original_tokens as u64),
                thousands(report.compacted_tokens as u64),
                report.compaction_ratio * 100.0,
                if self.next > 0 {
                    format!("; next request {}", thousands((self.next + tokens) as u64))
                } else {
                    String::new()
                },
                report.compacted_messages,
                loaded.session.messages.len(),
                report
                    .archive_id
                    .as_ref()
                    .map(|id| format!(", archived as {id}"))
                    .unwrap_or_default(),
                dest.display()
            ));
            ctx.printer.note(&recall_line(shown, recall, used));
            None
        };
        Done {
            archived: filed,
            compacted: true,
            ..Done::of(ExitStatus::Success, doc)
        }
    }
}

/// `compacting FILE: reading` on a spinner while a large file is read (until dropped).
fn reading(ctx: &Context, path: &Path) -> crate::render::progress::Phases {
    let phases = ctx.printer.phases(path, "compacting");
    phases.at("reading");
    phases
}
