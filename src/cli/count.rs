//! `ctxctl count`: tokens per file, per role and per message.

use clap::Args;

use crate::cli::args::InputArgs;
use crate::context::Context;
use crate::exit::ExitStatus;
use crate::ops::batch;
use crate::ops::counted::Counted;
use crate::ops::figures::Wants;
use crate::ops::predict::Prediction;
use crate::ops::read_only;
use crate::ops::walk::Input;
use crate::render::json::{CountFile, CountReport, FileEntry, MessageTokens};
use crate::render::table::{table, thousands, Cell, Table};
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
    let work = |input: &Input| -> anyhow::Result<CountFile> {
        let human = !ctx.printer.json && !ctx.printer.tsv;
        let wants = Wants {
            previews: args.per_message && human,
            ..Wants::default()
        };
        let loaded = read_only::load_session(ctx, &input.path, input.id(), wants)?;
        let next = loaded.prediction();
        let mut file = count_file(&loaded, next, args.per_message);
        file.path = input.shown();
        if !ctx.printer.json && !ctx.printer.tsv {
            print_human(ctx, &loaded, &file, args)?;
        }
        Ok(file)
    };
    let mut counted = 0;
    batch::run_inputs(
        ctx,
        &files,
        "counting",
        usize::MAX,
        work,
        |input, outcome| {
            let entry = batch::entry(ctx, &input.label(), outcome, &mut status)?;
            if let Some(file) = entry.done() {
                report.total_tokens += file.tokens;
                counted += 1;
            }
            report.files.push(entry);
            Ok(())
        },
    )?;
    if ctx.printer.json {
        ctx.printer.json(&report)?;
    } else if ctx.printer.tsv {
        let done: Vec<&CountFile> = report.files.iter().filter_map(FileEntry::done).collect();
        ctx.printer.table(&tsv(&done, args))?;
    } else if counted > 1 {
        ctx.printer.line(&format!(
            "{:>12}  total ({counted} files)",
            thousands(report.total_tokens as u64),
        ))?;
    }
    Ok(status)
}

/// `--tsv`: one line per file; per message with `--per-message`, per role with
/// `--by-role`.
fn tsv(files: &[&CountFile], args: &CountArgs) -> Table {
    if args.per_message {
        let mut t = Table::new(&["path", "index", "role", "tokens"]);
        for f in files {
            for m in f.per_message.iter().flatten() {
                t.push(vec![
                    Cell::text(&f.path),
                    Cell::Num(m.index as u64),
                    Cell::text(m.role),
                    Cell::Num(m.tokens as u64),
                ]);
            }
        }
        return t;
    }
    if args.by_role {
        let mut t = Table::new(&["path", "role", "tokens"]);
        for f in files {
            for r in Role::ALL.iter().filter(|r| f.by_role.get(**r) > 0) {
                t.push(vec![
                    Cell::text(&f.path),
                    Cell::text(r.name()),
                    Cell::Num(f.by_role.get(*r) as u64),
                ]);
            }
        }
        return t;
    }
    let mut t = Table::new(&[
        "tokens",
        "messages",
        "next_request_tokens",
        "context_window",
        "format",
        "model",
        "tokenizer",
        "path",
    ]);
    for f in files {
        t.push(vec![
            Cell::Num(f.tokens as u64),
            Cell::Num(f.messages as u64),
            Cell::Num(f.next_request_tokens as u64),
            Cell::Num(f.context_window),
            Cell::text(f.format),
            Cell::text(&f.model),
            Cell::text(f.tokenizer),
            Cell::text(&f.path),
        ]);
    }
    t
}

fn count_file(l: &Counted, next: Prediction, per_message: bool) -> CountFile {
    let window = l.window();
    CountFile {
        path: l.display(),
        format: l.format.name(),
        model: l.model.name.clone(),
        tokenizer: l.model.encoding.name(),
        // Opaque parts the file does not bill are counted by their size: an estimate.
        exact: l.exact(),
        factor: l.model.factor,
        messages: l.tally.len(),
        tokens: l.total,
        by_role: l.by_role(l.counts().iter().copied()),
        per_message: per_message.then(|| {
            l.roles()
                .iter()
                .zip(l.counts())
                .enumerate()
                .map(|(index, (r, &tokens))| MessageTokens {
                    index,
                    role: r.name(),
                    tokens,
                })
                .collect()
        }),
        reported: l.reported(),
        next_request_tokens: next.tokens,
        next_request_source: next.source.name(),
        context_window: window.tokens,
        context_window_source: window.source.name(),
    }
}

fn print_human(ctx: &Context, l: &Counted, f: &CountFile, args: &CountArgs) -> anyhow::Result<()> {
    let p = &ctx.printer;
    let sized = l.tally.estimated;
    let estimate = match (f.exact, f.factor != 1.0) {
        (true, _) => String::new(),
        (false, true) => format!(", estimate ×{}", f.factor),
        (false, false) if l.model.exact => {
            format!(", estimate: {sized} encrypted part(s) counted by size")
        }
        (false, false) => ", estimate".to_string(),
    };
    // Padded before it is painted: the escapes take no columns on the terminal.
    let tokens = format!("{:>12}", thousands(f.tokens as u64));
    let pad = tokens.len() - tokens.trim_start().len();
    p.line(&format!(
        "{}{}  {}  ({} messages; {}, {}, {}{estimate})",
        &tokens[..pad],
        p.paint(tokens.trim_start(), crate::render::Style::Bold),
        f.path,
        thousands(f.messages as u64),
        f.format,
        f.model,
        f.tokenizer
    ))?;
    if let Some(r) = &f.reported {
        p.line(&format!(
            "{:>12}  reported by the provider (input); {}",
            thousands(r.input_tokens),
            crate::render::table::same_messages(r.input_tokens, r.difference)
        ))?;
    }
    if f.next_request_tokens != f.tokens {
        p.line(&format!(
            "{:>12}  next request ({}), window {} ({})",
            thousands(f.next_request_tokens as u64),
            f.next_request_source,
            thousands(f.context_window),
            f.context_window_source
        ))?;
    }
    if args.by_role {
        let msgs = l.by_role(std::iter::repeat(1));
        let rows: Vec<Vec<String>> = Role::ALL
            .iter()
            .filter(|r| msgs.get(**r) > 0)
            .map(|r| {
                vec![
                    r.name().to_string(),
                    thousands(msgs.get(*r) as u64),
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
            .roles()
            .iter()
            .zip(l.counts())
            .zip(&l.tally.previews)
            .enumerate()
            .map(|(i, ((r, n), text))| {
                vec![
                    thousands(i as u64),
                    r.name().to_string(),
                    thousands(*n as u64),
                    text.clone(),
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
