//! `ctxctl grep`'s fast route (blocks searched for the pattern's prefilter, only the
//! lines it lands on parsed, a matching tool output named by searching back for its
//! call) finds exactly what the plain route finds (every record parsed and searched),
//! on every JSONL session file in `shared/fixtures/`, for literals, cases, whole words,
//! regexes, and patterns holding what JSON escapes (a quote, a backslash, a newline,
//! non-ASCII): the prefilter never drops a real match.

mod support;

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use ctxctl::search::{search_file, search_lines, FileHits, MatchOptions, Matcher, Place, Query};

fn files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

const PATTERNS: &[(&str, MatchOptions)] = &[
    ("the", opts(false, false, true)),
    ("error", opts(false, false, true)),
    ("ERROR", opts(true, false, true)),
    ("test", opts(false, true, true)),
    ("ModuleNotFoundError", opts(false, false, true)),
    ("calc.py", opts(false, false, true)),
    ("Sig", opts(false, false, true)),
    ("tool_use_id", opts(false, false, true)),
    ("compact", opts(true, false, true)),
    ("\"type\"", opts(false, false, true)),
    ("\": \"", opts(false, false, true)),
    ("\\n", opts(false, false, true)),
    ("\n", opts(false, false, true)),
    (".\nThe", opts(false, false, true)),
    ("é", opts(true, false, true)),
    ("—", opts(false, false, true)),
    ("SKILL", opts(true, false, true)),
    ("KISS", opts(true, false, true)),
    ("fail(ed|ure)", opts(false, false, false)),
    ("(?i)fail(ed|ure)", opts(false, false, false)),
    ("fail(ed|ure)", opts(true, true, false)),
    (r"err(or)?\d*", opts(false, false, false)),
    (r"\bfn\s+\w+", opts(false, false, false)),
    (r"(Read|Write|Bash)\(", opts(false, false, false)),
    (r"[a-z]+\.py", opts(false, false, false)),
    (r"\d+ passed", opts(false, false, false)),
    (r"said .that", opts(false, false, false)),
];

const fn opts(ignore_case: bool, word: bool, fixed: bool) -> MatchOptions {
    MatchOptions {
        ignore_case,
        word,
        fixed,
    }
}

fn query(matcher: Matcher) -> Query {
    Query {
        matcher,
        roles: vec![],
        tools: vec![],
        context: 1,
    }
}

fn plain(path: &Path, q: &Query) -> FileHits {
    let reader = BufReader::new(File::open(path).unwrap());
    search_lines(reader, path, q, Place::Live).unwrap()
}

#[test]
fn the_fast_route_finds_what_parsing_every_record_finds() {
    let files = files(&support::fixtures_dir());
    assert!(files.len() > 20, "the fixtures hold JSONL sessions");
    let mut compared = 0;
    let mut with_hits = 0;
    for (pattern, o) in PATTERNS {
        let m = Matcher::new(pattern, *o).unwrap();
        if !m.has_prefilter() {
            continue;
        }
        let fast_q = query(m.clone());
        let plain_q = query(m.without_prefilter());
        for f in &files {
            let Some(fast) = search_file(f, &fast_q, Place::Live).unwrap() else {
                continue;
            };
            let slow = plain(f, &plain_q);
            assert_eq!(
                (&fast.hits, fast.bad_records),
                (&slow.hits, slow.bad_records),
                "{pattern:?} {o:?} in {}",
                f.display()
            );
            compared += 1;
            with_hits += usize::from(!fast.hits.is_empty());
        }
    }
    assert!(compared > 400, "{compared} searches compared");
    assert!(with_hits > 100, "{with_hits} searches found something");
}

#[test]
fn patterns_that_have_a_prefilter() {
    let has = |p: &str, o: MatchOptions| Matcher::new(p, o).unwrap().has_prefilter();
    // Every pattern above but those with no plain run of three characters.
    for (p, o) in PATTERNS {
        let expected = !matches!(
            *p,
            "\": \"" | "\\n" | "\n" | "é" | "—" | "KISS" | r"\bfn\s+\w+"
        );
        assert_eq!(has(p, *o), expected, "{p:?}");
    }
}
