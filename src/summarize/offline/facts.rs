//! Extracting the facts an offline summary reports from the messages being summarized.
//! Everything is collected in message order with ordered maps, so the same messages always
//! give the same facts.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::OnceLock;

use regex::Regex;

use super::tools::{self, FileOp};
use super::{patterns, searches};
use crate::fasthash::{FastMap, FastSet};
use crate::session::{join_text, Message, Part, Role};
use crate::summarize::requests::request_text;

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Ok,
    Failed(Option<i64>),
    /// No result among the summarized messages.
    NoResult,
    /// The user declined or interrupted the call: it did nothing, and is no error.
    Declined,
}

impl Outcome {
    pub fn describe(self) -> String {
        match self {
            Outcome::Ok => "ok".into(),
            Outcome::Failed(Some(code)) => format!("failed (exit {code})"),
            Outcome::Failed(None) => "failed".into(),
            Outcome::NoResult => "no result".into(),
            Outcome::Declined => "declined by the user".into(),
        }
    }
}

/// An error seen in a tool result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorSeen {
    pub tool: String,
    pub target: Option<String>,
    /// The most telling line of the output.
    pub line: String,
    pub times: usize,
    /// A later call of the same tool on the same command or file succeeded.
    pub resolved: bool,
    /// How it was resolved: files changed between the error and the success.
    pub fixed_by: Vec<String>,
    /// The call that succeeded, when it ran another command or step than the failed one
    /// (`sudo pip uninstall x` after `pip uninstall x`).
    pub retry: Option<String>,
}

/// Where a file ended up, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FileFate {
    Deleted,
    Created,
    Modified,
    Read,
}

impl FileFate {
    pub fn name(self) -> &'static str {
        match self {
            FileFate::Deleted => "deleted",
            FileFate::Created => "created",
            FileFate::Modified => "modified",
            FileFate::Read => "read",
        }
    }
}

/// Everything the offline summary reports.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Facts {
    /// Messages by role, in `Role::ALL` order.
    pub roles: BTreeMap<Role, usize>,
    /// Every request of the user, oldest first, verbatim (injected context left out).
    pub requests: Vec<String>,
    /// Files in order of first appearance, with their fate.
    pub files: Vec<(String, FileFate)>,
    pub commands: Vec<(String, Outcome)>,
    /// Tool name → (calls, failures).
    pub tools: BTreeMap<String, (usize, usize)>,
    pub errors: Vec<ErrorSeen>,
    pub decisions: Vec<String>,
    pub status: Option<String>,
    /// Open items of the latest todo list or plan (`TodoWrite`, `update_plan`,
    /// `write_todos`), as `[status] text`.
    pub todos: Vec<String>,
    /// The last tool call, with its target and outcome: the work in progress at the cut.
    pub last_call: Option<String>,
}

/// Collects the facts of `messages` (earlier summaries among them are skipped; the caller
/// carries their text forward).
pub fn collect(messages: &[Message]) -> Facts {
    let gists: Vec<Gist> = messages.iter().map(Gist::of).collect();
    fold(gists.iter())
}

/// What the facts need of one message, taken while its text is at hand: a large session's
/// messages are looked at on the threads that parse them and their text dropped, and
/// [`fold`] of their gists in message order gives what [`collect`] of the messages gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gist {
    role: Role,
    /// An earlier compaction's summary: left out of the facts (its results still answer
    /// calls); its body, when not blank, is carried forward ([`Gist::summary`]).
    earlier: Option<Box<str>>,
    request: Option<Box<str>>,
    /// An assistant's words: the decisions in them, and the text (its status, when it is
    /// the last said).
    said: Option<Box<(Vec<String>, Box<str>)>>,
    calls: Box<[CallGist]>,
    results: Box<[ResultGist]>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct CallGist {
    id: String,
    name: String,
    facts: tools::CallFacts,
    todos: Option<Vec<String>>,
}

/// A tool result, judged without its call: whether it failed depends on the call only
/// through `shows_failure` (trusted for shell tools alone).
#[derive(Debug, Clone, PartialEq, Eq)]
struct ResultGist {
    call_id: String,
    is_error: bool,
    /// The user declined or interrupted the call.
    declined: bool,
    /// The exit code the output reports.
    code: Option<i64>,
    /// No exit code, and the output reads like a failure.
    shows_failure: bool,
    /// The line saying what went wrong, for a result that may have failed.
    error_line: Option<String>,
}

impl Gist {
    /// The gist of `m`.
    pub fn of(m: &Message) -> Gist {
        let results = (m.parts.iter())
            .filter_map(|p| match p {
                Part::ToolResult {
                    call_id,
                    content,
                    is_error,
                } => Some(ResultGist::of(call_id, content, *is_error)),
                _ => None,
            })
            .collect();
        if m.compact.is_some() {
            let body = crate::session::summary::summary_body(&m.text()).to_string();
            return Gist {
                role: m.role,
                earlier: Some(body.into()),
                request: None,
                said: None,
                calls: Box::default(),
                results,
            };
        }
        let said = (m.role == Role::Assistant)
            .then(|| text_of(m))
            .filter(|t| !t.trim().is_empty())
            .map(|t| Box::new((decisions(&t), t.trim().into())));
        let calls = (m.parts.iter())
            .filter_map(|p| match p {
                Part::ToolCall {
                    id,
                    name,
                    arguments,
                } => Some(CallGist {
                    id: id.clone(),
                    name: name.clone(),
                    facts: tools::facts(name, arguments),
                    todos: todo_list(name, arguments),
                }),
                _ => None,
            })
            .collect();
        Gist {
            role: m.role,
            earlier: None,
            request: request_text(m).map(String::into_boxed_str),
            said,
            calls,
            results,
        }
    }

    /// The body of the earlier compaction's summary this message is, unless blank.
    pub fn summary(&self) -> Option<&str> {
        self.earlier.as_deref().filter(|s| !s.is_empty())
    }
}

impl ResultGist {
    fn of(call_id: &str, content: &[Part], is_error: bool) -> ResultGist {
        let text = unwrap_output(content_text(content));
        let (head, tail) = ends(&text, 2000);
        // A short output is its own head and tail: looked at once.
        let tail = Some(tail).filter(|_| head.len() < text.len());
        let code = tools::exit_code(head).or_else(|| tail.and_then(tools::exit_code));
        let shows_failure = code.is_none()
            && (tools::shows_failure(head) || tail.is_some_and(tools::shows_failure));
        // The user declining or interrupting a call is no error of the call.
        if is_refusal(&text) {
            return ResultGist {
                call_id: call_id.to_string(),
                is_error: false,
                declined: true,
                code: None,
                shows_failure: false,
                error_line: None,
            };
        }
        let may_fail = is_error || code.is_some_and(|c| c != 0) || shows_failure;
        ResultGist {
            call_id: call_id.to_string(),
            is_error,
            declined: false,
            code,
            shows_failure,
            error_line: may_fail.then(|| error_line(&text)),
        }
    }

    /// How the call this answers ended (`command`: whether it ran a shell command), and
    /// the error line when it failed.
    fn outcome(&self, command: bool) -> (Outcome, Option<&str>) {
        let says_failed = command && self.shows_failure;
        if self.declined {
            (Outcome::Declined, None)
        } else if self.is_error || self.code.is_some_and(|c| c != 0) || says_failed {
            let line = self.error_line.as_deref().unwrap_or("(no output)");
            (Outcome::Failed(self.code.filter(|c| *c != 0)), Some(line))
        } else {
            (Outcome::Ok, None)
        }
    }
}

/// What an agent puts in a tool result when the user declined or interrupted the call.
const REFUSALS: [&str; 4] = [
    "The user doesn't want to proceed",
    "[Request interrupted by user",
    "User rejected",
    "The user has interrupted",
];

/// Whether a failed result's text says the user declined or interrupted the call.
fn is_refusal(text: &str) -> bool {
    let t = text.trim_start();
    REFUSALS.iter().any(|r| t.starts_with(r))
}

/// The text of a tool result's content, borrowed when it is one text part (most are).
fn content_text(content: &[Part]) -> Cow<'_, str> {
    match content {
        [Part::Text(t)] => Cow::Borrowed(t.as_str()),
        _ => Cow::Owned(join_text(content)),
    }
}

/// The facts of messages from their gists, in message order (see [`collect`]).
pub fn fold<'a>(gists: impl Iterator<Item = &'a Gist> + Clone) -> Facts {
    let mut f = Facts::default();
    let mut results: FastMap<&str, &ResultGist> = FastMap::default();
    // Sized once: a large middle has tens of thousands of results.
    results.reserve(gists.clone().map(|g| g.results.len()).sum());
    for r in gists.clone().flat_map(|g| g.results.iter()) {
        results.insert(&r.call_id, r);
    }
    let mut files = FileTracker::default();
    // (tool, target, succeeded) of every call in order, and errors as indices into it.
    // Borrowed from the gists: a large middle has tens of thousands of calls.
    let mut calls: Vec<Call> = Vec::new();
    let mut errors: Vec<(usize, &str)> = Vec::new();
    // Each tool's base name, made once a tool.
    let mut keys: FastMap<&str, Rc<str>> = FastMap::default();
    // The last words and the last call, written out once at the end.
    let mut status: Option<&str> = None;
    let mut last_call: Option<(&str, Option<&str>, Outcome)> = None;
    // A slash command (`/x ARGS`) whose next user message comes before any reply: that
    // message is the command's expanded template, not the user's words.
    let mut after_command = false;
    for g in gists.filter(|g| g.earlier.is_none()) {
        *f.roles.entry(g.role).or_default() += 1;
        if let Some(r) = g.request.as_deref() {
            if !std::mem::take(&mut after_command) {
                f.requests.push(r.to_string());
                after_command = r.starts_with('/') && !r.contains('\n');
            }
        } else if g.role != Role::User {
            after_command = false;
        }
        if let Some((decisions, text)) = g.said.as_deref() {
            f.decisions.extend(decisions.iter().cloned());
            status = Some(text);
        }
        for c in g.calls.iter() {
            let (name, facts) = (c.name.as_str(), &c.facts);
            let outcome = match results.get(c.id.as_str()) {
                None => Outcome::NoResult,
                Some(r) => {
                    let (outcome, line) = r.outcome(facts.command.is_some());
                    if let Some(line) = line {
                        errors.push((calls.len(), line));
                    }
                    outcome
                }
            };
            if let Some(list) = &c.todos {
                f.todos = list.clone();
            }
            let failed = matches!(outcome, Outcome::Failed(_));
            match f.tools.get_mut(name) {
                Some(stat) => {
                    stat.0 += 1;
                    stat.1 += usize::from(failed);
                }
                None => {
                    f.tools.insert(name.to_string(), (1, usize::from(failed)));
                }
            }
            let declined = outcome == Outcome::Declined;
            if !failed && !declined {
                for (op, path) in &facts.files {
                    files.apply(*op, path);
                }
            }
            if let Some(cmd) = &facts.command {
                f.commands.push((cmd.clone(), outcome));
            }
            last_call = Some((name, facts.target(), outcome));
            let changed = (facts.files.iter())
                .filter(|(op, _)| !failed && !declined && *op != FileOp::Read)
                .map(|(_, p)| p.as_str())
                .collect();
            let key = keys
                .entry(name)
                .or_insert_with(|| tools::base_name(name).into());
            calls.push(Call {
                name,
                key: Rc::clone(key),
                target: facts.target(),
                // A declined call resolves nothing.
                ok: !failed && !declined,
                changed,
                command: facts.command.is_some(),
            });
        }
    }
    f.status = status.map(str::to_string);
    f.last_call = last_call.map(|(name, target, outcome)| match target {
        Some(t) => format!("{name} `{}` → {}", fit_line(t), outcome.describe()),
        None => format!("{name} → {}", outcome.describe()),
    });
    f.files = files.fates();
    f.errors = fold_errors(&calls, errors);
    dedup_keep_last(&mut f.decisions);
    f
}

/// One tool call, for deciding whether an error was resolved later.
struct Call<'g> {
    name: &'g str,
    /// The tool's base name: `Bash` and `mcp__x__bash` are the same tool.
    key: Rc<str>,
    target: Option<&'g str>,
    ok: bool,
    /// Files the call wrote, edited or deleted.
    changed: Vec<&'g str>,
    /// The target is a shell command (not a file).
    command: bool,
}

/// The first line of `t`, at most 120 characters.
fn fit_line(t: &str) -> String {
    super::fit::one_line(t, 120)
}

/// The open items of a todo list or plan a call writes, if it is one.
fn todo_list(name: &str, arguments: &str) -> Option<Vec<String>> {
    let base = tools::base_name(name);
    if !matches!(
        base.as_str(),
        "todowrite" | "update_plan" | "write_todos" | "todo_write"
    ) {
        return None;
    }
    let args: serde_json::Value = serde_json::from_str(arguments).ok()?;
    let list = ["todos", "plan", "items"]
        .iter()
        .find_map(|k| args.get(*k).and_then(serde_json::Value::as_array))?;
    let field = |v: &serde_json::Value, keys: &[&str]| {
        keys.iter()
            .find_map(|k| v.get(*k).and_then(serde_json::Value::as_str))
            .map(str::to_string)
    };
    Some(
        list.iter()
            .filter_map(|item| {
                let text = field(item, &["content", "step", "description", "text", "title"])?;
                let status = field(item, &["status"]).unwrap_or_else(|| "pending".into());
                (!matches!(status.as_str(), "completed" | "done" | "cancelled"))
                    .then(|| format!("[{status}] {}", fit_line(&text)))
            })
            .collect(),
    )
}

/// Identical errors are reported once, with a count; an error is resolved when a later
/// call with the same tool and target succeeded after its last occurrence, or a later
/// broader run of the same program (`pytest -q` after `pytest -q tests/t.py`).
fn fold_errors(calls: &[Call<'_>], errors: Vec<(usize, &str)>) -> Vec<ErrorSeen> {
    // The successful calls of each (tool, step), in order: linear, however many errors.
    let mut oks: FastMap<(&str, Option<&str>), Vec<usize>> = FastMap::default();
    // And the runs of each (tool, program) in their commands: a failed
    // `pytest -q tests/t.py` is resolved by a later broader run, `pytest -q`, that passes.
    let mut runs: FastMap<(&str, String), Vec<Run>> = FastMap::default();
    for (i, c) in calls.iter().enumerate().filter(|(_, c)| c.ok) {
        oks.entry((&c.key, c.target.map(step))).or_default().push(i);
        let target = c.target.filter(|_| c.command);
        for (prog, words) in target.map(programs).unwrap_or_default() {
            runs.entry((&c.key, prog)).or_default().push((i, words));
        }
    }
    let after = |v: Option<&Vec<usize>>, at: usize| {
        v.and_then(|v| v.get(v.partition_point(|&ok| ok <= at)).copied())
    };
    let broader_after = |key: &str, failed: &str, at: usize| {
        let (prog, words) = programs(failed).into_iter().next()?;
        let v = runs.get(&(key, prog))?;
        v[v.partition_point(|(ok, _)| *ok <= at)..]
            .iter()
            .find(|(_, w)| words.starts_with(w))
            .map(|(ok, _)| *ok)
    };
    let mut out: Vec<ErrorSeen> = Vec::new();
    let mut index: FastMap<(&str, Option<&str>, &str), usize> = FastMap::default();
    for (at, line) in errors {
        let c = &calls[at];
        let same_step = after(oks.get(&(&*c.key, c.target.map(step))), at);
        let same_program =
            (c.target.filter(|_| c.command)).and_then(|t| broader_after(&c.key, t, at));
        let ok_after = match (same_step, same_program) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let resolved = ok_after.is_some();
        let fixed_by = ok_after
            .map(|ok| changed_between(calls, at, ok))
            .unwrap_or_default();
        let retry = ok_after
            .and_then(|ok| calls[ok].target)
            .filter(|t| Some(*t) != c.target)
            .map(str::to_string);
        if let Some(&i) = index.get(&(c.name, c.target, line)) {
            out[i].times += 1;
            out[i].resolved = resolved;
            out[i].fixed_by = fixed_by;
            out[i].retry = retry;
        } else {
            index.insert((c.name, c.target, line), out.len());
            out.push(ErrorSeen {
                tool: c.name.to_string(),
                target: c.target.map(str::to_string),
                line: line.to_string(),
                times: 1,
                resolved,
                fixed_by,
                retry,
            });
        }
    }
    out
}

/// A successful call running a program, and the words of that run.
type Run<'a> = (usize, Vec<&'a str>);

/// Programs whose runs stand for one another when deciding whether an error was resolved:
/// these by their first two words (`cargo test`, `git push`, `npm run`), others by the first.
const TWO_WORD_PROGRAMS: [&str; 14] = [
    "git", "cargo", "npm", "pnpm", "yarn", "go", "docker", "kubectl", "mix", "uv", "poetry",
    "bundle", "dotnet", "gradle",
];

/// The programs a shell command runs, in order (`cd` and variable assignments skipped),
/// each with the words of its run.
fn programs(cmd: &str) -> Vec<(String, Vec<&str>)> {
    let mut out = Vec::new();
    for seg in cmd.split(['\n', ';', '|', '&']) {
        let words: Vec<&str> = (seg.split_whitespace())
            .skip_while(|w| (w.contains('=') && !w.starts_with('-')) || *w == "sudo")
            .collect();
        let prog = match words.as_slice() {
            [] | ["cd", ..] => continue,
            [py, "-m", module, ..] if py.starts_with("python") => format!("{py} -m {module}"),
            [first, second, ..] if TWO_WORD_PROGRAMS.contains(first) => format!("{first} {second}"),
            [first, ..] => first.to_string(),
        };
        out.push((prog, words));
    }
    out
}

/// Up to three files changed by the calls after `from` up to and including `to` (at most
/// 200 calls looked at), in order.
fn changed_between(calls: &[Call<'_>], from: usize, to: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in calls[from + 1..=to].iter().take(200) {
        for &p in &c.changed {
            if out.len() < 3 && !out.iter().any(|o| o == p) {
                out.push(p.to_string());
            }
        }
    }
    out
}

/// The step a target stands for: a command's first command (`python3 t.py && echo OK`
/// runs the step `python3 t.py`), a file's path.
fn step(target: &str) -> &str {
    // The first of `&&`, `||`, `;`, `|` or a newline, in one pass.
    let b = target.as_bytes();
    let end = (0..b.len())
        .find(|&i| match b[i] {
            b';' | b'|' | b'\n' => true,
            b'&' => b.get(i + 1) == Some(&b'&'),
            _ => false,
        })
        .unwrap_or(b.len());
    target[..end].trim()
}

/// The text parts of a message (images shown as a marker).
fn text_of(m: &Message) -> String {
    let mut out = String::new();
    for p in &m.parts {
        let t = match p {
            Part::Text(t) => t.as_str(),
            Part::Image { .. } => "[image]",
            _ => continue,
        };
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(t);
    }
    out
}

/// The output inside Codex 0.5x's JSON wrapping (`{"output": …, "metadata": …}`), or
/// `text` as it is.
fn unwrap_output(text: Cow<'_, str>) -> Cow<'_, str> {
    if !text.starts_with("{\"output\"") {
        return text;
    }
    let v: Option<serde_json::Value> = serde_json::from_str(&text).ok();
    let output = v
        .as_ref()
        .and_then(|v| v.get("output"))
        .and_then(|o| o.as_str());
    match (
        output,
        v.as_ref().and_then(|v| v.pointer("/metadata/exit_code")),
    ) {
        (Some(o), Some(code)) => Cow::Owned(format!("{o}\nExit code: {code}")),
        (Some(o), None) => Cow::Owned(o.to_string()),
        _ => text,
    }
}

/// The first and last `n` bytes of `text` (on character boundaries).
fn ends(text: &str, n: usize) -> (&str, &str) {
    let mut a = n.min(text.len());
    while !text.is_char_boundary(a) {
        a -= 1;
    }
    let mut b = text.len().saturating_sub(n);
    while !text.is_char_boundary(b) {
        b += 1;
    }
    (&text[..a], &text[b..])
}

/// The line of a failed tool's output that says what went wrong: the first one mentioning
/// an error, else the first that is not an exit-code report.
fn error_line(text: &str) -> String {
    // The first line holding a match: no match spans lines, so the line around the first
    // match in the whole text (one search, not one a line).
    if let Some(m) = searches::ERROR_WORDS.find(text) {
        let start = text[..m.start].rfind('\n').map_or(0, |i| i + 1);
        let end = text[m.end..].find('\n').map_or(text.len(), |i| m.end + i);
        return text[start..end].trim().to_string();
    }
    let line = (text.lines().map(str::trim))
        .find(|l| !l.is_empty() && tools::exit_code(l).is_none() && !l.starts_with("Wall time"))
        .unwrap_or("(no output)");
    line.to_string()
}

/// Sentences of assistant text that record a decision.
fn decisions(text: &str) -> Vec<String> {
    // The words without the word boundaries, over the whole text: most have none of them,
    // and one search finds that out (a sentence at a time costs a search each; the
    // pattern for sentences is built only once a text has some).
    if !searches::DECISIONS.is_match(text) {
        return Vec::new();
    }
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| Regex::new(patterns::DECISION_SENTENCE).expect("valid regex"));
    text.lines()
        .flat_map(sentences)
        .map(|s| s.trim().trim_start_matches(['-', '*', ' ']).trim())
        .filter(|s| s.len() >= 8 && re.is_match(s))
        .map(str::to_string)
        .collect()
}

/// Splits a line after `.`, `!` or `?` followed by a space (so `v1.2` or `a.rs` stay whole).
fn sentences(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = line.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let ends =
            matches!(c, '.' | '!' | '?') && chars.peek().is_some_and(|(_, n)| n.is_whitespace());
        if ends {
            out.push(&line[start..=i]);
            start = i + 1;
        }
    }
    out.push(&line[start..]);
    out
}

/// Removes repeated entries, keeping each at its last position.
fn dedup_keep_last(items: &mut Vec<String>) {
    // Whether each is the last of its kind, found from the end without copying any.
    let keep: Vec<bool> = {
        let mut seen: FastSet<&str> =
            FastSet::with_capacity_and_hasher(items.len(), Default::default());
        let mut keep: Vec<bool> = items.iter().rev().map(|s| seen.insert(s)).collect();
        keep.reverse();
        keep
    };
    let mut flags = keep.into_iter();
    items.retain(|_| flags.next().unwrap_or(true));
}

/// Follows each file through the calls that touched it.
#[derive(Default)]
struct FileTracker {
    order: Vec<String>,
    state: FastMap<String, FileFate>,
}

impl FileTracker {
    fn apply(&mut self, op: FileOp, path: &str) {
        // A path seen before is not copied again.
        if let Some(fate) = self.state.get_mut(path) {
            *fate = Self::next(op, Some(*fate));
            return;
        }
        self.order.push(path.to_string());
        self.state.insert(path.to_string(), Self::next(op, None));
    }

    /// What a file whose fate was `prev` (`None`: not seen yet) becomes after `op`.
    fn next(op: FileOp, prev: Option<FileFate>) -> FileFate {
        match (op, prev) {
            (FileOp::Read, None) => FileFate::Read,
            (FileOp::Read, Some(f)) => f,
            (FileOp::Write, None | Some(FileFate::Deleted)) => FileFate::Created,
            (FileOp::Write | FileOp::Edit, Some(FileFate::Created)) => FileFate::Created,
            (FileOp::Write | FileOp::Edit, _) => FileFate::Modified,
            (FileOp::Delete, _) => FileFate::Deleted,
        }
    }

    fn fates(self) -> Vec<(String, FileFate)> {
        let state = self.state;
        self.order
            .into_iter()
            .map(|p| {
                let f = state[&p];
                (p, f)
            })
            .collect()
    }
}

#[cfg(test)]
#[path = "facts_tests.rs"]
mod tests;
