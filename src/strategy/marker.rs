//! The omission marker `smart` puts where it dropped messages.

pub use crate::formats::message::{is_omission_marker, omission_marker};
use crate::session::{Message, Origin, Part, Role};

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
