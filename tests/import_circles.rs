//! No import circles: the files of `src/` (the library) form a graph by the `crate::`,
//! `super::` and `self::` paths each one names (in `use` lines and in code), and no file
//! may reach itself through it. A module and the modules inside it are one namespace (a
//! `mod.rs` re-exports its children, a child uses its parent's names) and are not counted.
//! The parser is deliberately small: comments and string literals are skipped, `use` trees
//! are expanded, and each path goes to the deepest module file it names.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module: its path from the crate root (`["ops", "load"]`).
type Module = Vec<String>;

#[test]
fn the_library_has_no_import_circles() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = Graph::of(&src);
    let circles = graph.circles();
    assert!(
        circles.is_empty(),
        "import circles in src/ (each a set of files that reach one another through their \
         imports; move the names they share into a leaf module):\n{}",
        circles
            .iter()
            .map(|c| format!("  {}", c.join(", ")))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn a_circle_is_found() {
    let files = [
        ("a/mod.rs", "pub mod x; pub mod y; pub use x::X;"),
        ("a/x.rs", "use super::y::Y; pub struct X;"),
        ("a/y.rs", "pub struct Y; fn f() { let _ = crate::a::x::X; }"),
        (
            "b.rs",
            "use crate::a::{x::{self, X}, y::Y}; // crate::c::Z in a comment",
        ),
        ("c.rs", r#"const S: &str = "crate::b::Q"; use crate::a::X;"#),
    ];
    let graph = Graph::from_texts(files.iter().map(|(p, t)| (PathBuf::from(p), t.to_string())));
    assert_eq!(
        graph.circles(),
        vec![vec!["a/x.rs".to_string(), "a/y.rs".into()]]
    );
    // Parent and child, and paths in comments or strings, make no circle.
    assert!(graph.edges["b.rs"].contains("a/x.rs"));
    assert!(!graph.edges["c.rs"].contains("b.rs"));
}

/// Files and the files each one imports from.
struct Graph {
    edges: BTreeMap<String, BTreeSet<String>>,
}

impl Graph {
    fn of(src: &Path) -> Graph {
        let mut texts = Vec::new();
        collect(src, src, &mut texts);
        Graph::from_texts(texts.into_iter())
    }

    fn from_texts(texts: impl Iterator<Item = (PathBuf, String)>) -> Graph {
        let texts: Vec<(String, Module, String)> = texts
            .filter(|(p, _)| p != Path::new("main.rs"))
            .map(|(p, t)| {
                let name = p.to_string_lossy().replace('\\', "/");
                (name.clone(), module_of(&name), t)
            })
            .collect();
        let files: BTreeMap<Module, String> = (texts.iter())
            .map(|(name, m, _)| (m.clone(), name.clone()))
            .collect();
        let mut edges = BTreeMap::new();
        for (name, module, text) in &texts {
            let mut to = BTreeSet::new();
            for (inline, path) in paths(&strip(text)) {
                let inside: Module = module.iter().chain(&inline).cloned().collect();
                let Some(target) = resolve(&inside, &path) else {
                    continue;
                };
                // The deepest module file the path names.
                let file = (0..=target.len())
                    .rev()
                    .find_map(|n| files.get(&target[..n]))
                    .cloned();
                let Some(file) = file else { continue };
                let other = &module_of(&file);
                let nested = other.starts_with(module) || module.starts_with(other);
                if !nested {
                    to.insert(file);
                }
            }
            edges.insert(name.clone(), to);
        }
        Graph { edges }
    }

    /// The strongly connected sets of more than one file, each sorted (Tarjan).
    fn circles(&self) -> Vec<Vec<String>> {
        struct State<'g> {
            g: &'g Graph,
            index: BTreeMap<&'g str, usize>,
            low: BTreeMap<&'g str, usize>,
            stack: Vec<&'g str>,
            on: BTreeSet<&'g str>,
            out: Vec<Vec<String>>,
        }
        fn visit<'g>(s: &mut State<'g>, v: &'g str) {
            let n = s.index.len();
            s.index.insert(v, n);
            s.low.insert(v, n);
            s.stack.push(v);
            s.on.insert(v);
            for w in s.g.edges.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let lw = s.low[w];
                    let lv = s.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if s.on.contains(w) {
                    let iw = s.index[w];
                    let lv = s.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
            if s.low[v] == s.index[v] {
                let mut set = Vec::new();
                while let Some(w) = s.stack.pop() {
                    s.on.remove(w);
                    set.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if set.len() > 1 {
                    set.sort();
                    s.out.push(set);
                }
            }
        }
        let mut s = State {
            g: self,
            index: BTreeMap::new(),
            low: BTreeMap::new(),
            stack: Vec::new(),
            on: BTreeSet::new(),
            out: Vec::new(),
        };
        for v in self.edges.keys() {
            if !s.index.contains_key(v.as_str()) {
                visit(&mut s, v);
            }
        }
        s.out.sort();
        s.out
    }
}

/// Every `.rs` file below `dir`, named from `root`.
fn collect(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(root, &p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&p).unwrap();
            out.push((p.strip_prefix(root).unwrap().to_path_buf(), text));
        }
    }
}

/// The module a file under `src/` is (`ops/load.rs`: `ops::load`; `ops/mod.rs`: `ops`).
fn module_of(file: &str) -> Module {
    let stem = file.strip_suffix(".rs").unwrap_or(file);
    let mut parts: Module = stem.split('/').map(str::to_string).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The module path `path` (its first segment `crate`, `super` or `self`) names, seen from
/// `module`.
fn resolve(module: &Module, path: &[String]) -> Option<Module> {
    let mut segs = path.iter().peekable();
    let mut at: Module = match segs.peek()?.as_str() {
        "crate" => {
            segs.next();
            Vec::new()
        }
        "self" | "super" => module.clone(),
        _ => return None,
    };
    // `super` from `a/b.rs` (module `a::b`) is `a`; from `a/mod.rs` (module `a`) it is the
    // crate root.
    while let Some(s) = segs.peek() {
        match s.as_str() {
            "self" => {}
            "super" => {
                at.pop()?;
            }
            _ => break,
        }
        segs.next();
    }
    at.extend(segs.cloned());
    Some(at)
}

/// `text` with comments and string and char literals blanked out.
fn strip(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                i = end;
            }
            b'r' if matches!(b.get(i + 1), Some(b'"' | b'#'))
                && (i == 0 || !is_ident(b[i - 1])) =>
            {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                let close = format!("\"{}", "#".repeat(hashes));
                let start = i + 1 + hashes + 1;
                i = text[start..]
                    .find(&close)
                    .map_or(b.len(), |e| start + e + close.len());
                out.push(' ');
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                out.push(' ');
            }
            b'\'' if b.get(i + 2) == Some(&b'\'') || b.get(i + 1) == Some(&b'\\') => {
                // A char literal (a lifetime has no closing quote right after).
                i += 1;
                while i < b.len() && b[i] != b'\'' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                out.push(' ');
            }
            _ => {
                let c = text[i..].chars().next().unwrap();
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The paths that start with `crate`, `super` or `self` in (stripped) code: `use` trees
/// expanded, and paths written in code; each with the inline modules (`mod tests { … }`)
/// it is written in.
fn paths(code: &str) -> Vec<(Module, Vec<String>)> {
    let tokens = tokenize(code);
    let mut out = Vec::new();
    // Inline modules open around the current token, with the brace depth they opened at.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i].as_str() {
            "mod" if tokens.get(i + 2).is_some_and(|t| t == "{") => {
                inline.push((tokens[i + 1].clone(), depth));
                depth += 1;
                i += 3;
                continue;
            }
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|&(_, d)| d == depth) {
                    inline.pop();
                }
            }
            _ => {}
        }
        if tokens[i] == "use" {
            let end = (i..tokens.len())
                .find(|&j| tokens[j] == ";")
                .unwrap_or(tokens.len());
            let mut found = Vec::new();
            use_tree(&tokens[i + 1..end], &[], &mut found);
            let at = here(&inline);
            out.extend(found.into_iter().map(|p| (at.clone(), p)));
            i = end;
            continue;
        }
        let starts = matches!(tokens[i].as_str(), "crate" | "super" | "self")
            && tokens.get(i + 1).is_some_and(|t| t == "::")
            && (i == 0 || tokens[i - 1] != "::");
        if starts {
            let mut path = vec![tokens[i].clone()];
            let mut j = i + 1;
            while tokens.get(j).is_some_and(|t| t == "::")
                && tokens.get(j + 1).is_some_and(|t| is_word(t))
            {
                path.push(tokens[j + 1].clone());
                j += 2;
            }
            out.push((here(&inline), path));
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

/// The names of the inline modules open.
fn here(inline: &[(String, usize)]) -> Module {
    inline.iter().map(|(m, _)| m.clone()).collect()
}

/// Expands one `use` tree (the tokens between `use` and `;`) under `prefix`.
fn use_tree(tokens: &[String], prefix: &[String], out: &mut Vec<Vec<String>>) {
    let mut path = prefix.to_vec();
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i].as_str();
        match t {
            "::" => {}
            "{" => {
                // Split the group at its top-level commas.
                let mut depth = 0;
                let mut start = i + 1;
                let mut j = i + 1;
                while j < tokens.len() {
                    match tokens[j].as_str() {
                        "{" => depth += 1,
                        "}" if depth == 0 => break,
                        "}" => depth -= 1,
                        "," if depth == 0 => {
                            use_tree(&tokens[start..j], &path, out);
                            start = j + 1;
                        }
                        _ => {}
                    }
                    j += 1;
                }
                use_tree(&tokens[start..j.min(tokens.len())], &path, out);
                return;
            }
            "as" | "*" => break,
            _ if is_word(t) => path.push(t.to_string()),
            _ => {}
        }
        i += 1;
    }
    if path
        .first()
        .is_some_and(|s| matches!(s.as_str(), "crate" | "super" | "self"))
    {
        out.push(path);
    }
}

fn is_word(t: &str) -> bool {
    t.bytes().all(is_ident) && !t.is_empty()
}

/// Words, `::` and single punctuation.
fn tokenize(code: &str) -> Vec<String> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if is_ident(c) {
            let start = i;
            while i < b.len() && is_ident(b[i]) {
                i += 1;
            }
            out.push(code[start..i].to_string());
        } else if c == b':' && b.get(i + 1) == Some(&b':') {
            out.push("::".into());
            i += 2;
        } else if c.is_ascii_whitespace() || !c.is_ascii() {
            i += 1;
        } else {
            out.push((c as char).to_string());
            i += 1;
        }
    }
    out
}
