//! `--pin` selectors: a message index, a message id, or `/regex/` over the message text.

use regex::Regex;

use super::StrategyError;
use crate::session::{Message, Session};

/// Which messages a `--pin` keeps.
#[derive(Debug, Clone)]
pub enum Selector {
    /// The message at this index of the session (Anthropic's top-level `system`, when
    /// present, is message 0).
    Index(usize),
    /// The message whose record has this `id` (or `uuid`).
    Id(String),
    /// Every message whose text matches.
    Regex(Regex),
}

impl Selector {
    /// Parses `12` (index), `/pattern/` (regex) or anything else (id).
    pub fn parse(s: &str) -> Result<Selector, StrategyError> {
        if s.is_empty() {
            return Err(StrategyError::EmptyPin);
        }
        if let Some(pattern) = s.strip_prefix('/').and_then(|r| r.strip_suffix('/')) {
            return Regex::new(pattern)
                .map(Selector::Regex)
                .map_err(|e| StrategyError::BadPin {
                    selector: s.to_string(),
                    reason: e.to_string(),
                });
        }
        if s.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(i) = s.parse() {
                return Ok(Selector::Index(i));
            }
        }
        Ok(Selector::Id(s.to_string()))
    }

    /// Whether message `m`, at `index` of its session, is selected.
    pub fn matches(&self, index: usize, m: &Message) -> bool {
        match self {
            Selector::Index(i) => *i == index,
            Selector::Id(id) => m.id.as_deref() == Some(id.as_str()),
            Selector::Regex(re) => re.is_match(&m.text()),
        }
    }
}

impl std::fmt::Display for Selector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Selector::Index(i) => write!(f, "{i}"),
            Selector::Id(id) => f.write_str(id),
            Selector::Regex(re) => write!(f, "/{}/", re.as_str()),
        }
    }
}

/// Which messages are pinned (marked in the file or selected by a pin), and a warning for
/// each pin that selects nothing.
pub(crate) fn resolve(pins: &[Selector], session: &Session) -> (Vec<bool>, Vec<String>) {
    let mut pinned: Vec<bool> = session.messages.iter().map(|m| m.pinned).collect();
    let mut warnings = Vec::new();
    for pin in pins {
        let mut any = false;
        for (i, m) in session.messages.iter().enumerate() {
            if pin.matches(i, m) {
                pinned[i] = true;
                any = true;
            }
        }
        if !any {
            warnings.push(format!("--pin {pin} matches no message"));
        }
    }
    (pinned, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Origin, Part, Role};

    #[test]
    fn parses_each_kind() {
        assert!(matches!(
            Selector::parse("12").unwrap(),
            Selector::Index(12)
        ));
        assert!(matches!(Selector::parse("msg_12").unwrap(), Selector::Id(s) if s == "msg_12"));
        assert!(matches!(
            Selector::parse("/err(or)?/").unwrap(),
            Selector::Regex(_)
        ));
        assert!(matches!(Selector::parse("/").unwrap(), Selector::Id(_)));
        let e = Selector::parse("/(/").unwrap_err().to_string();
        assert!(
            e.starts_with("--pin \"/(/\": invalid regular expression"),
            "{e}"
        );
        assert!(Selector::parse("").is_err());
        // Too large for an index: an id.
        assert!(matches!(
            Selector::parse("99999999999999999999999").unwrap(),
            Selector::Id(_)
        ));
    }

    #[test]
    fn matches_index_id_and_text() {
        let mut m = Message::new(
            Role::User,
            vec![Part::Text("the API key is rotated".into())],
            Origin::Record(0),
        );
        m.id = Some("u1".into());
        assert!(Selector::parse("3").unwrap().matches(3, &m));
        assert!(!Selector::parse("2").unwrap().matches(3, &m));
        assert!(Selector::parse("u1").unwrap().matches(0, &m));
        assert!(!Selector::parse("u2").unwrap().matches(0, &m));
        assert!(Selector::parse("/API key/").unwrap().matches(0, &m));
        assert!(!Selector::parse("/password/").unwrap().matches(0, &m));
        assert_eq!(Selector::parse("/a+/").unwrap().to_string(), "/a+/");
    }
}
