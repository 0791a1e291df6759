//! "Did you mean" for unknown model names.

use super::{normalize, Registry};

impl Registry {
    /// Up to `n` model ids close to `name`, closest first: by edit distance between the
    /// model part of `name` and each id or alias, then by longer shared prefix, then by
    /// id. Names farther than about a third of their length are left out, except ids that
    /// contain the name (`opus-4` suggests `claude-opus-4-…`). `host/model` entries are
    /// suggested only when `name` has a host.
    pub fn suggest(&self, name: &str, n: usize) -> Vec<String> {
        let full = name.trim().to_lowercase();
        let bare = normalize::bare_model(&full);
        if bare.is_empty() || n == 0 {
            return Vec::new();
        }
        let mut scored: Vec<(usize, usize, &str)> = Vec::new();
        for (key, spec) in self.names() {
            // Host entries compete only with a name that has a host.
            let query = if key.contains('/') { &full } else { &bare };
            if key.contains('/') && !full.contains('/') {
                continue;
            }
            let limit = (query.chars().count() / 3).max(2);
            let distance = levenshtein(query, key, limit).or_else(|| {
                key.contains(query.as_str())
                    .then(|| key.len() - query.len())
            });
            let Some(distance) = distance else {
                continue;
            };
            let prefix = query
                .bytes()
                .zip(key.bytes())
                .take_while(|(a, b)| a == b)
                .count();
            scored.push((distance, usize::MAX - prefix, spec.id.as_str()));
        }
        scored.sort();
        let mut out: Vec<String> = Vec::new();
        for (_, _, id) in scored {
            if !out.iter().any(|o| o == id) {
                out.push(id.to_string());
                if out.len() == n {
                    break;
                }
            }
        }
        out
    }
}

/// Edit distance between `a` and `b` (in chars), or `None` when it exceeds `limit`.
fn levenshtein(a: &str, b: &str, limit: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        let mut row_min = cur[0];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
            row_min = row_min.min(cur[j + 1]);
        }
        if row_min > limit {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    let d = prev[b.len()];
    (d <= limit).then_some(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance() {
        assert_eq!(levenshtein("kitten", "sitting", 5), Some(3));
        assert_eq!(levenshtein("kitten", "sitting", 2), None);
        assert_eq!(levenshtein("", "abc", 3), Some(3));
        assert_eq!(levenshtein("gpt-4o", "gpt-4o", 0), Some(0));
    }

    #[test]
    fn typos_suggest_the_model() {
        let registry = Registry::builtin();
        assert_eq!(registry.suggest("gpt4o", 3)[0], "gpt-4o");
        assert_eq!(
            registry.suggest("claude-sonet-4-5", 3)[0],
            "claude-sonnet-4-5"
        );
        assert_eq!(
            registry.suggest("anthropic/claude-sonet-4-5", 1),
            ["claude-sonnet-4-5"]
        );
        let opus = registry.suggest("claude-opus", 5);
        assert_eq!(opus.len(), 5);
        assert!(opus[0].starts_with("claude-opus-"), "{opus:?}");
        assert!(opus.contains(&"claude-opus-5".to_string()), "{opus:?}");
    }

    #[test]
    fn nothing_close_suggests_nothing() {
        let registry = Registry::builtin();
        assert!(registry.suggest("qqqqqqqqqqqqqqqqqqqq", 3).is_empty());
        assert!(registry.suggest("", 3).is_empty());
        assert!(registry.suggest("gpt4o", 0).is_empty());
    }
}
