//! Read-only commands stream Claude Code transcripts (src/ops/agent_stream.rs: the live
//! thread traced over a compact index, the live records fetched and counted a batch at a
//! time) and Codex rollouts (src/ops/codex_stream.rs: the active history planned over the
//! lines' skeletons, its items fetched and counted a batch at a time). These tests hold that route to the whole-file reader's figures (every message's
//! count and role, the tally's shapes, previews, tools and largest messages, the
//! reported usage and the next-request prediction, the model, the warnings) on every
//! session file in `shared/fixtures/`, and check that every Claude Code and Codex fixture
//! is taken by it.

mod support;

use std::path::{Path, PathBuf};

use ctxctl::config::{Env, Globals, Settings};
use ctxctl::context::Context;
use ctxctl::ops::counted::{self, Counted};
use ctxctl::ops::figures::Wants;
use ctxctl::ops::{agent_stream, load};
use ctxctl::render::Printer;

fn context(cache: &Path) -> Context {
    let globals = Globals {
        no_config: true,
        ..Default::default()
    };
    let env = Env::from_pairs([("CTXCTL_CACHE_DIR", cache.to_str().unwrap())]);
    let settings = Settings::resolve(&globals, &env).unwrap();
    Context::new(settings, env, Printer::plain()).unwrap()
}

fn files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// What a read-only command shows of a counted session.
fn figures(t: &Counted) -> String {
    format!(
        "{:?}\n{:?} {:?} {} {} {}\n{:?}\n{:?}\n{} {:?} {:?}\n{:?}\n{:?}",
        t.format,
        t.session_model,
        t.model.name,
        t.model.encoding,
        t.total,
        t.extra_tokens,
        t.usage,
        t.agent_limits,
        t.keeps_counts,
        t.fingerprint,
        t.prediction(),
        t.warnings,
        tally(t),
    )
}

/// The tally's figures; the map of tool names by call id (a hash map, printed in any
/// order) sorted.
fn tally(t: &Counted) -> String {
    let text = format!("{:?}", t.tally);
    let Some(at) = text.find("name_of: {") else {
        return text;
    };
    let body = &text[at + "name_of: {".len()..];
    let body = body
        .strip_suffix("} }")
        .expect("name_of is the tally's last field");
    let mut names: Vec<&str> = body.split(", ").collect();
    names.sort_unstable();
    format!("{}{names:?}", &text[..at])
}

const WANTS: [Wants; 2] = [
    Wants {
        shapes: true,
        tools: true,
        previews: true,
        resume: false,
    },
    Wants {
        shapes: false,
        tools: false,
        previews: false,
        resume: true,
    },
];

#[test]
fn every_fixture_counts_streamed_as_read_whole() {
    let cache = tempfile::tempdir().unwrap();
    let ctx = context(cache.path());
    let bar = indicatif::ProgressBar::hidden();
    let (mut streamed, mut agent_files, mut codex_files) = (Vec::new(), 0, 0);
    for path in files(&support::fixtures_dir()) {
        let under = |dir: &str| {
            path.components()
                .any(|c| c.as_os_str().to_str().is_some_and(|s| s.starts_with(dir)))
        };
        let is_jsonl = path.extension().is_some_and(|e| e == "jsonl");
        let claude = under("claude-code") && is_jsonl;
        let codex = under("codex") && is_jsonl;
        agent_files += usize::from(claude || codex);
        codex_files += usize::from(codex);
        for wants in WANTS {
            let Some(got) = agent_stream::tally(&ctx, &path, wants, &bar) else {
                assert!(
                    !(claude || codex),
                    "{}: an agent transcript not streamed",
                    path.display()
                );
                continue;
            };
            let whole = load::load_for_reading(&ctx, &path).unwrap();
            let want = counted::of_loaded(&ctx, whole, wants, None);
            assert_eq!(
                figures(&got),
                figures(&want),
                "{}: streamed ≠ whole",
                path.display()
            );
            streamed.push(path.clone());
        }
    }
    assert!(agent_files >= 20, "only {agent_files} agent fixtures");
    assert!(codex_files >= 10, "only {codex_files} Codex fixtures");
    assert_eq!(streamed.len(), 2 * agent_files, "{streamed:#?}");
}

/// `text` cut just before the first response after its last `compact_boundary` (the
/// moment after the agent compacted, before it answered), or `None` without a boundary.
fn cut_after_compaction(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let boundary = lines
        .iter()
        .rposition(|l| l.contains("\"compact_boundary\""))?;
    let answer = (boundary..lines.len())
        .find(|&i| lines[i].contains("\"type\":\"assistant\"") && lines[i].contains("\"usage\""))
        .unwrap_or(lines.len());
    Some(lines[..answer].concat())
}

#[test]
fn a_session_just_compacted_by_its_agent_streams_as_read_whole() {
    let cache = tempfile::tempdir().unwrap();
    let ctx = context(cache.path());
    let bar = indicatif::ProgressBar::hidden();
    let dir = tempfile::tempdir().unwrap();
    let mut measured = 0;
    for path in files(&support::fixtures_dir()) {
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Some(cut) = cut_after_compaction(&text) else {
            continue;
        };
        let file = dir.path().join(path.file_name().unwrap());
        std::fs::write(&file, cut).unwrap();
        let wants = WANTS[1];
        let Some(got) = agent_stream::tally(&ctx, &file, wants, &bar) else {
            continue;
        };
        let whole = load::load_for_reading(&ctx, &file).unwrap();
        let want = counted::of_loaded(&ctx, whole, wants, None);
        assert_eq!(
            figures(&got),
            figures(&want),
            "{}: streamed ≠ whole",
            path.display()
        );
        let p = got.prediction();
        if p.source == ctxctl::ops::predict::NextSource::Compacted {
            measured += 1;
            let hidden = got.agent_limits.hidden_before_compaction.unwrap() as usize;
            assert_eq!(p.tokens, got.total + got.extra_tokens + hidden);
        }
    }
    // The real sessions that compacted (fixtures/wild) give some.
    assert!(
        measured >= 2,
        "only {measured} sessions measured before a compaction"
    );
}
