//! The sources `grep` and the MCP server's `recall` search: every session `sessions`
//! finds (the agents' stores, or given paths, with the same filters), one session of an
//! agent's database each, and ctxctl's archives of them (every archive when no path is
//! given), each searched with [`crate::search`].

use std::collections::BTreeSet;
use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;

use anyhow::Context as _;
use serde_json::Value;

use crate::archive::ArchiveStore;
use crate::context::Context;
use crate::formats::agent::AgentStore;
use crate::ops::filter::Filter;
use crate::ops::sessions::{self, Candidate};
use crate::search::{self, FileHits, Place, Query};
use crate::session::Format;

/// One thing to search.
#[derive(Debug, Clone)]
pub struct Source {
    /// The file (a session, an agent's database, or an archive).
    pub path: PathBuf,
    /// `claude-code`, `codex`, … (`unknown` when the content says no agent; `None` until
    /// [`Source::agent`] reads the file's head).
    agent: Option<&'static str>,
    /// The session inside a database.
    pub db_session: Option<String>,
    /// The archive this is (`NAME/SEQ`).
    pub archive: Option<String>,
    /// When it was last active (an archive: when it was made), Unix seconds.
    pub modified: Option<i64>,
}

impl Source {
    /// The agent whose session this is (the file's head is read the first time).
    pub fn agent(&self, ctx: &Context) -> &'static str {
        self.agent
            .unwrap_or_else(|| match (&self.archive, ctx.data_dir()) {
                (Some(id), Ok(dir)) => archive_agent(&ArchiveStore::new(dir.value), id),
                (Some(_), Err(_)) => "unknown",
                (None, _) => {
                    crate::ops::describe::describe(&self.path, ctx.settings.format).agent()
                }
            })
    }

    /// The source of candidate `c`; its agent is the store's when it is a JSONL file in
    /// the session store of one of `stores` (no need to read its head to tell).
    fn of(c: &Candidate, stores: &[AgentStore]) -> Source {
        let in_store = || {
            let jsonl = c.path.extension().is_some_and(|e| e == "jsonl");
            let store = stores
                .iter()
                .find(|s| jsonl && !s.database && c.path.starts_with(&s.path))?;
            Format::from_name(store.agent).map(|f| f.codec().agent())
        };
        Source {
            path: c.path.clone(),
            agent: c
                .described
                .format
                .map(|f| f.codec().agent())
                .or_else(in_store),
            db_session: c.db_session.clone(),
            archive: None,
            modified: c.modified,
        }
    }
}

/// The sources below `roots` (the agents' stores when empty) that `filter` keeps, each
/// session followed by its archives; with no roots given, also the archives of sessions
/// no longer found (their agent as their format says; none when `--project` filters).
pub fn sources(ctx: &Context, given: &[PathBuf], filter: &Filter) -> anyhow::Result<Vec<Source>> {
    let roots = sessions::roots(ctx, given);
    let candidates = sessions::discover_with(ctx, &roots, filter, false, &|_| true)?;
    let store = ctx.data_dir().ok().map(|d| ArchiveStore::new(d.value));
    let mut out = Vec::new();
    let mut claimed = BTreeSet::new();
    let stores = crate::formats::agent::default_stores(&ctx.env);
    for c in &candidates {
        out.push(Source::of(c, &stores));
        let Some(store) = &store else { continue };
        let Some(name) = archive_name(c) else {
            continue;
        };
        claimed.insert(name.clone());
        for e in store.list(Some(&name)).unwrap_or_default() {
            out.push(archive_source(&e, None));
        }
    }
    if given.is_empty() && filter.project.is_none() {
        if let Some(store) = &store {
            let all = store.list(None).context("listing the archives")?;
            for e in all.iter().filter(|e| !claimed.contains(&e.session)) {
                let agent = archive_agent(store, &e.id);
                if filter.agents.is_empty() || filter.agents.iter().any(|a| a == agent) {
                    out.push(archive_source(e, Some(agent)));
                }
            }
        }
    }
    Ok(out)
}

/// The name `c`'s archives are filed under.
fn archive_name(c: &Candidate) -> Option<String> {
    match &c.db_session {
        Some(id) => {
            let agent = crate::formats::dbagent::of_format(c.described.format?)?;
            Some(crate::formats::dbagent::archive_name(agent, id))
        }
        None => crate::ops::write::archive_name(None, &c.path).ok(),
    }
}

fn archive_source(e: &crate::archive::ArchiveEntry, agent: Option<&'static str>) -> Source {
    Source {
        path: e.path.clone(),
        agent,
        db_session: None,
        archive: Some(e.id.clone()),
        modified: crate::archive::Timestamp::parse(&e.timestamp)
            .ok()
            .map(|t| t.unix()),
    }
}

/// The agent of archive `id`, from the format it records.
fn archive_agent(store: &ArchiveStore, id: &str) -> &'static str {
    store
        .get(id)
        .ok()
        .and_then(|(_, f)| crate::session::Format::from_name(&f.format))
        .map_or("unknown", |f| f.codec().agent())
}

/// Searches `src` for `q`.
pub fn search(ctx: &Context, src: &Source, q: &Query) -> anyhow::Result<FileHits> {
    if let Some(id) = &src.archive {
        let store = ArchiveStore::new(ctx.data_dir()?.value);
        let (_, file) = store.get(id)?;
        let mut values = Vec::with_capacity(file.records.len());
        for (i, r) in file.records.iter().enumerate() {
            let v: Value = serde_json::from_str(r.get())
                .with_context(|| format!("archive {id}: record {} is not JSON", i + 1))?;
            values.push(v);
        }
        let place = Place::Archived { id: id.clone() };
        return Ok(search::search_values(
            values.iter().enumerate().map(|(i, v)| (i + 1, v)),
            q,
            place,
        ));
    }
    if let Some(id) = &src.db_session {
        let sel = crate::ops::agentdb::read(&src.path, Some(id))?;
        let session = sel
            .session
            .format()
            .codec()
            .read(sel.text, crate::session::Keep::Messages)
            .with_context(|| format!("{}#{id}", src.path.display()))?;
        return Ok(search::search_messages(&session.messages, q, Place::Live));
    }
    if q.matcher.prefilter().is_some() && q.tools.is_empty() {
        if let Some(found) = search::search_file(&src.path, q, Place::Live)? {
            return Ok(found);
        }
    }
    let f = File::open(&src.path).with_context(|| src.path.display().to_string())?;
    let reader = BufReader::with_capacity(256 << 10, f);
    Ok(search::search_lines(reader, &src.path, q, Place::Live)?)
}
