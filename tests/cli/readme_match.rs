//! Comparing the output a page shows under a command with what ctxctl printed, for
//! tests/cli/readme.rs: what may differ per machine is normalised on both sides, the rest
//! must match, so the examples cannot go stale.
//!
//! - The scratch environment's HOME is shown as `~` and its working directory as `~/work`.
//! - The loopback servers' URLs are shown as the URL the page exported (if it did).
//! - Compaction ids (random UUIDs) match any UUID.
//! - Archive sizes (`N bytes`, the `bytes` column of `archive ls`) match any size: a zstd
//!   archive holds the session's path, so its size moves by a few bytes with the scratch
//!   directory's name.
//! - Runs of spaces are one space (column widths follow the length of paths).
//! - A line `…` stands for any number of lines left out.
//! - stdout and stderr may be shown interleaved, each in its own order.
//! - Shown JSON (a whole `--json` output, unpiped) may leave out fields and trailing array
//!   elements; every value it shows must be the real one.

use std::collections::HashMap;

/// Real output as a page shows it: paths and URLs replaced (`subs`: from → to, in order).
pub fn localize(text: &str, subs: &[(String, String)]) -> String {
    let mut out = text.to_string();
    for (from, to) in subs {
        if !from.is_empty() {
            out = out.replace(from.as_str(), to);
        }
    }
    out
}

fn uuid() -> &'static regex::Regex {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")
            .unwrap()
    })
}

fn sizes() -> &'static [regex::Regex; 2] {
    static RE: std::sync::OnceLock<[regex::Regex; 2]> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        [
            regex::Regex::new(r"\b\d[\d,]* bytes\b").unwrap(),
            // an `archive ls` row: id, time, messages, tokens, BYTES, restored
            regex::Regex::new(
                r"^(\S+ \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \d[\d,]* \d[\d,]* )\d[\d,]*( )",
            )
            .unwrap(),
        ]
    })
}

/// One line as compared: UUIDs as `[UUID]`, archive sizes as `[N]`, runs of whitespace as
/// one space.
pub fn norm(line: &str) -> String {
    let line = uuid().replace_all(line, "[UUID]");
    let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
    let [bytes, row] = sizes();
    let line = bytes.replace_all(&line, "[N] bytes");
    row.replace(&line, "${1}[N]${2}").into_owned()
}

/// The lines of one stream, without the trailing empty ones.
pub fn lines(text: &str) -> Vec<String> {
    let mut v: Vec<String> = text.lines().map(str::to_string).collect();
    while v.last().is_some_and(|l| l.trim().is_empty()) {
        v.pop();
    }
    v
}

/// Whether the shown lines are stdout and stderr interleaved (`…` skipping lines).
pub fn matches(shown: &[String], out: &[String], err: &[String]) -> bool {
    let shown: Vec<String> = shown.iter().map(|l| norm(l)).collect();
    let out: Vec<String> = out.iter().map(|l| norm(l)).collect();
    let err: Vec<String> = err.iter().map(|l| norm(l)).collect();
    let mut memo = HashMap::new();
    walk(&shown, &out, &err, (0, 0, 0), &mut memo)
}

type Memo = HashMap<(usize, usize, usize), bool>;

fn walk(
    shown: &[String],
    out: &[String],
    err: &[String],
    at: (usize, usize, usize),
    memo: &mut Memo,
) -> bool {
    if let Some(&r) = memo.get(&at) {
        return r;
    }
    let (i, j, k) = at;
    let r = if i == shown.len() {
        j == out.len() && k == err.len()
    } else if shown[i] == "…" {
        walk(shown, out, err, (i + 1, j, k), memo)
            || (j < out.len() && walk(shown, out, err, (i, j + 1, k), memo))
            || (k < err.len() && walk(shown, out, err, (i, j, k + 1), memo))
    } else {
        (j < out.len() && out[j] == shown[i] && walk(shown, out, err, (i + 1, j + 1, k), memo))
            || (k < err.len()
                && err[k] == shown[i]
                && walk(shown, out, err, (i + 1, j, k + 1), memo))
    };
    memo.insert(at, r);
    r
}

/// Every field the page shows in a JSON sample exists in the real output with the value
/// shown; `Err` names the first that does not.
pub fn json_shown(shown: &str, actual: &str) -> Result<(), String> {
    let shown: serde_json::Value =
        serde_json::from_str(shown).map_err(|e| format!("the JSON shown does not parse: {e}"))?;
    let actual: serde_json::Value =
        serde_json::from_str(actual).map_err(|e| format!("the output is not JSON: {e}"))?;
    fn walk(
        path: &str,
        shown: &serde_json::Value,
        actual: &serde_json::Value,
    ) -> Result<(), String> {
        use serde_json::Value::{Array, Number, Object, String as Str};
        match (shown, actual) {
            (Object(s), Object(a)) => {
                for (k, v) in s {
                    let av = a.get(k).ok_or_else(|| {
                        format!("{path}.{k} is shown but ctxctl has no such field")
                    })?;
                    walk(&format!("{path}.{k}"), v, av)?;
                }
                Ok(())
            }
            (Array(s), Array(a)) => {
                if s.len() > a.len() {
                    return Err(format!(
                        "{path} shows {} elements, ctxctl printed {}",
                        s.len(),
                        a.len()
                    ));
                }
                for (n, (sv, av)) in s.iter().zip(a).enumerate() {
                    walk(&format!("{path}[{n}]"), sv, av)?;
                }
                Ok(())
            }
            (Str(s), Str(a)) if norm(s) == norm(a) => Ok(()),
            (Number(s), Number(a)) if s.as_f64() == a.as_f64() => Ok(()),
            (s, a) if s == a => Ok(()),
            (s, a) => Err(format!("{path} is shown as {s} but ctxctl printed {a}")),
        }
    }
    walk("", &shown, &actual)
}

#[test]
fn shown_output_matching() {
    let v = |s: &[&str]| s.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    let out = v(&["a  1", "b", "c"]);
    let err = v(&["warning"]);
    assert!(matches(&v(&["a 1", "warning", "b", "c"]), &out, &err));
    assert!(matches(&v(&["a 1", "…", "warning"]), &out, &err));
    assert!(
        !matches(&v(&["a 1", "b", "c"]), &out, &err),
        "stderr left out"
    );
    assert!(!matches(&v(&["a 2", "b", "c", "warning"]), &out, &err));
    assert!(!matches(&v(&[]), &out, &[]));
    assert!(matches(&v(&[]), &[], &[]));
    assert!(matches(
        &v(&[
            "s/1  2026-01-02T03:04:05Z  5  849  3,693  -",
            "1 archive(s), 3,693 bytes"
        ]),
        &v(&[
            "s/1  2026-01-02T03:04:05Z  5  849  3,695  -",
            "1 archive(s), 3,695 bytes"
        ]),
        &[]
    ));
    assert!(!matches(
        &v(&["s/1  2026-01-02T03:04:05Z  5  848  3,693  -"]),
        &v(&["s/1  2026-01-02T03:04:05Z  5  849  3,693  -"]),
        &[]
    ));
    assert!(json_shown(r#"{"a": [1]}"#, r#"{"a": [1, 2], "b": "x"}"#).is_ok());
    assert!(json_shown(r#"{"a": [2]}"#, r#"{"a": [1, 2]}"#).is_err());
    assert!(json_shown(r#"{"c": 1}"#, r#"{"a": 1}"#).is_err());
}
