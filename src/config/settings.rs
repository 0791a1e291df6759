//! The run's settings, resolved once at start-up into plain values, each with where it
//! came from (flag > environment > config file > built-in). `ctxctl config` prints this
//! struct; commands read it instead of layering flags, variables and the file themselves.
//!
//! A setting whose variable or file value is malformed keeps its error, raised only by the
//! commands that use it (a bad `CTXCTL_THRESHOLD` does not stop `ctxctl count`).

use std::path::PathBuf;

use super::{env, layer, parse_ratio, parse_tokenizer, Env, FileConfig, SettingError, Source};
use super::{ConfigError, Sourced};
use crate::archive::Compression;
use crate::session::Format;
use crate::tokens::Encoding;

/// The default threshold at which `check` says `compact`.
pub const DEFAULT_THRESHOLD: f64 = 0.8;
/// Default seconds to wait for another ctxctl holding a session's lock.
pub const DEFAULT_LOCK_TIMEOUT: u64 = 30;

/// The global flags, as plain values (the CLI builds this from its arguments).
#[derive(Debug, Clone, Default)]
pub struct Globals {
    pub model: Option<String>,
    pub tokenizer: Option<String>,
    pub format: Option<Format>,
    pub config: Option<PathBuf>,
    pub no_config: bool,
    pub no_cache: bool,
    /// `--session`: the session to use inside an agent's database (its id or name).
    pub session: Option<String>,
    /// `--include-live`: rewrite a session even when its agent is using it (see `ops::live`).
    pub include_live: bool,
    /// `--count-with`: `local` or `api`.
    pub count_with: Option<CountWith>,
    /// `--compress`: how new archives are written.
    pub compress: Option<Compression>,
}

/// Where the next request's figure is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CountWith {
    /// ctxctl's own tokenizers and the file's reported usage.
    #[default]
    Local,
    /// The provider's token-counting endpoint, falling back to the local figure.
    Api,
}

impl CountWith {
    pub fn name(self) -> &'static str {
        match self {
            CountWith::Local => "local",
            CountWith::Api => "api",
        }
    }

    pub fn from_name(s: &str) -> Option<CountWith> {
        match s {
            "local" => Some(CountWith::Local),
            "api" => Some(CountWith::Api),
            _ => None,
        }
    }
}

/// The LLM summarizer's connection settings (the key itself is never held here: only the
/// variable it is read from).
#[derive(Debug, Clone)]
pub struct LlmSettings {
    pub provider: Sourced<String>,
    pub base_url: Option<Sourced<String>>,
    pub model: Option<Sourced<String>>,
    /// The environment variable the key comes from, if one is set: a known variable, or
    /// (source: the config file) the one its `llm.api_key_env` names.
    pub api_key_var: Option<Sourced<String>>,
}

/// Every setting of the run.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The config file and why it is that one; `None` with `--no-config` (or no home).
    pub config_path: Option<(PathBuf, Source)>,
    /// Whether that file exists and was read.
    pub config_loaded: bool,
    /// The config file's contents (sections the commands read as they are: `[compact]`,
    /// `[llm]` timeouts, `[models]`).
    pub file: FileConfig,
    pub format: Option<Format>,
    /// `--model` or `CTXCTL_MODEL`; else the session's own, then `default_model`.
    pub model: Option<Sourced<String>>,
    pub default_model: Option<String>,
    /// `None`: the model's own tokenizer.
    pub tokenizer: Sourced<Option<Encoding>>,
    pub no_cache: bool,
    /// `--session`: the session to use inside an agent's database (its id or name).
    pub session: Option<String>,
    /// `--include-live`: rewrite a session even when its agent is using it (see `ops::live`).
    pub include_live: bool,
    threshold: Result<Sourced<f64>, SettingError>,
    threshold_file: Result<(), SettingError>,
    reserved: Result<Sourced<u64>, SettingError>,
    reserve_output: Result<Option<Sourced<u64>>, SettingError>,
    pub data_dir: Option<Sourced<PathBuf>>,
    pub lock_timeout: Result<Sourced<u64>, SettingError>,
    pub llm: LlmSettings,
    /// `--count-with`, `CTXCTL_COUNT_WITH`, `count_with`, or `local`.
    pub count_with: Result<Sourced<CountWith>, SettingError>,
    /// `CTXCTL_COUNT_API_BASE_URL`, else `[count_api] base_url`.
    pub count_api_base_url: Option<Sourced<String>>,
    /// `--compress`, `CTXCTL_ARCHIVE_COMPRESS`, `[archive] compress`, or `none`.
    pub archive_compress: Result<Sourced<Compression>, SettingError>,
}

impl Settings {
    /// Resolves every setting from the flags, the environment and the config file (read
    /// here; a malformed file is an error).
    pub fn resolve(g: &Globals, env: &Env) -> Result<Settings, ResolveError> {
        let config_path = if g.no_config {
            None
        } else {
            super::config_path(g.config.clone(), env)
        };
        let (file, config_loaded) = match &config_path {
            Some((path, source)) => {
                let required = *source != Source::Default;
                (FileConfig::load(path, required)?, path.exists())
            }
            None => (FileConfig::default(), false),
        };
        let model = layer(
            g.model.clone(),
            env,
            env::CTXCTL_MODEL,
            None,
            |s| Some(s.to_string()),
            "a model id",
        )?;
        let tokenizer = resolve_tokenizer(g.tokenizer.as_deref(), env, &file)?;
        let threshold_file = match file.threshold {
            Some(t) if !(t > 0.0 && t <= 1.0) => Err(SettingError::Message(format!(
                "config threshold: expected a ratio in (0, 1], got {t}"
            ))),
            _ => Ok(()),
        };
        let threshold = layer(
            None,
            env,
            env::CTXCTL_THRESHOLD,
            file.threshold,
            parse_ratio,
            "a ratio in (0, 1]",
        )
        .map(|t| t.unwrap_or(Sourced::new(DEFAULT_THRESHOLD, Source::Default)));
        let number = |var, file| {
            layer(
                None,
                env,
                var,
                file,
                |s| s.parse().ok(),
                "a number of tokens",
            )
        };
        let reserved = number(env::CTXCTL_RESERVED, file.reserved)
            .map(|r| r.unwrap_or(Sourced::new(0, Source::Default)));
        let reserve_output = number(env::CTXCTL_RESERVE_OUTPUT, file.reserve_output);
        let data_dir = match (env.get(env::CTXCTL_DATA_DIR), &file.data_dir) {
            (Some(p), _) => Some(Sourced::new(
                PathBuf::from(p),
                Source::Env(env::CTXCTL_DATA_DIR),
            )),
            (None, Some(p)) => Some(Sourced::new(p.clone(), Source::File)),
            (None, None) => {
                crate::config::paths::data_dir(env).map(|p| Sourced::new(p, Source::Default))
            }
        };
        let lock_timeout = match env.get(env::CTXCTL_LOCK_TIMEOUT) {
            Some(s) => s
                .parse::<u64>()
                .map(|n| Sourced::new(n, Source::Env(env::CTXCTL_LOCK_TIMEOUT)))
                .map_err(|_| {
                    SettingError::Message(format!(
                        "{}: expected seconds, got {s:?}",
                        env::CTXCTL_LOCK_TIMEOUT
                    ))
                }),
            None => Ok(Sourced::new(DEFAULT_LOCK_TIMEOUT, Source::Default)),
        };
        let llm = resolve_llm(env, &file);
        let count_with = resolve_count_with(g.count_with, env, &file);
        let archive_compress = resolve_archive_compress(g.compress, env, &file);
        let count_api_base_url = match (
            env.get(env::CTXCTL_COUNT_API_BASE_URL),
            &file.count_api.base_url,
        ) {
            (Some(u), _) => Some(Sourced::new(
                u.to_string(),
                Source::Env(env::CTXCTL_COUNT_API_BASE_URL),
            )),
            (None, Some(u)) => Some(Sourced::new(u.clone(), Source::File)),
            (None, None) => None,
        };
        Ok(Settings {
            config_path,
            config_loaded,
            default_model: file.default_model.clone(),
            file,
            format: g.format,
            model,
            tokenizer,
            no_cache: g.no_cache,
            session: g.session.clone(),
            include_live: g.include_live,
            threshold,
            threshold_file,
            reserved,
            reserve_output,
            data_dir,
            lock_timeout,
            llm,
            count_with,
            count_api_base_url,
            archive_compress,
        })
    }

    /// The threshold: `flag` (a command's `--threshold`), else `CTXCTL_THRESHOLD`, the
    /// config file's `threshold`, or 0.8.
    pub fn threshold(&self, flag: Option<f64>) -> Result<Sourced<f64>, SettingError> {
        if let Some(t) = flag {
            if !(t > 0.0 && t <= 1.0) {
                return Err(SettingError::Message(format!(
                    "--threshold: expected a ratio in (0, 1], got {t}"
                )));
            }
        }
        self.threshold_file.clone()?;
        match flag {
            Some(t) => Ok(Sourced::new(t, Source::Flag)),
            None => self.threshold.clone(),
        }
    }

    /// Tokens reserved besides the output: `flag`, `CTXCTL_RESERVED`, `reserved`, or 0.
    pub fn reserved(&self, flag: Option<u64>) -> Result<Sourced<u64>, SettingError> {
        match flag {
            Some(n) => Ok(Sourced::new(n, Source::Flag)),
            None => self.reserved.clone(),
        }
    }

    /// Tokens reserved for the reply: `flag`, `CTXCTL_RESERVE_OUTPUT`, `reserve_output`;
    /// `None` means the model's default.
    pub fn reserve_output(&self, flag: Option<u64>) -> Result<Option<Sourced<u64>>, SettingError> {
        match flag {
            Some(n) => Ok(Some(Sourced::new(n, Source::Flag))),
            None => self.reserve_output.clone(),
        }
    }
}

/// Why the settings cannot be resolved at all.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Setting(#[from] SettingError),
    #[error("{0}")]
    Tokenizer(String),
}

fn resolve_tokenizer(
    flag: Option<&str>,
    env: &Env,
    file: &FileConfig,
) -> Result<Sourced<Option<Encoding>>, ResolveError> {
    let parse = |t: &str| parse_tokenizer(t).ok_or_else(|| unknown_tokenizer(t));
    let tokenizer = layer(
        flag.map(parse),
        env,
        env::CTXCTL_TOKENIZER,
        file.tokenizer.as_deref().map(parse),
        |s| Some(parse(s)),
        "a tokenizer name",
    )?;
    Ok(match tokenizer {
        Some(Sourced { value, source }) => {
            Sourced::new(value.map_err(ResolveError::Tokenizer)?, source)
        }
        None => Sourced::new(None, Source::Default),
    })
}

fn resolve_count_with(
    flag: Option<CountWith>,
    env: &Env,
    file: &FileConfig,
) -> Result<Sourced<CountWith>, SettingError> {
    let from_file = match file.count_with.as_deref() {
        Some(s) => Some(CountWith::from_name(s).ok_or_else(|| {
            SettingError::Message(format!(
                "config count_with: expected local or api, got {s:?}"
            ))
        })?),
        None => None,
    };
    let got = layer(
        flag,
        env,
        env::CTXCTL_COUNT_WITH,
        from_file,
        CountWith::from_name,
        "local or api",
    )?;
    Ok(got.unwrap_or(Sourced::new(CountWith::Local, Source::Default)))
}

fn resolve_archive_compress(
    flag: Option<Compression>,
    env: &Env,
    file: &FileConfig,
) -> Result<Sourced<Compression>, SettingError> {
    let from_file = match file.archive.compress.as_deref() {
        Some(s) => Some(Compression::from_name(s).ok_or_else(|| {
            SettingError::Message(format!(
                "config archive.compress: expected none or zstd, got {s:?}"
            ))
        })?),
        None => None,
    };
    let got = layer(
        flag,
        env,
        env::CTXCTL_ARCHIVE_COMPRESS,
        from_file,
        Compression::from_name,
        "none or zstd",
    )?;
    Ok(got.unwrap_or(Sourced::new(Compression::None, Source::Default)))
}

fn unknown_tokenizer(name: &str) -> String {
    let names: Vec<&str> = Encoding::ALL.iter().map(|e| e.name()).collect();
    format!(
        "unknown tokenizer {name:?}; expected auto, {}",
        names.join(", ")
    )
}

/// Environment > config file > default, for the LLM connection.
fn resolve_llm(env: &Env, file: &FileConfig) -> LlmSettings {
    let llm = &file.llm;
    let pick = |var: &'static str, f: &Option<String>| match (env.get(var), f) {
        (Some(v), _) => Some(Sourced::new(v.to_string(), Source::Env(var))),
        (None, Some(v)) => Some(Sourced::new(v.clone(), Source::File)),
        (None, None) => None,
    };
    let provider = pick(env::CTXCTL_LLM_PROVIDER, &llm.provider)
        .unwrap_or(Sourced::new("openai".to_string(), Source::Default));
    let known = |var: &'static str| Some(Sourced::new(var.to_string(), Source::Env(var)));
    let key_vars = [
        known(env::CTXCTL_LLM_API_KEY),
        llm.api_key_env
            .as_ref()
            .map(|v| Sourced::new(v.clone(), Source::File)),
        known(env::OPENAI_API_KEY),
        known(env::ANTHROPIC_API_KEY),
    ];
    let api_key_var = key_vars
        .into_iter()
        .flatten()
        .find(|v| env.get(&v.value).is_some());
    LlmSettings {
        provider,
        base_url: pick(env::CTXCTL_LLM_BASE_URL, &llm.base_url),
        model: pick(env::CTXCTL_LLM_MODEL, &llm.model),
        api_key_var,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(pairs: &[(&str, &str)]) -> Settings {
        let g = Globals {
            no_config: true,
            ..Globals::default()
        };
        Settings::resolve(&g, &Env::from_pairs(pairs.iter().copied())).unwrap()
    }

    #[test]
    fn a_bad_variable_is_an_error_only_where_it_is_used() {
        let s = resolve(&[("CTXCTL_THRESHOLD", "lots"), ("CTXCTL_RESERVED", "5")]);
        assert!(s.threshold(None).is_err());
        assert_eq!(s.threshold(Some(0.5)).unwrap().value, 0.5);
        assert_eq!(
            s.reserved(None).unwrap(),
            Sourced::new(5, Source::Env("CTXCTL_RESERVED"))
        );
        assert_eq!(s.reserve_output(None).unwrap(), None);
    }

    #[test]
    fn defaults_say_they_are_defaults() {
        let s = resolve(&[]);
        assert_eq!(
            s.threshold(None).unwrap(),
            Sourced::new(DEFAULT_THRESHOLD, Source::Default)
        );
        assert_eq!(s.lock_timeout.clone().unwrap().value, DEFAULT_LOCK_TIMEOUT);
        assert_eq!(s.llm.provider.source, Source::Default);
        assert_eq!(s.llm.api_key_var, None);
        assert!(s.threshold(Some(1.5)).is_err());
    }

    #[test]
    fn counting_with_the_api_is_opt_in() {
        assert_eq!(resolve(&[]).count_with.unwrap().value, CountWith::Local);
        let s = resolve(&[("CTXCTL_COUNT_WITH", "api")]);
        assert_eq!(
            s.count_with.unwrap(),
            Sourced::new(CountWith::Api, Source::Env("CTXCTL_COUNT_WITH"))
        );
        assert!(resolve(&[("CTXCTL_COUNT_WITH", "remote")])
            .count_with
            .is_err());
    }

    #[test]
    fn the_llm_key_is_found_by_its_variable_never_held() {
        let s = resolve(&[
            ("ANTHROPIC_API_KEY", "sk-secret"),
            ("CTXCTL_LLM_MODEL", "m"),
        ]);
        assert_eq!(
            s.llm.api_key_var,
            Some(Sourced::new(
                "ANTHROPIC_API_KEY".to_string(),
                Source::Env("ANTHROPIC_API_KEY")
            ))
        );
        assert!(!format!("{s:?}").contains("sk-secret"));
    }
}
