//! Which sessions a run takes: the filters `sessions` and every recursive run (`-r DIR`, or
//! a directory given as a FILE) share. File filters (`--glob`, `--exclude`, `--since`,
//! `--older-than`, `--agent`, `--project`) decide before a file is read; result filters
//! (`--min-tokens`, `--status`) once its figure is known.

use std::path::Path;

use regex::Regex;

use crate::ops::describe::Described;

/// The filters of a run, resolved (see `crate::cli::args::filter` for the flags).
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Agents to keep (`--agent`), as [`crate::formats::Codec::agent`] names them.
    pub agents: Vec<String>,
    /// `--project`: a substring (any case) or a glob of the project's directory.
    pub project: Option<Pattern>,
    /// Keep files modified at most this many seconds ago (`--since`).
    pub since: Option<u64>,
    /// Keep files modified at least this many seconds ago (`--older-than`).
    pub older_than: Option<u64>,
    /// Keep only files matching one of these (`--glob`); none: every file.
    pub globs: Vec<Pattern>,
    /// Leave out files matching one of these (`--exclude`).
    pub excludes: Vec<Pattern>,
    /// Keep sessions whose next request is at least this many tokens (`--min-tokens`).
    pub min_tokens: Option<usize>,
    /// Keep sessions whose status is one of these (`--status`); none: every status.
    pub statuses: Vec<String>,
}

impl Filter {
    /// Whether any filter reads the file's content (agent or project).
    pub fn needs_description(&self) -> bool {
        !self.agents.is_empty() || self.project.is_some()
    }

    /// Whether any file filter is set.
    pub fn filters_files(&self) -> bool {
        self.needs_description()
            || self.since.is_some()
            || self.older_than.is_some()
            || !self.globs.is_empty()
            || !self.excludes.is_empty()
    }

    /// Whether the file at `path`, `age` seconds since it was modified, is kept by the
    /// name and time filters.
    pub fn keeps_path(&self, path: &Path, age: i64) -> bool {
        let age = age.max(0) as u64;
        self.since.is_none_or(|s| age <= s)
            && self.older_than.is_none_or(|o| age >= o)
            && (self.globs.is_empty() || self.globs.iter().any(|g| g.matches_path(path)))
            && !self.excludes.iter().any(|g| g.matches_path(path))
    }

    /// Whether a session described as `d` is kept by `--agent` and `--project`.
    pub fn keeps_described(&self, d: &Described) -> bool {
        let agent = d.agent();
        (self.agents.is_empty() || self.agents.iter().any(|a| a == agent))
            && self.project.as_ref().is_none_or(|p| {
                d.project
                    .as_deref()
                    .is_some_and(|project| p.matches_text(project))
            })
    }

    /// Whether a session whose next request is `tokens` with status `status` is kept.
    pub fn keeps_result(&self, tokens: usize, status: &str) -> bool {
        self.min_tokens.is_none_or(|m| tokens >= m)
            && (self.statuses.is_empty() || self.statuses.iter().any(|s| s == status))
    }
}

/// A glob (`*`, `**`, `?`, `[…]`) or, for `--project` without glob characters, a
/// substring.
#[derive(Debug, Clone)]
pub struct Pattern {
    text: String,
    glob: Option<Regex>,
    /// Whether the glob names a path (has a `/`) rather than a file name.
    has_slash: bool,
}

/// Why a pattern is not one.
#[derive(Debug, thiserror::Error)]
#[error("invalid pattern {text:?}: {why}")]
pub struct PatternError {
    text: String,
    why: String,
}

impl Pattern {
    /// A glob for file names (`*.jsonl`) or paths (`**/subagents/*`), as ripgrep's `--glob`:
    /// without a `/` it matches a file's name, with one the end of its path.
    pub fn glob(text: &str) -> Result<Pattern, PatternError> {
        let re = translate(text).map_err(|why| PatternError {
            text: text.to_string(),
            why,
        })?;
        let has_slash = text.contains('/');
        let anchored = if has_slash {
            format!("(?:^|/){}$", re.trim_start_matches('/'))
        } else {
            format!("^{re}$")
        };
        let glob = Regex::new(&anchored).map_err(|e| PatternError {
            text: text.to_string(),
            why: e.to_string(),
        })?;
        Ok(Pattern {
            text: text.to_string(),
            glob: Some(glob),
            has_slash,
        })
    }

    /// A glob when `text` has glob characters, else a substring matched in any case.
    pub fn glob_or_substring(text: &str) -> Result<Pattern, PatternError> {
        if text.contains(['*', '?', '[']) {
            let mut p = Pattern::glob(text)?;
            // A project glob is matched against the whole directory.
            p.has_slash = false;
            return Ok(p);
        }
        Ok(Pattern {
            text: text.to_lowercase(),
            glob: None,
            has_slash: false,
        })
    }

    fn matches_path(&self, path: &Path) -> bool {
        let text = if self.has_slash {
            path.to_string_lossy()
        } else {
            path.file_name().unwrap_or_default().to_string_lossy()
        };
        self.matches_text(&text)
    }

    /// Whether `text` matches (the whole of it for a glob, any part for a substring).
    pub fn matches_text(&self, text: &str) -> bool {
        match &self.glob {
            Some(re) => re.is_match(text),
            None => text.to_lowercase().contains(&self.text),
        }
    }
}

/// A glob as a regular expression (unanchored).
fn translate(glob: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = glob.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
                if chars.peek() == Some(&'/') {
                    chars.next();
                    out.push_str("(?:.*/)?");
                } else {
                    out.push_str(".*");
                }
            }
            '*' => out.push_str("[^/]*"),
            '?' => out.push_str("[^/]"),
            '[' => {
                let mut class = String::from("[");
                if chars.peek() == Some(&'!') {
                    chars.next();
                    class.push('^');
                }
                let mut closed = false;
                for c in chars.by_ref() {
                    if c == ']' {
                        closed = true;
                        break;
                    }
                    if c == '\\' || c == '[' {
                        class.push('\\');
                    }
                    class.push(c);
                }
                if !closed {
                    return Err("unclosed '['".into());
                }
                class.push(']');
                out.push_str(&class);
            }
            c => out.push_str(&regex::escape(&c.to_string())),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Format;

    #[test]
    fn globs_match_names_or_path_ends() {
        let g = |p: &str, path: &str| Pattern::glob(p).unwrap().matches_path(Path::new(path));
        assert!(g("*.jsonl", "/a/b/s.jsonl"));
        assert!(!g("*.jsonl", "/a/b/s.json"));
        assert!(g(
            "rollout-2025-*",
            "/c/sessions/2025/rollout-2025-11.jsonl"
        ));
        assert!(g("**/subagents/*", "/p/x/subagents/agent-1.jsonl"));
        assert!(!g("**/subagents/*", "/p/x/agent-1.jsonl"));
        assert!(g("2025/**/*.jsonl", "/c/sessions/2025/11/17/r.jsonl"));
        assert!(g("s?.json", "/x/s1.json"));
        assert!(g("[ab]*.json", "/x/a.json") && !g("[!ab]*.json", "/x/a.json"));
        assert!(Pattern::glob("[ab").is_err());
    }

    #[test]
    fn projects_match_by_substring_in_any_case_or_by_glob() {
        let p = Pattern::glob_or_substring("Shop").unwrap();
        assert!(p.matches_text("/home/dev/shop-api"));
        let p = Pattern::glob_or_substring("/home/*/shop").unwrap();
        assert!(p.matches_text("/home/dev/shop"));
        assert!(!p.matches_text("/home/dev/shop-api"));
    }

    #[test]
    fn each_filter_keeps_what_it_says() {
        let path = Path::new("/x/s.jsonl");
        let f = Filter {
            since: Some(100),
            ..Filter::default()
        };
        assert!(f.keeps_path(path, 100) && !f.keeps_path(path, 101));
        assert!(f.keeps_path(path, -5), "a file from the future is recent");
        let f = Filter {
            older_than: Some(100),
            excludes: vec![Pattern::glob("*.json").unwrap()],
            ..Filter::default()
        };
        assert!(f.keeps_path(path, 100) && !f.keeps_path(path, 99));
        assert!(!f.keeps_path(Path::new("/x/s.json"), 1000));
        let f = Filter {
            agents: vec!["goose".into()],
            project: Some(Pattern::glob_or_substring("shop").unwrap()),
            ..Filter::default()
        };
        let d = |format, project: Option<&str>| Described {
            format: Some(format),
            project: project.map(String::from),
        };
        assert!(f.keeps_described(&d(Format::GooseDb, Some("/w/shop"))));
        assert!(!f.keeps_described(&d(Format::Codex, Some("/w/shop"))));
        assert!(!f.keeps_described(&d(Format::Goose, None)));
        let f = Filter {
            min_tokens: Some(10),
            statuses: vec!["over".into(), "compact".into()],
            ..Filter::default()
        };
        assert!(f.keeps_result(10, "over") && !f.keeps_result(9, "over"));
        assert!(!f.keeps_result(50, "ok"));
    }
}
