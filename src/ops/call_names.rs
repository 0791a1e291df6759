//! The tool each call id called, as `stats` needs it to name a tool result ([`CallNames`]):
//! by the id's 64-bit hash, a number among the names seen, in an [`IdMap`] (12 bytes a
//! call, where a hash map of a 2 GB transcript's ~400K calls took ~9 MB).

use std::collections::BTreeMap;

use crate::idmap::IdMap;

/// The calls' names, by the call ids' hashes.
#[derive(Default, Clone)]
pub struct CallNames {
    /// The names, numbered by place.
    names: Vec<String>,
    number_of: BTreeMap<String, u32>,
    calls: IdMap<u32>,
}

impl CallNames {
    /// The call `id` called the tool `name` (a later call of the same id wins).
    pub fn insert(&mut self, id: &str, name: String) {
        let n = match self.number_of.get(&name) {
            Some(&n) => n,
            None => {
                let n = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
                self.names.push(name.clone());
                self.number_of.insert(name, n);
                n
            }
        };
        self.calls.insert(call_key(id), n);
    }

    /// The tool the call `id` called, if a call of it was seen.
    pub fn get(&self, id: &str) -> Option<&str> {
        let n = self.calls.get(call_key(id))?;
        self.names.get(n as usize).map(String::as_str)
    }
}

/// The calls by hash, each with its tool's name.
impl std::fmt::Debug for CallNames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = |n: u32| self.names.get(n as usize).map_or("?", String::as_str);
        let calls = self.calls.sorted();
        f.debug_map()
            .entries(calls.iter().map(|&(k, n)| (k, name(n))))
            .finish()
    }
}

/// The key of a call id.
fn call_key(id: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(id.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_name_their_tool_and_a_later_call_wins() {
        let mut calls = CallNames::default();
        calls.insert("call_1", "Read".to_string());
        calls.insert("call_2", "Bash".to_string());
        calls.insert("call_1", "Edit".to_string());
        assert_eq!(calls.get("call_1"), Some("Edit"));
        assert_eq!(calls.get("call_2"), Some("Bash"));
        assert_eq!(calls.get("call_3"), None);
        assert_eq!(calls.names, ["Read", "Bash", "Edit"]);
    }
}
