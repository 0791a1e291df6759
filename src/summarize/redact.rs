//! `compact --redact`: secrets taken out of text before it goes to a summarizer model and
//! before a summary is written. Pure and linear in the text's length.
//!
//! What is replaced (by `[REDACTED:<kind>]`, so a summary still says something was there):
//! - private key blocks (`-----BEGIN … PRIVATE KEY-----` to its `END` line, or to the end of
//!   the text when the block is cut off);
//! - API keys by their shape: OpenAI `sk-…`, Anthropic `sk-ant-…`, GitHub `ghp_…`/`gho_…`/
//!   `ghu_…`/`ghs_…`/`ghr_…`/`github_pat_…`, AWS key ids `AKIA…`/`ASIA…`, Slack `xoxb-…`
//!   and friends, Google `AIza…`, Stripe `sk_live_…`/`rk_test_…`, and JSON Web Tokens;
//! - bearer tokens (`Bearer <token>`) and `Authorization: Basic|Token|Digest <value>`;
//! - the password of a URL (`scheme://user:PASSWORD@host`);
//! - the value after a secret-looking key: `password=…`, `"password": "…"`, `DB_PASSWORD=…`,
//!   `api_key: …`, `client_secret=…`, `--password=…`, `X-Api-Key: …`, also inside
//!   JSON-escaped JSON (`\"password\": \"…\"`). Variable references (`$PASSWORD`) and
//!   `null`/`true`/`false` are left alone.
//!
//! Shapes that are not listed (a random 40-character string with no telling prefix or key
//! name) cannot be told from ordinary text and are not caught.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::{Captures, Regex};

use crate::session::Message;

/// Text with its secrets replaced, and how many were.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redacted<'a> {
    pub text: Cow<'a, str>,
    pub secrets: usize,
}

/// Secrets recognised by their own shape, most specific first.
static SHAPES: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    let r = |p: &str| Regex::new(p).expect("redaction patterns are valid");
    vec![
        (
            r(
                r"(?s)-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)",
            ),
            "private-key",
        ),
        (r(r"\bsk-ant-[A-Za-z0-9_-]{16,}"), "anthropic-key"),
        (r(r"\bsk-[A-Za-z0-9_-]{16,}"), "openai-key"),
        (
            r(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"),
            "github-token",
        ),
        (r(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), "aws-key"),
        (r(r"\bxox[abposre]-[A-Za-z0-9-]{10,}"), "slack-token"),
        (r(r"\bAIza[0-9A-Za-z_-]{35}"), "google-key"),
        (r(r"\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}"), "stripe-key"),
        (
            r(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
            "jwt",
        ),
    ]
});

/// `Bearer <token>`; the token is checked in code (see [`looks_like_token`]).
static BEARER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(bearer\s+)([A-Za-z0-9._~+/-]+=*)").expect("valid"));

/// `Authorization: Basic <credentials>` and the like.
static AUTHORIZATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(authorization\s*[:=]\s*(?:basic|token|digest)\s+)([A-Za-z0-9+/=._~-]{6,})")
        .expect("valid")
});

/// `scheme://user:password@`.
static URL_PASSWORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@"'\\]+:)([^/\s@"'\\]+)@"#).expect("valid")
});

/// A key whose value is a secret (the value itself is found by [`value_after`]).
static SECRET_KEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)[A-Za-z0-9_.-]*?(?:password|passwd|passphrase|secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|refresh[_-]?token|private[_-]?key)[A-Za-z0-9_-]*",
    )
    .expect("valid")
});

/// `text` with every secret it recognises replaced by `[REDACTED:<kind>]`.
pub fn redact(text: &str) -> Redacted<'_> {
    let mut secrets = 0;
    let mut out = Cow::Borrowed(text);
    let mut apply =
        |out: &mut Cow<'_, str>, re: &Regex, f: &dyn Fn(&Captures) -> Option<String>| {
            let mut found = 0;
            let replaced = re.replace_all(out, |c: &Captures| match f(c) {
                Some(s) => {
                    found += 1;
                    s
                }
                None => c[0].to_string(),
            });
            if found > 0 {
                secrets += found;
                *out = Cow::Owned(replaced.into_owned());
            }
        };
    for (re, kind) in SHAPES.iter() {
        apply(&mut out, re, &|_| Some(format!("[REDACTED:{kind}]")));
    }
    apply(&mut out, &BEARER, &|c| {
        looks_like_token(&c[2]).then(|| format!("{}[REDACTED:bearer-token]", &c[1]))
    });
    apply(&mut out, &AUTHORIZATION, &|c| {
        Some(format!("{}[REDACTED:credentials]", &c[1]))
    });
    apply(&mut out, &URL_PASSWORD, &|c| {
        (!c[2].starts_with("[REDACTED")).then(|| format!("{}[REDACTED:password]@", &c[1]))
    });
    let (text, found) = redact_key_values(out);
    Redacted {
        text,
        secrets: secrets + found,
    }
}

/// `text` with its secrets replaced, as an owned string.
pub fn redact_string(text: &str) -> String {
    redact(text).text.into_owned()
}

/// A copy of `m` whose texts, reasoning, tool arguments and tool results have their
/// secrets replaced.
pub fn message(m: &Message) -> Message {
    let mut out = m.clone();
    out.parts = m.parts.iter().map(|p| p.map_text(&redact_string)).collect();
    out
}

/// A bearer token, not a word: long, or with a digit, and not already redacted.
fn looks_like_token(s: &str) -> bool {
    s.len() >= 8 && (s.len() >= 24 || s.bytes().any(|b| b.is_ascii_digit()))
}

/// Replaces the values after secret-looking keys.
fn redact_key_values(text: Cow<'_, str>) -> (Cow<'_, str>, usize) {
    let mut out = String::new();
    let mut done = 0; // bytes of `text` already copied to `out`
    let mut found = 0;
    for m in SECRET_KEY.find_iter(&text) {
        if m.start() < done || !at_word_start(&text, m.start()) {
            continue;
        }
        let flag = m.as_str().starts_with("--");
        let Some((start, end)) = value_after(&text, m.end(), flag) else {
            continue;
        };
        let kind = if m.as_str().to_ascii_lowercase().contains("pass") {
            "password"
        } else {
            "secret"
        };
        out.push_str(&text[done..start]);
        out.push_str(&format!("[REDACTED:{kind}]"));
        done = end;
        found += 1;
    }
    if found == 0 {
        return (text, 0);
    }
    out.push_str(&text[done..]);
    (Cow::Owned(out), found)
}

fn at_word_start(text: &str, i: usize) -> bool {
    text[..i]
        .chars()
        .next_back()
        .is_none_or(|c| !c.is_alphanumeric() && c != '_')
}

/// The byte range of the value that follows a key ending at `i`: an optional closing quote
/// of the key, `=` or `:` (or blanks after a `--flag`), then a quoted or bare value.
fn value_after(text: &str, i: usize, flag: bool) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let mut j = i;
    // The key's closing quote: `"`, `'` or an escaped `\"`.
    if b.get(j) == Some(&b'\\') && b.get(j + 1) == Some(&b'"') {
        j += 2;
    } else if matches!(b.get(j), Some(b'"' | b'\'')) {
        j += 1;
    }
    let blanks = |mut k: usize| {
        while matches!(b.get(k), Some(b' ' | b'\t')) {
            k += 1;
        }
        k
    };
    j = blanks(j);
    match b.get(j) {
        Some(b':') if b.get(j + 1) == Some(&b':') => return None, // a path: `secret::Key`
        Some(b'=' | b':') => {
            j += 1;
            if b.get(j) == Some(&b'=') {
                j += 1; // `:=`
            }
            j = blanks(j);
        }
        Some(_) if flag && j > i => {}
        _ => return None,
    }
    let (start, end) = match (b.get(j), b.get(j + 1)) {
        (Some(b'\\'), Some(b'"')) => {
            let start = j + 2;
            let len = text[start..].find("\\\"")?;
            (start, start + len)
        }
        (Some(&q @ (b'"' | b'\'')), _) => {
            let start = j + 1;
            let mut k = start;
            while k < b.len() && b[k] != q {
                k += if b[k] == b'\\' { 2 } else { 1 };
            }
            (start, k.min(b.len()))
        }
        _ => {
            let end = text[j..]
                .find(|c: char| c.is_whitespace() || ",;&)}]\"'<>\\".contains(c))
                .map_or(text.len(), |n| j + n);
            (j, end)
        }
    };
    let value = &text[start..end];
    let keep = value.is_empty()
        || value.starts_with('$')
        || value.starts_with("[REDACTED")
        || matches!(
            value.to_ascii_lowercase().as_str(),
            "null" | "true" | "false" | "none"
        );
    (!keep).then_some((start, end))
}

#[cfg(test)]
pub(crate) mod tests;
