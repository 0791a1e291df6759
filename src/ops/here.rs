//! "This project's session": what a command works on when it is given no path. The
//! agents' stores are searched as `ctxctl sessions` searches them, each session's project
//! read as its agent records it (Claude Code's and Codex's cwd, Gemini CLI's project
//! directory, goose's working_dir, OpenCode's directory), and the sessions of the nearest
//! directory at or above the current one that has any are this project's, newest first.

use std::path::{Path, PathBuf};

use crate::context::Context;
use crate::ops::filter::Filter;
use crate::ops::sessions::{self, Candidate};

/// The sessions of one project directory, newest first (never empty).
#[derive(Debug, Clone)]
pub struct Here {
    /// The project directory: the current one, or the nearest above it with sessions.
    pub dir: PathBuf,
    pub sessions: Vec<Candidate>,
}

/// No session of the current directory or any above it.
#[derive(Debug, thiserror::Error)]
#[error(
    "no agent session of {} or a directory above it (searched {}); give a session FILE, \
     - for standard input, or -r DIR",
    cwd.display(),
    shown(searched)
)]
pub struct NoSessionHere {
    pub cwd: PathBuf,
    /// Every agent store, whether it exists or not.
    pub searched: Vec<PathBuf>,
}

fn shown(roots: &[PathBuf]) -> String {
    if roots.is_empty() {
        return "nothing: HOME is not set".into();
    }
    roots
        .iter()
        .map(|r| r.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The sessions of the project `cwd` is in: the nearest directory at or above `cwd` that
/// is the project of a session in the agents' stores.
pub fn find(ctx: &Context, cwd: &Path) -> anyhow::Result<Here> {
    let roots = sessions::roots(ctx, &[]);
    for r in &roots {
        ctx.printer.debug(&format!("searching {}", r.display()));
    }
    let mut dirs: Vec<PathBuf> = vec![cwd.to_path_buf()];
    if let Ok(real) = cwd.canonicalize() {
        if real != cwd {
            dirs.push(real);
        }
    }
    let worth = Worth::new(&dirs);
    let all = sessions::discover_where(ctx, &roots, &Filter::default(), &|p| worth.may_be(p))?;
    for level in 0.. {
        let at: Vec<&Path> = dirs
            .iter()
            .filter_map(|d| d.ancestors().nth(level))
            .collect();
        if at.is_empty() {
            break;
        }
        let mut found: Vec<Candidate> = all
            .iter()
            .filter(|c| c.unreadable.is_none())
            .filter(|c| {
                let project = c.described.project.as_deref();
                at.iter().any(|d| project.is_some_and(|p| is_project(p, d)))
            })
            .cloned()
            .collect();
        if !found.is_empty() {
            newest_first(&mut found);
            return Ok(Here {
                dir: at[0].to_path_buf(),
                sessions: found,
            });
        }
    }
    Err(NoSessionHere {
        cwd: cwd.to_path_buf(),
        searched: crate::config::agents::default_stores(&ctx.env)
            .into_iter()
            .map(|s| s.path)
            .collect(),
    }
    .into())
}

/// A cheap look at a session file before it is described: could its project be one of
/// the directories at or above the current one? Its first bytes must name one of them
/// as a JSON string (Claude Code's and Codex's cwd, goose's working_dir), or its place
/// must (Claude Code's directory name for it; Gemini CLI's sessions, which name their
/// project by its place, are always looked at).
struct Worth {
    /// `"/w/app"` for each directory, as JSON writes it; `None`: every file is worth it
    /// (a directory JSON would escape).
    quoted: Option<Vec<Vec<u8>>>,
    /// Claude Code's directory names for them.
    encoded: Vec<String>,
}

impl Worth {
    fn new(dirs: &[PathBuf]) -> Worth {
        let all: Vec<&Path> = dirs.iter().flat_map(|d| d.ancestors()).collect();
        let plain = |s: &str| {
            s.chars()
                .all(|c| c.is_ascii_graphic() && c != '"' && c != '\\')
        };
        let quoted = all
            .iter()
            .map(|d| {
                d.to_str()
                    .filter(|s| plain(s))
                    .map(|s| format!("\"{s}\"").into_bytes())
            })
            .collect();
        let encoded = all
            .iter()
            .filter_map(|d| d.to_str())
            .map(|s| {
                s.chars()
                    .map(|c| if c == '/' || c == '.' { '-' } else { c })
                    .collect()
            })
            .collect();
        Worth { quoted, encoded }
    }

    fn may_be(&self, path: &Path) -> bool {
        let Some(quoted) = &self.quoted else {
            return true;
        };
        let place = |name: &str| {
            path.components()
                .any(|c| c.as_os_str().to_str() == Some(name))
        };
        if place(".gemini") || self.encoded.iter().any(|e| place(e)) {
            return true;
        }
        let mut head = Vec::new();
        let read = std::fs::File::open(path)
            .and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, HEAD), &mut head));
        // A file that cannot be read is described, so that its error is seen.
        read.is_err()
            || quoted
                .iter()
                .any(|q| memchr::memmem::find(&head, q).is_some())
    }
}

/// Bytes of a session file [`Worth`] looks at (Codex's first record carries its
/// instructions before the cwd ends it; 64 KiB covers it).
const HEAD: u64 = 64 << 10;

/// Newest first; ties by path and session id, so the choice is stable.
pub fn newest_first(found: &mut [Candidate]) {
    found.sort_by(|a, b| {
        b.modified
            .cmp(&a.modified)
            .then_with(|| a.path.cmp(&b.path))
            .then_with(|| a.db_session.cmp(&b.db_session))
    });
}

/// Whether the project an agent recorded, `project`, is the directory `dir`: the same
/// path (a trailing `/` aside), or Claude Code's directory name for it when its records
/// name no cwd (`/` and `.` both became `-`, read back as `/`).
pub fn is_project(project: &str, dir: &Path) -> bool {
    let Some(dir) = dir.to_str() else {
        return false;
    };
    let trim = |s: &str| -> String {
        let t = s.trim_end_matches('/');
        if t.is_empty() { "/" } else { t }.to_string()
    };
    let (project, dir) = (trim(project), trim(dir));
    if project == dir {
        return true;
    }
    let encoded: String = dir
        .chars()
        .map(|c| if c == '/' || c == '.' { '/' } else { c })
        .collect();
    // Only a name without the records' cwd reads back this way: a real path with a `.`
    // in it is compared as it is, above.
    !project.contains('.') && project == encoded
}

/// The id the agent resumes the session `c` by: the database's id; Claude Code's and
/// goose's file stem; Codex's `session_meta` id; Gemini CLI's `sessionId`.
pub fn session_id(c: &Candidate) -> Option<String> {
    use crate::session::Format;
    if let Some(id) = &c.db_session {
        return Some(id.clone());
    }
    let stem = || c.path.file_stem()?.to_str().map(str::to_string);
    let format = c.described.format?;
    if let Some(id) = format.codec().session_id(&c.path) {
        return Some(id);
    }
    match format {
        Format::Codex => head_value(&c.path, |r| {
            (r.get("type")?.as_str()? == "session_meta")
                .then(|| r.get("payload")?.get("id")?.as_str().map(str::to_string))?
        })
        .or_else(|| codex_id_from_name(&c.path)),
        Format::Gemini => head_value(&c.path, |r| {
            r.get("sessionId")?.as_str().map(str::to_string)
        }),
        _ => stem(),
    }
}

/// The uuid that ends a Codex rollout's name (`rollout-<time>-<uuid>.jsonl`).
fn codex_id_from_name(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    let id = stem.get(stem.len().checked_sub(36)?..)?;
    (id.chars().filter(|c| *c == '-').count() == 4).then(|| id.to_string())
}

/// The first value `pick` finds among the first records of the JSONL file at `path`.
fn head_value(path: &Path, pick: impl Fn(&serde_json::Value) -> Option<String>) -> Option<String> {
    use std::io::BufRead as _;
    let file = std::fs::File::open(path).ok()?;
    std::io::BufReader::new(file)
        .lines()
        .take(20)
        .map_while(Result::ok)
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(&l).ok())
        .find_map(|r| pick(&r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projects_match_their_directory() {
        assert!(is_project("/w/shop", Path::new("/w/shop")));
        assert!(is_project("/w/shop/", Path::new("/w/shop")));
        assert!(!is_project("/w/shop", Path::new("/w/sho")));
        assert!(!is_project("/w/shop", Path::new("/w")));
        // Claude Code's directory name read back without the records' cwd.
        assert!(is_project("/w/my/app", Path::new("/w/my.app")));
        assert!(is_project("/w/my/app", Path::new("/w/my/app")));
        assert!(!is_project("/w/my.app", Path::new("/w/my/app")));
        assert!(is_project("/", Path::new("/")));
    }

    #[test]
    fn only_files_that_may_be_the_projects_are_described() {
        let tmp = tempfile::tempdir().unwrap();
        let w = Worth::new(&[PathBuf::from("/w/app/src")]);
        let file = |rel: &str, text: &str| {
            let p = tmp.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, text).unwrap();
            p
        };
        let ours = file(
            "a.jsonl",
            r#"{"type":"session_meta","payload":{"cwd":"/w/app"}}"#,
        );
        let above = file("b.jsonl", r#"{"cwd":"/w"}"#);
        let other = file("c.jsonl", r#"{"cwd":"/w/application"}"#);
        let claude = file("projects/-w-app/d.jsonl", r#"{"type":"summary"}"#);
        let gemini = file(".gemini/tmp/app/chats/s.jsonl", r#"{"sessionId":"x"}"#);
        assert!(w.may_be(&ours) && w.may_be(&above));
        assert!(!w.may_be(&other));
        assert!(w.may_be(&claude) && w.may_be(&gemini));
        // A directory JSON would escape: every file is looked at.
        assert!(Worth::new(&[PathBuf::from("/w/\"q\"")]).may_be(&other));
    }

    #[test]
    fn codex_ids_come_from_the_rollout_name() {
        let p = Path::new("rollout-2026-01-02T03-04-05-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl");
        assert_eq!(
            codex_id_from_name(p).as_deref(),
            Some("0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
        );
        assert_eq!(codex_id_from_name(Path::new("short.jsonl")), None);
    }
}
