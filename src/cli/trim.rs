//! `ctxctl trim FILE --strategy S`: cut a session down to a budget without breaking tool
//! calls from their results.

use anyhow::Context as _;
use clap::Args;
use serde::Serialize;

use crate::cli::args::budget::ReserveArgs;
use crate::cli::args::OutputArgs;
use crate::compact::CompactInfo;
use crate::context::Context;
use crate::exit::ExitStatus;
use crate::formats::{self, Written};
use crate::ops::load::{self, Loaded, PlanReads};
use crate::ops::rewrite::{self, originals::Made, Originals, Paths, Transaction, UndoFrom};
use crate::ops::write::{self, Destination};
use crate::ops::{retry, testhook};
use crate::render::table::{table, thousands};
use crate::session::Role;
use crate::strategy::{self, Options, Plan, Selector, StrategyKind};

const AFTER_HELP: &str = "\
Strategies:
  fifo               drop the oldest messages until the session fits
  sliding-window     keep the last --window N messages (N from the budget if not given)
  smart              keep --keep-first N and --keep-last N, one marker for the gap
  selective          keep --keep-roles (and --keep-marked / --pin), drop others oldest first
  composite          apply --chain a,b,... in order, stop as soon as it fits
  tool-results       cut tool results over --max-result-tokens N to head + tail
  mask-tool-results  replace all but the --keep-recent N latest tool results by a placeholder

System messages, the latest user message and pinned messages are always kept; a tool call
and its results are kept or dropped together. --in-place archives what it removes first
(`ctxctl archive restore NAME/SEQ` puts it back); -o FILE and the store leave the input as
it is and archive nothing (as compact).

Examples:
  ctxctl trim session.json --strategy fifo --max-tokens 50000 -o trimmed.json
  ctxctl trim session.jsonl --strategy composite --chain mask-tool-results,smart --in-place";

/// Trim a session to fit a token budget.
#[derive(Debug, Args)]
#[command(after_help = AFTER_HELP)]
pub struct TrimArgs {
    /// The session file (`-` reads standard input); none: this project's newest session
    #[arg(value_name = "FILE")]
    pub file: Option<std::path::PathBuf>,
    /// How to trim
    #[arg(long, value_name = "S", value_parser = StrategyParser, hide_possible_values = true)]
    pub strategy: StrategyKind,
    /// Token budget (default: the model's effective limit)
    #[arg(long, allow_negative_numbers = true, value_name = "N", help_heading = "Budget", value_parser = clap::value_parser!(u64).range(1..=crate::cli::args::budget::MAX_TOKENS))]
    pub max_tokens: Option<u64>,
    #[command(flatten)]
    pub reserve: ReserveArgs,
    /// sliding-window: how many non-system messages to keep
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "N",
        help_heading = "Strategy options"
    )]
    pub window: Option<usize>,
    /// smart: messages kept at the start
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "N",
        help_heading = "Strategy options"
    )]
    pub keep_first: Option<usize>,
    /// smart: messages kept at the end
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "N",
        help_heading = "Strategy options"
    )]
    pub keep_last: Option<usize>,
    /// selective: roles never dropped (comma-separated)
    #[arg(long, value_name = "ROLES", value_delimiter = ',', value_parser = parse_role, help_heading = "Strategy options")]
    pub keep_roles: Vec<Role>,
    /// Never drop messages marked `"_preserve": true`
    #[arg(long, help_heading = "Strategy options")]
    pub keep_marked: bool,
    /// Never drop this message: an index, an id, or /regex/ on its text (repeatable)
    #[arg(long, value_name = "SELECTOR", help_heading = "Strategy options")]
    pub pin: Vec<String>,
    /// composite: strategies to apply in order (comma-separated)
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_strategy, help_heading = "Strategy options")]
    pub chain: Vec<StrategyKind>,
    /// tool-results: results above this many tokens are cut
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "N",
        help_heading = "Strategy options"
    )]
    pub max_result_tokens: Option<usize>,
    /// mask-tool-results: how many recent tool results stay intact
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "N",
        help_heading = "Strategy options"
    )]
    pub keep_recent: Option<usize>,
    #[command(flatten)]
    pub output: OutputArgs,
    /// Store the result as this session name (default: the input's file stem)
    #[arg(long, value_name = "NAME", help_heading = "Output")]
    pub name: Option<String>,
    #[command(flatten)]
    pub here: crate::cli::args::here::PickArgs,
    #[command(flatten)]
    pub resume: crate::cli::args::here::ResumeArgs,
}

fn parse_strategy(s: &str) -> Result<StrategyKind, String> {
    StrategyKind::from_name(s).map_err(|e| e.to_string())
}

/// `--strategy`'s parser: [`parse_strategy`] (and its error listing the names), with the
/// names as possible values so that every completion script offers them.
#[derive(Clone)]
struct StrategyParser;

impl clap::builder::TypedValueParser for StrategyParser {
    type Value = StrategyKind;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<StrategyKind, clap::Error> {
        let parse = parse_strategy as fn(&str) -> Result<StrategyKind, String>;
        parse.parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            StrategyKind::ALL
                .into_iter()
                .map(|k| clap::builder::PossibleValue::new(k.name())),
        ))
    }
}

fn parse_role(s: &str) -> Result<Role, String> {
    Role::parse(s).ok_or_else(|| {
        format!("unknown role {s:?}; expected system, developer, user, assistant or tool")
    })
}

#[derive(Debug, Serialize)]
struct TrimReport {
    strategy: &'static str,
    original_tokens: usize,
    trimmed_tokens: usize,
    removed_messages: usize,
    kept_messages: usize,
    edited_messages: usize,
    fits: bool,
    budget: usize,
    /// The predicted input of the next request after the trim: the agent's hidden part
    /// plus the trimmed messages.
    next_request_tokens: usize,
    dry_run: bool,
    output: Option<String>,
    archive: Option<String>,
    /// `NAME/SEQ` of the archive, as `compact --json` reports it (null when none).
    archive_id: Option<String>,
}

pub fn run(ctx: &Context, args: &TrimArgs) -> anyhow::Result<ExitStatus> {
    // Filled in with this project's session when none was given (`cli::here`).
    let file = args
        .file
        .as_deref()
        .ok_or_else(|| anyhow::anyhow!("no input: give the session FILE"))?;
    ctx.prewarm(file);
    testhook::install(ctx)?;
    retry::retrying(ctx, &load::display(file), || attempt(ctx, args, file))
}

/// One read-plan-write pass (the input may change under the first; see `replace`).
fn attempt(ctx: &Context, args: &TrimArgs, file: &std::path::Path) -> anyhow::Result<ExitStatus> {
    rewrite::guard_input(ctx, &args.output.choice(), file, false)?;
    let phases = ctx.printer.phases(file, "trimming");
    phases.at("reading");
    let mut loaded = load::load_for_rewrite(ctx, file, plan_reads(args))?;
    phases.at("planning");
    // What the next request holds besides the messages (the agent's system prompt and
    // tools, from the reported usage): the default budget leaves room for it.
    let overhead = loaded.prediction().overhead;
    let budget = match args.max_tokens {
        Some(n) => n as usize,
        None => (args
            .reserve
            .limits(ctx, &loaded.model, Some(loaded.window().tokens))?
            .effective_limit() as usize)
            .saturating_sub(overhead),
    };
    let opts = options(args)?;
    for (flag, applies) in ignored_flags(args) {
        ctx.printer.warn(&format!(
            "{flag} is ignored by --strategy {} (it applies to {applies})",
            args.strategy.name()
        ));
    }
    let plan = strategy::plan(
        &loaded.session,
        &loaded.counts,
        &loaded.counter,
        args.strategy,
        &opts,
        budget,
    )?;
    phases.suspend(|| {
        for w in &plan.warnings {
            ctx.printer.warn(&format!("{}: {w}", loaded.display()));
        }
    });
    if plan.items.is_empty() && !loaded.session.messages.is_empty() {
        // An empty JSONL file is not a session anyone can read back (ctxctl included).
        anyhow::bail!(
            "{}: {} would remove every message (budget {budget} tokens); nothing was written: \
             raise --max-tokens, or pin what must stay with --pin",
            loaded.display(),
            args.strategy.name()
        );
    }
    // Lone surrogates were read as U+FFFD: writing the file back mends them, so the agent's
    // next request is valid even when nothing else changes.
    let mends = loaded.session.agent_limits.lone_surrogates;
    let changed = !plan.is_unchanged() || mends.is_some();
    let mut report = TrimReport {
        strategy: args.strategy.name(),
        original_tokens: loaded.total,
        trimmed_tokens: plan.tokens,
        removed_messages: plan.removed.len(),
        kept_messages: loaded.session.messages.len() - plan.removed.len(),
        edited_messages: plan.edited.len(),
        fits: plan.fits,
        budget,
        next_request_tokens: overhead + plan.tokens,
        dry_run: args.output.dry_run,
        output: None,
        archive: None,
        archive_id: None,
    };
    if args.output.dry_run {
        phases.done();
        print_dry_run(ctx, &loaded, &plan, &report)?;
        return Ok(if changed {
            ExitStatus::Failure
        } else {
            ExitStatus::Success
        });
    }
    let dest = write::destination(ctx, &args.output.choice(), args.name.as_deref(), &loaded)?;
    phases.at("writing");
    // Planned: the messages' text goes, the document's comes back for archiving and writing.
    loaded.reattach()?;
    // Written as it is made unless replacing the input (archived with an undo script made
    // from the output) or counted again (a format that adds records of its own) from bytes
    // that cannot be read back (standard output, a device).
    let exact = loaded.plan_is_exact(&plan.items);
    let reread = written_file(&dest);
    let whole = dest.replaces_input() || (!exact && reread.is_none());
    // A rewrite that only appends to the input (a Codex rollout's) makes only what it
    // appends: the file is never copied, its archive's undo script made from the two.
    let written = match () {
        _ if changed && rewrite::appends_in_place(&dest, &loaded) => {
            formats::write_in_place(&loaded.session, &plan.items)
        }
        _ if whole => formats::write(&loaded.session, &plan.items).map(Written::Whole),
        _ => Ok(Written::Whole(Vec::new())),
    };
    let (bytes, suffix) = match written.with_context(|| loaded.display())? {
        Written::Whole(bytes) => (bytes, None),
        Written::Appended(suffix) => (Vec::new(), Some(suffix)),
    };
    // To another destination than the input: the bytes made, or made as they are written.
    let write_out = |dest: &Destination| match whole {
        true => rewrite::write_new(ctx, dest, &loaded, &bytes),
        false => rewrite::write_new_by(ctx, dest, &loaded, &mut |out| {
            formats::write_to(&loaded.session, &plan.items, out).map_err(|e| match e {
                crate::session::WriteError::Io(e) => e,
                e => std::io::Error::other(e),
            })
        }),
    };
    if dest.replaces_input() && !changed {
        phases.done();
        ctx.printer.note(&format!(
            "{}: nothing to trim; file left as it was",
            loaded.display()
        ));
    } else if dest.replaces_input() {
        // Archive what goes before anything is replaced, under the session's lock.
        phases.at("archiving");
        let tx = Transaction::begin(ctx, &rewrite::archive_name(&loaded, args.name.as_deref())?)?;
        let mut touched: Vec<usize> = plan.removed.iter().chain(&plan.edited).copied().collect();
        touched.sort_unstable();
        let originals = Originals {
            id: &CompactInfo::new_id(),
            messages: &touched,
            first_message: 0,
            paths: Paths::AsGiven,
        };
        let made = Made {
            by: &format!("trim:{}", args.strategy.name()),
            summary: &format!(
                "trim --strategy {} removed messages {:?} and shortened {:?}",
                args.strategy.name(),
                plan.removed,
                plan.edited
            ),
            tokens: plan.tokens,
            undo_from: Some(match &suffix {
                Some(suffix) => UndoFrom::Appended(suffix),
                None => UndoFrom::Whole(&bytes),
            }),
        };
        let end = originals.end(&loaded, made);
        let stored = tx.file(&loaded, &dest, &originals, &end).with_context(|| {
            format!(
                "archiving what {} removes; nothing was changed",
                loaded.display()
            )
        })?;
        match &suffix {
            Some(suffix) => tx.commit_appended(&dest, &loaded, suffix, Some(&stored))?,
            None => tx.commit(&dest, &loaded, &bytes, Some(&stored), None)?,
        }
        report.archive = Some(stored.path.display().to_string());
        report.archive_id = Some(format!("{}/{}", tx.name(), stored.seq));
    } else if let Destination::Store { name, .. } = &dest {
        // Another ctxctl may be compacting or trimming the stored copy.
        let _tx = Transaction::begin(ctx, name)?;
        write_out(&dest)?;
    } else {
        write_out(&dest)?;
    }
    // The "after" figure is a count of what is written when an agent format adds records
    // the plan does not count (e.g. Claude Code's rewrite marker); the plan's own figure is
    // exact otherwise. Counted once the original's text is no longer needed, so that it,
    // the output and the output's messages are never held at once.
    if changed && !exact {
        phases.at("counting what was written");
        let recounted = match (whole, reread, &suffix) {
            // Appended: the document and what was appended to it, never put together.
            (_, _, Some(suffix)) => rewrite::recount::appended(ctx, &loaded, suffix),
            (false, Some(p), None) => {
                loaded.release_document();
                rewrite::recount::streamed(ctx, &loaded, p)
            }
            _ => {
                loaded.release_document();
                loaded.recount_owned(bytes)
            }
        };
        if let Some(n) = recounted {
            report.trimmed_tokens = n;
            report.next_request_tokens = overhead + n;
        }
    } else {
        drop(bytes);
    }
    phases.done();
    if let Some((n, _)) = mends {
        ctx.printer.note(&format!(
            "{}: wrote {n} lone UTF-16 surrogate escape(s) as U+FFFD",
            dest.display()
        ));
    }
    report.output = Some(dest.display());
    if ctx.printer.json {
        if dest != Destination::Stdout {
            ctx.printer.json(&report)?;
        }
    } else {
        ctx.printer.note(&format!(
            "trimmed {} with {}: {} → {} tokens (budget {}{}), removed {} of {} messages{}{} → {}",
            loaded.display(),
            report.strategy,
            thousands(report.original_tokens as u64),
            thousands(report.trimmed_tokens as u64),
            thousands(budget as u64),
            next_request(overhead, report.next_request_tokens),
            report.removed_messages,
            loaded.session.messages.len(),
            if report.edited_messages > 0 {
                format!(", edited {}", report.edited_messages)
            } else {
                String::new()
            },
            if report.fits {
                ""
            } else {
                " (still over budget)"
            },
            dest.display()
        ));
    }
    Ok(ExitStatus::Success)
}

/// The file a rewrite written to `dest` can be read back from once written: `-o FILE` (a
/// regular file, or none yet) and the store; not standard output or a device.
fn written_file(dest: &Destination) -> Option<&std::path::Path> {
    match dest {
        Destination::File(p) | Destination::Store { path: p, .. } => {
            let regular = std::fs::metadata(p).map_or(true, |m| m.is_file());
            regular.then_some(p.as_path())
        }
        Destination::Stdout | Destination::InPlace(_) => None,
    }
}

/// What the plan of `args` reads of the messages: tool-results and mask-tool-results
/// rewrite results and a `/regex/` pin matches text; the other strategies need only roles,
/// ids, tool calls, counts and which messages are omission markers (kept whole).
fn plan_reads(args: &TrimArgs) -> PlanReads {
    let reads_text =
        |k: &StrategyKind| matches!(k, StrategyKind::ToolResults | StrategyKind::MaskToolResults);
    let regex_pin = (args.pin.iter()).any(|p| matches!(Selector::parse(p), Ok(Selector::Regex(_))));
    if regex_pin || reads_text(&args.strategy) || args.chain.iter().any(reads_text) {
        PlanReads::Text
    } else {
        PlanReads::Structure
    }
}

fn options(args: &TrimArgs) -> anyhow::Result<Options> {
    let mut opts = Options {
        window: args.window,
        ..Options::default()
    };
    if let Some(n) = args.keep_first {
        opts.keep_first = n;
    }
    if let Some(n) = args.keep_last {
        opts.keep_last = n;
    }
    opts.keep_roles = args.keep_roles.clone();
    opts.keep_marked = args.keep_marked;
    opts.pins = args
        .pin
        .iter()
        .map(|p| Selector::parse(p))
        .collect::<Result<_, _>>()?;
    opts.chain = args.chain.clone();
    if let Some(n) = args.max_result_tokens {
        opts.max_result_tokens = n;
    }
    if let Some(n) = args.keep_recent {
        opts.keep_recent = n;
    }
    if args.strategy == StrategyKind::Composite && opts.chain.is_empty() {
        anyhow::bail!(
            "--strategy composite needs --chain, e.g. --chain mask-tool-results,smart,fifo"
        );
    }
    Ok(opts)
}

/// `; next request N` when the agent sends more than the messages.
fn next_request(overhead: usize, tokens: usize) -> String {
    if overhead == 0 {
        String::new()
    } else {
        format!("; next request {}", thousands(tokens as u64))
    }
}

fn print_dry_run(
    ctx: &Context,
    l: &Loaded,
    plan: &Plan,
    report: &TrimReport,
) -> anyhow::Result<()> {
    if ctx.printer.json {
        #[derive(Serialize)]
        struct Removed {
            index: usize,
            role: &'static str,
            tokens: usize,
        }
        #[derive(Serialize)]
        struct DryRun<'a> {
            #[serde(flatten)]
            report: &'a TrimReport,
            removed: Vec<Removed>,
            edited: &'a [usize],
        }
        let removed = plan
            .removed
            .iter()
            .map(|&i| Removed {
                index: i,
                role: l.session.messages[i].role.name(),
                tokens: l.counts[i],
            })
            .collect();
        ctx.printer.json(&DryRun {
            report,
            removed,
            edited: &plan.edited,
        })?;
        return Ok(());
    }
    let p = &ctx.printer;
    if plan.removed.is_empty() && plan.edited.is_empty() {
        p.line(&format!(
            "{}: nothing to trim ({} tokens)",
            l.display(),
            thousands(l.total as u64)
        ))?;
        return Ok(());
    }
    let mut rows: Vec<Vec<String>> = plan
        .removed
        .iter()
        .map(|&i| {
            vec![
                i.to_string(),
                l.session.messages[i].role.name().into(),
                thousands(l.counts[i] as u64),
                "remove".into(),
            ]
        })
        .collect();
    rows.extend(plan.edited.iter().map(|&i| {
        vec![
            i.to_string(),
            l.session.messages[i].role.name().into(),
            thousands(l.counts[i] as u64),
            "shorten".into(),
        ]
    }));
    rows.sort_by_key(|r| r[0].parse::<usize>().unwrap_or(0));
    p.line(&table(&["#", "role", "tokens", "action"], &rows, &[0, 2]))?;
    p.line(&format!(
        "would trim {} with {}: {} → {} tokens (budget {})",
        l.display(),
        report.strategy,
        thousands(report.original_tokens as u64),
        thousands(report.trimmed_tokens as u64),
        thousands(report.budget as u64)
    ))?;
    Ok(())
}

/// The strategy options given that no strategy of this run reads (a composite runs its
/// chain), each with the strategy it belongs to.
fn ignored_flags(args: &TrimArgs) -> Vec<(&'static str, &'static str)> {
    let mut used = vec![args.strategy];
    if args.strategy == StrategyKind::Composite {
        used.extend(args.chain.iter().copied());
    }
    let given = [
        (
            "--window",
            args.window.is_some(),
            StrategyKind::SlidingWindow,
        ),
        (
            "--keep-first",
            args.keep_first.is_some(),
            StrategyKind::Smart,
        ),
        ("--keep-last", args.keep_last.is_some(), StrategyKind::Smart),
        (
            "--keep-roles",
            !args.keep_roles.is_empty(),
            StrategyKind::Selective,
        ),
        ("--chain", !args.chain.is_empty(), StrategyKind::Composite),
        (
            "--max-result-tokens",
            args.max_result_tokens.is_some(),
            StrategyKind::ToolResults,
        ),
        (
            "--keep-recent",
            args.keep_recent.is_some(),
            StrategyKind::MaskToolResults,
        ),
    ];
    given
        .into_iter()
        .filter(|(_, set, kind)| *set && !used.contains(kind))
        .map(|(flag, _, kind)| (flag, kind.name()))
        .collect()
}
