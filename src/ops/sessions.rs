//! Every agent session on the machine: found below the agents' default stores (or given
//! roots), each described (agent, project), filtered, its subagent transcripts folded into
//! it, then measured as `check` measures it (through the session digests, so an unchanged
//! file is not read again as records, let alone tokenized).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::archive::{ArchiveStore, Timestamp};
use crate::cache::digest::Seen;
use crate::cache::heads::HeadStore;
use crate::cache::listing::ListingStore;
use crate::context::Context;
use crate::formats::agent::default_stores;
use crate::formats::{classify_path, Found};
use crate::models::Limits;
use crate::ops::checked::{self, Checked};
use crate::ops::describe::{describe, Described};
use crate::ops::filter::Filter;
use crate::ops::session_files::{walk_dir, Entry};
use crate::session::Format;

/// One session to list: a file, or one session of an agent's database.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub path: PathBuf,
    /// The session inside the database `path` is.
    pub db_session: Option<String>,
    pub described: Described,
    /// When it was last active, in Unix seconds.
    pub modified: Option<i64>,
    /// Its subagents' transcripts.
    pub subagents: Vec<PathBuf>,
    /// Why a database could not even be listed.
    pub unreadable: Option<String>,
    /// The file's stat identity and canonical path, as the walk that found it saw them.
    pub walked: Option<Walked>,
}

/// A session file as the walk that found it saw it.
#[derive(Debug, Clone)]
pub struct Walked {
    pub seen: Seen,
    /// Its path with every symlink resolved.
    pub canonical: PathBuf,
}

/// What a session measures, as `check` would say.
#[derive(Debug, Clone)]
pub struct Measured {
    /// The format the session was read as.
    pub format: Format,
    pub messages: usize,
    pub model: String,
    pub next_request_tokens: usize,
    pub context_window: u64,
    pub effective_limit: u64,
    /// `next_request_tokens / effective_limit`, rounded like `check`'s.
    pub usage: f64,
    /// `ok`, `compact` or `over`.
    pub status: &'static str,
}

/// The roots to search: `given`, else the default stores of every agent that exist.
pub fn roots(ctx: &Context, given: &[PathBuf]) -> Vec<PathBuf> {
    if !given.is_empty() {
        return given.to_vec();
    }
    let mut out: Vec<PathBuf> = Vec::new();
    for store in default_stores(&ctx.env) {
        let exists = if store.database {
            store.path.is_file()
        } else {
            store.path.is_dir()
        };
        if exists && !out.iter().any(|o| store.path.starts_with(o)) {
            out.push(store.path);
        }
    }
    out
}

/// The sessions below `roots` that `filter`'s file filters keep, subagent transcripts
/// folded into their parent (a transcript whose parent is not listed is listed itself).
pub fn discover(
    ctx: &Context,
    roots: &[PathBuf],
    filter: &Filter,
) -> anyhow::Result<Vec<Candidate>> {
    discover_with(ctx, roots, filter, true, &|_| true)
}

/// [`discover`], leaving out before it is described every session file `worth` says no
/// to (a cheap look that spares reading the heads of sessions that cannot be kept).
pub fn discover_where(
    ctx: &Context,
    roots: &[PathBuf],
    filter: &Filter,
    worth: &dyn Fn(&Path) -> bool,
) -> anyhow::Result<Vec<Candidate>> {
    discover_with(ctx, roots, filter, true, worth)
}

/// [`discover`], reading each file's head for its agent and project only when `describe`
/// says so or a filter needs them (an undescribed candidate has neither: `grep` describes
/// only the files that match), and leaving out what `worth` says no to.
pub fn discover_with(
    ctx: &Context,
    roots: &[PathBuf],
    filter: &Filter,
    describe: bool,
    worth: &dyn Fn(&Path) -> bool,
) -> anyhow::Result<Vec<Candidate>> {
    let describe = describe || filter.needs_description();
    let now = crate::ops::store::clock(ctx)?.unix();
    let mut entries: Vec<Entry> = Vec::new();
    for found in walk_roots(roots) {
        entries.extend(found?);
    }
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    entries.dedup_by(|a, b| a.path == b.path);
    let mut out: Vec<Candidate> = Vec::new();
    let mut subagents: BTreeMap<PathBuf, Vec<Entry>> = BTreeMap::new();
    // What unchanged files' heads said, so that they are not opened again (with `--format`
    // a head tells the project only, and is read).
    let heads = (describe && ctx.settings.format.is_none())
        .then(|| ctx.digests().map(|d| HeadStore::open(d.dir())))
        .flatten();
    let look = Look {
        ctx,
        filter,
        now,
        describe,
        heads: heads.as_ref(),
    };
    for entry in entries {
        // A file whose head was described, unchanged since, is no database (a database is
        // never described): not opened to tell.
        let described = heads
            .as_ref()
            .is_some_and(|h| h.vouches(&entry.path, entry.seen));
        if !described && crate::ops::load::is_database(&entry.path) {
            out.extend(database(ctx, &entry, filter, now));
            continue;
        }
        let skip = match classify_path(&entry.path) {
            _ if entry.len == 0 => Some("empty file".to_string()),
            Found::Other(why) => Some(why.to_string()),
            Found::Subagent { parent } => {
                subagents.entry(parent).or_default().push(entry);
                continue;
            }
            Found::Session => None,
        };
        if let Some(why) = skip {
            ctx.printer
                .debug(&format!("{}: skipped ({why})", entry.path.display()));
            continue;
        }
        if !worth(&entry.path) {
            continue;
        }
        if let Some(c) = look.candidate(&entry) {
            out.push(c);
        }
    }
    for (parent, subs) in subagents {
        // Sorted by path, so a parent is found by a binary search.
        match out
            .binary_search_by(|c| c.path.as_path().cmp(&parent))
            .ok()
            .filter(|&i| out[i].db_session.is_none())
        {
            Some(i) => out[i].subagents.extend(subs.into_iter().map(|e| e.path)),
            None => out.extend(subs.iter().filter_map(|e| look.candidate(e))),
        }
    }
    if let Some(Err(e)) = heads.map(HeadStore::save) {
        ctx.printer.debug(&format!("session heads not saved: {e}"));
    }
    Ok(out)
}

/// The session files below each of `roots` (a root that is a file, itself), each root
/// walked on a thread of its own: a home's stores are walked at once (the walk is most of
/// a warm listing's time, and mostly waits on the kernel).
fn walk_roots(roots: &[PathBuf]) -> Vec<anyhow::Result<Vec<Entry>>> {
    let one = |root: &PathBuf| -> anyhow::Result<Vec<Entry>> {
        if root.is_dir() {
            return walk_dir(root, true, &[]);
        }
        let mut entry = Entry::of(root).map_err(|e| anyhow::anyhow!("{}: {e}", root.display()))?;
        entry.canonical = std::fs::canonicalize(root).ok();
        Ok(vec![entry])
    };
    if roots.len() < 2 {
        return roots.iter().map(one).collect();
    }
    std::thread::scope(|s| {
        let walks: Vec<_> = roots.iter().map(|r| s.spawn(move || one(r))).collect();
        walks
            .into_iter()
            .map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

/// How the files found are made candidates.
struct Look<'a> {
    ctx: &'a Context,
    filter: &'a Filter,
    now: i64,
    /// Whether their heads are read for their agent and project.
    describe: bool,
    heads: Option<&'a HeadStore>,
}

impl Look<'_> {
    /// `entry` as a candidate, if the filters keep it.
    fn candidate(&self, entry: &Entry) -> Option<Candidate> {
        let (ctx, filter, look) = (self.ctx, self.filter, self);
        if !filter.keeps_path(&entry.path, entry.age(look.now)) {
            return skipped(ctx, &entry.path, "filtered out by its name or time");
        }
        let read = || describe(&entry.path, ctx.settings.format);
        let described = match (look.describe, look.heads) {
            (true, Some(heads)) => {
                let (d, kept) = heads.describe_seen(&entry.path, entry.seen, read);
                if kept {
                    ctx.printer.debug(&format!(
                        "{}: agent and project as its head said before (unchanged; not opened)",
                        entry.path.display()
                    ));
                }
                d
            }
            (true, None) => read(),
            (false, _) => Described {
                format: None,
                project: None,
            },
        };
        if !filter.keeps_described(&described) {
            return skipped(ctx, &entry.path, "filtered out by its agent or project");
        }
        Some(Candidate {
            path: entry.path.clone(),
            db_session: None,
            described,
            modified: entry.modified_unix(),
            subagents: Vec::new(),
            unreadable: None,
            walked: entry
                .seen
                .zip(entry.canonical.clone())
                .map(|(seen, canonical)| Walked { seen, canonical }),
        })
    }
}

fn skipped(ctx: &Context, path: &Path, why: &str) -> Option<Candidate> {
    ctx.printer
        .debug(&format!("{}: skipped ({why})", path.display()));
    None
}

/// The sessions of the agent database `entry` that the filters keep.
fn database(ctx: &Context, entry: &Entry, filter: &Filter, now: i64) -> Vec<Candidate> {
    let name = entry
        .path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("");
    let Some(agent) = crate::formats::dbagent::of_file_name(name) else {
        ctx.printer.debug(&format!(
            "{}: skipped (not an agent database ctxctl lists)",
            entry.path.display()
        ));
        return Vec::new();
    };
    let rows = match (agent.list)(&entry.path) {
        Ok(rows) => rows,
        Err(e) => {
            // Listed as one failed session, so that it is seen.
            return vec![Candidate {
                path: entry.path.clone(),
                db_session: None,
                described: Described {
                    format: Some(agent.format),
                    project: None,
                },
                modified: entry.modified_unix(),
                subagents: Vec::new(),
                unreadable: Some(format!("{e:#}")),
                walked: None,
            }];
        }
    };
    rows.into_iter()
        .filter(|s| s.listed)
        .filter_map(|s| {
            let (id, at) = (s.id, s.updated);
            let described = Described {
                format: Some(agent.format),
                project: s.project,
            };
            let age = at.map_or(0, |t| now - t);
            let keep = filter.keeps_path(&entry.path, age) && filter.keeps_described(&described);
            keep.then(|| Candidate {
                path: entry.path.clone(),
                db_session: Some(id),
                described,
                modified: at.or(entry.modified_unix()),
                subagents: Vec::new(),
                unreadable: None,
                walked: None,
            })
        })
        .collect()
}

/// The listing index of this run (see [`crate::cache::listing`]), when it may be used:
/// the cache is on, formats are detected (the index keeps what detection read) and the
/// provider does not count.
pub fn listing(ctx: &Context) -> anyhow::Result<Option<ListingStore>> {
    if ctx.settings.format.is_some() || crate::ops::count_api::enabled(ctx)? {
        return Ok(None);
    }
    Ok(ctx.digests().map(|d| ListingStore::open(d.dir())))
}

/// Measures `c` as `check` with its default limits and threshold would.
pub fn measure(ctx: &Context, c: &Candidate) -> anyhow::Result<Measured> {
    measure_listed(ctx, c, None)
}

/// Files from this size up are measured one at a time in a listing (see [`heavy`]).
pub const HEAVY_BYTES: u64 = 16 << 20;

/// Whether measuring `c` cold may hold memory in proportion to its size (a large file's
/// record index, or a format read whole): a listing measures such files one at a time, so
/// its peak is one large file's and not one per worker. Small files go on beside it.
pub fn heavy(c: &Candidate) -> bool {
    // A database's session is read with a cursor, whatever the database's size.
    c.db_session.is_none()
        && c.walked
            .as_ref()
            .is_some_and(|w| w.seen.stat.len >= HEAVY_BYTES)
}

/// [`measure`], answered from the listing index `listing` when it vouches for the file
/// unread (the walk's stat identity is the one it kept), and noting there what it read.
pub fn measure_listed(
    ctx: &Context,
    c: &Candidate,
    listing: Option<&ListingStore>,
) -> anyhow::Result<Measured> {
    if let Some(e) = &c.unreadable {
        anyhow::bail!("{e}");
    }
    let indexed = match (&c.db_session, listing, &c.walked) {
        (None, Some(listing), Some(w)) => Some((listing, w)),
        _ => None,
    };
    let listed = indexed.and_then(|(listing, w)| {
        let d = listing.get(&w.canonical, &w.seen.stat)?;
        checked::from_listed(ctx, &c.path, &d)
    });
    let checked: Checked = match (listed, &c.db_session, indexed) {
        (Some(checked), _, _) => checked,
        (None, Some(id), _) => checked::load_db(ctx, &c.path, id)?,
        (None, None, Some((listing, w))) => {
            checked::load_noting(ctx, &c.path, &|d| listing.put(&w.canonical, d))?
        }
        (None, None, None) => checked::load(ctx, &c.path)?,
    };
    let window = checked.window();
    let model = &checked.model;
    let reserve_output = ctx.settings.reserve_output(None)?.map(|s| s.value);
    let reserved = ctx.settings.reserved(None)?.value;
    let limits = Limits::new(
        window.tokens,
        model.max_output_tokens(),
        reserve_output,
        reserved,
    );
    let threshold = ctx.settings.threshold(None)?.value;
    let tokens = checked.prediction().tokens;
    let effective = limits.effective_limit();
    let usage = if effective == 0 {
        1e9
    } else {
        (tokens as f64 / effective as f64 * 10_000.0).round() / 10_000.0
    };
    Ok(Measured {
        format: checked.format,
        messages: checked.counts.len(),
        model: model.name.clone(),
        next_request_tokens: tokens,
        context_window: limits.context_window,
        effective_limit: effective,
        usage,
        status: checked.status(tokens, effective, threshold),
    })
}

/// How many archives ctxctl keeps of `c` (what its rewrites removed); `archived`, when
/// known, names every session that has any (listed once: most sessions have none, and
/// looking for each one's directory cost a failed open per session).
pub fn archives(
    store: Option<&ArchiveStore>,
    archived: Option<&std::collections::BTreeSet<String>>,
    c: &Candidate,
) -> usize {
    let (Some(store), Some(name)) = (store, archive_name(c)) else {
        return 0;
    };
    if archived.is_some_and(|a| !a.contains(&name)) {
        return 0;
    }
    store.count(&name).unwrap_or(0)
}

/// The name ctxctl files the archives of `c` under (what its rewrites removed).
pub fn archive_name(c: &Candidate) -> Option<String> {
    match &c.db_session {
        // Named as the rewrite filed them (`DbSession::archive_name`).
        Some(id) => {
            let agent = crate::formats::dbagent::of_format(c.described.format?)?;
            Some(crate::formats::dbagent::archive_name(agent, id))
        }
        None => crate::ops::write::archive_name(None, &c.path).ok(),
    }
}

/// A Unix time as RFC 3339.
pub fn rfc3339(t: i64) -> String {
    Timestamp::from_unix(t).rfc3339()
}
