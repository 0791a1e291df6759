//! The models a Claude Code transcript's records name ([`Models`]), kept as runs: only
//! assistant records name one, and a session names the same model for thousands of
//! records in a row, so that a run per change takes a few bytes in all where a model
//! number in every node took 2 bytes a record. Whether a record names one is a bit of its
//! node ([`super::skel::Node::named`]).

/// The models of the records that name one, pushed in file order.
#[derive(Debug, Default)]
pub struct Models {
    /// Each model named, once, in the order first named.
    names: Vec<String>,
    /// Where the model named changes: the first record naming it (by index) and the
    /// model (in `names`), in order.
    runs: Vec<(u32, u32)>,
}

impl Models {
    /// Records that record `i` (past all the records pushed) names `model`.
    pub fn push(&mut self, i: u32, model: String) {
        let latest = self.runs.last().map(|&(_, m)| &self.names[m as usize]);
        if latest == Some(&model) {
            return;
        }
        let m = match self.names.iter().position(|n| *n == model) {
            Some(m) => m,
            None => {
                self.names.push(model);
                self.names.len() - 1
            }
        };
        // Fewer than 2^32 records, so fewer models.
        self.runs.push((i, m as u32));
    }

    /// The model record `i` names, if it names one (its node says); else the one the
    /// latest record before it naming one names.
    pub fn of(&self, i: usize) -> Option<&str> {
        let k = self.runs.partition_point(|&(n, _)| n as usize <= i);
        let &(_, m) = self.runs.get(k.checked_sub(1)?)?;
        Some(&self.names[m as usize])
    }

    /// Keeps the models of the first `n` records.
    pub fn truncate(&mut self, n: usize) {
        (self.runs).truncate(self.runs.partition_point(|&(k, _)| (k as usize) < n));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(named: &[(u32, &str)]) -> Models {
        let mut m = Models::default();
        for &(i, model) in named {
            m.push(i, model.to_string());
        }
        m
    }

    #[test]
    fn each_naming_record_gets_its_model_back() {
        let named = [(1, "a"), (2, "a"), (5, "b"), (9, "a"), (10, "a"), (40, "c")];
        let m = of(&named);
        for &(i, model) in &named {
            assert_eq!(m.of(i as usize), Some(model), "record {i}");
        }
        // A run per change, each name once.
        assert_eq!(m.runs, [(1, 0), (5, 1), (9, 0), (40, 2)]);
        assert_eq!(m.names, ["a", "b", "c"]);
        assert_eq!(m.of(0), None, "before any record names one");
        assert_eq!(m.of(7), Some("b"), "the latest named before it");
    }

    #[test]
    fn cut_short_it_forgets_the_later_runs() {
        let mut m = of(&[(1, "a"), (5, "b"), (9, "a")]);
        m.truncate(9);
        assert_eq!(m.of(20), Some("b"));
        m.truncate(5);
        assert_eq!(m.of(20), Some("a"));
        m.push(6, "c".into());
        assert_eq!((m.of(3), m.of(6)), (Some("a"), Some("c")));
        m.truncate(0);
        assert_eq!(m.of(20), None);
    }
}
