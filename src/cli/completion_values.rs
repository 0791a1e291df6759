//! Option values in the elvish and PowerShell completion scripts. clap_complete (4.6) offers
//! the possible values of an option (`--strategy`, `--format`, `--summarizer` …) in bash,
//! zsh and fish, but its elvish and PowerShell scripts only complete option and subcommand
//! names. This adds to those two scripts a table of every option's values, taken from the
//! clap command, and a lookup: when the word before the cursor is such an option, its
//! values are the candidates.

use std::collections::BTreeMap;

/// An option that takes one of a fixed set of values: the subcommand path it belongs to
/// (`ctxctl;trim`, as the scripts name it), its spellings (`--strategy`, `-s`) and values.
struct Valued {
    path: String,
    names: Vec<String>,
    values: Vec<String>,
}

fn valued(cmd: &clap::Command, path: &str, out: &mut Vec<Valued>) {
    for arg in cmd.get_arguments() {
        if arg.is_positional() || arg.is_hide_set() || !arg.get_action().takes_values() {
            continue;
        }
        let values: Vec<String> = (arg.get_possible_values().iter())
            .filter(|v| !v.is_hide_set())
            .map(|v| v.get_name().to_string())
            .collect();
        if values.is_empty() {
            continue;
        }
        let mut names: Vec<String> = (arg.get_long_and_visible_aliases().into_iter().flatten())
            .map(|l| format!("--{l}"))
            .collect();
        names.extend(arg.get_short().map(|c| format!("-{c}")));
        out.push(Valued {
            path: path.to_string(),
            names,
            values,
        });
    }
    for sub in cmd.get_subcommands() {
        valued(sub, &format!("{path};{}", sub.get_name()), out);
    }
}

/// Lookup keys → values: the bare option name (`--format`) when it has the same values
/// everywhere, else `path;--name` for each subcommand.
fn table(cmd: &clap::Command) -> BTreeMap<String, Vec<String>> {
    let mut cmd = cmd.clone();
    cmd.build();
    let mut all = Vec::new();
    valued(&cmd, cmd.get_name(), &mut all);
    let mut by_name: BTreeMap<&str, Vec<&Valued>> = BTreeMap::new();
    for v in &all {
        for n in &v.names {
            by_name.entry(n).or_default().push(v);
        }
    }
    let mut out = BTreeMap::new();
    for (name, uses) in by_name {
        if uses.iter().all(|u| u.values == uses[0].values) {
            out.insert(name.to_string(), uses[0].values.clone());
        } else {
            for u in uses {
                out.insert(format!("{};{name}", u.path), u.values.clone());
            }
        }
    }
    out
}

/// Quotes `s` for elvish and PowerShell alike (single quotes, doubled inside).
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// The elvish script with option values completed.
pub fn elvish(script: String, cmd: &clap::Command) -> String {
    let mut map = String::from("    var values = [\n");
    for (key, values) in table(cmd) {
        let list: Vec<String> = values.iter().map(|v| quote(v)).collect();
        map.push_str(&format!("        &{}= [{}]\n", quote(&key), list.join(" ")));
    }
    map.push_str("    ]\n");
    let lookup = "    if (> (count $words) 2) {
        var previous = $words[-2]
        for key [$command';'$previous $previous] {
            if (has-key $values $key) {
                for value $values[$key] {
                    edit:complex-candidate $value
                }
                return
            }
        }
    }
";
    let end = "    $completions[$command]\n}";
    match script.rfind(end) {
        Some(at) => format!("{}{map}{lookup}{}", &script[..at], &script[at..]),
        None => script,
    }
}

/// The PowerShell script with option values completed.
pub fn powershell(script: String, cmd: &clap::Command) -> String {
    let mut map = String::from("\n    $values = @{\n");
    for (key, values) in table(cmd) {
        let list: Vec<String> = values.iter().map(|v| quote(v)).collect();
        map.push_str(&format!(
            "        {} = @({})\n",
            quote(&key),
            list.join(", ")
        ));
    }
    map.push_str("    }\n");
    let lookup = "    $last = $commandElements.Count - 1
    if ($wordToComplete -ne '' -and $commandElements[$last].Extent.Text -eq $wordToComplete) {
        $last--
    }
    $previous = if ($last -ge 1) { $commandElements[$last].Extent.Text } else { '' }
    foreach ($key in @(\"$command;$previous\", $previous)) {
        if ($values.ContainsKey($key)) {
            $values[$key] | Where-Object { $_ -like \"$wordToComplete*\" } | ForEach-Object {
                [CompletionResult]::new($_, $_, [CompletionResultType]::ParameterValue, $_)
            }
            return
        }
    }
";
    let after = "}) -join ';'\n";
    match script.find(after) {
        Some(at) => {
            let at = at + after.len();
            format!("{}{map}{lookup}{}", &script[..at], &script[at..])
        }
        None => script,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_holds_the_values_of_every_valued_option() {
        let t = table(&crate::cli::command());
        assert!(
            t["--strategy"].contains(&"sliding-window".to_string()),
            "{t:?}"
        );
        assert_eq!(t["--summarizer"], ["offline", "llm"]);
        assert!(t["--format"].contains(&"claude-code".to_string()), "{t:?}");
        assert_eq!(t["--compress"], ["zstd", "none"]);
    }

    #[test]
    fn a_script_without_the_expected_shape_is_left_as_it_was() {
        let cmd = crate::cli::command();
        assert_eq!(elvish("x".into(), &cmd), "x");
        assert_eq!(powershell("x".into(), &cmd), "x");
    }
}
