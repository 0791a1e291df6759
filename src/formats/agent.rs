//! What ctxctl knows of an agent beyond its records, kept in the agent's own folder and
//! named by its codec ([`super::Codec::agent_info`]): where the agent keeps its sessions
//! by default, the programs that run it (a session one of them holds open is live), and how
//! it resumes a session. Listing every session, `doctor`, the live-session rule and
//! `--resume` read these values and name no agent themselves.

use std::path::{Path, PathBuf};

/// The environment an agent's places are read from: the process's, or a test's.
pub trait Vars {
    /// The variable `name`, when set.
    fn var(&self, name: &str) -> Option<&str>;
}

#[cfg(feature = "cli")]
impl Vars for crate::config::Env {
    fn var(&self, name: &str) -> Option<&str> {
        self.get(name)
    }
}

/// An agent, as ctxctl meets it outside its files.
#[derive(Debug)]
pub struct AgentInfo {
    /// The program names it runs under, matched against the start of a process's name, and
    /// against the script a `node` process runs (`claude`, `gemini`).
    pub programs: &'static [&'static str],
    /// The npm package names a `node` process running it names (`claude-code`).
    pub packages: &'static [&'static str],
    /// Its default session stores for the user `env` describes (`env` has a `HOME`).
    pub stores: fn(&dyn Vars, &Path) -> Vec<AgentStore>,
    /// How it resumes one of its sessions; `None`: it has no command for that.
    pub resume: Option<ResumeRule>,
    /// The id of the session whose file is at `path`, told by the file's place alone, for
    /// an agent whose files' names do not hold it (Copilot CLI's
    /// `session-state/ID/events.jsonl`): how a running `--resume ID` is matched to it.
    pub id_by_place: Option<fn(&Path) -> Option<String>>,
    /// Its database, when it keeps its sessions in one rather than in files.
    pub database: Option<&'static super::dbagent::DbAgent>,
}

/// How an agent resumes a session from the command line.
#[derive(Debug)]
pub struct ResumeRule {
    /// The variable that names another program than [`Self::program`]
    /// (`CTXCTL_CLAUDE_BIN`).
    pub var: &'static str,
    /// The agent's usual program, looked up on `PATH`.
    pub program: &'static str,
    /// The arguments that resume session `id`, stored at `path`.
    pub args: fn(id: &str, path: &Path) -> Vec<String>,
    /// The id it resumes the session file at `path` by, when not the file's stem.
    pub id_of: Option<fn(&Path) -> Option<String>>,
}

/// One agent's default session store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentStore {
    /// The agent, as ctxctl's format names it.
    pub agent: &'static str,
    pub path: PathBuf,
    /// Whether `path` is a database file rather than a directory of session files.
    pub database: bool,
}

impl AgentStore {
    /// A directory of session files.
    pub fn dir(agent: &'static str, path: PathBuf) -> AgentStore {
        AgentStore {
            agent,
            path,
            database: false,
        }
    }

    /// A database file.
    pub fn database(agent: &'static str, path: PathBuf) -> AgentStore {
        AgentStore {
            agent,
            path,
            database: true,
        }
    }
}

/// The default stores of every agent ctxctl reads, for the user `env` describes, in the
/// order of the codec table; none without a `HOME`.
pub fn default_stores(env: &dyn Vars) -> Vec<AgentStore> {
    let Some(home) = env.var("HOME").map(PathBuf::from) else {
        return Vec::new();
    };
    super::CODECS
        .iter()
        .filter_map(|c| c.agent_info())
        .flat_map(|a| (a.stores)(env, &home))
        .collect()
}

/// The databases of the agents that keep their sessions in one, where each agent keeps it
/// by default for the user `env` describes, whether or not they exist.
pub fn default_databases(env: &dyn Vars) -> Vec<AgentStore> {
    let home = env.var("HOME").map(PathBuf::from).unwrap_or_default();
    super::CODECS
        .iter()
        .filter_map(|c| c.agent_info())
        .filter(|a| a.database.is_some())
        .flat_map(|a| (a.stores)(env, &home))
        .filter(|s| s.database)
        .collect()
}

/// The id of the session whose file is at `path`, as the place of the file tells it to an
/// agent that names its sessions by place ([`AgentInfo::id_by_place`]).
pub fn id_by_place(path: &Path) -> Option<String> {
    super::CODECS
        .iter()
        .filter_map(|c| c.agent_info()?.id_by_place)
        .find_map(|id| id(path))
}

/// The first value `pick` finds among the first 20 records of the JSONL file at `path`.
pub fn head_value(
    path: &Path,
    pick: impl Fn(&serde_json::Value) -> Option<String>,
) -> Option<String> {
    use std::io::BufRead as _;
    let file = std::fs::File::open(path).ok()?;
    std::io::BufReader::new(file)
        .lines()
        .take(20)
        .map_while(Result::ok)
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(&l).ok())
        .find_map(|r| pick(&r))
}

/// The directory `var` names when it is set to an absolute path.
pub fn absolute(env: &dyn Vars, var: &str) -> Option<PathBuf> {
    env.var(var).map(PathBuf::from).filter(|p| p.is_absolute())
}

/// The XDG data directory: `$XDG_DATA_HOME` when absolute, else `~/.local/share`.
pub fn data_home(env: &dyn Vars) -> Option<PathBuf> {
    absolute(env, "XDG_DATA_HOME").or_else(|| absolute(env, "HOME").map(|h| h.join(".local/share")))
}

/// Whether a process named `comm`, run with command line `argv`, is one of the agents
/// ctxctl reads: one of their programs run directly, or one of their packages run by node.
pub fn is_agent_process(comm: &str, argv: &[String]) -> bool {
    let infos = || super::CODECS.iter().filter_map(|c| c.agent_info());
    let base = |s: &str| s.rsplit('/').next().unwrap_or(s).to_string();
    let named = |s: &str| {
        let b = base(s);
        infos().any(|a| a.programs.iter().any(|p| b.starts_with(p)))
    };
    if named(comm) || argv.first().is_some_and(|a| named(a)) {
        return true;
    }
    // `node …/@anthropic-ai/claude-code/cli.js`, `node …/@openai/codex/bin/codex.js`: the
    // script node runs, not its arguments.
    let node = base(comm) == "node" || argv.first().is_some_and(|a| base(a) == "node");
    node && argv
        .get(1)
        .is_some_and(|script| infos().any(|a| a.packages.iter().any(|p| script.contains(p))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Env;

    #[test]
    fn stores_follow_each_agents_variables() {
        let env = Env::from_pairs([("HOME", "/h")]);
        let paths: Vec<String> = default_stores(&env)
            .iter()
            .map(|s| s.path.display().to_string())
            .collect();
        assert_eq!(
            paths,
            [
                "/h/.claude/projects",
                "/h/.codex/sessions",
                "/h/.gemini/tmp",
                "/h/.local/share/goose/sessions/sessions.db",
                "/h/.local/share/goose/sessions",
                "/h/.local/share/opencode/opencode.db",
                "/h/.copilot/session-state"
            ]
        );
        let env = Env::from_pairs([
            ("HOME", "/h"),
            ("CLAUDE_CONFIG_DIR", "/c"),
            ("CODEX_HOME", "/x"),
            ("GOOSE_PATH_ROOT", "/g"),
            ("XDG_DATA_HOME", "/d"),
        ]);
        let s = default_stores(&env);
        assert_eq!(s[0].path, PathBuf::from("/c/projects"));
        assert_eq!(s[1].path, PathBuf::from("/x/sessions"));
        assert_eq!(s[3].path, PathBuf::from("/g/data/sessions/sessions.db"));
        assert_eq!(s[5].path, PathBuf::from("/d/opencode/opencode.db"));
        assert!(default_stores(&Env::default()).is_empty());
    }

    #[test]
    fn agents_are_told_by_program_or_by_the_package_node_runs() {
        let argv = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(is_agent_process(
            "claude",
            &argv(&["claude", "--resume", "x"])
        ));
        assert!(is_agent_process(
            "codex",
            &argv(&["/usr/bin/codex", "resume"])
        ));
        assert!(is_agent_process(
            "node",
            &argv(&["node", "/n/@google/gemini-cli/dist/index.js"])
        ));
        assert!(!is_agent_process(
            "node",
            &argv(&["node", "server.js", "/x/claude-code/a.jsonl"])
        ));
        assert!(is_agent_process(
            "node",
            &argv(&["node", "/x/node_modules/@anthropic-ai/claude-code/cli.js"])
        ));
        assert!(!is_agent_process(
            "less",
            &argv(&["less", "/x/claude/a.jsonl"])
        ));
        assert!(!is_agent_process(
            "tail",
            &argv(&["tail", "-f", "codex.jsonl"])
        ));
    }
}
