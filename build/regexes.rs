//! The regexes the offline summary's gists search with (src/summarize/offline/patterns.rs)
//! as a forward and a reverse dense DFA each, serialized for the target's byte order: the
//! binary reads them in place (src/prebuilt.rs), so no regex is compiled while a session
//! is read. `regex_automata::dfa::regex::Builder`'s defaults: unanchored, leftmost first,
//! found where `regex::Regex` finds it.

use std::path::Path;

use regex_automata::dfa::dense;
use regex_automata::dfa::regex::Regex;

#[path = "../src/summarize/offline/patterns.rs"]
mod patterns;

pub fn write_all(out: &Path) {
    println!("cargo::rerun-if-changed=src/summarize/offline/patterns.rs");
    for (name, pattern) in patterns::ALL {
        let re = Regex::builder()
            .dense(dense::Config::new().minimize(true))
            .build(pattern)
            .unwrap_or_else(|e| panic!("the {name} regex: {e}"));
        super::pretok::write_dfa(out, &format!("{name}.fwd"), re.forward());
        super::pretok::write_dfa(out, &format!("{name}.rev"), re.reverse());
    }
}
