//! Model-name normalisation (MODELS.md §2.4): the registry keys a name may be stored under,
//! best first.
//!
//! The steps, each kept only when it changes the name:
//! 1. trim and lowercase; try the name as given;
//! 2. split off up to two leading path segments as hosts (`openrouter/anthropic/…`);
//! 3. rewrite the model part: `ft:<base>:…` → `<base>`; Vertex `@` → `-`; Bedrock ids lose
//!    their geo prefix, vendor and `-v1:0` version; a `:free`/`:beta`/… tag is dropped;
//!    dotted Claude versions get dashes; `claude-4-opus` ↔ `claude-opus-4`;
//! 4. peel snapshot suffixes one at a time: `-YYYY-MM-DD`, `-YYYYMMDD`, `-latest`,
//!    `-preview-MM-YYYY`, `-MM-YYYY`, and trailing 3-, 4- or 6-digit version numbers.
//!
//! Every model form is tried as `host/form` first (hosted windows differ) and then bare.

/// Host spellings used by routers that differ from the registry's host keys.
const HOST_SYNONYMS: &[(&str, &str)] = &[
    ("x-ai", "xai"),
    ("mistralai", "mistral"),
    ("meta-llama", "meta_llama"),
    ("google", "gemini"),
    ("together", "together_ai"),
    ("fireworks", "fireworks_ai"),
    ("vertex", "vertex_ai"),
    ("aws", "bedrock"),
];

/// Vendor segments of Bedrock model ids (`us.anthropic.claude-…`, `meta.llama3-…`).
const BEDROCK_VENDORS: &[&str] = &[
    "anthropic",
    "amazon",
    "meta",
    "mistral",
    "cohere",
    "ai21",
    "deepseek",
    "openai",
    "qwen",
    "writer",
    "twelvelabs",
    "moonshotai",
    "moonshot",
    "minimax",
    "google",
    "nvidia",
    "zai",
    "xai",
    "stability",
];

/// The registry keys to try for `name`, best first, without duplicates. Empty for a blank
/// name.
pub(crate) fn candidates(name: &str) -> Vec<String> {
    let full = name.trim().to_lowercase();
    let mut out = Vec::new();
    let mut segments: Vec<&str> = full.split('/').filter(|s| !s.is_empty()).collect();
    let Some(model) = segments.pop() else {
        return out;
    };
    push(&mut out, full.clone());
    let mut hosts: Vec<String> = Vec::new();
    for host in segments.iter().take(2) {
        push(&mut hosts, host.to_string());
        if let Some((_, canonical)) = HOST_SYNONYMS.iter().find(|(h, _)| h == host) {
            push(&mut hosts, canonical.to_string());
        }
    }
    let forms = model_forms(model);
    if forms.bedrock {
        push(&mut hosts, "bedrock".to_string());
    }
    for form in &forms.list {
        for host in &hosts {
            push(&mut out, format!("{host}/{form}"));
        }
        push(&mut out, form.clone());
    }
    out
}

/// The model part of `name` with host path, fine-tune wrapper, Bedrock/Vertex syntax and
/// `:tag` removed, lowercased: what tokenizer rules look at (`openai/ft:gpt-4o:org::x` →
/// `gpt-4o`).
pub(crate) fn bare_model(name: &str) -> String {
    let full = name.trim().to_lowercase();
    let model = full.rsplit('/').next().unwrap_or_default();
    let forms = model_forms(model);
    forms.rewritten
}

/// Whether `name` looks like a Claude id (`claude-<family>-<major>…`, or the Claude 3
/// `claude-<major>-…` order), for litellm's Claude baseline.
pub(crate) fn looks_like_claude(name: &str) -> bool {
    let model = bare_model(name);
    let mut parts = model.split('-');
    if parts.next() != Some("claude") {
        return false;
    }
    let first = parts.next().unwrap_or_default();
    let second = parts.next().unwrap_or_default();
    let alpha = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphabetic());
    (alpha(first) && is_digits(second)) || (is_digits(first) && !second.is_empty())
}

struct Forms {
    /// Every form to try, best first.
    list: Vec<String>,
    /// The form after the syntax rewrites (before Claude spelling and suffix peeling).
    rewritten: String,
    /// Whether the name used Bedrock syntax.
    bedrock: bool,
}

fn model_forms(model: &str) -> Forms {
    let mut list = vec![model.to_string()];
    let mut cur = model.to_string();
    if let Some(base) = cur.strip_prefix("ft:") {
        cur = base.split(':').next().unwrap_or_default().to_string();
        push(&mut list, cur.clone());
    }
    if cur.contains('@') {
        cur = cur.trim_end_matches("@default").replace('@', "-");
        push(&mut list, cur.clone());
    }
    let bedrock = match bedrock_model(&cur) {
        Some(rest) => {
            cur = rest;
            push(&mut list, cur.clone());
            true
        }
        None => false,
    };
    if let Some(stripped) = strip_version_tag(&cur) {
        cur = stripped;
        push(&mut list, cur.clone());
    }
    if let Some(i) = cur.rfind(':') {
        cur.truncate(i);
        push(&mut list, cur.clone());
    }
    let rewritten = cur.clone();
    if cur.starts_with("claude-") {
        cur = undot_claude(&cur);
        push(&mut list, cur.clone());
    }
    let mut bases = vec![cur.clone()];
    if let Some(swapped) = swap_claude(&cur) {
        push(&mut list, swapped.clone());
        bases.push(swapped);
    }
    for base in bases {
        let mut form = base;
        while let Some(peeled) = peel(&form) {
            push(&mut list, peeled.clone());
            form = peeled;
        }
    }
    Forms {
        list,
        rewritten,
        bedrock,
    }
}

fn push(list: &mut Vec<String>, item: String) {
    if !item.is_empty() && !list.contains(&item) {
        list.push(item);
    }
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// `us.anthropic.claude-opus-4-1-20250805-v1:0` → `claude-opus-4-1-20250805`;
/// `deepseek.v3.2` → `deepseek-v3.2`. `None` when the name is not a Bedrock id.
fn bedrock_model(name: &str) -> Option<String> {
    let (first, rest) = name.split_once('.')?;
    let (vendor, model) = if BEDROCK_VENDORS.contains(&first) {
        (first, rest)
    } else {
        let geo_ok =
            !first.is_empty() && first.bytes().all(|b| b.is_ascii_lowercase() || b == b'-');
        let (vendor, model) = rest.split_once('.')?;
        if !geo_ok || !BEDROCK_VENDORS.contains(&vendor) {
            return None;
        }
        (vendor, model)
    };
    if model.is_empty() {
        return None;
    }
    let model = strip_version_tag(model).unwrap_or_else(|| model.to_string());
    let model = strip_v_suffix(&model).unwrap_or(model);
    if vendor == "deepseek" && model.starts_with('v') {
        return Some(format!("deepseek-{model}"));
    }
    Some(model)
}

/// `…-v1` → `…` (a Bedrock version without the `:N`).
fn strip_v_suffix(name: &str) -> Option<String> {
    let (head, tail) = name.rsplit_once('-')?;
    let digits = tail.strip_prefix('v')?;
    is_digits(digits).then(|| head.to_string())
}

/// `…-v1:0` or `…-1:0` or `…:0` → `…` (Bedrock's version suffix).
fn strip_version_tag(name: &str) -> Option<String> {
    let (head, tag) = name.rsplit_once(':')?;
    if !is_digits(tag) {
        return None;
    }
    if let Some((stem, version)) = head.rsplit_once('-') {
        if is_digits(version.strip_prefix('v').unwrap_or(version)) {
            return Some(stem.to_string());
        }
    }
    Some(head.to_string())
}

/// `claude-3.7-sonnet` → `claude-3-7-sonnet`, `claude-opus-4.1` → `claude-opus-4-1`.
fn undot_claude(name: &str) -> String {
    let bytes = name.as_bytes();
    let mut out = String::with_capacity(name.len());
    for (i, c) in name.char_indices() {
        let between_digits = c == '.'
            && i > 0
            && bytes[i - 1].is_ascii_digit()
            && bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
        out.push(if between_digits { '-' } else { c });
    }
    out
}

/// `claude-4-opus-20250514` ↔ `claude-opus-4-20250514` (major 4 and later only: Claude 3
/// ids really are `claude-3-opus`).
fn swap_claude(name: &str) -> Option<String> {
    let parts: Vec<&str> = name.split('-').collect();
    if parts.first() != Some(&"claude") || parts.len() < 3 {
        return None;
    }
    let alpha = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphabetic());
    let major = |s: &str| is_digits(s) && s.parse::<u32>().is_ok_and(|n| n >= 4);
    let minor = |s: &str| is_digits(s) && s.len() <= 2;
    let (version, family, rest, old_order) = if major(parts[1]) {
        // claude-4[-5]-opus-rest
        let has_minor = parts.len() > 3 && minor(parts[2]) && alpha(parts[3]);
        let family_at = if has_minor { 3 } else { 2 };
        if !alpha(parts[family_at]) {
            return None;
        }
        (
            &parts[1..family_at],
            parts[family_at],
            &parts[family_at + 1..],
            true,
        )
    } else if alpha(parts[1]) && major(parts[2]) {
        // claude-opus-4[-5]-rest
        let has_minor = parts.len() > 3 && minor(parts[3]);
        let end = if has_minor { 4 } else { 3 };
        (&parts[2..end], parts[1], &parts[end..], false)
    } else {
        return None;
    };
    let mut out: Vec<&str> = vec!["claude"];
    if old_order {
        out.push(family);
        out.extend_from_slice(version);
    } else {
        out.extend_from_slice(version);
        out.push(family);
    }
    out.extend_from_slice(rest);
    Some(out.join("-"))
}

/// Drops one snapshot suffix, or `None` when there is none.
fn peel(name: &str) -> Option<String> {
    let parts: Vec<&str> = name.split('-').collect();
    let n = parts.len();
    let keep = |k: usize| (k >= 1).then(|| parts[..k].join("-"));
    let is_len = |s: &str, len: usize| s.len() == len && is_digits(s);
    if n >= 4 && is_len(parts[n - 3], 4) && is_len(parts[n - 2], 2) && is_len(parts[n - 1], 2) {
        return keep(n - 3); // -YYYY-MM-DD
    }
    if n >= 3 && is_len(parts[n - 2], 2) && is_len(parts[n - 1], 4) {
        let k = if n >= 4 && parts[n - 3] == "preview" {
            n - 3
        } else {
            n - 2
        };
        return keep(k); // -preview-MM-YYYY, -MM-YYYY
    }
    let last = parts[n - 1];
    if n >= 2 && (last == "latest" || (is_digits(last) && matches!(last.len(), 3 | 4 | 6 | 8))) {
        return keep(n - 1); // -latest, -NNN, -MMDD, -YYMMDD, -YYYYMMDD
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has(name: &str, key: &str) -> bool {
        candidates(name).iter().any(|c| c == key)
    }

    #[test]
    fn name_as_given_comes_first() {
        assert_eq!(candidates("  GPT-4o ")[0], "gpt-4o");
        assert!(candidates(" ").is_empty());
        assert!(candidates("//").is_empty());
    }

    #[test]
    fn hosts_are_tried_before_the_bare_model() {
        let c = candidates("openrouter/anthropic/claude-3.7-sonnet:beta");
        let pos = |k: &str| c.iter().position(|x| x == k).unwrap();
        assert!(pos("openrouter/claude-3-7-sonnet") < pos("claude-3-7-sonnet"));
        assert!(pos("anthropic/claude-3-7-sonnet") < pos("claude-3-7-sonnet"));
        assert!(has("x-ai/grok-4", "xai/grok-4"));
        assert!(has(
            "fireworks_ai/accounts/fireworks/models/deepseek-r1",
            "deepseek-r1"
        ));
    }

    #[test]
    fn exact_snapshot_before_peeled_one() {
        let c = candidates("azure/gpt-4o-2024-05-13");
        let pos = |k: &str| c.iter().position(|x| x == k).unwrap();
        assert!(pos("gpt-4o-2024-05-13") < pos("azure/gpt-4o"));
    }

    #[test]
    fn bedrock_and_vertex_ids() {
        assert!(has(
            "us.anthropic.claude-opus-4-1-20250805-v1:0",
            "claude-opus-4-1-20250805"
        ));
        assert!(has(
            "us.anthropic.claude-opus-4-1-20250805-v1:0",
            "bedrock/claude-opus-4-1-20250805"
        ));
        assert!(has("eu.anthropic.claude-opus-4-6-v1", "claude-opus-4-6"));
        assert!(has("openai.gpt-oss-20b-1:0", "gpt-oss-20b"));
        assert!(has("deepseek.v3.2", "deepseek-v3.2"));
        assert!(has(
            "claude-3-5-haiku@20241022",
            "claude-3-5-haiku-20241022"
        ));
        assert!(has("vertex_ai/claude-opus-4-6@default", "claude-opus-4-6"));
        assert!(!has("gpt-4.1", "1"));
    }

    #[test]
    fn tags_fine_tunes_and_claude_spellings() {
        assert!(has(
            "meta-llama/llama-3.3-70b-instruct:free",
            "llama-3.3-70b-instruct"
        ));
        assert!(has(
            "ft:gpt-4o-2024-08-06:my-org::abc123",
            "gpt-4o-2024-08-06"
        ));
        assert!(has("ft:gpt-4o-2024-08-06:my-org::abc123", "gpt-4o"));
        assert!(has("claude-opus-4.1", "claude-opus-4-1"));
        assert!(has("claude-4-opus-20250514", "claude-opus-4-20250514"));
        assert!(has("claude-opus-4-20250514", "claude-4-opus-20250514"));
        assert!(has("claude-4.5-sonnet", "claude-sonnet-4-5"));
        assert!(!has("claude-3-opus", "claude-opus-3"));
        assert_eq!(swap_claude("claude--4"), None);
    }

    #[test]
    fn snapshot_suffixes_peel_one_at_a_time() {
        assert_eq!(peel("gpt-4o-2024-08-06").as_deref(), Some("gpt-4o"));
        assert_eq!(
            peel("claude-opus-4-20250514").as_deref(),
            Some("claude-opus-4")
        );
        assert_eq!(
            peel("claude-3-5-sonnet-latest").as_deref(),
            Some("claude-3-5-sonnet")
        );
        assert_eq!(
            peel("gemini-1.5-pro-002").as_deref(),
            Some("gemini-1.5-pro")
        );
        assert_eq!(
            peel("gemini-2.5-flash-preview-09-2025").as_deref(),
            Some("gemini-2.5-flash")
        );
        assert_eq!(peel("gpt-4-0613").as_deref(), Some("gpt-4"));
        assert_eq!(peel("claude-opus-4-1"), None);
        assert_eq!(peel("gpt-4-32k"), None);
        assert_eq!(peel("latest"), None);
        assert!(has("gemini-1.5-pro-002-latest", "gemini-1.5-pro"));
    }

    #[test]
    fn bare_model_and_claude_shape() {
        assert_eq!(bare_model("OpenAI/ft:gpt-4o:org::x"), "gpt-4o");
        assert_eq!(bare_model("global.openai.gpt-5.5"), "gpt-5.5");
        assert_eq!(bare_model("ollama/gpt-oss:120b"), "gpt-oss");
        assert!(looks_like_claude("anthropic/claude-nova-7"));
        assert!(looks_like_claude("claude-3-opus-20240229"));
        assert!(!looks_like_claude("claude"));
        assert!(!looks_like_claude("gpt-4o"));
    }
}
