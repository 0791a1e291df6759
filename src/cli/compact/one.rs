//! Compacting one session: partition, summarize, archive the middle, write the result.

use std::path::Path;

use super::report::{dry_run, unchanged, Doc, Done, Report};
use super::settings::tail_budget;
use super::{absolute, archive_name, compacted, info, ratio, CompactArgs};
use crate::archive::{self, ArchiveRecord, ArchiveStore, Tokens};
use crate::cli::args::limits;
use crate::compact::{self, CompactInfo};
use crate::context::Context;
use crate::exit::ExitStatus;
use crate::formats;
use crate::ops::load;
use crate::ops::store::{clock, lock};
use crate::ops::write::{self, Destination};
use crate::render::table::thousands;
use crate::summarize::{Input, Summarizer};

/// Compacts one session (`from_store`: the store's copy of `--name`, compacted in place).
/// Prints its human report; the `--json` document is returned for the caller to print.
pub fn compact_file(
    ctx: &Context,
    args: &CompactArgs,
    summarizer: &dyn Summarizer,
    path: &Path,
    from_store: bool,
) -> anyhow::Result<Done> {
    let mut loaded = load::load_for_rewrite(ctx, path)?;
    let shown = loaded.display();
    let agent = loaded.session.agent_limits;
    let window = loaded.window();
    let next = loaded.prediction();
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
        let t = limits::threshold(ctx, args.threshold)?.value;
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
            ));
        }
    }
    let budget = tail_budget(ctx, args, limit)?;
    let part = compact::partition(&loaded.session, &loaded.counts, budget);
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
        ));
    }

    let middle = &loaded.session.messages[part.middle.clone()];
    let input = Input::new(middle)
        .with_instructions(args.instructions.clone())
        .with_redaction(args.redact);
    let spinner = ctx
        .printer
        .spinner(&format!("summarizing {} messages", middle.len()));
    let summary = summarizer.summarize(&input, &loaded.counter);
    spinner.finish_and_clear();
    let summary = match summary {
        Ok(s) => s,
        Err(e) => {
            let err = anyhow::Error::new(e).context(format!("{shown}: the summarizer failed"));
            ctx.printer.error(&err);
            ctx.printer
                .hint("nothing was changed; check the llm settings with `ctxctl config`");
            return Ok(Done {
                status: ExitStatus::SummarizerFailed,
                doc: None,
            });
        }
    };

    let name = archive_name(args, &loaded.path);
    let store = ArchiveStore::new(ctx.data_dir()?.value);
    let now = clock(ctx)?;
    if args.output.dry_run {
        let seq = store.next_seq(&name)?;
        let info = info(
            &CompactInfo::new_id(),
            seq,
            Some(store.path_for(&name, seq, now)?),
            now,
        );
        return dry_run(ctx, &loaded, &part, &summary, &info, summarizer.name());
    }
    // Summarized: the messages' text goes, the document's comes back for archiving and
    // writing.
    loaded.reattach()?;
    // What the file would count once written (the summary's header names the archive):
    // a compaction that does not make the session smaller is not applied.
    let planned = {
        // A store that cannot be written is reported below, where archiving fails.
        let seq = store.next_seq(&name).unwrap_or(1);
        let path = store.path_for(&name, seq, now).ok();
        let info = info(&CompactInfo::new_id(), seq, path, now);
        let items = compact::assemble(&loaded.session, &part, &summary, &info);
        let bytes = formats::write(&loaded.session, &items)?;
        loaded.recount(&bytes)
    };
    if let Some(after) = planned.filter(|&n| n >= loaded.total) {
        let reason = format!(
            "not compacted: the result would not be smaller ({} → {} tokens; the summary \
             outweighs the {} messages it replaces)",
            thousands(loaded.total as u64),
            thousands(after as u64),
            part.middle.len()
        );
        return Ok(unchanged(ctx, &shown, summarizer.name(), reason, false));
    }

    let dest = if from_store && args.output.output.is_none() {
        Destination::InPlace(path.to_path_buf())
    } else {
        write::destination(ctx, &args.output.choice(), Some(&name), &loaded)?
    };
    let _lock = lock(ctx, &store, &name)?;
    if let Destination::InPlace(p) = &dest {
        // Do not even archive a session that already changed.
        load::ensure_unchanged(p, loaded.fingerprint)?;
    }
    let id = CompactInfo::new_id();
    // Archive the originals before anything is replaced.
    let archived = (|| {
        let seq = store.next_seq(&name)?;
        let info = info(&id, seq, Some(store.path_for(&name, seq, now)?), now);
        let record = ArchiveRecord {
            seq: Some(seq),
            compact_id: id.clone(),
            created: now,
            source: (path != Path::new("-")).then(|| absolute(path)),
            output: match &dest {
                Destination::Stdout => None,
                d => Some(absolute(Path::new(&d.display()))),
            },
            format: loaded.session.format.name().to_string(),
            model: Some(loaded.model.name.clone()),
            summarizer: summarizer.name().to_string(),
            tokens: Tokens {
                original: loaded.total,
                compacted: planned.unwrap_or_else(|| compacted(&loaded, &part, &summary, &info)),
                archived: loaded.counts[part.middle.clone()].iter().sum(),
            },
            first_message: part.middle.start,
            messages: part.middle.len(),
            summary: summary.clone(),
            records: archive::original_records(&loaded.session, part.middle.clone())?,
            undo: None,
        };
        let stored = store.put(&name, &record)?;
        Ok::<_, archive::ArchiveError>((info, stored))
    })();
    let (info, archived) = match archived {
        Ok((info, stored)) => (info, Some((stored.seq, stored.path))),
        Err(e) if dest.replaces_input() => {
            return Err(anyhow::Error::new(e).context(format!(
                "archiving the originals of {shown}; nothing was changed"
            )))
        }
        Err(e) => {
            ctx.printer.warn(&format!(
                "cannot archive the originals of {shown} ({e}); writing the compacted session anyway"
            ));
            (info(&id, 0, None, now), None)
        }
    };
    let items = compact::assemble(&loaded.session, &part, &summary, &info);
    let bytes = formats::write(&loaded.session, &items)?;
    // The "after" figure is a count of what is written.
    let tokens = loaded
        .recount(&bytes)
        .unwrap_or_else(|| compacted(&loaded, &part, &summary, &info));
    let archive_path = archived.as_ref().map(|(_, p)| p.as_path());
    write::write_archived(ctx, &dest, &loaded, &bytes, archive_path)?;

    let report = Report {
        compacted: true,
        original_tokens: loaded.total,
        compacted_tokens: tokens,
        compaction_ratio: ratio(tokens, loaded.total),
        compacted_messages: part.middle.len(),
        retained_messages: part.head.len() + part.tail.len(),
        archive: archived.as_ref().map(|(_, p)| p.display().to_string()),
        output: Some(dest.display()),
        archive_id: archived.map(|(seq, _)| format!("{name}/{seq}")),
        summarizer: summarizer.name(),
        reason: None,
        next_request_tokens: Some(next.overhead + tokens),
        dry_run: false,
    };
    let doc = if ctx.printer.json {
        (dest != Destination::Stdout).then_some(Doc::Report(report))
    } else {
        ctx.printer.note(&format!(
            "compacted {shown}: {} → {} tokens ({:.0}%{}), summarized {} of {} messages{} → {}",
            thousands(report.original_tokens as u64),
            thousands(report.compacted_tokens as u64),
            report.compaction_ratio * 100.0,
            if next.overhead > 0 {
                format!(
                    "; next request {}",
                    thousands((next.overhead + tokens) as u64)
                )
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
        None
    };
    Ok(Done {
        status: ExitStatus::Success,
        doc,
    })
}
