//! The TOML config file: schema and loading with errors that name the file and key.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::models::ModelOverride;

/// `config.toml`. Unknown keys are errors, so a typo never silently does nothing.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    /// Model used when neither --model, CTXCTL_MODEL nor the session names one.
    pub default_model: Option<String>,
    /// `auto` or a tokenizer name.
    pub tokenizer: Option<String>,
    /// Fraction of the effective limit at which `check` says `compact` (default 0.8).
    pub threshold: Option<f64>,
    /// Tokens reserved besides the output (default 0).
    pub reserved: Option<u64>,
    /// Tokens reserved for the reply (default: the model's max output, at most 20% of the
    /// window).
    pub reserve_output: Option<u64>,
    /// Where rewritten sessions and archives go.
    pub data_dir: Option<PathBuf>,
    /// `local` (default) or `api`: where the next request's figure is counted.
    pub count_with: Option<String>,
    #[serde(default)]
    pub count_api: CountApiConfig,
    #[serde(default)]
    pub compact: CompactConfig,
    #[serde(default)]
    pub llm: LlmConfig,
    #[serde(default)]
    pub archive: ArchiveConfig,
    /// Extra or corrected models: `[models."name"] context_window = …`.
    #[serde(default)]
    pub models: BTreeMap<String, ModelOverride>,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CompactConfig {
    /// `offline` (default) or `llm`.
    pub summarizer: Option<String>,
    /// Fraction of the effective limit kept verbatim at the end (default 0.2).
    pub tail_ratio: Option<f64>,
    /// Tokens kept verbatim at the end (overrides tail_ratio).
    pub tail_tokens: Option<u64>,
    /// Cap on the summary's size in tokens (default 2000).
    pub summary_tokens: Option<u64>,
    /// Batch runs leave alone a session modified this many seconds ago or less (default
    /// 120; 0 turns it off): its agent may be writing it.
    pub live_secs: Option<u64>,
}

/// `[archive]`: how archives of rewritten sessions are written.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ArchiveConfig {
    /// `zstd` (default) or `none`: compression of new archive files.
    pub compress: Option<String>,
    /// Keep at most this many newest archives of each session (default 20; 0: no limit).
    pub keep: Option<usize>,
    /// Keep the whole archive store within this many MiB (default 1024; 0: no limit).
    pub max_mib: Option<u64>,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LlmConfig {
    /// `openai` (any Chat Completions server) or `anthropic`.
    pub provider: Option<String>,
    pub base_url: Option<String>,
    pub model: Option<String>,
    /// Name of the environment variable holding the API key (never the key itself).
    pub api_key_env: Option<String>,
    /// Seconds before a request is abandoned (default 120).
    pub timeout_secs: Option<u64>,
    /// Retries after a failed call (default 2).
    pub retries: Option<u32>,
    /// The summarizer model's context window, when it is not in the registry.
    pub context_window: Option<u64>,
}

/// `[count_api]`: the providers' token-counting endpoints (`count_with = "api"`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CountApiConfig {
    /// Root URL used for every provider instead of its public API (a proxy, a test server).
    pub base_url: Option<String>,
    /// Seconds before a count is abandoned and the local figure used (default 10).
    pub timeout_secs: Option<u64>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("invalid config file {path}: {message}")]
    Parse { path: PathBuf, message: String },
}

impl FileConfig {
    /// Parses config text; `path` is only used in errors.
    pub fn parse(text: &str, path: &Path) -> Result<FileConfig, ConfigError> {
        toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: path.to_path_buf(),
            message: one_line(&e),
        })
    }

    /// Loads `path`; a missing file is an empty config unless `required`.
    pub fn load(path: &Path, required: bool) -> Result<FileConfig, ConfigError> {
        match std::fs::read_to_string(path) {
            Ok(text) => FileConfig::parse(&text, path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => {
                Ok(FileConfig::default())
            }
            Err(source) => Err(ConfigError::Read {
                path: path.to_path_buf(),
                source,
            }),
        }
    }
}

/// toml's errors span several lines (with a source excerpt); keep the place and message.
fn one_line(e: &toml::de::Error) -> String {
    let msg = e.message().trim().to_string();
    match e.span() {
        Some(span) => format!("{msg} (at byte {})", span.start),
        None => msg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_config_parses() {
        let text = r#"
default_model = "claude-sonnet-4-5"
tokenizer = "auto"
threshold = 0.75
reserved = 1000
reserve_output = 8000
count_with = "api"
[count_api]
base_url = "http://127.0.0.1:8081"
timeout_secs = 5
[compact]
summarizer = "offline"
tail_ratio = 0.25
summary_tokens = 1500
[llm]
provider = "openai"
base_url = "http://127.0.0.1:8080/v1"
model = "gpt-4o-mini"
api_key_env = "MY_KEY"
[models."my-local"]
context_window = 32000
max_output_tokens = 4096
"#;
        let c = FileConfig::parse(text, Path::new("c.toml")).unwrap();
        assert_eq!(c.threshold, Some(0.75));
        assert_eq!(c.llm.api_key_env.as_deref(), Some("MY_KEY"));
        assert!(c.models.contains_key("my-local"));
    }

    #[test]
    fn unknown_keys_name_the_key_and_file() {
        let e = FileConfig::parse("treshold = 0.5\n", Path::new("/x/c.toml")).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("/x/c.toml") && msg.contains("treshold"),
            "{msg}"
        );
        let e = FileConfig::parse("[llm]\napi_key = \"sk-1\"\n", Path::new("c.toml")).unwrap_err();
        assert!(e.to_string().contains("api_key"), "{e}");
    }
}
