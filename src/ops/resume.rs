//! How each agent resumes one of its sessions from the command line, for `--resume` (hand
//! over to the agent after a rewrite) and `--print-resume`:
//!
//! | agent | command | run in |
//! |---|---|---|
//! | Claude Code | `claude --resume ID` (ID: the file stem) | the session's project |
//! | Codex CLI | `codex resume ID` (ID: `session_meta.payload.id`) | the session's project |
//! | Gemini CLI | `gemini --resume UUID` (`sessionId`; sessions are per project) | the project |
//! | goose ≥ 1.10 | `goose session --resume --session-id ID` | the project |
//! | goose ≤ 1.9 | `goose session --resume --path FILE` | the project |
//! | OpenCode | `opencode --session ID` | the project |
//!
//! The program is the agent's usual name, looked up on `PATH`, unless
//! `CTXCTL_<AGENT>_BIN` names another (CTXCTL_CLAUDE_BIN, CTXCTL_CODEX_BIN,
//! CTXCTL_GEMINI_BIN, CTXCTL_GOOSE_BIN, CTXCTL_OPENCODE_BIN).

use std::path::{Path, PathBuf};

use crate::config::Env;
use crate::session::Format;

/// One command that resumes a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resume {
    pub program: String,
    pub args: Vec<String>,
    /// The directory to run it in.
    pub cwd: PathBuf,
}

/// A session no agent resumes: its format is not an agent's.
#[derive(Debug, thiserror::Error)]
#[error("{path}: the {format} format is no agent's own: there is nothing to resume it with (--resume takes the sessions of an agent: Claude Code, Codex, Gemini CLI, goose, OpenCode, Copilot CLI)")]
pub struct NotAnAgent {
    pub path: String,
    pub format: &'static str,
}

/// The command that resumes session `id` of format `format` (stored at `path`), run in
/// `cwd`, followed by `extra` (what the user passed after `--`).
pub fn command(
    env: &Env,
    format: Format,
    id: &str,
    path: &Path,
    cwd: PathBuf,
    extra: &[String],
) -> Result<Resume, NotAnAgent> {
    let Some(rule) = format.codec().agent_info().and_then(|a| a.resume.as_ref()) else {
        return Err(NotAnAgent {
            path: path.display().to_string(),
            format: format.name(),
        });
    };
    let (var, name) = (rule.var, rule.program);
    let mut args = (rule.args)(id, path);
    args.extend(extra.iter().cloned());
    let program = env
        .get(var)
        .filter(|v| !v.is_empty())
        .unwrap_or(name)
        .to_string();
    Ok(Resume { program, args, cwd })
}

impl Resume {
    /// The command as a shell line: `cd DIR && PROGRAM ARGS…`, each word quoted when it
    /// needs to be.
    pub fn shell_line(&self) -> String {
        let words: Vec<String> = std::iter::once(self.program.as_str())
            .chain(self.args.iter().map(String::as_str))
            .map(quote)
            .collect();
        format!(
            "cd {} && {}",
            quote(&self.cwd.display().to_string()),
            words.join(" ")
        )
    }
}

/// `word` as a POSIX shell reads it back: as it is when it holds only safe characters,
/// else in single quotes (a `'` inside as `'\''`).
pub fn quote(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        return word.to_string();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> Env {
        Env::from_pairs(vars.iter().copied())
    }

    #[test]
    fn each_agent_resumes_its_own_way() {
        let e = env(&[]);
        let cwd = PathBuf::from("/w/app");
        let p = Path::new("/s/x.jsonl");
        let line = |f| {
            command(&e, f, "ID", p, cwd.clone(), &[])
                .unwrap()
                .shell_line()
        };
        assert_eq!(line(Format::ClaudeCode), "cd /w/app && claude --resume ID");
        assert_eq!(line(Format::Codex), "cd /w/app && codex resume ID");
        assert_eq!(line(Format::Gemini), "cd /w/app && gemini --resume ID");
        assert_eq!(
            line(Format::GooseDb),
            "cd /w/app && goose session --resume --session-id ID"
        );
        assert_eq!(
            line(Format::Goose),
            "cd /w/app && goose session --resume --path /s/x.jsonl"
        );
        assert_eq!(line(Format::OpenCode), "cd /w/app && opencode --session ID");
        assert!(command(&e, Format::OpenAi, "ID", p, cwd, &[]).is_err());
    }

    #[test]
    fn the_program_can_be_overridden_and_extra_words_follow() {
        let e = env(&[("CTXCTL_CLAUDE_BIN", "/opt/my claude")]);
        let r = command(
            &e,
            Format::ClaudeCode,
            "ID",
            Path::new("x"),
            PathBuf::from("/w/it's"),
            &["-p".into(), "what did we do?".into()],
        )
        .unwrap();
        assert_eq!(
            r.shell_line(),
            r"cd '/w/it'\''s' && '/opt/my claude' --resume ID -p 'what did we do?'"
        );
    }
}
