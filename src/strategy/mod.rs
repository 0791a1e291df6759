//! Trimming strategies: pure planners that decide which messages of a session to keep, edit,
//! drop or replace by a marker so that it fits a token budget. Nothing here reads files or
//! prints; [`plan`] returns a [`Plan`] whose `items` go straight to [`crate::formats::write`].
//!
//! Every strategy keeps these invariants:
//! 1. System and developer messages (and Anthropic's top-level `system`) are always kept and
//!    never count as trimmable. If they alone exceed the budget, only they and what must
//!    stay (3 and 6) are returned, with a warning.
//! 2. Messages are kept or dropped by [`pairs::units`](crate::session::pairs::units), so a
//!    tool call and all its results go together; when a plan drops messages at the start,
//!    the output never begins (after system messages) with an orphan tool result, and for
//!    Anthropic-bound sessions (Claude Code, Anthropic) the first kept message is a user
//!    turn: unprotected messages before it go, and a message that must stay comes back with
//!    the user turn it followed (see [`first`]).
//! 3. The most recent user message ([`Session::last_user_index`]) is kept, with its unit.
//! 4. Order is preserved and kept messages are unchanged records; the only new texts are the
//!    omission marker ([`omission_marker`]), the truncation note of `tool-results` and the
//!    placeholder of `mask-tool-results`.
//! 5. The result fits the budget, except when the messages the strategy must keep do not
//!    fit (then [`Plan::fits`] is false and a warning says why).
//! 6. Pinned messages (`"_preserve": true` on the record, or matched by a `--pin`
//!    [`Selector`]) survive, with their unit, and are never edited.

mod composite;
mod fifo;
mod first;
mod marker;
mod mask;
mod options;
mod selective;
mod selector;
mod sliding_window;
mod smart;
mod tool_results;
mod view;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod testkit;

pub use marker::{is_omission_marker, omission_marker};
pub use options::{
    parse_roles, Options, StrategyKind, DEFAULT_KEEP_FIRST, DEFAULT_KEEP_LAST, DEFAULT_KEEP_RECENT,
    DEFAULT_MAX_RESULT_TOKENS,
};
pub use selector::Selector;

use crate::session::{Item, Message, NewMessage, Session};
use crate::tokens::Counter;
use view::{Ctx, View};

/// What a strategy decided.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The output, in order, for [`crate::formats::write`].
    pub items: Vec<Item>,
    /// Indices of the input messages that are not in the output, ascending.
    pub removed: Vec<usize>,
    /// Indices of the input messages kept with edited tool results, ascending.
    pub edited: Vec<usize>,
    /// Number of messages the plan adds (omission markers).
    pub inserted: usize,
    /// Total tokens of the input ([`Counter::total`] of the counts).
    pub original_tokens: usize,
    /// Total tokens of the output, reply priming included.
    pub tokens: usize,
    /// Whether `tokens` is within the budget.
    pub fits: bool,
    /// Things the user should know (over budget, a pin that matched nothing …).
    pub warnings: Vec<String>,
}

impl Plan {
    /// Whether writing the plan reproduces the input.
    pub fn is_unchanged(&self) -> bool {
        self.removed.is_empty() && self.edited.is_empty() && self.inserted == 0
    }
}

/// Errors in strategy options.
#[derive(Debug, thiserror::Error)]
pub enum StrategyError {
    #[error("unknown strategy {0:?}; expected one of {names}", names = options::strategy_names())]
    UnknownStrategy(String),
    #[error(
        "unknown role {0:?} in --keep-roles; expected system, developer, user, assistant or tool"
    )]
    UnknownRole(String),
    #[error("--pin {selector:?}: invalid regular expression: {reason}")]
    BadPin { selector: String, reason: String },
    #[error("--pin: expected an index, an id or /regex/, got an empty selector")]
    EmptyPin,
    #[error("composite needs --chain with at least one strategy (e.g. --chain smart,fifo)")]
    EmptyChain,
    #[error("--chain: composite cannot be part of its own chain")]
    NestedComposite,
    #[error("selective needs --keep-roles or --keep-marked to know what to keep")]
    SelectiveWithoutCriteria,
    #[error("{counts} token counts given for {messages} messages")]
    CountsMismatch { counts: usize, messages: usize },
}

/// Plans a trim of `session` with strategy `kind` so that its total (as
/// [`Counter::total`] computes it) is at most `budget`. `counts` are the per-message counts
/// from [`Counter::messages`]; `counter` counts the texts the plan adds or edits.
pub fn plan(
    session: &Session,
    counts: &[usize],
    counter: &Counter,
    kind: StrategyKind,
    opts: &Options,
    budget: usize,
) -> Result<Plan, StrategyError> {
    if counts.len() != session.messages.len() {
        return Err(StrategyError::CountsMismatch {
            counts: counts.len(),
            messages: session.messages.len(),
        });
    }
    validate(kind, opts)?;
    let original_tokens = Counter::total(counts);
    let (pinned, mut warnings) = selector::resolve(&opts.pins, session);

    let is_system: Vec<bool> = session
        .messages
        .iter()
        .map(Message::is_instructions)
        .collect();
    let system_counts: Vec<usize> = (0..counts.len())
        .filter(|&i| is_system[i])
        .map(|i| counts[i])
        .collect();
    let system_tokens = Counter::total(&system_counts);
    if system_tokens > budget {
        warnings.push(format!(
            "the system messages alone take {system_tokens} tokens, over the budget of \
             {budget}; only they and the messages always kept (the latest user message, \
             pinned ones) are kept"
        ));
        // What must stay stays too, with its unit: the latest user message, pinned messages,
        // and what the agent's own compaction kept verbatim (see `Message::agent_kept`),
        // after the user turn it followed where the API wants the user first.
        let must = View::new(session, counts, &pinned);
        let mut keep: Vec<bool> = vec![false; counts.len()];
        for e in &must.entries {
            if let Some(i) = e.index {
                keep[i] = is_system[i] || e.protected;
            }
        }
        if session.format.anthropic_bound() {
            let kept: Vec<usize> = (0..counts.len()).filter(|&i| keep[i]).collect();
            for i in first::missing_before(session, &kept) {
                keep[i] = true;
            }
        }
        let (kept, removed): (Vec<usize>, Vec<usize>) = (0..counts.len()).partition(|&i| keep[i]);
        let kept_counts: Vec<usize> = kept.iter().map(|&i| counts[i]).collect();
        return Ok(Plan {
            items: kept.into_iter().map(Item::Keep).collect(),
            removed,
            edited: Vec::new(),
            inserted: 0,
            original_tokens,
            tokens: Counter::total(&kept_counts),
            fits: false,
            warnings,
        });
    }

    let ctx = Ctx {
        counter,
        opts,
        budget,
        user_first: session.format.codec().user_first(),
    };
    let mut view = run(kind, View::new(session, counts, &pinned), &ctx);
    if session.format.anthropic_bound() {
        view = view.user_first(session, counts, &pinned);
    }
    Ok(finish(view, session, kind, &ctx, original_tokens, warnings))
}

fn validate(kind: StrategyKind, opts: &Options) -> Result<(), StrategyError> {
    let steps: &[StrategyKind] = match kind {
        StrategyKind::Composite if opts.chain.is_empty() => return Err(StrategyError::EmptyChain),
        StrategyKind::Composite => &opts.chain,
        _ => std::slice::from_ref(&kind),
    };
    for &step in steps {
        match step {
            StrategyKind::Composite if kind == StrategyKind::Composite => {
                return Err(StrategyError::NestedComposite)
            }
            StrategyKind::Selective if opts.keep_roles.is_empty() && !opts.keep_marked => {
                return Err(StrategyError::SelectiveWithoutCriteria)
            }
            _ => {}
        }
    }
    Ok(())
}

/// Applies one strategy to the working view.
fn run<'a>(kind: StrategyKind, view: View<'a>, ctx: &Ctx) -> View<'a> {
    match kind {
        StrategyKind::Fifo => fifo::apply(view, ctx),
        StrategyKind::SlidingWindow => sliding_window::apply(view, ctx),
        StrategyKind::Smart => smart::apply(view, ctx),
        StrategyKind::Selective => selective::apply(view, ctx),
        StrategyKind::Composite => composite::apply(view, ctx),
        StrategyKind::ToolResults => tool_results::apply(view, ctx),
        StrategyKind::MaskToolResults => mask::apply(view, ctx),
    }
}

/// Turns the final view into a plan, adding the over-budget warning when needed.
fn finish(
    view: View,
    session: &Session,
    kind: StrategyKind,
    ctx: &Ctx,
    original_tokens: usize,
    mut warnings: Vec<String>,
) -> Plan {
    let tokens = view.total();
    let fits = tokens <= ctx.budget;
    if !fits {
        let only_protected = view.entries.iter().all(|e| e.system || e.protected);
        let why = if only_protected || kind.is_budget_driven(ctx.opts) {
            "the messages that must stay (system prompt, pinned messages, the last user turn \
             with its tool calls, roles kept by --keep-roles) do not fit"
                .to_string()
        } else if kind == StrategyKind::Composite {
            "the chain ends over budget; add fifo at the end of --chain".to_string()
        } else {
            format!(
                "{kind} does not remove enough; chain it with fifo \
                 (--strategy composite --chain {kind},fifo)"
            )
        };
        warnings.push(format!(
            "the result still takes {tokens} tokens, over the budget of {}: {why}",
            ctx.budget
        ));
    }
    let mut present = vec![false; session.messages.len()];
    let mut edited = Vec::new();
    let mut inserted = 0;
    let mut items = Vec::with_capacity(view.entries.len());
    for e in view.entries {
        items.push(match e.index {
            Some(i) if e.edits.is_empty() => {
                present[i] = true;
                Item::Keep(i)
            }
            Some(i) => {
                present[i] = true;
                edited.push(i);
                Item::Edit {
                    index: i,
                    edits: e.edits,
                }
            }
            None => {
                inserted += 1;
                Item::Insert(NewMessage {
                    role: e.msg.role,
                    text: e.msg.text(),
                    meta: serde_json::Map::new(),
                })
            }
        });
    }
    edited.sort_unstable();
    let removed = (0..present.len()).filter(|&i| !present[i]).collect();
    Plan {
        items,
        removed,
        edited,
        inserted,
        original_tokens,
        tokens,
        fits,
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::testkit::{run, B};
    use super::*;
    use crate::session::Role;

    #[test]
    fn names_round_trip_and_unknown_names_list_the_valid_ones() {
        for k in StrategyKind::ALL {
            assert_eq!(StrategyKind::from_name(k.name()).unwrap(), k);
            assert_eq!(k.name().parse::<StrategyKind>().unwrap(), k);
        }
        let e = StrategyKind::from_name("lifo").unwrap_err().to_string();
        for k in StrategyKind::ALL {
            assert!(e.contains(k.name()), "{e}");
        }
        assert_eq!(
            StrategyKind::parse_list("smart, fifo").unwrap(),
            [StrategyKind::Smart, StrategyKind::Fifo]
        );
        assert!(StrategyKind::parse_list("smart,nope").is_err());
    }

    #[test]
    fn roles_parse() {
        assert_eq!(
            parse_roles("system,user").unwrap(),
            [Role::System, Role::User]
        );
        assert!(parse_roles("user,robot")
            .unwrap_err()
            .to_string()
            .contains("\"robot\""));
    }

    #[test]
    fn a_system_prompt_over_budget_is_all_that_is_left() {
        let s = B::new()
            .sys(&"r".repeat(400))
            .user(40)
            .asst(40)
            .user(40)
            .anthropic();
        for kind in StrategyKind::ALL {
            let opts = Options {
                chain: vec![StrategyKind::Fifo],
                keep_marked: true,
                ..Options::default()
            };
            let p = run(&s, kind, &opts, 50);
            // The latest user message stays, as always.
            assert_eq!(p.plan.items, [Item::Keep(0), Item::Keep(3)], "{kind}");
            assert_eq!(p.plan.removed, [1, 2]);
            assert!(!p.plan.fits);
            let want = format!("system messages alone take {} tokens", s.counts[0] + 3);
            assert!(p.plan.warnings[0].contains(&want), "{:?}", p.plan.warnings);
            assert_eq!(p.roles(), [Role::System, Role::User]);
        }
    }

    #[test]
    fn the_anthropic_system_field_is_kept_and_not_trimmable() {
        let s = B::new().sys("rules").user(40).asst(40).user(40).anthropic();
        let p = run(
            &s,
            StrategyKind::Fifo,
            &Options::default(),
            s.total_without(&[1, 2]),
        );
        assert_eq!(p.plan.removed, [1, 2]);
        assert_eq!(p.out.messages[0].text(), "rules");
        assert_eq!(
            p.out.messages[0].origin,
            crate::session::Origin::SystemField
        );
    }

    #[test]
    fn an_orphan_result_is_not_left_first() {
        // The input's second message answers a call that is not there.
        let s = B::new()
            .user(40)
            .result("ghost", 40)
            .asst(40)
            .user(40)
            .asst(40)
            .user(40)
            .openai();
        let p = run(
            &s,
            StrategyKind::Fifo,
            &Options::default(),
            s.total_without(&[0]),
        );
        assert_eq!(p.plan.removed, [0, 1]);
        assert!(crate::session::pairs::problems(&p.out.messages).is_empty());
        // Nothing to drop: the input is returned as it is, orphan included.
        let p = run(&s, StrategyKind::Fifo, &Options::default(), s.total());
        assert!(p.plan.is_unchanged());
    }

    #[test]
    fn pins_keep_messages_and_unmatched_pins_are_reported() {
        let s = B::new()
            .user_text("remember: the deploy key is in vault")
            .asst(40)
            .user(40)
            .asst(40)
            .user(40)
            .jsonl();
        let opts = Options {
            pins: vec![
                Selector::parse("/deploy key/").unwrap(),
                Selector::parse("3").unwrap(),
                Selector::parse("no-such-id").unwrap(),
            ],
            ..Options::default()
        };
        let p = run(&s, StrategyKind::Fifo, &opts, 0);
        assert_eq!(p.plan.removed, [1, 2]);
        assert_eq!(p.plan.warnings[0], "--pin no-such-id matches no message");
    }

    #[test]
    fn counts_must_match_the_messages() {
        let s = B::new().user(40).openai();
        let e = plan(
            &s.session,
            &[],
            &s.counter,
            StrategyKind::Fifo,
            &Options::default(),
            9,
        );
        assert_eq!(
            e.unwrap_err().to_string(),
            "0 token counts given for 1 messages"
        );
    }
}
