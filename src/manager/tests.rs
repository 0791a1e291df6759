//! The context manager's behaviours, through its public API.

use super::*;
use crate::session::Part;
use crate::summarize::SummarizeError;

fn words(n: usize, tag: usize) -> String {
    (0..n).map(|i| format!("w{tag}x{i} ")).collect()
}

/// A small window (2,000 tokens of messages) so that a few messages overflow it.
fn small(mode: Mode) -> ContextManager {
    ContextManager::new(
        "test-model",
        ContextLimits::new(3_000, 500, 500),
        Encoding::O200kBase,
    )
    .with_mode(mode)
}

/// Adds `rounds` rounds of user request, tool call, tool result and answer.
fn feed(cm: &mut ContextManager, rounds: usize) {
    for r in 0..rounds {
        cm.add_message(Message::user(format!("request {r}: {}", words(20, r))));
        let id = format!("call_{r}");
        cm.add_message(Message::tool_calls([(
            id.as_str(),
            "read_file",
            r#"{"path":"src/lib.rs"}"#,
        )]));
        cm.add_message(Message::tool_result(id.as_str(), words(60, r)));
        cm.add_message(Message::assistant(format!("done {r}: {}", words(15, r))));
    }
}

fn assert_pairs_whole(msgs: &[Message]) {
    let calls: Vec<&str> = msgs.iter().flat_map(Message::call_ids).collect();
    let results: Vec<&str> = msgs.iter().flat_map(Message::result_ids).collect();
    assert_eq!(calls, results, "tool calls and results must stay together");
}

#[test]
fn counts_only_the_new_message_and_matches_a_recount() {
    let mut cm = small(Mode::SlidingWindow).with_auto_truncate(false);
    cm.set_system_prompt("sys");
    feed(&mut cm, 3);
    let counter = Counter::lazy(Encoding::O200kBase);
    let recount: Vec<usize> = cm.messages().iter().map(|m| counter.message(m)).collect();
    assert_eq!(cm.tokens_used(), Counter::total(&recount));
}

#[test]
fn empty_manager_uses_nothing() {
    let cm = small(Mode::Smart);
    let s = cm.stats();
    assert_eq!(
        (s.tokens_used, s.message_count, s.usage_percent),
        (0, 0, 0.0)
    );
    assert_eq!(s.available, 2_000);
    assert!(!cm.is_near_limit());
}

#[test]
fn known_and_unknown_models() {
    let cm = ContextManager::for_model("claude-3-opus");
    assert!(cm.limits().is_known_model());
    assert_eq!(cm.limits().context_window(), 200_000);
    assert_eq!(cm.stats().encoding, Encoding::Cl100kBase);
    let gpt = ContextManager::for_model("gpt-4o");
    assert_eq!(gpt.stats().encoding, Encoding::O200kBase);
    let unknown = ContextManager::for_model("my-private-model");
    assert!(!unknown.limits().is_known_model());
}

#[test]
fn every_mode_stays_within_the_limit_and_keeps_pairs_and_the_system_prompt() {
    for mode in [Mode::SlidingWindow, Mode::Smart, Mode::Summarize] {
        let mut cm = small(mode);
        cm.set_system_prompt("You are a test agent.");
        feed(&mut cm, 40);
        assert!(
            cm.tokens_used() <= cm.limit(),
            "{mode}: {}",
            cm.tokens_used()
        );
        let msgs = cm.context_for_request();
        assert_eq!(msgs[0].role, Role::System, "{mode}");
        assert_eq!(msgs[0].text(), "You are a test agent.");
        assert_pairs_whole(&msgs);
        assert!(cm.stats().times_made_room > 0, "{mode}");
        // The latest round is there.
        assert!(msgs.last().unwrap().text().starts_with("done 39"), "{mode}");
    }
}

#[test]
fn smart_mode_leaves_an_omission_marker() {
    let mut cm = small(Mode::Smart);
    feed(&mut cm, 30);
    let marker = cm
        .messages()
        .iter()
        .any(|m| m.text().contains("messages omitted]"));
    assert!(marker);
}

#[test]
fn summarize_mode_carries_a_summary() {
    let mut cm = small(Mode::Summarize);
    cm.set_system_prompt("sys");
    feed(&mut cm, 30);
    let summaries: Vec<&Message> = cm
        .messages()
        .iter()
        .filter(|m| m.compact.is_some())
        .collect();
    assert!(!summaries.is_empty());
    assert!(summaries[0].text().contains("<summary>"));
}

#[test]
fn an_open_tool_call_is_not_separated_from_its_coming_result() {
    let mut cm = small(Mode::SlidingWindow);
    feed(&mut cm, 20);
    cm.add_message(Message::user("one more"));
    cm.add_message(Message::tool_calls([("open", "bash", r#"{"cmd":"ls"}"#)]));
    assert!(cm
        .messages()
        .iter()
        .any(|m| m.call_ids().any(|c| c == "open")));
    cm.add_message(Message::tool_result("open", words(50, 99)));
    assert_pairs_whole(cm.messages());
}

#[test]
fn without_auto_truncate_the_request_copy_is_trimmed() {
    let mut cm = small(Mode::SlidingWindow).with_auto_truncate(false);
    cm.set_system_prompt("sys");
    feed(&mut cm, 30);
    assert!(cm.tokens_used() > cm.limit());
    let request = cm.context_for_request();
    assert!(matches!(request, Cow::Owned(_)));
    let counter = Counter::lazy(Encoding::O200kBase);
    let counts: Vec<usize> = request.iter().map(|m| counter.message(m)).collect();
    assert!(Counter::total(&counts) <= cm.limit());
    assert_eq!(request[0].role, Role::System);
    assert_pairs_whole(&request);
}

#[test]
fn compact_if_needed_skips_below_the_threshold_and_compacts_at_it() {
    let mut cm = small(Mode::SlidingWindow).with_auto_truncate(false);
    cm.set_system_prompt("sys");
    feed(&mut cm, 2);
    let usage = cm.tokens_used() as f64 / cm.limit() as f64;
    assert_eq!(
        cm.compact_if_needed((usage + 0.05).min(1.0)).unwrap(),
        Compaction::Skipped {
            reason: "below the threshold"
        }
    );
    feed(&mut cm, 10);
    let before = cm.tokens_used();
    match cm.compact_if_needed(0.5).unwrap() {
        Compaction::Compacted {
            room,
            summarized_messages,
            summarizer,
            fallback,
        } => {
            assert!(room.tokens_after < before);
            assert!(summarized_messages > 0);
            assert_eq!((summarizer, fallback), ("offline", None));
        }
        other => panic!("expected a compaction, got {other:?}"),
    }
    assert!(cm.compact_if_needed(1.5).is_err());
}

#[test]
fn compacting_twice_in_a_row_has_nothing_new_to_summarize() {
    let mut cm = small(Mode::SlidingWindow).with_auto_truncate(false);
    feed(&mut cm, 12);
    assert!(matches!(
        cm.compact_if_needed(0.0).unwrap(),
        Compaction::Compacted { .. }
    ));
    let second = cm.compact_if_needed(0.0).unwrap();
    if let Compaction::Compacted {
        summarized_messages,
        ..
    } = second
    {
        // Only the messages after the first summary can be summarized again.
        assert!(summarized_messages < 12 * 4);
    }
}

struct Failing;

impl Summarizer for Failing {
    fn name(&self) -> &'static str {
        "failing"
    }
    fn summarize(&self, _: &Input<'_>, _: &Counter) -> Result<String, SummarizeError> {
        Err(SummarizeError::Other("the model is down".into()))
    }
}

#[test]
fn a_failing_summarizer_falls_back_to_offline_or_errors_when_told() {
    let mut cm = small(Mode::SlidingWindow)
        .with_auto_truncate(false)
        .with_summarizer(Failing);
    feed(&mut cm, 12);
    match cm.compact_if_needed(0.1).unwrap() {
        Compaction::Compacted {
            summarizer,
            fallback,
            ..
        } => {
            assert_eq!(summarizer, "offline");
            assert!(fallback.is_some());
        }
        other => panic!("{other:?}"),
    }
    let mut strict = small(Mode::SlidingWindow)
        .with_auto_truncate(false)
        .with_summarizer(Failing)
        .with_offline_fallback(false);
    feed(&mut strict, 12);
    let before = strict.messages().len();
    assert!(matches!(
        strict.compact_if_needed(0.1),
        Err(ManagerError::Summarizer { .. })
    ));
    assert_eq!(
        strict.messages().len(),
        before,
        "nothing changed on failure"
    );
}

#[test]
fn reset_keeps_the_system_prompt_and_replacing_it_recounts() {
    let mut cm = small(Mode::Smart);
    cm.set_system_prompt("first");
    feed(&mut cm, 2);
    cm.reset();
    assert_eq!(cm.messages().len(), 1);
    let one = cm.tokens_used();
    cm.set_system_prompt(words(30, 1));
    assert!(cm.tokens_used() > one);
    assert_eq!(cm.messages().len(), 1);
}

#[test]
fn near_limit_and_usage_percentage() {
    let mut cm = small(Mode::SlidingWindow).with_auto_truncate(false);
    while cm.tokens_used() < cm.limit() * 8 / 10 {
        cm.add_message(Message::user(words(10, cm.messages().len())));
    }
    assert!(cm.is_near_limit());
    let s = cm.stats();
    assert!(s.usage_percent >= 80.0);
    assert_eq!(s.available, s.limit - s.tokens_used);
}

#[test]
fn pinned_messages_survive_trimming() {
    let mut cm = small(Mode::SlidingWindow);
    cm.add_message(Message::user("remember: the deploy key is in vault").pinned());
    feed(&mut cm, 30);
    assert!(cm
        .messages()
        .iter()
        .any(|m| m.pinned && matches!(&m.parts[0], Part::Text(t) if t.contains("vault"))));
}
