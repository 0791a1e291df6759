//! `ctxctl doctor`: is this machine set up? Config, directories, model resolution, the agent
//! stores found, and (only when one is configured) whether the LLM endpoint answers. Writes
//! nothing; exit 1 when a check fails.

use std::path::Path;
use std::time::Duration;

use clap::Args;
use serde::Serialize;

use crate::context::Context;
use crate::exit::ExitStatus;
use crate::formats::agent::default_stores;
use crate::render::table::{table, thousands};
use crate::render::{Printer, Report, Style};

mod versions;

/// Check the setup: config, directories, model, agent stores, LLM endpoint.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 when every check passes, 1 when one fails.\n\nExamples:\n  ctxctl doctor\n  ctxctl doctor --json"
)]
pub struct DoctorArgs {}

#[derive(Debug, Serialize)]
struct Check {
    check: String,
    /// `ok`, `warn` (works, but worth knowing), `fail` or `info`.
    status: &'static str,
    detail: String,
}

#[derive(Debug, Serialize)]
struct DoctorReport {
    ok: bool,
    checks: Vec<Check>,
}

pub fn run(ctx: &Context, _args: &DoctorArgs) -> anyhow::Result<ExitStatus> {
    let mut checks = Vec::new();
    let mut push = |check: &str, status, detail: String| {
        checks.push(Check {
            check: check.to_string(),
            status,
            detail,
        })
    };
    // A malformed config never gets here: every command, doctor too, stops on it first.
    match &ctx.settings.config_path {
        Some((p, _)) if ctx.settings.config_loaded => {
            push("config", "ok", format!("{} (valid)", p.display()))
        }
        Some((p, _)) => push(
            "config",
            "info",
            format!("{} not present: built-in defaults apply", p.display()),
        ),
        None => push("config", "info", "none (--no-config)".into()),
    }
    match ctx.data_dir() {
        Ok(d) => {
            let (status, detail) = writable(&d.value);
            push("data dir", status, detail);
        }
        Err(e) => push("data dir", "fail", format!("{e:#}")),
    }
    let (status, detail) = archives(ctx);
    push("archives", status, detail);
    match ctx.cache_file() {
        Some(f) => {
            let (status, detail) = writable(f.parent().unwrap_or(&f));
            push("cache dir", status, detail);
        }
        None => push("cache dir", "warn", "none: counts are not cached".into()),
    }
    let m = ctx.resolve_model_quietly(None);
    let counts = if m.exact {
        format!("{} exact", m.encoding.name())
    } else {
        format!("{} estimate ×{}", m.encoding.name(), m.factor)
    };
    push(
        "model",
        if m.known { "ok" } else { "warn" },
        format!(
            "{} ({}){}: {} window, {}",
            m.name,
            m.source,
            if m.known {
                ""
            } else {
                " unknown, fallback limits"
            },
            thousands(m.spec.context_window),
            counts
        ),
    );
    for store in default_stores(&ctx.env) {
        let (status, detail) = agent_store(&store.path, store.database);
        push(&format!("agent {}", store.agent), status, detail);
        if let Some((status, detail)) = versions::of_store(store.agent, &store.path, store.database)
        {
            push(&format!("agent {} versions", store.agent), status, detail);
        }
    }
    let (status, detail) = llm(ctx);
    push("llm", status, detail);

    let ok = checks.iter().all(|c| c.status != "fail");
    ctx.printer.report(&DoctorReport { ok, checks })?;
    Ok(if ok {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}

/// The archive store: its size against the retention in force, and the compression.
fn archives(ctx: &Context) -> (&'static str, String) {
    let r = crate::ops::retention::settings(ctx);
    let limits = format!(
        "keep {} per session, {} in all",
        r.keep.map_or("all".into(), |k| k.to_string()),
        r.max_bytes
            .map_or("no limit".into(), |b| format!("{} MiB", thousands(b >> 20)))
    );
    let compress = match &ctx.settings.archive_compress {
        Ok(c) => c.value.name().to_string(),
        Err(e) => return ("fail", e.to_string()),
    };
    let filed = ctx.archive_store().and_then(|s| Ok(s.filed()?));
    match filed {
        Ok(f) => {
            let bytes: u64 = f.iter().map(|(a, _)| a.bytes).sum();
            let over = r.max_bytes.is_some_and(|m| bytes > m);
            (
                if over { "warn" } else { "ok" },
                format!(
                    "{} archive(s), {} bytes ({limits}; new ones {compress})",
                    f.len(),
                    thousands(bytes)
                ),
            )
        }
        Err(e) => ("warn", format!("{e:#} ({limits})")),
    }
}

/// Whether ctxctl could write in `dir`, judged without writing: the directory, or the
/// nearest existing one above it that would hold it.
fn writable(dir: &Path) -> (&'static str, String) {
    let existing = dir.ancestors().find(|a| a.exists());
    match existing {
        Some(a) if !a.is_dir() => (
            "fail",
            format!("{}: {} is not a directory", dir.display(), a.display()),
        ),
        Some(a) if std::fs::metadata(a).is_ok_and(|m| m.permissions().readonly()) => (
            "fail",
            format!("{}: {} is read-only", dir.display(), a.display()),
        ),
        Some(a) if a == dir => ("ok", format!("{}", dir.display())),
        Some(_) => ("ok", format!("{} (created on first write)", dir.display())),
        None => ("fail", format!("{}: no existing parent", dir.display())),
    }
}

/// What is at an agent's default store.
fn agent_store(path: &Path, database: bool) -> (&'static str, String) {
    if database {
        return match std::fs::metadata(path) {
            Ok(m) if m.is_file() => (
                "ok",
                format!("{} ({} bytes)", path.display(), thousands(m.len())),
            ),
            Ok(_) => ("warn", format!("{} is not a file", path.display())),
            Err(_) => ("info", format!("{}: not found", path.display())),
        };
    }
    if !path.is_dir() {
        return ("info", format!("{}: not found", path.display()));
    }
    let n = count_sessions(path, 4, 100_000);
    (
        "ok",
        format!(
            "{} ({} session file{})",
            path.display(),
            thousands(n as u64),
            if n == 1 { "" } else { "s" }
        ),
    )
}

/// `*.jsonl` files below `dir`, at most `depth` levels down, counted up to `cap`.
fn count_sessions(dir: &Path, depth: usize, cap: usize) -> usize {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut n = 0;
    for e in rd.flatten() {
        if n >= cap {
            break;
        }
        let p = e.path();
        let Ok(t) = e.file_type() else { continue };
        if t.is_dir() && depth > 0 {
            n += count_sessions(&p, depth - 1, cap - n);
        } else if t.is_file() && p.extension().is_some_and(|x| x == "jsonl") {
            n += 1;
        }
    }
    n
}

/// The LLM endpoint, when one is configured: can a connection be opened to it? (No
/// request is sent, so no key leaves the machine.)
fn llm(ctx: &Context) -> (&'static str, String) {
    let llm = &ctx.settings.llm;
    let Some(base) = &llm.base_url else {
        let key = llm
            .api_key_var
            .as_ref()
            .map_or("no API key".to_string(), |v| format!("key in {}", v.value));
        return (
            "info",
            format!("{} with its default endpoint, {key}; not contacted (offline summaries are the default)", llm.provider.value),
        );
    };
    let url = match reqwest::Url::parse(&base.value) {
        Ok(u) => u,
        Err(e) => return ("fail", format!("llm.base_url {:?}: {e}", base.value)),
    };
    let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
        return ("fail", format!("llm.base_url {:?}: no host", base.value));
    };
    use std::net::ToSocketAddrs;
    let addrs: Vec<_> = match (host, port).to_socket_addrs() {
        Ok(a) => a.collect(),
        Err(e) => return ("fail", format!("{host}: cannot resolve ({e})")),
    };
    let reachable = addrs
        .iter()
        .any(|a| std::net::TcpStream::connect_timeout(a, Duration::from_secs(3)).is_ok());
    if reachable {
        ("ok", format!("{} reachable", base.value))
    } else {
        (
            "fail",
            format!("{} does not accept connections", base.value),
        )
    }
}

impl Report for DoctorReport {
    /// One row per check, its status coloured.
    fn human(&self, p: &Printer) -> anyhow::Result<()> {
        let rows: Vec<Vec<String>> = self
            .checks
            .iter()
            .map(|c| {
                let style = match c.status {
                    "ok" => Style::Green,
                    "fail" => Style::Red,
                    "warn" => Style::Yellow,
                    _ => Style::Dim,
                };
                vec![p.paint(c.status, style), c.check.clone(), c.detail.clone()]
            })
            .collect();
        p.line(&table(&["status", "check", "detail"], &rows, &[]))?;
        Ok(())
    }
}
