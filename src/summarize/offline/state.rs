//! Where the work stands, as the transcript states it: the user's corrections (with the
//! request they were made in), the current task (the last real request, not a one-word
//! "ok"), pending work (the todo list when there is one, else unresolved errors) and the
//! next step (what the assistant's last words say comes next).

use std::sync::OnceLock;

use regex::Regex;

use super::{fit, Facts};

/// How a user redirects the work: "no, use X", "don't touch Y", "actually …", "… instead".
const CORRECTION: &str = r"(?i)^\W*(?:no|nope|don'?t|do not|stop|wait|actually|instead)\b|\b(?:instead|don'?t|do not|rather than|not what i)\b";

/// What the assistant's words say comes next: a `Next:` / `Next step:` line, or a sentence
/// with "next I will", "I'll now", "then I'll", "the next step is", "let me".
const NEXT: &str = r"(?i)(?:^|[.!?]\s)\W*next(?: steps?)?\W*:|\bnext,? (?:i|we)(?:'ll| will)\b|\b(?:i|we)(?:'ll| will) (?:now|next|then)\b|\bthen (?:i|we)(?:'ll| will)\b|\bnext step(?:s)? (?:is|are|would be)\b|\blet me\b|\bremaining\b";

/// Acknowledgements: a request of these words alone is no task.
const ACKS: [&str; 24] = [
    "ok", "okay", "k", "yes", "y", "yep", "sure", "done", "thanks", "thank", "you", "thx", "great",
    "good", "nice", "continue", "proceed", "go", "on", "ahead", "please", "lgtm", "perfect",
    "cool",
];

fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).expect("valid regex"))
}

/// The requests in which the user redirected the work, as `request N: …`.
pub fn corrections(requests: &[String]) -> Vec<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = re(&RE, CORRECTION);
    (requests.iter().enumerate())
        .filter(|(_, r)| re.is_match(r))
        .map(|(i, r)| format!("request {}, correction: {}", i + 1, fit::one_line(r, 100)))
        .collect()
}

/// Whether a request is only an acknowledgement ("ok", "done", "go on").
fn is_ack(request: &str) -> bool {
    let words: Vec<String> = (request.split_whitespace())
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect();
    !words.is_empty() && words.len() <= 3 && words.iter().all(|w| ACKS.contains(&w.as_str()))
}

/// The current task: the last request that is more than an acknowledgement, with its
/// number (1-based), or the last request when all are.
pub fn current_task(requests: &[String]) -> Option<(usize, &str)> {
    let at =
        (requests.iter().rposition(|r| !is_ack(r))).or_else(|| requests.len().checked_sub(1))?;
    Some((at + 1, requests[at].as_str()))
}

/// The current task, as a line: the request's number (its text is among the requests),
/// and the acknowledgement after it.
pub fn task_line(requests: &[String]) -> Option<String> {
    let (n, _) = current_task(requests)?;
    let mut line = format!("Current task: request {n} above.");
    if n < requests.len() {
        line.push_str(&format!(
            " (Request {} after it only acknowledges: {})",
            requests.len(),
            fit::one_line(&requests[requests.len() - 1], 40)
        ));
    }
    Some(line)
}

/// Pending work: the open items of the todo list when the session kept one; otherwise the
/// errors not seen resolved.
pub fn pending(f: &Facts) -> Vec<String> {
    if !f.todos.is_empty() {
        return f.todos.clone();
    }
    let mut out: Vec<String> = (f.errors.iter())
        .filter(|e| !e.resolved)
        .map(|e| match e.target.as_deref() {
            // The error's line is in the errors section: its call is enough here.
            Some(t) => format!("unresolved error: {} `{}`", e.tool, fit::one_line(t, 80)),
            None => format!(
                "unresolved error: {}: {}",
                e.tool,
                fit::one_line(&e.line, 80)
            ),
        })
        .collect();
    // After errors, say that none is left rather than leave it unsaid.
    if out.is_empty() && !f.errors.is_empty() {
        out.push("none open: every error was resolved".into());
    }
    out
}

/// The next step as the assistant's last words state it, else the first open todo item;
/// nothing when the transcript states none (the current task says where to resume).
pub fn next_step(f: &Facts) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = re(&RE, NEXT);
    let stated = f.status.as_deref().and_then(|s| {
        let lines: Vec<&str> = s.lines().collect();
        let at = lines.iter().rposition(|l| re.is_match(l))?;
        // A `Next:` heading's items follow it.
        let mut text = lines[at].trim().to_string();
        for l in lines[at + 1..].iter().take(3) {
            if l.trim().is_empty() {
                break;
            }
            text.push(' ');
            text.push_str(l.trim());
        }
        Some(fit::one_line(&text, 400))
    });
    if let Some(s) = stated {
        return Some(format!("As stated: {s}"));
    }
    (f.todos.first()).map(|first| format!("Not stated; the first open item: {first}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reqs(r: &[&str]) -> Vec<String> {
        r.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_current_task_is_the_last_request_that_is_not_an_acknowledgement() {
        let r = reqs(&["fix the parser in src/p.rs", "ok", "done."]);
        assert_eq!(current_task(&r), Some((1, "fix the parser in src/p.rs")));
        let line = task_line(&r).unwrap();
        assert!(
            line.starts_with("Current task: request 1 above. ("),
            "{line}"
        );
        assert_eq!(current_task(&reqs(&["ok"])), Some((1, "ok")));
        assert_eq!(current_task(&[]), None);
    }

    #[test]
    fn corrections_are_where_the_user_redirected_the_work() {
        let r = reqs(&[
            "add a cache",
            "no, use the lru crate",
            "Don't touch main.rs",
            "use sqlite instead",
            "now the docs",
        ]);
        let c = corrections(&r);
        assert_eq!(c.len(), 3, "{c:?}");
        assert!(c[0].starts_with("request 2, correction: no, use"), "{c:?}");
    }

    #[test]
    fn the_next_step_is_what_the_assistant_last_said_comes_next() {
        let f = Facts {
            requests: reqs(&["build it"]),
            status: Some("Built the parser.\nNext: run the tests\nand push.".into()),
            ..Facts::default()
        };
        assert_eq!(
            next_step(&f).unwrap(),
            "As stated: Next: run the tests and push."
        );
        let quiet = Facts {
            status: Some("Built.".into()),
            ..f.clone()
        };
        assert_eq!(next_step(&quiet), None);
        assert!(pending(&quiet).is_empty());
    }
}
