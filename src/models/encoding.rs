//! Model name → tokenizer, by tiktoken's rules (MODELS.md §2.1, with tiktoken-rs's fixes
//! from §2.2), for any name, in the registry or not.

use super::normalize::bare_model;
use crate::tokens::Encoding;

/// Exact names (tiktoken `MODEL_TO_ENCODING`, plus tiktoken-rs's `o4` and
/// `chatgpt-4o-latest`, plus bare `gpt-oss`).
const EXACT: &[(&str, Encoding)] = &[
    ("o1", Encoding::O200kBase),
    ("o3", Encoding::O200kBase),
    ("o4", Encoding::O200kBase),
    ("o4-mini", Encoding::O200kBase),
    ("gpt-5", Encoding::O200kBase),
    ("gpt-4.1", Encoding::O200kBase),
    ("gpt-4o", Encoding::O200kBase),
    ("chatgpt-4o-latest", Encoding::O200kBase),
    ("gpt-oss", Encoding::O200kBase),
    ("gpt-4", Encoding::Cl100kBase),
    ("gpt-3.5-turbo", Encoding::Cl100kBase),
    ("gpt-3.5", Encoding::Cl100kBase),
    ("gpt-35-turbo", Encoding::Cl100kBase),
    ("davinci-002", Encoding::Cl100kBase),
    ("babbage-002", Encoding::Cl100kBase),
    ("text-embedding-ada-002", Encoding::Cl100kBase),
    ("text-embedding-3-small", Encoding::Cl100kBase),
    ("text-embedding-3-large", Encoding::Cl100kBase),
    ("text-davinci-003", Encoding::P50kBase),
    ("text-davinci-002", Encoding::P50kBase),
    ("code-davinci-001", Encoding::P50kBase),
    ("code-davinci-002", Encoding::P50kBase),
    ("code-cushman-001", Encoding::P50kBase),
    ("code-cushman-002", Encoding::P50kBase),
    ("davinci-codex", Encoding::P50kBase),
    ("cushman-codex", Encoding::P50kBase),
    // p50k_edit has p50k_base's ranks (plus edit special tokens).
    ("text-davinci-edit-001", Encoding::P50kBase),
    ("code-davinci-edit-001", Encoding::P50kBase),
    ("text-davinci-001", Encoding::R50kBase),
    ("text-curie-001", Encoding::R50kBase),
    ("text-babbage-001", Encoding::R50kBase),
    ("text-ada-001", Encoding::R50kBase),
    ("davinci", Encoding::R50kBase),
    ("curie", Encoding::R50kBase),
    ("babbage", Encoding::R50kBase),
    ("ada", Encoding::R50kBase),
    ("gpt2", Encoding::R50kBase),
    ("gpt-2", Encoding::R50kBase),
];

/// Prefixes, first match wins. `gpt-5` has no dash since tiktoken 0.14 (so `gpt-5.1`
/// matches); `gpt-6` has no rule in tiktoken and is assumed to be o200k_base, as litellm
/// does; `gpt-oss-` is o200k_harmony, which counts text exactly like o200k_base.
const PREFIXES: &[(&str, Encoding)] = &[
    ("o1-", Encoding::O200kBase),
    ("o3-", Encoding::O200kBase),
    ("o4-", Encoding::O200kBase),
    ("gpt-5", Encoding::O200kBase),
    ("gpt-6", Encoding::O200kBase),
    ("codex-mini", Encoding::O200kBase),
    ("gpt-4.5-", Encoding::O200kBase),
    ("gpt-4.1-", Encoding::O200kBase),
    ("chatgpt-4o-", Encoding::O200kBase),
    ("gpt-4o-", Encoding::O200kBase),
    ("gpt-oss-", Encoding::O200kBase),
    ("gpt-4-", Encoding::Cl100kBase),
    ("gpt-3.5-turbo-", Encoding::Cl100kBase),
    ("gpt-35-turbo-", Encoding::Cl100kBase),
    ("text-similarity-", Encoding::R50kBase),
    ("text-search-", Encoding::R50kBase),
    ("code-search-", Encoding::R50kBase),
];

/// The tokenizer for a model name and whether it is exact (the model's own public
/// tokenizer). Names no rule covers (Claude, Gemini, Llama, Mistral, ...) get
/// `(Cl100kBase, false)`: cl100k_base undercounts Claude less than o200k_base does.
///
/// Provider paths, `ft:` fine-tunes, Bedrock/Vertex syntax and `:tags` are looked through
/// (`openrouter/openai/gpt-4o:extended` → o200k_base). GPT-6 names are assumed to use
/// o200k_base (no public statement; tiktoken 0.14 has no rule) and are reported as exact.
pub fn encoding_for_model(name: &str) -> (Encoding, bool) {
    let model = bare_model(name);
    let found = EXACT
        .iter()
        .find(|(n, _)| *n == model)
        .or_else(|| PREFIXES.iter().find(|(p, _)| model.starts_with(p)));
    match found {
        Some(&(_, encoding)) => (encoding, true),
        None => (Encoding::Cl100kBase, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(name: &str) -> (Encoding, bool) {
        encoding_for_model(name)
    }

    #[test]
    fn openai_models_follow_tiktoken() {
        assert_eq!(enc("gpt-4o"), (Encoding::O200kBase, true));
        assert_eq!(enc("gpt-4o-mini-2024-07-18"), (Encoding::O200kBase, true));
        assert_eq!(enc("gpt-4"), (Encoding::Cl100kBase, true));
        assert_eq!(enc("gpt-4-turbo"), (Encoding::Cl100kBase, true));
        assert_eq!(enc("gpt-3.5-turbo-0125"), (Encoding::Cl100kBase, true));
        assert_eq!(enc("gpt-35-turbo-16k"), (Encoding::Cl100kBase, true));
        assert_eq!(enc("o1"), (Encoding::O200kBase, true));
        assert_eq!(enc("o4-mini-2025-04-16"), (Encoding::O200kBase, true));
        assert_eq!(enc("gpt-5.5-pro"), (Encoding::O200kBase, true));
        assert_eq!(enc("gpt-4.1-nano"), (Encoding::O200kBase, true));
        assert_eq!(enc("text-davinci-003"), (Encoding::P50kBase, true));
        assert_eq!(enc("davinci"), (Encoding::R50kBase, true));
    }

    #[test]
    fn gpt6_and_gpt_oss_are_o200k() {
        assert_eq!(enc("gpt-6.2"), (Encoding::O200kBase, true));
        assert_eq!(enc("gpt-6-sol"), (Encoding::O200kBase, true));
        assert_eq!(enc("groq/openai/gpt-oss-120b"), (Encoding::O200kBase, true));
        assert_eq!(enc("ollama/gpt-oss:20b"), (Encoding::O200kBase, true));
    }

    #[test]
    fn wrappers_are_looked_through() {
        assert_eq!(enc("OpenAI/GPT-4o"), (Encoding::O200kBase, true));
        assert_eq!(
            enc("openrouter/openai/gpt-4o:extended"),
            (Encoding::O200kBase, true)
        );
        // tiktoken maps ft:gpt-4.1 to cl100k_base by mistake; tiktoken-rs does not.
        assert_eq!(
            enc("ft:gpt-4.1-2025-04-14:org::id"),
            (Encoding::O200kBase, true)
        );
        assert_eq!(
            enc("ft:gpt-3.5-turbo:org::id"),
            (Encoding::Cl100kBase, true)
        );
        assert_eq!(
            enc("bedrock_mantle/openai.gpt-5.6-sol"),
            (Encoding::O200kBase, true)
        );
    }

    #[test]
    fn models_without_public_tokenizer_are_estimates() {
        for name in [
            "claude-3-opus",
            "anthropic/claude-sonnet-4-5",
            "gemini-2.5-pro",
            "llama-3.3-70b-instruct",
            "mistral-large-latest",
            "gpt-audio",
            "",
        ] {
            assert_eq!(enc(name), (Encoding::Cl100kBase, false), "{name}");
        }
    }
}
