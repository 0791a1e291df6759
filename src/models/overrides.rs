//! Config entries that add or change models: `[models."name"]`.

use serde::{Deserialize, Deserializer};

use super::{encoding_for_model, tokenizer_names, ModelError, ModelSpec, Registry};
use crate::tokens::Encoding;

/// One `[models."name"]` table of the config file. Every field is optional; a model the
/// registry does not know needs `context_window`. Unknown keys are errors, so the config
/// loader can embed this struct and report typos by key.
///
/// ```toml
/// [models."my-llama"]
/// context_window = 32768      # or contextLength, as the TypeScript tool wrote it
/// max_output_tokens = 4096
/// tokenizer = "cl100k_base"   # o200k_base, cl100k_base, p50k_base, r50k_base, approx, words
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelOverride {
    /// Maximum prompt size in tokens.
    #[serde(default, alias = "contextLength", alias = "context-window")]
    pub context_window: Option<u64>,
    /// Maximum reply size in tokens.
    #[serde(default, alias = "max-output-tokens")]
    pub max_output_tokens: Option<u64>,
    /// The tokenizer to count with. A tiktoken encoding named here counts as exact.
    #[serde(default, deserialize_with = "tokenizer")]
    pub tokenizer: Option<Encoding>,
}

fn tokenizer<'de, D: Deserializer<'de>>(de: D) -> Result<Option<Encoding>, D::Error> {
    let name = String::deserialize(de)?;
    match Encoding::from_name(&name) {
        Some(e) => Ok(Some(e)),
        None => Err(serde::de::Error::custom(format!(
            "unknown tokenizer `{name}`, expected one of {}",
            tokenizer_names()
        ))),
    }
}

impl Registry {
    /// A copy of this registry with config entries applied, in the order given.
    ///
    /// A name that is exactly a model's id or alias (case-insensitive) changes that model
    /// in place, so its aliases and snapshots follow. Any other name becomes a new model
    /// under that name (looked up exactly before any normalisation); fields it leaves out
    /// come from the model the name resolves to, if any (`openrouter/x:beta` with only
    /// `max_output_tokens` keeps `x`'s window), else `context_window` is required and the
    /// tokenizer comes from the name.
    pub fn with_overrides<'a, K, I>(&self, overrides: I) -> Result<Registry, ModelError>
    where
        K: AsRef<str> + 'a,
        I: IntoIterator<Item = (K, &'a ModelOverride)>,
    {
        let mut registry = self.clone();
        for (name, ov) in overrides {
            let name = name.as_ref().trim();
            if name.is_empty() {
                return Err(ModelError::EmptyName);
            }
            if ov.context_window == Some(0) {
                return Err(ModelError::ZeroWindow {
                    model: name.to_string(),
                });
            }
            if let Some(spec) = registry.get_mut(name) {
                apply(spec, ov);
                continue;
            }
            let mut spec = match registry.find(name) {
                Some(base) => ModelSpec {
                    id: name.to_string(),
                    ..base.clone()
                },
                None => {
                    let window = ov.context_window.ok_or_else(|| ModelError::MissingWindow {
                        model: name.to_string(),
                    })?;
                    let (encoding, exact) = encoding_for_model(name);
                    ModelSpec {
                        id: name.to_string(),
                        context_window: window,
                        max_output_tokens: None,
                        encoding,
                        exact,
                    }
                }
            };
            apply(&mut spec, ov);
            registry.insert(spec, &[])?;
        }
        Ok(registry)
    }
}

fn apply(spec: &mut ModelSpec, ov: &ModelOverride) {
    if let Some(window) = ov.context_window {
        spec.context_window = window;
    }
    if let Some(max_output) = ov.max_output_tokens {
        spec.max_output_tokens = Some(max_output);
    }
    if let Some(encoding) = ov.tokenizer {
        spec.encoding = encoding;
        spec.exact = encoding.is_exact();
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn parse(text: &str) -> Result<BTreeMap<String, ModelOverride>, toml::de::Error> {
        #[derive(Deserialize)]
        struct Config {
            models: BTreeMap<String, ModelOverride>,
        }
        toml::from_str::<Config>(text).map(|c| c.models)
    }

    fn with(text: &str) -> Result<Registry, ModelError> {
        Registry::builtin().with_overrides(&parse(text).unwrap())
    }

    #[test]
    fn config_entries_parse_with_both_window_keys() {
        let models = parse(
            "[models.\"a\"]\ncontext_window = 1000\nmax_output_tokens = 10\ntokenizer = \"o200k_base\"\n\
             [models.\"b\"]\ncontextLength = 2000\n",
        )
        .unwrap();
        assert_eq!(
            models["a"],
            ModelOverride {
                context_window: Some(1000),
                max_output_tokens: Some(10),
                tokenizer: Some(Encoding::O200kBase),
            }
        );
        assert_eq!(models["b"].context_window, Some(2000));
    }

    #[test]
    fn config_errors_name_the_key() {
        let err = parse("[models.\"a\"]\ncontext_windows = 1\n").unwrap_err();
        assert!(err.to_string().contains("context_windows"), "{err}");
        let err = parse("[models.\"a\"]\ntokenizer = \"bpe\"\n").unwrap_err();
        assert!(err.to_string().contains("unknown tokenizer `bpe`"), "{err}");
        let err = parse("[models.\"a\"]\ncontext_window = 1\ncontextLength = 2\n").unwrap_err();
        assert!(err.to_string().contains("duplicate"), "{err}");
    }

    #[test]
    fn new_model_needs_a_window() {
        let registry = with("[models.\"my-llama\"]\ncontextLength = 32768\n").unwrap();
        let spec = registry.lookup("MY-LLAMA").unwrap();
        assert_eq!(
            (spec.id.as_str(), spec.context_window),
            ("my-llama", 32_768)
        );
        assert_eq!((spec.max_output_tokens, spec.exact), (None, false));
        let err = with("[models.\"my-llama\"]\nmax_output_tokens = 5\n").unwrap_err();
        assert_eq!(
            err,
            ModelError::MissingWindow {
                model: "my-llama".into()
            }
        );
        let err = with("[models.\"my-llama\"]\ncontext_window = 0\n").unwrap_err();
        assert_eq!(
            err,
            ModelError::ZeroWindow {
                model: "my-llama".into()
            }
        );
    }

    #[test]
    fn known_name_changes_the_model_and_its_aliases() {
        let registry = with("[models.\"claude-3-opus\"]\nmax_output_tokens = 8192\n").unwrap();
        for name in [
            "claude-3-opus",
            "claude-3-opus-20240229",
            "anthropic/claude-3-opus-latest",
        ] {
            let spec = registry.lookup(name).unwrap();
            assert_eq!(
                (spec.context_window, spec.max_output_tokens),
                (200_000, Some(8192))
            );
        }
        // The shared built-in registry is untouched.
        assert_eq!(
            Registry::builtin()
                .lookup("claude-3-opus")
                .unwrap()
                .max_output_tokens,
            Some(4096)
        );
    }

    #[test]
    fn other_spelling_becomes_its_own_model() {
        let registry =
            with("[models.\"openrouter/anthropic/claude-3.7-sonnet:beta\"]\nmax_output_tokens = 128000\n")
                .unwrap();
        let spec = registry
            .lookup("openrouter/anthropic/claude-3.7-sonnet:beta")
            .unwrap();
        assert_eq!(
            (spec.context_window, spec.max_output_tokens),
            (200_000, Some(128_000))
        );
        assert_eq!(
            registry
                .lookup("claude-3-7-sonnet")
                .unwrap()
                .max_output_tokens,
            Some(64_000)
        );
        // A new snapshot does not change the model it would resolve to.
        let registry = with("[models.\"gpt-4o-2099-01-01\"]\ncontext_window = 1000000\n").unwrap();
        assert_eq!(
            registry.lookup("gpt-4o-2099-01-01").unwrap().context_window,
            1_000_000
        );
        assert_eq!(registry.lookup("gpt-4o").unwrap().context_window, 128_000);
    }

    #[test]
    fn tokenizer_override_sets_exactness() {
        let registry =
            with("[models.\"llama-3.3-70b-instruct\"]\ntokenizer = \"approx\"\n").unwrap();
        let spec = registry.lookup("llama-3.3-70b-instruct").unwrap();
        assert_eq!((spec.encoding, spec.exact), (Encoding::Approx, false));
        let registry =
            with("[models.\"my-gpt\"]\ncontext_window = 9000\ntokenizer = \"o200k_harmony\"\n")
                .unwrap();
        let spec = registry.lookup("my-gpt").unwrap();
        assert_eq!((spec.encoding, spec.exact), (Encoding::O200kBase, true));
    }
}
