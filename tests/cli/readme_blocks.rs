//! Reading README.md for tests/cli/readme.rs: fenced blocks, command lines, crontab lines,
//! and the config schema's keys.

use std::path::Path;

/// One fenced code block.
pub struct Block {
    pub lang: String,
    /// 1-based README line of the first line inside the fence.
    pub line: usize,
    pub lines: Vec<String>,
}

/// The fenced code blocks of a Markdown text, in order.
pub fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        match (line.strip_prefix("```"), open.take()) {
            (Some(lang), None) => {
                open = Some(Block {
                    lang: lang.trim().to_string(),
                    line: i + 2,
                    lines: Vec::new(),
                })
            }
            (Some(_), Some(block)) => out.push(block),
            (None, Some(mut block)) => {
                block.lines.push(line.to_string());
                open = Some(block);
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "README.md has an unclosed code block");
    out
}

/// The expected exit code from a trailing `# exit N` (default 0).
pub fn expected_exit(cmd: &str) -> i32 {
    match cmd.rsplit_once('#') {
        Some((_, c)) => c
            .trim()
            .strip_prefix("exit ")
            .map_or(0, |n| n.trim().parse().expect("`# exit N` needs a number")),
        None => 0,
    }
}

/// Without a trailing `# comment`.
pub fn strip_comment(cmd: &str) -> &str {
    cmd.split_once(" #").map_or(cmd, |(c, _)| c).trim()
}

/// The programs of a command line: the first word of each pipeline stage, after `VAR=value`
/// assignments.
pub fn programs(cmd: &str) -> Vec<&str> {
    strip_comment(cmd)
        .split(['|', ';', '&'])
        .filter_map(|stage| stage.split_whitespace().find(|w| !w.contains('=')))
        .collect()
}

/// The command of a crontab line (five schedule fields, then the command).
pub fn cron_command(line: &str) -> Option<String> {
    let fields: Vec<&str> = line.splitn(6, ' ').collect();
    let schedule = |f: &str| !f.is_empty() && f.chars().all(|c| "0123456789*/,-".contains(c));
    (fields.len() == 6 && fields[..5].iter().all(|f| schedule(f))).then(|| fields[5].to_string())
}

/// The keys of each table of the config schema, as `deny_unknown_fields` lists them (so a
/// key added to src/config/file.rs must be added to the README's example).
pub fn schema_keys() -> Vec<(&'static str, Vec<String>)> {
    [
        ("", "zz_unknown = 1"),
        ("compact", "[compact]\nzz_unknown = 1"),
        ("llm", "[llm]\nzz_unknown = 1"),
        ("models", "[models.x]\nzz_unknown = 1"),
    ]
    .into_iter()
    .map(|(table, probe)| {
        let e = ctxctl::config::FileConfig::parse(probe, Path::new("probe.toml"))
            .unwrap_err()
            .to_string();
        let list = e.split("expected one of").nth(1).expect("a list of keys");
        let keys = list
            .split('`')
            .skip(1)
            .step_by(2)
            // aliases (`context-window`, `contextLength`) are not separate keys
            .filter(|k| k.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
            .filter(|k| !table.is_empty() || !["compact", "llm", "models"].contains(k))
            .map(str::to_string)
            .collect();
        (table, keys)
    })
    .collect()
}
