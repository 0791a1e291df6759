//! `ctxctl count`: tokens per file, per role and per message.

use clap::Args;

use super::batch;
use super::input::{self, InputArgs, Loaded};
use crate::context::Context;
use crate::exit::ExitStatus;
use crate::render::json::{ByRole, CountFile, CountReport, MessageTokens, Reported};
use crate::render::table::{table, thousands};
use crate::session::Role;

/// Count tokens exactly as the model's tokenizer would.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  ctxctl count session.json --by-role\n  cat session.jsonl | ctxctl count - --model gpt-4o --json"
)]
pub struct CountArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Show tokens and messages per role
    #[arg(long, help_heading = "Output")]
    pub by_role: bool,
    /// Show tokens of every message
    #[arg(long, help_heading = "Output")]
    pub per_message: bool,
}

pub fn run(ctx: &Context, args: &CountArgs) -> anyhow::Result<ExitStatus> {
    let files = args.input.collect(ctx, true)?;
    let mut status = ExitStatus::Success;
    let mut report = CountReport {
        files: Vec::new(),
        total_tokens: 0,
    };
    let work = |path: &std::path::Path| -> anyhow::Result<CountFile> {
        let loaded = input::load_for_reading(ctx, path)?;
        let file = count_file(&loaded, args.per_message);
        if !ctx.printer.json {
            print_human(ctx, &loaded, &file, args)?;
        }
        Ok(file)
    };
    batch::run(ctx, &files, "counting", usize::MAX, work, |_, outcome| {
        let file = batch::reported(ctx, outcome, &mut status)?;
        if let Some(file) = file {
            report.total_tokens += file.tokens;
            report.files.push(file);
        }
        Ok(())
    })?;
    if ctx.printer.json {
        ctx.printer.json(&report)?;
    } else if report.files.len() > 1 {
        ctx.printer.line(&format!(
            "{:>12}  total ({} files)",
            thousands(report.total_tokens as u64),
            report.files.len()
        ))?;
    }
    Ok(status)
}

fn count_file(l: &Loaded, per_message: bool) -> CountFile {
    let msgs = &l.session.messages;
    CountFile {
        path: l.display(),
        format: l.session.format.name(),
        model: l.model.name.clone(),
        tokenizer: l.model.encoding.name(),
        exact: l.model.exact,
        factor: l.model.factor,
        messages: msgs.len(),
        tokens: l.total,
        by_role: ByRole::tally(msgs, l.counts.iter().copied()),
        per_message: per_message.then(|| {
            msgs.iter()
                .zip(&l.counts)
                .enumerate()
                .map(|(index, (m, &tokens))| MessageTokens {
                    index,
                    role: m.role.name(),
                    tokens,
                })
                .collect()
        }),
        reported: reported(l),
    }
}

/// The provider-reported usage beside ctxctl's count of the same messages.
pub fn reported(l: &Loaded) -> Option<Reported> {
    let r = l.live_usage()?;
    let upto = r
        .after_message
        .map_or(l.counts.len(), |i| (i + 1).min(l.counts.len()));
    let ours = crate::tokens::Counter::total(&l.counts[..upto]) as i64;
    Some(Reported {
        input_tokens: r.input_tokens,
        output_tokens: r.output_tokens,
        difference: ours - r.input_tokens as i64,
    })
}

fn print_human(ctx: &Context, l: &Loaded, f: &CountFile, args: &CountArgs) -> anyhow::Result<()> {
    let p = &ctx.printer;
    let estimate = match (f.exact, f.factor != 1.0) {
        (true, _) => String::new(),
        (false, true) => format!(", estimate ×{}", f.factor),
        (false, false) => ", estimate".to_string(),
    };
    p.line(&format!(
        "{:>12}  {}  ({} messages; {}, {}, {}{estimate})",
        p.paint(&thousands(f.tokens as u64), crate::render::Style::Bold),
        f.path,
        f.messages,
        f.format,
        f.model,
        f.tokenizer
    ))?;
    if let Some(r) = &f.reported {
        p.line(&format!(
            "{:>12}  reported by the provider (input), ctxctl differs by {:+}",
            thousands(r.input_tokens),
            r.difference
        ))?;
    }
    if args.by_role {
        let msgs = ByRole::tally(&l.session.messages, std::iter::repeat(1));
        let rows: Vec<Vec<String>> = Role::ALL
            .iter()
            .filter(|r| msgs.get(**r) > 0)
            .map(|r| {
                vec![
                    r.name().to_string(),
                    msgs.get(*r).to_string(),
                    thousands(f.by_role.get(*r) as u64),
                ]
            })
            .collect();
        p.line(&indent(&table(
            &["role", "messages", "tokens"],
            &rows,
            &[1, 2],
        )))?;
    }
    if args.per_message {
        let rows: Vec<Vec<String>> = l
            .session
            .messages
            .iter()
            .zip(&l.counts)
            .enumerate()
            .map(|(i, (m, n))| {
                vec![
                    i.to_string(),
                    m.role.name().to_string(),
                    thousands(*n as u64),
                    preview(&m.text(), 60),
                ]
            })
            .collect();
        p.line(&indent(&table(
            &["#", "role", "tokens", "text"],
            &rows,
            &[0, 2],
        )))?;
    }
    Ok(())
}

fn indent(text: &str) -> String {
    crate::render::table::indent(text, 4)
}

/// The first `max` characters of `text` on one line.
pub fn preview(text: &str, max: usize) -> String {
    // Only as many words as the preview can show are looked at (a message can be 100 MB).
    let mut one_line = String::new();
    let mut chars = 0;
    for word in text.split_whitespace() {
        if chars > max {
            break;
        }
        if !one_line.is_empty() {
            one_line.push(' ');
            chars += 1;
        }
        one_line.push_str(word);
        chars += word.chars().count();
    }
    if chars <= max {
        one_line
    } else {
        let cut: String = one_line.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::preview;

    /// The plain definition: every word joined, then cut.
    fn reference(text: &str, max: usize) -> String {
        let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if one_line.chars().count() <= max {
            one_line
        } else {
            let cut: String = one_line.chars().take(max.saturating_sub(1)).collect();
            format!("{cut}…")
        }
    }

    #[test]
    fn previews_equal_the_plain_definition() {
        let long = "word ".repeat(100);
        for text in [
            "",
            "  ",
            "one",
            "a  b\n\tc",
            "exactly ten",
            "éèê ünïcödé wörds and more words to pass sixty characters in total, surely",
            long.as_str(),
            "x".repeat(200).as_str(),
        ] {
            for max in [0, 1, 5, 10, 11, 60] {
                assert_eq!(preview(text, max), reference(text, max), "{text:?} {max}");
            }
        }
    }
}
