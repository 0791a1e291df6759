//! `ctxctl grep PATTERN [PATH...]`: the message text of every agent session, the parts the
//! agents compacted away and ctxctl's archives, searched ripgrep-style; each match says
//! where it lives (live, compacted by the agent, archived as ID) and how to get it back.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use clap::Args;

use crate::cli::args::filter::FileFilterArgs;
use crate::context::Context;
use crate::exit::ExitStatus;
use crate::ops::search::{self, Source};
use crate::render::json::{GrepLine, GrepText};
use crate::render::Style;
use crate::search::{FileHits, Hit, MatchOptions, Matcher, Place, Query};

const AFTER_HELP: &str = "\
Searches what the messages say (text, thinking, tool calls' arguments, tools' output),
not the JSON around it: an escaped \\n or \\\" in the file is a newline or a quote here.
Without PATHs: every agent's store (as `ctxctl sessions`) and every ctxctl archive.
A match says where it lives: live (the agent still sends it), compacted (before the
agent's own compaction: in the file, no longer sent) or archived as ID (put it back with
`ctxctl archive restore ID`).

Exit codes: 0 a match · 1 none · 2 an error (a bad pattern, an unreadable file)

Examples:
  ctxctl grep 'DATABASE_URL'
  ctxctl grep -i -w 'migration' --agent claude-code --since 7d
  ctxctl grep -F 'fn main()' --role tool --tool Read -C 2
  ctxctl grep -l 'decided to' ~/.codex/sessions";

/// Search every session's messages, compacted parts and archives.
#[derive(Debug, Args)]
#[command(after_help = AFTER_HELP)]
pub struct GrepArgs {
    /// A regular expression (Rust regex syntax), or a literal string with -F
    #[arg(value_name = "PATTERN")]
    pub pattern: String,
    /// Session files, directories or agent databases to search instead of the agents' stores
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Case-insensitive
    #[arg(short = 'i', long, help_heading = "Matching")]
    pub ignore_case: bool,
    /// Whole words only
    #[arg(short = 'w', long, help_heading = "Matching")]
    pub word_regexp: bool,
    /// The pattern is a literal string, not a regex
    #[arg(short = 'F', long, help_heading = "Matching")]
    pub fixed_strings: bool,
    /// Only messages of these roles (comma-separated)
    #[arg(long, value_name = "ROLE", value_delimiter = ',', value_parser = ["user", "assistant", "tool", "system"], help_heading = "Matching")]
    pub role: Vec<String>,
    /// Only calls of these tools and their output (comma-separated, any case)
    #[arg(
        long,
        value_name = "NAME",
        value_delimiter = ',',
        help_heading = "Matching"
    )]
    pub tool: Vec<String>,
    /// Lines of a message shown around each matching line
    #[arg(
        short = 'C',
        long,
        value_name = "N",
        default_value_t = 0,
        help_heading = "Output"
    )]
    pub context: usize,
    /// Print only the sessions (and archives) that match
    #[arg(short = 'l', long, conflicts_with = "count", help_heading = "Output")]
    pub files_with_matches: bool,
    /// Print how many messages match in each session
    #[arg(short = 'c', long, help_heading = "Output")]
    pub count: bool,
    #[command(flatten)]
    pub filters: FileFilterArgs,
}

pub fn run(ctx: &Context, args: &GrepArgs) -> anyhow::Result<ExitStatus> {
    let opts = MatchOptions {
        ignore_case: args.ignore_case,
        word: args.word_regexp,
        fixed: args.fixed_strings,
    };
    let query = Query {
        matcher: Matcher::new(&args.pattern, opts)?,
        roles: args.role.clone(),
        tools: args.tool.clone(),
        context: args.context,
    };
    let filter = args.filters.filter(None)?;
    let sources = search::sources(ctx, &args.paths, &filter)?;
    let mut out = Out::default();
    search_all(ctx, &sources, &query, &mut |src, found| match found {
        Ok(found) => print_source(ctx, args, src, &found, &mut out),
        Err(e) if crate::exit::is_broken_pipe(&e) => Err(e),
        Err(e) => {
            ctx.report(&e);
            out.errors += 1;
            Ok(())
        }
    })?;
    if ctx.printer.json {
        json_line(
            ctx,
            &GrepLine::Summary {
                searched: sources.len(),
                sessions_matched: out.sessions,
                messages_matched: out.messages,
                errors: out.errors,
            },
        )?;
    } else if sources.is_empty() {
        ctx.printer
            .note("no agent session store found (see `ctxctl doctor`)");
    }
    Ok(if out.errors > 0 {
        ExitStatus::Error
    } else if out.messages > 0 {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}

/// What [`search_all`] hands each source's result to.
type OnFound<'a> = dyn FnMut(&Source, anyhow::Result<FileHits>) -> anyhow::Result<()> + 'a;

/// Searches `sources` on as many threads as there are processors, handing each result
/// to `on` in the sources' order; stops at `on`'s first error.
fn search_all(
    ctx: &Context,
    sources: &[Source],
    q: &Query,
    on: &mut OnFound,
) -> anyhow::Result<()> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = threads.min(sources.len()).min(16);
    if threads <= 1 {
        for src in sources {
            on(src, search::search(ctx, src, q))?;
        }
        return Ok(());
    }
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel();
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            s.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(src) = sources.get(i) else { break };
                    if tx.send((i, search::search(ctx, src, q))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Results come as they are done and are handed on in order.
        let mut waiting = BTreeMap::new();
        let mut due = 0;
        let result = (|| {
            for (i, found) in &rx {
                waiting.insert(i, found);
                while let Some(found) = waiting.remove(&due) {
                    on(&sources[due], found)?;
                    due += 1;
                }
            }
            Ok(())
        })();
        stop.store(true, Ordering::Relaxed);
        result
    })
}

#[derive(Default)]
struct Out {
    sessions: usize,
    messages: usize,
    errors: usize,
}

fn json_line(ctx: &Context, line: &GrepLine) -> anyhow::Result<()> {
    let mut text = serde_json::to_string(line)?;
    text.push('\n');
    ctx.printer.data(text.as_bytes())?;
    Ok(())
}

/// Prints what `src` matched.
fn print_source(
    ctx: &Context,
    args: &GrepArgs,
    src: &Source,
    found: &FileHits,
    out: &mut Out,
) -> anyhow::Result<()> {
    if found.hits.is_empty() {
        return Ok(());
    }
    out.sessions += 1;
    out.messages += found.hits.len();
    let path = src.path.display().to_string();
    let agent = src.agent(ctx);
    let p = &ctx.printer;
    if args.files_with_matches || args.count {
        if p.json {
            return json_line(
                ctx,
                &GrepLine::Session {
                    path: &path,
                    agent,
                    session: src.db_session.as_deref(),
                    archive_id: src.archive.as_deref(),
                    matches: found.hits.len(),
                },
            );
        }
        let shown = match &src.db_session {
            Some(id) => format!("{path}#{id}"),
            None => path.clone(),
        };
        let line = if args.count {
            format!("{shown}:{}\n", found.hits.len())
        } else {
            format!("{shown}\n")
        };
        return Ok(p.data(line.as_bytes())?);
    }
    if p.json {
        for h in &found.hits {
            json_line(ctx, &match_line(src, agent, &path, h))?;
        }
        return Ok(());
    }
    let mut text = String::new();
    if out.sessions > 1 {
        text.push('\n');
    }
    let session = src
        .db_session
        .as_ref()
        .map(|id| format!("#{id}"))
        .unwrap_or_default();
    let title = format!("{path}{session}");
    text.push_str(&format!(
        "{} {}\n",
        p.paint(&title, Style::Green),
        p.paint(&format!("[{agent}]"), Style::Dim)
    ));
    for h in &found.hits {
        text.push_str(&heading(ctx, h));
        text.push('\n');
        for l in &h.lines {
            let sep = if l.is_match { ':' } else { '-' };
            text.push_str(&format!(
                "  {}{sep}{}\n",
                l.number,
                highlight(ctx, &l.text, &l.ranges)
            ));
        }
    }
    Ok(p.data(text.as_bytes())?)
}

/// `record 21 · user · 2026-05-01T10:00:00Z · compacted by the agent …`
fn heading(ctx: &Context, h: &Hit) -> String {
    let mut parts = vec![format!("record {}", h.record), h.role.to_string()];
    if let Some(t) = &h.tool {
        parts.push(format!("tool {t}"));
    }
    if let Some(w) = &h.when {
        parts.push(w.clone());
    }
    let place = match &h.place {
        Place::Live => None,
        Place::CompactedByAgent => Some(
            "compacted away: before a compaction in this file, no longer sent to the model"
                .to_string(),
        ),
        Place::Archived { id } => Some(format!(
            "archived as {id}: put it back with `ctxctl archive restore {id}`"
        )),
    };
    let head = ctx.printer.paint(&parts.join(" · "), Style::Cyan);
    match place {
        Some(pl) => format!("{head} · {}", ctx.printer.paint(&pl, Style::Yellow)),
        None => head,
    }
}

fn highlight(ctx: &Context, text: &str, ranges: &[std::ops::Range<usize>]) -> String {
    if !ctx.printer.color || ranges.is_empty() {
        return text.to_string();
    }
    let mut out = String::new();
    let mut at = 0;
    for r in ranges {
        out.push_str(&text[at..r.start]);
        out.push_str(&ctx.printer.paint(&text[r.clone()], Style::Red));
        at = r.end;
    }
    out.push_str(&text[at..]);
    out
}

fn match_line<'a>(src: &'a Source, agent: &'a str, path: &'a str, h: &'a Hit) -> GrepLine<'a> {
    let archive = match &h.place {
        Place::Archived { id } => Some(id.as_str()),
        _ => None,
    };
    GrepLine::Match {
        path,
        agent,
        session: src.db_session.as_deref(),
        place: h.place.name(),
        archive_id: archive,
        restore: archive.map(|id| format!("ctxctl archive restore {id}")),
        record: h.record,
        timestamp: h.when.as_deref(),
        role: h.role,
        tool: h.tool.as_deref(),
        matches: h.matches,
        lines: h
            .lines
            .iter()
            .map(|l| GrepText {
                line: l.number,
                text: &l.text,
                is_match: l.is_match,
            })
            .collect(),
    }
}
