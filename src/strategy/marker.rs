//! The omission marker `smart` puts where it dropped messages.

use crate::session::{Message, Origin, Part, Role};

/// The marker's text for `k` omitted messages: `[93 messages omitted]`, `[1 message omitted]`.
pub fn omission_marker(k: usize) -> String {
    if k == 1 {
        "[1 message omitted]".to_string()
    } else {
        format!("[{k} messages omitted]")
    }
}

/// If `m` is an omission marker (a user message whose only content is the marker text),
/// the number of messages it stands for.
pub fn is_omission_marker(m: &Message) -> Option<usize> {
    let [Part::Text(t)] = m.parts.as_slice() else {
        return None;
    };
    if m.role != Role::User {
        return None;
    }
    let rest = t.strip_prefix('[')?;
    let (n, rest) = rest.split_once(' ')?;
    let k: usize = n.parse().ok()?;
    (rest
        == if k == 1 {
            "message omitted]"
        } else {
            "messages omitted]"
        })
    .then_some(k)
}

/// The marker as a message, to count its tokens and to carry it through later steps.
pub(crate) fn marker_message(k: usize) -> Message {
    Message::new(
        Role::User,
        vec![Part::Text(omission_marker(k))],
        Origin::Records(Vec::new()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_recognised() {
        for k in [0, 1, 2, 93, 10_000] {
            assert_eq!(is_omission_marker(&marker_message(k)), Some(k));
        }
        assert_eq!(omission_marker(93), "[93 messages omitted]");
        let mut m = marker_message(3);
        m.role = Role::Assistant;
        assert_eq!(is_omission_marker(&m), None);
        let text =
            |t: &str| Message::new(Role::User, vec![Part::Text(t.into())], Origin::Record(0));
        assert_eq!(is_omission_marker(&text("[3 message omitted]")), None);
        assert_eq!(is_omission_marker(&text("[x messages omitted]")), None);
        assert_eq!(is_omission_marker(&text("see [3 messages omitted]")), None);
    }
}
