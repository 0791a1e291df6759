//! Where ctxctl keeps things: `CTXCTL_*_DIR` > `XDG_*_HOME` > the platform's directories.

use std::path::{Path, PathBuf};

use crate::config::env::{self, Env};

fn project_dirs() -> Option<directories::ProjectDirs> {
    directories::ProjectDirs::from("", "", "ctxctl")
}

/// An XDG variable counts only when it is an absolute path (per the XDG spec).
fn xdg(env: &Env, var: &str) -> Option<PathBuf> {
    env.get(var)
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .map(|p| p.join("ctxctl"))
}

/// The data directory: sessions/ and archives/ live here.
pub fn data_dir(env: &Env) -> Option<PathBuf> {
    env.get(env::CTXCTL_DATA_DIR)
        .map(PathBuf::from)
        .or_else(|| xdg(env, env::XDG_DATA_HOME))
        .or_else(|| project_dirs().map(|d| d.data_dir().to_path_buf()))
}

/// The cache directory (token-count cache).
pub fn cache_dir(env: &Env) -> Option<PathBuf> {
    env.get(env::CTXCTL_CACHE_DIR)
        .map(PathBuf::from)
        .or_else(|| xdg(env, env::XDG_CACHE_HOME))
        .or_else(|| project_dirs().map(|d| d.cache_dir().to_path_buf()))
}

/// The default config file.
pub fn default_config_file(env: &Env) -> Option<PathBuf> {
    xdg(env, env::XDG_CONFIG_HOME)
        .or_else(|| project_dirs().map(|d| d.config_dir().to_path_buf()))
        .map(|d| d.join("config.toml"))
}

/// `sessions/` under the data dir.
pub fn sessions_dir(data: &Path) -> PathBuf {
    data.join("sessions")
}

/// Whether `name` is a valid session name: `[A-Za-z0-9._-]+`, not starting with `.`.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_dir_precedence() {
        let env = Env::from_pairs([("CTXCTL_DATA_DIR", "/d"), ("XDG_DATA_HOME", "/x")]);
        assert_eq!(data_dir(&env), Some(PathBuf::from("/d")));
        let env = Env::from_pairs([("XDG_DATA_HOME", "/x")]);
        assert_eq!(data_dir(&env), Some(PathBuf::from("/x/ctxctl")));
        let env = Env::from_pairs([("XDG_DATA_HOME", "relative")]);
        assert_ne!(data_dir(&env), Some(PathBuf::from("relative/ctxctl")));
    }

    #[test]
    fn names() {
        assert!(is_valid_name("my-session_1.v2"));
        for bad in ["", ".hidden", "../x", "a/b", "a b", "x\0"] {
            assert!(!is_valid_name(bad), "{bad:?}");
        }
    }
}
