//! Compacting one session: partition, summarize, archive the middle, write the result.

use std::path::Path;

use anyhow::Context as _;

use super::report::{self, dry_run, recall_line, unchanged, Doc, Done, Report};
use super::settings::{self, tail_budget};
use super::{absolute, archive_name, compacted, info, ratio, CompactArgs};
use crate::archive::{self, ArchiveRecord, Tokens};
use crate::cli::args::limits;
use crate::compact::{self, CompactInfo};
use crate::context::Context;
use crate::exit::ExitStatus;
use crate::formats;
use crate::ops::load;
use crate::ops::store::{clock, lock};
use crate::ops::write::{self, Destination};
use crate::render::table::thousands;
use crate::summarize::{recall, Input, Summarizer};

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
) -> anyhow::Result<Done> {
    // `--name` found in goose's database rather than in the store: that goose session.
    let goose_name = (from_store && load::is_database(path))
        .then_some(args.name.as_deref())
        .flatten();
    let mut loaded = match session.or(goose_name) {
        Some(n) => load::load_selected(ctx, path, Some(n))?,
        None => load::load_for_rewrite(ctx, path, load::PlanReads::Text)?,
    };
    // A session a walk found in a database is named as `ctxctl sessions` names it.
    let shown = match session {
        Some(id) => format!("{}#{id}", loaded.display()),
        None => loaded.display(),
    };
    let agent = loaded.session.agent_limits;
    let window = loaded.window();
    let next = crate::ops::exact::prediction(ctx, &loaded)?;
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

    let summarized: Vec<usize> = part.summarized().collect();
    // The messages the summary replaces: the middle, less those it keeps verbatim.
    let picked: Vec<crate::session::Message>;
    let middle = if part.kept.is_empty() {
        &loaded.session.messages[part.middle.clone()]
    } else {
        picked = (summarized.iter())
            .map(|&i| loaded.session.messages[i].clone())
            .collect();
        &picked[..]
    };
    let input = Input::new(middle)
        .with_instructions(args.instructions.clone())
        .with_redaction(args.redact);
    let spinner = ctx
        .printer
        .spinner(&format!("summarizing {} messages", middle.len()));
    let summary = summarizer.summarize(&input, &loaded.counter);
    spinner.finish_and_clear();
    let mut used = summarizer.name();
    let summary = match summary {
        Ok(s) => s,
        Err(e) if args.fallback.is_some() => {
            let fallback = settings::offline(ctx, args);
            ctx.printer.warn(&format!(
                "{shown}: the {used} summarizer failed ({e}); using the offline summary (--fallback)"
            ));
            used = fallback.name();
            fallback.summarize(&input, &loaded.counter)?
        }
        Err(e) => {
            let err = anyhow::Error::new(e).context(format!("{shown}: the summarizer failed"));
            ctx.printer.error(&err);
            ctx.printer.hint(
                "nothing was changed; check the llm settings with `ctxctl config`, or pass \
                 --fallback offline",
            );
            return Ok(Done {
                status: ExitStatus::SummarizerFailed,
                doc: None,
            });
        }
    };
    // The self-check: which facts of the replaced messages the summary mentions. A model's
    // summary gets the list of those it left out.
    let facts = input.with_secrets_removed(|i| recall::facts_of(i.facts()));
    let recall = recall::measure(&facts, &summary);
    let summary = if used != "offline" && !recall.missing.is_empty() {
        format!(
            "{}\n\n{}",
            summary.trim_end(),
            recall::appendix(&recall.missing)
        )
    } else {
        summary
    };
    if let Some(min) = settings::min_recall(args)?.filter(|&m| recall.score() < m) {
        ctx.printer.error(&anyhow::anyhow!(
            "{shown}: the summary's {} is below --min-recall {min}",
            recall.describe()
        ));
        ctx.printer.hint(
            "nothing was changed; keep a longer tail (--tail-tokens), allow a longer summary \
             (--summary-tokens) or lower --min-recall",
        );
        return Ok(Done {
            status: ExitStatus::SummarizerFailed,
            doc: None,
        });
    }

    let name = match &loaded.db_session {
        // Archives of a database session are filed under its id.
        Some(s) => s.archive_name(),
        None => archive_name(args, &loaded.path)?,
    };
    let store = ctx.archive_store()?;
    let now = clock(ctx)?;
    if args.output.dry_run {
        let seq = store.next_seq(&name)?;
        let info = info(
            &CompactInfo::new_id(),
            seq,
            Some(store.path_for(&name, seq, now)?),
            now,
        );
        return dry_run(ctx, &loaded, &part, &summary, &info, used, &recall);
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
        let bytes = formats::write(&loaded.session, &items).with_context(|| loaded.display())?;
        loaded.recount(&bytes)
    };
    if let Some(after) = planned.filter(|&n| n >= loaded.total) {
        let reason = format!(
            "not compacted: the result would not be smaller ({} → {} tokens; the summary \
             outweighs the {} messages it replaces)",
            thousands(loaded.total as u64),
            thousands(after as u64),
            summarized.len()
        );
        return Ok(unchanged(ctx, &shown, used, reason, false));
    }

    let dest = if from_store && args.output.output.is_none() {
        Destination::InPlace(path.to_path_buf())
    } else {
        write::destination(ctx, &args.output.choice(), Some(&name), &loaded)?
    };
    let _lock = lock(ctx, &store, &name)?;
    if let Destination::InPlace(_) = &dest {
        // Do not even archive a session that already changed.
        loaded.ensure_unchanged()?;
    }
    let id = CompactInfo::new_id();
    // Archive the originals before anything is replaced.
    let archived = (|| {
        let seq = store.next_seq(&name)?;
        let info = info(&id, seq, Some(store.path_for(&name, seq, now)?), now);
        // Messages kept in the middle stand between the summary and the originals' place:
        // `archive restore` rebuilds the file from what is written instead.
        // Written once: writers may give new records fresh ids.
        let items = compact::assemble(&loaded.session, &part, &summary, &info);
        let written = formats::write(&loaded.session, &items).with_context(|| loaded.display())?;
        let undo = match (part.kept.is_empty(), loaded.session.doc.text()) {
            (false, Some(original)) => Some(archive::Undo::new(original, &written)),
            _ => None,
        };
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
            summarizer: used.to_string(),
            tokens: Tokens {
                original: loaded.total,
                compacted: planned.unwrap_or_else(|| compacted(&loaded, &part, &summary, &info)),
                archived: summarized.iter().map(|&i| loaded.counts[i]).sum(),
            },
            first_message: summarized.first().copied().unwrap_or(part.middle.start),
            messages: summarized.len(),
            summary: summary.clone(),
            records: archive::records_of(&loaded.session, &summarized)?,
            undo,
            agent_session: loaded.db_session.as_ref().map(|s| s.id().to_string()),
        };
        let stored = store.put(&name, &record)?;
        Ok::<_, anyhow::Error>((info, stored, written))
    })();
    let (info, archived, written) = match archived {
        Ok((info, stored, written)) => (info, Some((stored.seq, stored.path)), Some(written)),
        Err(e) if dest.replaces_input() => {
            return Err(e.context(format!(
                "archiving the originals of {shown}; nothing was changed"
            )))
        }
        Err(e) => {
            ctx.printer.warn(&format!(
                "cannot archive the originals of {shown} ({e}); writing the compacted session anyway"
            ));
            (info(&id, 0, None, now), None, None)
        }
    };
    let bytes = match written {
        Some(b) => b,
        None => {
            let items = compact::assemble(&loaded.session, &part, &summary, &info);
            formats::write(&loaded.session, &items).with_context(|| loaded.display())?
        }
    };
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
        compacted_messages: summarized.len(),
        retained_messages: loaded.session.messages.len() - summarized.len(),
        archive: archived.as_ref().map(|(_, p)| p.display().to_string()),
        output: Some(dest.display()),
        archive_id: archived.map(|(seq, _)| format!("{name}/{seq}")),
        summarizer: used,
        reason: None,
        next_request_tokens: Some(next.overhead + tokens),
        dry_run: false,
        recall: Some(report::RecallFigures::of(&recall)),
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
        ctx.printer.note(&recall_line(&shown, &recall, used));
        None
    };
    Ok(Done {
        status: ExitStatus::Success,
        doc,
    })
}
