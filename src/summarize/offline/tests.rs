use super::*;
use crate::formats::read;
use crate::session::Format;
use crate::tokens::{Encoding, Tokenizer};

fn counter(e: Encoding) -> Counter {
    Counter::new(Tokenizer::new(e).unwrap())
}

const SESSION: &str = r#"[
  {"role": "system", "content": "You are a coding agent."},
  {"role": "user", "content": "Please make the parser accept trailing commas."},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"src/parser.rs\"}"}}]},
  {"role": "tool", "tool_call_id": "c1", "content": "fn parse() {}"},
  {"role": "assistant", "content": "I decided to handle the comma in parse_list instead of the lexer.", "tool_calls": [
    {"id": "c2", "type": "function", "function": {"name": "edit_file", "arguments": "{\"path\": \"src/parser.rs\"}"}}]},
  {"role": "tool", "tool_call_id": "c2", "content": "edited"},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "c3", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"cargo test\"}"}}]},
  {"role": "tool", "tool_call_id": "c3", "content": "Exit code: 101\nerror: test parser::commas failed"},
  {"role": "user", "content": "Also update the changelog."},
  {"role": "assistant", "content": "The parser change is done; one test still fails."}
]"#;

fn summary_of(json: &str, cap: usize, enc: Encoding) -> String {
    let s = read(json.as_bytes(), Some(Format::OpenAi)).unwrap();
    let input = Input::new(&s.messages[1..]);
    summarize(&input, &counter(enc), cap)
}

#[test]
fn has_every_section_with_facts_from_the_tool_calls() {
    let text = summary_of(SESSION, DEFAULT_CAP, Encoding::Approx);
    let want = "Offline summary of 9 earlier messages (2 user, 4 assistant, 3 tool).

## User requests (verbatim, oldest first)
1. Please make the parser accept trailing commas.
2. Also update the changelog.

## Files
- modified: src/parser.rs

## Commands run
- `cargo test` → failed (exit 101)

## Tool calls
- bash: 1 call, 1 failed
- edit_file: 1 call
- read_file: 1 call

## Errors and fixes
- bash `cargo test`: error: test parser::commas failed — not seen resolved

## Decisions and corrections
- I decided to handle the comma in parse_list instead of the lexer.

## Pending work
- unresolved error: bash `cargo test`

## State at the cut
Current task: request 2 above.
Last tool call: bash `cargo test` → failed (exit 101)
Last status from the assistant:
The parser change is done; one test still fails.
";
    assert_eq!(text, want);
}

/// A Claude Code style Anthropic session with `rounds` rounds of Read/Edit/Bash/TodoWrite.
fn claude_code_session(rounds: usize) -> String {
    let mut msgs = vec![serde_json::json!({"role": "user", "content": [
        {"type": "text", "text": "Refactor the TUI so the editor owns its cursor."}]})];
    for i in 0..rounds {
        let file = format!("/repo/src/part{i}.ts");
        for (k, (name, input, out, err)) in [
            (
                "Read",
                serde_json::json!({"file_path": file}),
                "export const x = 1;\n".repeat(20),
                false,
            ),
            (
                "Edit",
                serde_json::json!({"file_path": file, "old_string": "x", "new_string": "y"}),
                "ok".into(),
                false,
            ),
            (
                "Bash",
                serde_json::json!({"command": format!("npm run test:run -- part{i}")}),
                if i % 2 == 0 {
                    format!("FAIL part{i}.test.ts\nError: expected 1 to be 2")
                } else {
                    format!("PASS part{i}.test.ts")
                },
                i % 2 == 0,
            ),
            (
                "TodoWrite",
                serde_json::json!({"todos": []}),
                "updated".into(),
                false,
            ),
        ]
        .into_iter()
        .enumerate()
        {
            let id = format!("toolu_{i}_{k}");
            msgs.push(serde_json::json!({"role": "assistant", "content": [
                {"type": "text", "text": format!("Step {i}.{k}: I'll use {name} next.")},
                {"type": "tool_use", "id": id, "name": name, "input": input}]}));
            msgs.push(serde_json::json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": id, "content": out, "is_error": err}]}));
        }
    }
    serde_json::json!({"model": "claude-sonnet-4", "system": "You are Claude Code.", "messages": msgs})
        .to_string()
}

#[test]
fn same_input_same_bytes_and_the_cap_holds_with_a_real_tokenizer() {
    let json = claude_code_session(40);
    let s = read(json.as_bytes(), None).unwrap();
    assert_eq!(s.format, Format::Anthropic);
    let c = counter(Encoding::O200kBase);
    for cap in [2000, 300] {
        let a = summarize(&Input::new(&s.messages[1..]), &c, cap);
        let b = summarize(
            &Input::new(&s.messages[1..]),
            &counter(Encoding::O200kBase),
            cap,
        );
        assert_eq!(a, b);
        assert!(c.text(&a) <= cap, "cap {cap}: {} tokens\n{a}", c.text(&a));
        assert!(
            a.contains("Refactor the TUI so the editor owns its cursor."),
            "{a}"
        );
    }
    let full = summarize(&Input::new(&s.messages[1..]), &c, 2000);
    for needle in [
        "## Files\n- modified: /repo/src/part0.ts, /repo/src/part1.ts,",
        ", /repo/src/part39.ts\n",
        "- Bash: 40 calls, 20 failed\n",
        "`npm run test:run -- part39` → ok",
        "Bash `npm run test:run -- part38`: Error: expected 1 to be 2 — not seen resolved",
        "earlier omitted)",
    ] {
        assert!(full.contains(needle), "{needle} missing:\n{full}");
    }
}

#[test]
fn a_small_cap_shortens_minor_sections_before_the_requests() {
    let big = SESSION.replace(
        "Also update the changelog.",
        &"Also update the changelog. ".repeat(3),
    );
    let full = summary_of(&big, DEFAULT_CAP, Encoding::Approx);
    let c = counter(Encoding::Approx);
    let cap = c.text(&full) - 20;
    let text = summary_of(&big, cap, Encoding::Approx);
    assert!(c.text(&text) <= cap);
    assert!(text.contains(&"Also update the changelog. ".repeat(3).trim().to_string()));
    assert!(text.contains("Please make the parser accept trailing commas."));
    assert!(text.contains("omitted"), "{text}");
}

#[test]
fn earlier_summaries_are_carried_forward_not_summarized_again() {
    let with_summary = SESSION.replace(
        r#"{"role": "user", "content": "Please make"#,
        r#"{"role": "user", "compact_boundary": true, "compact_id": "x", "content": "[ctxctl compaction 1] note\n\n<summary>\nGOAL: ship v2\n</summary>"},
  {"role": "user", "content": "Please make"#,
    );
    let text = summary_of(&with_summary, DEFAULT_CAP, Encoding::Approx);
    assert!(
        text.contains("## Earlier summary (carried forward)\nGOAL: ship v2\n"),
        "{text}"
    );
    assert!(!text.contains("[ctxctl compaction 1]"), "{text}");
    assert!(
        text.starts_with("Offline summary of 9 earlier messages"),
        "{text}"
    );
}

#[test]
fn huge_requests_are_shortened_verbatim_at_both_ends() {
    let huge = "start ".to_string() + &"x".repeat(40_000) + " end";
    let json = SESSION.replace("Please make the parser accept trailing commas.", &huge);
    let text = summary_of(&json, DEFAULT_CAP, Encoding::Approx);
    assert!(
        text.contains("start xxx") && text.contains("xxx end"),
        "{text}"
    );
    assert!(text.contains("characters omitted"));
    assert!(counter(Encoding::Approx).text(&text) <= DEFAULT_CAP);
}

#[test]
fn every_request_survives_and_the_oldest_are_shortened_first() {
    let mut msgs = vec![serde_json::json!({"role": "system", "content": "sys"})];
    for i in 0..30 {
        let text = format!("request {i}: {}", "please do this carefully ".repeat(20));
        msgs.push(serde_json::json!({"role": "user", "content": text}));
        msgs.push(serde_json::json!({"role": "assistant", "content": format!("done {i}")}));
    }
    let json = serde_json::Value::Array(msgs).to_string();
    let c = counter(Encoding::Approx);
    let text = summary_of(&json, 4000, Encoding::Approx);
    assert!(c.text(&text) <= 4000, "{}", c.text(&text));
    for i in 0..30 {
        assert!(
            text.contains(&format!("{}. request {i}: please", i + 1)),
            "{i}: {text}"
        );
    }
    // The latest request is whole, the oldest shortened.
    let latest = format!("request 29: {}", "please do this carefully ".repeat(20));
    assert!(text.contains(latest.trim()), "{text}");
    let oldest = format!("request 0: {}", "please do this carefully ".repeat(20));
    assert!(!text.contains(oldest.trim()), "{text}");
}

#[test]
fn requests_past_a_quarter_of_the_cap_all_go_down_to_the_shortest_limit() {
    // Each request costs at least 2 tokens: with more than cap / 4 of them the requests
    // never fit half the cap, every shortening step is taken (none need be counted).
    let long = "please do this carefully ".repeat(40);
    let reqs: Vec<String> = (0..60).map(|i| format!("request {i}: {long}")).collect();
    let c = counter(Encoding::Approx);
    for cap in [200, 236] {
        let text = requests(&reqs, &c, cap);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 60);
        for (i, line) in lines.iter().enumerate() {
            let want = format!("{}. {}", i + 1, shorten_request(&reqs[i], 60));
            assert_eq!(*line, want);
        }
    }
    // Fewer requests than that: counted, and the latest stays whole when the rest fit.
    let few: Vec<String> = (0..3).map(|i| format!("request {i}: {long}")).collect();
    let text = requests(&few, &c, 2000);
    assert!(
        text.ends_with(&format!("3. request 2: {}", long.trim_end())),
        "{text}"
    );
}

/// Requests of `sizes` pieces each, drawn from `words` as `seed` says; every third from
/// `rare` instead, when there are any.
fn requests_of(sizes: &[usize], seed: usize, words: &[&str], rare: &[&str]) -> Vec<String> {
    (sizes.iter().enumerate())
        .map(|(i, &n)| match (i + seed) % 3 {
            0 if !rare.is_empty() => (0..n).map(|k| rare[(k * k + seed) % rare.len()]).collect(),
            _ => (0..n)
                .map(|k| words[(i * 7 + k * k + seed) % words.len()])
                .collect(),
        })
        .collect()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]

    /// Requests that all go through every shortening step are clamped only when it could
    /// matter: the section is the one every request clamped (and counted) gives.
    #[test]
    fn requests_are_counted_only_when_it_could_matter(
        sizes in proptest::collection::vec(0usize..700, 241..250),
        seed in 0usize..1000,
        cap in 960usize..964,
    ) {
        // Some requests of plain words, some of characters of several tokens each.
        let words = [
            "fix", " the", " parser", "\n", "  ", "é", "🙂", "漢字", "42", ".", "'ll",
            "                                        ",
        ];
        let rare = ["\u{10FFFD}", "\u{F0000}𝔘", "ꙮ", " "];
        let reqs = requests_of(&sizes, seed, &words, &rare);
        for e in [Encoding::O200kBase, Encoding::Words] {
            let c = counter(e);
            let mut want: Vec<String> = reqs.iter().map(|r| fit::clamp(r, &c, cap / 4)).collect();
            let last = want.len() - 1;
            for (limit, i) in (REQUEST_LIMITS.iter())
                .flat_map(|&l| (0..last).map(move |i| (l, i)))
                .chain(REQUEST_LIMITS.iter().map(|&l| (l, last)))
            {
                if want[i].chars().count() > limit {
                    want[i] = shorten_request(&want[i], limit);
                }
            }
            let want: Vec<String> =
                (want.iter().enumerate()).map(|(i, t)| format!("{}. {t}", i + 1)).collect();
            proptest::prop_assert_eq!(requests(&reqs, &c, cap), want.join("\n"));
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// However many requests and however long, the section is the one the requests
    /// shortened step by step (and counted at every step) give: when their floors tell that
    /// no step brings them down to half the cap, they go to their shortest uncounted.
    #[test]
    fn requests_skip_counting_only_when_no_step_could_stop(
        sizes in proptest::collection::vec(0usize..500, 1..140),
        seed in 0usize..1000,
        cap in proptest::sample::select(vec![400usize, 1000, 2000, 3000, 6000]),
    ) {
        let words = [
            "fix", " the", " parser", "\n", "  ", "é", "🙂", "漢字", "42", ".", "'ll", " ",
            " and", " then", " run", " tests", "                ",
        ];
        let reqs = requests_of(&sizes, seed, &words, &[]);
        for e in [Encoding::O200kBase, Encoding::Cl100kBase, Encoding::Words, Encoding::Approx] {
            let c = counter(e);
            let clamped: Vec<String> = reqs.iter().map(|r| fit::clamp(r, &c, cap / 4)).collect();
            proptest::prop_assert_eq!(
                requests(&reqs, &c, cap),
                numbered(stepped(clamped, &counter(e), cap))
            );
        }
    }
}

/// Many requests of some length under a quarter of the cap's number: their first 60
/// characters tell that every step is taken, and the section is the stepped one.
#[test]
fn requests_whose_heads_outweigh_half_the_cap_all_go_to_their_shortest() {
    let reqs: Vec<String> = (0..134)
        .map(|i| {
            format!(
                "Request {i}: please rework the parser so that it accepts trailing commas, then {}",
                "run the tests again and report ".repeat(i % 9)
            )
        })
        .collect();
    let c = counter(Encoding::O200kBase);
    let clamped: Vec<String> = reqs.iter().map(|r| fit::clamp(r, &c, 500)).collect();
    assert!(2 * reqs.len() <= 1000);
    assert!(never_half(&clamped, &c, 1000));
    let stepped = stepped(clamped.clone(), &c, 2000);
    assert!(stepped
        .iter()
        .all(|t| t.chars().count() <= 60 + " […]".len()));
    assert_eq!(requests(&reqs, &c, 2000), numbered(stepped));
    // Half as many: the floors no longer settle it, and the steps stop short of the last.
    let few = &clamped[..40];
    assert!(!never_half(few, &c, 1000));
    let stepped = self::stepped(few.to_vec(), &c, 2000);
    assert_eq!(stepped.last(), few.last());
    assert_eq!(requests(&reqs[..40], &c, 2000), numbered(stepped));
}

#[test]
fn todos_and_how_errors_were_resolved() {
    let json = r#"[
  {"role": "user", "content": "Make the tests pass."},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"pytest -q\"}"}}]},
  {"role": "tool", "tool_call_id": "c1", "content": "Exit code: 1\nE   ImportError: no module named calc"},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "c2", "type": "function", "function": {"name": "mcp__fs__write_file", "arguments": "{\"path\": \"calc.py\"}"}}]},
  {"role": "tool", "tool_call_id": "c2", "content": "written"},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "c3", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"pytest -q && echo ok\"}"}}]},
  {"role": "tool", "tool_call_id": "c3", "content": "Exit code: 0\n3 passed"},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "c4", "type": "function", "function": {"name": "TodoWrite", "arguments": "{\"todos\": [{\"content\": \"fix import\", \"status\": \"completed\"}, {\"content\": \"add docs\", \"status\": \"in_progress\"}]}"}}]},
  {"role": "tool", "tool_call_id": "c4", "content": "ok"}
]"#;
    let text = summary_of(json, DEFAULT_CAP, Encoding::Approx);
    for needle in [
        "- created: calc.py\n",
        "bash `pytest -q`: E   ImportError: no module named calc — resolved: succeeded after changes to calc.py\n",
        "## Pending work\n- [in_progress] add docs\n",
        "Last tool call: TodoWrite → ok",
    ] {
        assert!(text.contains(needle), "{needle} missing:\n{text}");
    }
    assert!(!text.contains("fix import"), "{text}");
}

/// A summary made from gists taken before the text went (as a large session's compaction
/// makes it) is the one made from the messages, earlier summaries and all.
#[test]
fn a_summary_from_gists_is_the_summary_of_the_messages() {
    let mut s = read(SESSION.as_bytes(), Some(Format::OpenAi)).unwrap();
    // An earlier compaction's summary among them, carried forward.
    let mut earlier = s.messages[1].clone();
    earlier.parts = vec![crate::session::Part::Text(
        "[ctxctl compaction 1] note\n\n<summary>\nEarlier: the lexer was rewritten.\n</summary>"
            .into(),
    )];
    earlier.compact = Some(Box::new(crate::session::CompactMeta {
        id: None,
        seq: Some(1),
        timestamp: None,
        by: "ctxctl",
    }));
    s.messages.insert(2, earlier);
    let middle = &s.messages[1..];
    let gists: Vec<Gist> = middle.iter().map(Gist::of).collect();
    let mut released = middle.to_vec();
    released
        .iter_mut()
        .for_each(crate::session::Message::release_text);
    let c = counter(Encoding::O200kBase);
    let from_messages = Input::new(middle);
    let from_gists = Input::from_gists(&released, gists.iter());
    assert_eq!(from_gists.previous, ["Earlier: the lexer was rewritten."]);
    assert_eq!(from_gists.previous, from_messages.previous);
    assert_eq!(from_gists.facts(), from_messages.facts());
    let summary = summarize(&from_gists, &c, DEFAULT_CAP);
    assert_eq!(summary, summarize(&from_messages, &c, DEFAULT_CAP));
    assert!(
        summary.contains("Earlier: the lexer was rewritten."),
        "{summary}"
    );
    assert!(
        summary.contains("`cargo test` → failed (exit 101)"),
        "{summary}"
    );
    // The released messages alone know nothing.
    assert_ne!(Input::new(&released).facts(), from_messages.facts());
}

/// Issue #45: a retry that succeeds resolves the error and is named; a user declining a
/// call is no error; a slash command's template is no request; a here-document's marker is
/// no file; the user's correction and the stated next step have their sections.
#[test]
fn resolution_corrections_and_next_step() {
    let json = r#"[
  {"role": "system", "content": "You are a coding agent."},
  {"role": "user", "content": "Remove the old package."},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"pip uninstall -y oldpkg\"}"}}]},
  {"role": "tool", "tool_call_id": "c1", "content": "Exit code: 1\nERROR: Permission denied"},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "c2", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"sudo pip uninstall -y oldpkg\"}"}}]},
  {"role": "tool", "tool_call_id": "c2", "content": "Exit code: 0\nSuccessfully uninstalled"},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "c3", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"cat << EOF > notes.txt\"}"}}]},
  {"role": "tool", "tool_call_id": "c3", "content": "Exit code: 0"},
  {"role": "user", "content": "/review src"},
  {"role": "user", "content": "You are reviewing code. Look at every file."},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "c4", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"rm -rf build\"}"}}]},
  {"role": "tool", "tool_call_id": "c4", "content": "The user doesn't want to proceed with this tool use."},
  {"role": "user", "content": "no, don't delete build, use make clean instead"},
  {"role": "assistant", "content": "Understood. Next: run make clean and rebuild."}
]"#;
    let text = summary_of(json, DEFAULT_CAP, Encoding::Approx);
    for want in [
        "`pip uninstall -y oldpkg`: ERROR: Permission denied — resolved: `sudo pip uninstall -y oldpkg` succeeded",
        "## Decisions and corrections\n- request 3, correction: no, don't delete build",
        "## Next step\nAs stated: Understood. Next: run make clean and rebuild.",
        "created: notes.txt\n",
        "2. /review src\n3. no, don't",
    ] {
        assert!(text.contains(want), "missing {want:?} in:\n{text}");
    }
    assert!(
        text.contains("`rm -rf build` → declined by the user"),
        "{text}"
    );
    for absent in [
        "read: EOF",
        "You are reviewing",
        "doesn't want",
        "deleted: build",
    ] {
        assert!(!text.contains(absent), "{absent:?} in:\n{text}");
    }
}

/// Issue #45: a segment that starts with a long earlier summary keeps at least half of
/// its paths and `code` spans within the default cap, ahead of the new details.
#[test]
fn an_earlier_summary_keeps_its_items() {
    let mut earlier = String::from("## Primary request\nMove the store to `sqlite`.\n## Notes\n");
    for i in 0..150 {
        earlier.push_str(&format!(
            "Worked through part {i} of the design at length, with no specific item named.\n"
        ));
        if i % 5 == 0 {
            earlier.push_str(&format!(
                "Changed src/store/part{i}.rs and ran `cargo test part{i}`.\n"
            ));
        }
    }
    let claude = serde_json::json!([
        {"role": "user", "content": format!(
            "This session is being continued from a previous conversation.\n\n{earlier}")},
        {"role": "user", "content": "carry on with the migration"},
        {"role": "assistant", "content": "On it."}
    ]);
    let s = read(claude.to_string().as_bytes(), Some(Format::OpenAi)).unwrap();
    let mut msgs = s.messages.clone();
    msgs[0].compact = Some(Box::new(crate::session::CompactMeta {
        id: None,
        seq: None,
        timestamp: None,
        by: "claude-code",
    }));
    let c = counter(Encoding::O200kBase);
    let text = summarize(&Input::new(&msgs), &c, DEFAULT_CAP);
    assert!(c.text(&text) <= DEFAULT_CAP);
    let items: Vec<String> = (0..150)
        .step_by(5)
        .flat_map(|i| {
            [
                format!("src/store/part{i}.rs"),
                format!("`cargo test part{i}`"),
            ]
        })
        .chain(["`sqlite`".to_string()])
        .collect();
    let kept = items.iter().filter(|i| text.contains(i.as_str())).count();
    assert!(
        kept * 2 >= items.len(),
        "{kept} of {} kept:\n{text}",
        items.len()
    );
    let earlier_at = text.find("## Earlier summary").expect("carried forward");
    assert!(
        earlier_at < text.find("## User requests").unwrap(),
        "{text}"
    );
}
