//! No path given: the command works on this project's session. Before a command runs,
//! [`fill`] puts the path (and, for a database, the session) of the project's newest
//! session (or the one `--pick` chose) where the command would have read its FILE, and
//! says which on one line; after a rewrite, [`hand_over`] resumes it in its agent
//! (`--resume`) or prints how (`--print-resume`). Paths, `-` and `-r` are left as given.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};

use crate::cli::args::here::ResumeArgs;
use crate::cli::Command;
use crate::context::Context;
use crate::exit::ExitStatus;
use crate::ops::describe::describe;
use crate::ops::here::{self, Here};
use crate::ops::resume::{self, Resume};
use crate::ops::sessions::{self, Candidate};
use crate::render::table::thousands;

/// What [`fill`] decided: the resume command to run after a successful rewrite.
#[derive(Debug, Default)]
pub struct Plan {
    resume: Option<(Resume, bool)>,
}

/// `DB#ID`, as `ctxctl sessions` names a session of an agent's database (goose's
/// `sessions.db`, OpenCode's `opencode.db`): the database as FILE with `--session ID`.
fn db_ref(p: &Path) -> Option<(PathBuf, String)> {
    if p.exists() {
        return None;
    }
    let (db, id) = p.to_str()?.rsplit_once('#')?;
    let db = PathBuf::from(db);
    (!id.is_empty() && crate::ops::load::is_database(&db)).then(|| (db, id.to_string()))
}

/// Turns the `DB#ID` paths of `command` into the database and `--session ID`.
fn db_refs(ctx: &mut Context, command: &mut Command) -> anyhow::Result<()> {
    let files: Vec<&mut PathBuf> = match command {
        Command::Count(a) => a.input.files.iter_mut().collect(),
        Command::Check(a) => a.input.files.iter_mut().collect(),
        Command::Stats(a) => a.input.files.iter_mut().collect(),
        Command::Trim(a) => a.file.iter_mut().collect(),
        Command::Compact(a) => a.files.iter_mut().collect(),
        _ => return Ok(()),
    };
    for f in files {
        let Some((db, id)) = db_ref(f) else { continue };
        match &ctx.settings.session {
            Some(given) if *given != id => anyhow::bail!(
                "{} names session {id}, --session names {given}: one session of a database at a \
                 time (or -r DIR for all of them)",
                f.display()
            ),
            _ => ctx.settings.session = Some(id),
        }
        *f = db;
    }
    Ok(())
}

/// Fills in this project's session where `command` was given no path; works out the
/// resume command when `--resume`/`--print-resume` asks for one (before the rewrite, so
/// that a session no agent resumes is refused before it is changed).
pub fn fill(ctx: &mut Context, command: &mut Command) -> anyhow::Result<Plan> {
    db_refs(ctx, command)?;
    let session_given = ctx.settings.session.is_some();
    match command {
        Command::Count(a) => input(ctx, &mut a.input)?,
        Command::Check(a) => input(ctx, &mut a.input)?,
        Command::Stats(a) => input(ctx, &mut a.input)?,
        Command::Trim(a) => {
            let chosen = match &a.file {
                Some(_) => no_pick(a.here.pick)?,
                None if session_given => {
                    anyhow::bail!("trim --session ID needs the database FILE the session is in")
                }
                None => Some(implied(ctx, a.here.pick)?),
            };
            if let Some(c) = &chosen {
                a.file = Some(c.path.clone());
            }
            let path = a.file.clone().unwrap_or_default();
            a.output.in_place |= a.resume.resume;
            return plan(ctx, &a.resume, chosen.as_ref(), &[path]);
        }
        Command::Compact(a) => {
            let none = a.files.is_empty()
                && a.recursive.is_empty()
                && a.name.is_none()
                && !a.all
                && !session_given;
            let chosen = if none {
                Some(implied(ctx, a.here.pick)?)
            } else {
                no_pick(a.here.pick)?
            };
            if let Some(c) = &chosen {
                a.files = vec![c.path.clone()];
            }
            if a.resume.wanted() && (!a.recursive.is_empty() || a.all) {
                anyhow::bail!("--resume and --print-resume take one session, not -r DIR");
            }
            a.output.in_place |= a.resume.resume;
            let files = a.files.clone();
            return plan(ctx, &a.resume, chosen.as_ref(), &files);
        }
        Command::Diff(a) => {
            if a.a.is_none() {
                anyhow::bail!("diff needs the session after, B (this project's session is then A)");
            }
            if a.b.is_none() {
                let c = implied(ctx, a.here.pick)?;
                // One side given: it is the session after; this project's is the one before.
                a.b = a.a.take();
                a.a = Some(c.path);
            } else {
                no_pick(a.here.pick)?;
            }
        }
        Command::Archive(crate::cli::archive::ArchiveCommand::Ls(a)) => {
            if a.name.is_none() && !a.all {
                // Outside any project: every archive, as before there was a project's.
                match implied(ctx, a.here.pick) {
                    Ok(c) => a.name = Some(archive_name(&c)?),
                    Err(e) if !a.here.pick && e.downcast_ref::<here::NoSessionHere>().is_some() => {
                        ctx.printer.debug(&format!("{e:#}: listing every archive"));
                    }
                    Err(e) => return Err(e),
                }
            } else {
                no_pick(a.here.pick)?;
            }
        }
        Command::Archive(crate::cli::archive::ArchiveCommand::Restore(a)) => {
            if a.id.is_none() {
                let c = implied(ctx, a.here.pick)?;
                a.id = Some(newest_archive(ctx, &c)?);
                if c.db_session.is_none() && a.file.is_none() {
                    a.file = Some(c.path);
                }
            } else {
                no_pick(a.here.pick)?;
            }
        }
        _ => {}
    }
    Ok(Plan::default())
}

/// `count`, `check`, `stats`: no FILE and no `-r DIR`.
fn input(ctx: &mut Context, input: &mut crate::cli::args::InputArgs) -> anyhow::Result<()> {
    if input.files.is_empty() && input.recursive.is_empty() && ctx.settings.session.is_none() {
        let c = implied(ctx, input.here.pick)?;
        input.files = vec![c.path];
    } else {
        no_pick(input.here.pick)?;
    }
    Ok(())
}

fn no_pick(pick: bool) -> anyhow::Result<Option<Candidate>> {
    if pick {
        anyhow::bail!("--pick chooses among this project's sessions: give no FILE with it");
    }
    Ok(None)
}

/// This project's newest session, or the one the user picks; said on one line, and, for
/// a database's session, selected as `--session` would.
fn implied(ctx: &mut Context, pick: bool) -> anyhow::Result<Candidate> {
    let cwd = std::env::current_dir()
        .map_err(|e| anyhow::anyhow!("cannot tell the current directory: {e}"))?;
    if pick {
        refuse_without_terminal()?;
    }
    let found = here::find(ctx, &cwd)?;
    let now = crate::ops::store::clock(ctx)?.unix();
    let (index, c) = if pick {
        let i = pick_one(ctx, &found, now)?;
        (Some(i), found.sessions[i].clone())
    } else {
        (None, found.sessions[0].clone())
    };
    let which = match index {
        Some(i) => format!("session {} of", i + 1),
        None => "the newest session of".to_string(),
    };
    ctx.printer.note(&format!(
        "ctxctl: using {which} {}: {}",
        found.dir.display(),
        describe_line(ctx, &c, now)
    ));
    if let Some(id) = &c.db_session {
        ctx.settings.session = Some(id.clone());
    }
    Ok(c)
}

/// `claude-code 1f2e3d4c… (~/.claude/projects/-w-app/1f2e….jsonl, 3m ago)`.
fn describe_line(ctx: &Context, c: &Candidate, now: i64) -> String {
    let id = here::session_id(c).unwrap_or_default();
    let id = match id.char_indices().nth(12) {
        Some(_) => format!("{}…", id.chars().take(8).collect::<String>()),
        None => id,
    };
    let mut place = home_short(ctx, &c.path);
    if let Some(s) = &c.db_session {
        place = format!("{place}#{s}");
    }
    let age = c
        .modified
        .map(|t| format!(", {}", crate::cli::sessions::ago(now - t)))
        .unwrap_or_default();
    format!("{} {id} ({place}{age})", c.described.agent())
}

fn home_short(ctx: &Context, path: &Path) -> String {
    match ctx.env.get("HOME").and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) => format!("~/{}", rest.display()),
        None => path.display().to_string(),
    }
}

fn refuse_without_terminal() -> anyhow::Result<()> {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        anyhow::bail!(
            "--pick asks on the terminal, but standard input or output is not one; \
             list this project's sessions with `ctxctl sessions --project DIR` and give the FILE"
        );
    }
    Ok(())
}

/// Lists `found`'s sessions on stderr and reads the chosen number from stdin.
fn pick_one(ctx: &Context, found: &Here, now: i64) -> anyhow::Result<usize> {
    ctx.printer
        .prompt(&format!("Sessions of {}:\n", found.dir.display()));
    for (i, c) in found.sessions.iter().enumerate() {
        let (tokens, status) = match sessions::measure(ctx, c) {
            Ok(m) => (thousands(m.next_request_tokens as u64), m.status),
            Err(_) => ("?".to_string(), "error"),
        };
        let size = match (&c.db_session, std::fs::metadata(&c.path)) {
            (None, Ok(m)) => human_bytes(m.len()),
            _ => "-".to_string(),
        };
        ctx.printer.prompt(&format!(
            "{:>3}) {:<12} {:>8} {:>9} {:>9} tokens  {:<7}  {}\n",
            i + 1,
            c.described.agent(),
            c.modified
                .map_or("-".into(), |t| crate::cli::sessions::ago(now - t)),
            size,
            tokens,
            status,
            home_short(ctx, &c.path)
                + &c.db_session
                    .as_ref()
                    .map(|s| format!("#{s}"))
                    .unwrap_or_default()
        ));
    }
    let stdin = std::io::stdin();
    choose(found.sessions.len(), &mut stdin.lock(), |t| {
        ctx.printer.prompt(t)
    })
}

/// Asks for a number from 1 to `n` until one is given (an empty answer is 1, the newest;
/// `q` or the end of the input gives up).
fn choose(
    n: usize,
    input: &mut impl std::io::BufRead,
    ask: impl Fn(&str),
) -> anyhow::Result<usize> {
    loop {
        ask(&format!("Session [1-{n}, Enter for 1, q to quit]: "));
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            anyhow::bail!("no session picked");
        }
        let answer = line.trim();
        if answer.eq_ignore_ascii_case("q") {
            anyhow::bail!("no session picked");
        }
        if answer.is_empty() {
            return Ok(0);
        }
        match answer.parse::<usize>() {
            Ok(i) if (1..=n).contains(&i) => return Ok(i - 1),
            _ => ask(&format!("{answer:?} is not a number from 1 to {n}\n")),
        }
    }
}

fn human_bytes(n: u64) -> String {
    match n {
        0..1024 => format!("{n} B"),
        1024..1_048_576 => format!("{:.1} KB", n as f64 / 1024.0),
        _ => format!("{:.1} MB", n as f64 / 1_048_576.0),
    }
}

fn archive_name(c: &Candidate) -> anyhow::Result<String> {
    sessions::archive_name(c).ok_or_else(|| {
        anyhow::anyhow!(
            "{}: ctxctl keeps no archives under this name",
            c.path.display()
        )
    })
}

/// The newest archive of `c`, as `NAME/SEQ`.
fn newest_archive(ctx: &Context, c: &Candidate) -> anyhow::Result<String> {
    let name = archive_name(c)?;
    let store = crate::archive::ArchiveStore::new(ctx.data_dir()?.value);
    let entries = store.list(Some(&name))?;
    match entries.last() {
        Some(e) => Ok(e.id.clone()),
        None => anyhow::bail!(
            "{}: no archive of this session to restore (`ctxctl archive ls --all` lists every archive)",
            home_short(ctx, &c.path)
        ),
    }
}

/// The resume command of the one session a trim or compact rewrites.
fn plan(
    ctx: &Context,
    args: &ResumeArgs,
    chosen: Option<&Candidate>,
    files: &[PathBuf],
) -> anyhow::Result<Plan> {
    if !args.wanted() {
        if !args.agent_args.is_empty() {
            anyhow::bail!("words after `--` go to the agent: they need --resume or --print-resume");
        }
        return Ok(Plan::default());
    }
    let described;
    let (path, format, project, db) = match (chosen, files) {
        (Some(c), _) => (
            c.path.clone(),
            c.described.format,
            c.described.project.clone(),
            c.db_session.clone(),
        ),
        (None, [one]) if one != Path::new("-") => {
            described = describe(one, ctx.settings.format);
            (
                one.clone(),
                described.format,
                described.project.clone(),
                ctx.settings.session.clone(),
            )
        }
        _ => anyhow::bail!(
            "--resume and --print-resume take one session: its FILE, or none for this project's"
        ),
    };
    let Some(format) = format else {
        anyhow::bail!(
            "{}: not a session ctxctl recognises; nothing to resume it with",
            path.display()
        );
    };
    let candidate = Candidate {
        path: path.clone(),
        db_session: db,
        described: crate::ops::describe::Described {
            format: Some(format),
            project: project.clone(),
        },
        modified: None,
        subagents: Vec::new(),
        unreadable: None,
        walked: None,
    };
    let id = here::session_id(&candidate).ok_or_else(|| {
        anyhow::anyhow!(
            "{}: cannot tell the id {} resumes this session by",
            path.display(),
            format.codec().agent()
        )
    })?;
    // The agent's own project directory when it still exists, else where ctxctl runs.
    let cwd = match project.map(PathBuf::from) {
        Some(p) if p.is_dir() => p,
        _ => std::env::current_dir()?,
    };
    let command = resume::command(&ctx.env, format, &id, &path, cwd, &args.agent_args)?;
    Ok(Plan {
        resume: Some((command, args.resume)),
    })
}

/// After a successful run: resume the session in its agent, replacing this process
/// (`--resume`), or print the command (`--print-resume`).
pub fn hand_over(ctx: &Context, plan: Plan, status: ExitStatus) -> anyhow::Result<ExitStatus> {
    let Some((command, run)) = plan.resume else {
        return Ok(status);
    };
    if status != ExitStatus::Success && run {
        ctx.printer
            .note("ctxctl: not resuming the session: the rewrite did not succeed");
        return Ok(status);
    }
    let line = command.shell_line();
    if !run {
        ctx.printer.data(format!("{line}\n").as_bytes())?;
        return Ok(status);
    }
    ctx.printer.note(&format!("ctxctl: resuming: {line}"));
    if crate::render::capture::active() {
        anyhow::bail!("--resume replaces the process; it cannot run inside a captured run");
    }
    Err(exec(&command))
}

/// Runs `command` in place of this process; returns only on failure.
#[cfg(unix)]
fn exec(command: &Resume) -> anyhow::Error {
    use std::io::Write as _;
    use std::os::unix::process::CommandExt as _;
    // Whatever ctxctl printed goes out before the agent takes the terminal over.
    let _ = std::io::stdout().flush();
    let e = std::process::Command::new(&command.program)
        .args(&command.args)
        .current_dir(&command.cwd)
        .exec();
    anyhow::anyhow!(
        "cannot run {} in {}: {e} (the CTXCTL_*_BIN variables name another program)",
        command.program,
        command.cwd.display()
    )
}

/// Elsewhere: runs `command`, then exits with its status.
#[cfg(not(unix))]
fn exec(command: &Resume) -> anyhow::Error {
    match std::process::Command::new(&command.program)
        .args(&command.args)
        .current_dir(&command.cwd)
        .status()
    {
        Ok(s) => std::process::exit(s.code().unwrap_or(1)),
        Err(e) => anyhow::anyhow!("cannot run {}: {e}", command.program),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(n: usize, input: &str) -> (anyhow::Result<usize>, String) {
        let asked = std::cell::RefCell::new(String::new());
        let got = choose(n, &mut input.as_bytes(), |t| asked.borrow_mut().push_str(t));
        (got, asked.into_inner())
    }

    #[test]
    fn a_number_is_asked_until_one_fits() {
        assert_eq!(run(3, "2\n").0.unwrap(), 1);
        assert_eq!(run(3, "\n").0.unwrap(), 0);
        let (got, asked) = run(3, "7\nx\n3\n");
        assert_eq!(got.unwrap(), 2);
        assert!(
            asked.contains("\"7\" is not a number from 1 to 3"),
            "{asked}"
        );
        assert!(asked.contains("\"x\" is not"), "{asked}");
        assert!(run(3, "q\n").0.is_err());
        assert!(run(3, "").0.is_err());
    }

    #[test]
    fn sizes_read_as_people_say_them() {
        assert_eq!(human_bytes(900), "900 B");
        assert_eq!(human_bytes(2048), "2.0 KB");
        assert_eq!(human_bytes(3 * 1_048_576), "3.0 MB");
    }
}
