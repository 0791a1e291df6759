//! `ctxctl sessions` (`ls`): every agent session on the machine, ranked — agent, project,
//! last activity, messages, the next request's tokens and share of the effective limit (the `limit` column), the status
//! `check` would give, and the archives ctxctl keeps of it.

use std::cmp::Ordering;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::archive::ArchiveStore;
use crate::cli::args::filter::{FileFilterArgs, ResultFilterArgs};
use crate::context::Context;
use crate::exit::ExitStatus;
use crate::ops::sessions::{self, Candidate, Measured};
use crate::ops::{batch, load};
use crate::render::json::{SessionRow, SessionsReport};
use crate::render::table::{Cell, Table};
use crate::render::{Printer, Report};

const AFTER_HELP: &str = "\
Without DIRs, the agents' own stores are searched: Claude Code ($CLAUDE_CONFIG_DIR or
~/.claude/projects), Codex ($CODEX_HOME or ~/.codex/sessions), Gemini CLI (~/.gemini/tmp)
and goose (its sessions.db and older JSONL files). Subagent transcripts are folded into
their session. Figures are those of `ctxctl check`, from its cache when a file is unchanged:
`usage` is the next request's share of `limit` (the window less the reply's reserve). On a
terminal the rows fit its width (COLUMNS), the path cut from its start; piped, nothing is cut.
Sorting is largest, newest and worst first for numbers, times and statuses, A to Z for
text; --reverse flips it.

Examples:
  ctxctl sessions
  ctxctl ls --agent claude-code --since 7d --sort tokens
  ctxctl sessions --status compact,over --json
  ctxctl sessions --tsv | sort -t$'\\t' -k6 -n";

/// List every agent session: how full it is and what to compact.
#[derive(Debug, Args)]
#[command(after_help = AFTER_HELP)]
pub struct SessionsArgs {
    /// Directories (or agent databases) to search instead of the agents' stores
    #[arg(value_name = "DIR")]
    pub roots: Vec<PathBuf>,
    #[command(flatten)]
    pub filters: FileFilterArgs,
    #[command(flatten)]
    pub results: ResultFilterArgs,
    /// Sort by this column
    #[arg(long, value_enum, value_name = "COLUMN", default_value_t = SortKey::Activity, help_heading = "Output")]
    pub sort: SortKey,
    /// Reverse the order
    #[arg(long, help_heading = "Output")]
    pub reverse: bool,
}

/// `--sort` columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SortKey {
    Agent,
    Project,
    Activity,
    Messages,
    Tokens,
    Usage,
    Status,
    Archives,
    Path,
}

pub fn run(ctx: &Context, args: &SessionsArgs) -> anyhow::Result<ExitStatus> {
    let filter = args.filters.filter(Some(&args.results))?;
    let roots = sessions::roots(ctx, &args.roots);
    for r in &roots {
        ctx.printer.debug(&format!("searching {}", r.display()));
    }
    // The listing index (a few MB for thousands of sessions) is read while the stores
    // are walked: a warm listing is those two and little else.
    let (candidates, listing) = std::thread::scope(|s| {
        let listing = s.spawn(|| sessions::listing(ctx));
        let candidates = sessions::discover(ctx, &roots, &filter);
        let listing = listing
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        anyhow::Ok((candidates?, listing?))
    })?;
    let store = ctx.data_dir().ok().map(|d| ArchiveStore::new(d.value));
    let archived = store.as_ref().and_then(|s| s.sessions().ok());
    let archived = archived.map(|names| names.into_iter().collect());
    let mut status = ExitStatus::Success;
    let mut rows = Vec::new();
    let work = |c: &Candidate| sessions::measure_listed(ctx, c, listing.as_ref());
    batch::run_items_one_heavy(
        ctx,
        &candidates,
        "measuring",
        usize::MAX,
        sessions::heavy,
        work,
        |c, outcome| {
            let (measured, failure) = match outcome {
                Ok(m) => (Ok(m), None),
                Err(e) if crate::exit::is_broken_pipe(&e) => return Err(e),
                Err(e) => (Err(format!("{e:#}")), Some(e)),
            };
            let row = row(
                c,
                measured,
                sessions::archives(store.as_ref(), archived.as_ref(), c),
            );
            if !filter.keeps_result(row.next_request_tokens.unwrap_or(0), row.status) {
                return Ok(());
            }
            // A failed session is reported (and fails the run) only when it is listed.
            if let Some(e) = failure {
                ctx.report(&e);
                status = status.worst(ExitStatus::Error);
            }
            rows.push(row);
            Ok(())
        },
    )?;
    if let Some(Err(e)) = listing.map(|l| l.save()) {
        ctx.printer.debug(&format!("listing index not saved: {e}"));
    }
    sort(&mut rows, args.sort, args.reverse);
    let now = crate::ops::store::clock(ctx)?.unix();
    ctx.printer.report(&Listing {
        report: SessionsReport { sessions: rows },
        no_store: roots.is_empty(),
        now,
        home: ctx.env.get("HOME").map(PathBuf::from),
    })?;
    Ok(status)
}

/// The sessions listed: `--json` gives the report; a person also learns when there was
/// no agent store to look in, and sees times as ages and paths from `~`.
#[derive(serde::Serialize)]
struct Listing {
    #[serde(flatten)]
    report: SessionsReport,
    #[serde(skip)]
    no_store: bool,
    #[serde(skip)]
    now: i64,
    #[serde(skip)]
    home: Option<PathBuf>,
}

impl Report for Listing {
    fn human(&self, p: &Printer) -> anyhow::Result<()> {
        let rows = &self.report.sessions;
        if rows.is_empty() && !p.tsv {
            p.note(if self.no_store {
                "no agent session store found (see `ctxctl doctor`)"
            } else {
                "no session found"
            });
            return Ok(());
        }
        p.table(&table(rows, p.tsv, self.now, self.home.clone()))?;
        if !p.tsv {
            let count = |s: &str| rows.iter().filter(|r| r.status == s).count();
            p.note(&format!(
                "{} session(s): {} over, {} to compact",
                rows.len(),
                count("over"),
                count("compact")
            ));
        }
        Ok(())
    }
}

fn row(c: &Candidate, m: Result<Measured, String>, archives: usize) -> SessionRow {
    let (m, error) = match m {
        Ok(m) => (Some(m), None),
        Err(e) => (None, Some(e)),
    };
    // The format the session was read as; what its first lines suggested otherwise.
    let format = m.as_ref().map(|m| m.format).or(c.described.format);
    SessionRow {
        agent: format.map_or("unknown", |f| f.codec().agent()),
        format: format.map(|f| f.name()),
        project: c.described.project.clone(),
        path: load::display(&c.path),
        session: c.db_session.clone(),
        last_activity: c.modified.map(sessions::rfc3339),
        last_activity_unix: c.modified,
        model: m.as_ref().map(|m| m.model.clone()),
        messages: m.as_ref().map(|m| m.messages),
        next_request_tokens: m.as_ref().map(|m| m.next_request_tokens),
        context_window: m.as_ref().map(|m| m.context_window),
        effective_limit: m.as_ref().map(|m| m.effective_limit),
        usage: m.as_ref().map(|m| m.usage),
        status: m.as_ref().map_or("error", |m| m.status),
        archives,
        subagents: c
            .subagents
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        error,
    }
}

/// Sorts `rows` by `key`: numbers, times and statuses largest/newest/worst first, text
/// A to Z; ties by path. `reverse` flips the whole order.
fn sort(rows: &mut [SessionRow], key: SortKey, reverse: bool) {
    let rank = |s: &str| match s {
        "over" => 0,
        "compact" => 1,
        "ok" => 2,
        _ => 3,
    };
    rows.sort_by(|a, b| {
        let by = match key {
            SortKey::Agent => a.agent.cmp(b.agent),
            SortKey::Project => a.project.cmp(&b.project),
            SortKey::Activity => b.last_activity_unix.cmp(&a.last_activity_unix),
            SortKey::Messages => b.messages.cmp(&a.messages),
            SortKey::Tokens => b.next_request_tokens.cmp(&a.next_request_tokens),
            SortKey::Usage => b.usage.partial_cmp(&a.usage).unwrap_or(Ordering::Equal),
            SortKey::Status => rank(a.status)
                .cmp(&rank(b.status))
                .then(b.usage.partial_cmp(&a.usage).unwrap_or(Ordering::Equal)),
            SortKey::Archives => b.archives.cmp(&a.archives),
            SortKey::Path => Ordering::Equal,
        };
        by.then_with(|| a.path.cmp(&b.path))
            .then_with(|| a.session.cmp(&b.session))
    });
    if reverse {
        rows.reverse();
    }
}

fn table(rows: &[SessionRow], tsv: bool, now: i64, home: Option<PathBuf>) -> Table {
    let short = |p: &str| -> String {
        match &home {
            Some(h) if !tsv => match std::path::Path::new(p).strip_prefix(h) {
                Ok(rest) => format!("~/{}", rest.display()),
                Err(_) => p.to_string(),
            },
            _ => p.to_string(),
        }
    };
    let mut t = Table::new(&[
        "agent",
        "project",
        if tsv { "last_activity" } else { "active" },
        "messages",
        if tsv { "next_request_tokens" } else { "tokens" },
        // The figure the usage is a share of: the window less the reply's reserve.
        if tsv { "effective_limit" } else { "limit" },
        "usage",
        "status",
        "archives",
        "subagents",
        "path",
    ]);
    for r in rows {
        let active = match (tsv, r.last_activity_unix) {
            (true, _) => r.last_activity.clone().map_or(Cell::None, Cell::Text),
            (false, Some(t)) => Cell::text(ago(now - t)),
            (false, None) => Cell::None,
        };
        let path = match &r.session {
            Some(id) => format!("{}#{id}", short(&r.path)),
            None => short(&r.path),
        };
        t.push(vec![
            Cell::text(r.agent),
            r.project
                .as_deref()
                .map_or(Cell::None, |p| Cell::text(short(p))),
            active,
            Cell::opt(r.messages.map(|n| n as u64)),
            Cell::opt(r.next_request_tokens.map(|n| n as u64)),
            Cell::opt(r.effective_limit),
            r.usage.map_or(Cell::None, Cell::Share),
            Cell::text(r.status),
            Cell::Num(r.archives as u64),
            Cell::Num(r.subagents.len() as u64),
            Cell::text(path),
        ]);
    }
    // The path, last, is cut from its start to fit a terminal.
    t.shrink = Some(t.header.len() - 1);
    t
}

/// `secs` ago, in the largest whole unit: `45s ago`, `3m ago`, `5h ago`, `12d ago`.
pub(crate) fn ago(secs: i64) -> String {
    let s = secs.max(0);
    match s {
        0..60 => format!("{s}s ago"),
        60..3600 => format!("{}m ago", s / 60),
        3600..86_400 => format!("{}h ago", s / 3600),
        _ => format!("{}d ago", s / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::ago;

    #[test]
    fn ages_in_their_largest_unit() {
        assert_eq!(ago(-5), "0s ago");
        assert_eq!(ago(59), "59s ago");
        assert_eq!(ago(3599), "59m ago");
        assert_eq!(ago(7200), "2h ago");
        assert_eq!(ago(86_400 * 3 + 5), "3d ago");
    }
}
