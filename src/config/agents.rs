//! Where the agents keep their sessions by default, as each agent resolves it: what
//! `ctxctl doctor` reports (and the directories a listing of every session starts from).

use std::path::PathBuf;

use super::env::Env;

/// One agent's default session store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentStore {
    /// The agent, as ctxctl's format names it.
    pub agent: &'static str,
    pub path: PathBuf,
    /// Whether `path` is a database file rather than a directory of session files.
    pub database: bool,
}

/// The default stores of every agent ctxctl reads, for the user `env` describes.
pub fn default_stores(env: &Env) -> Vec<AgentStore> {
    let Some(home) = env.get("HOME").map(PathBuf::from) else {
        return Vec::new();
    };
    let dir = |agent, path| AgentStore {
        agent,
        path,
        database: false,
    };
    let claude = env
        .get("CLAUDE_CONFIG_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join(".claude"));
    let codex = env
        .get("CODEX_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join(".codex"));
    // goose's database as goose (and `compact --session`) finds it; the JSONL files of
    // goose ≤ 1.9 sat beside it.
    let goose_db = super::paths::goose_db(env);
    let mut stores = vec![
        dir("claude-code", claude.join("projects")),
        dir("codex", codex.join("sessions")),
        dir("gemini-cli", home.join(".gemini/tmp")),
    ];
    if let Some(db) = goose_db {
        let jsonl = db.parent().map(PathBuf::from).unwrap_or_default();
        stores.push(AgentStore {
            agent: "goose (database)",
            path: db,
            database: true,
        });
        stores.push(dir("goose (jsonl, before 1.10)", jsonl));
    }
    if let Some(db) = super::paths::opencode_db(env) {
        stores.push(AgentStore {
            agent: "opencode",
            path: db,
            database: true,
        });
    }
    // Agents whose folder says where they keep their sessions.
    let var = |name: &str| env.get(name).map(str::to_string);
    for c in crate::formats::CODECS {
        if let Some(path) = c.default_store(&home, &var) {
            stores.push(dir(c.agent(), path));
        }
    }
    stores
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
