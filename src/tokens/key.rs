//! A fast, stable fingerprint of what a message contributes to the count, so that counts
//! can be remembered across runs (a message that did not change is never re-tokenized).

use xxhash_rust::xxh3::Xxh3;

use super::Encoding;
use crate::session::{Message, Part};

/// Bumped whenever the counting formula changes, so old cached counts are not reused.
const FORMULA_VERSION: u8 = 1;

/// The 128-bit key of `m` counted with `encoding`: every field the count depends on, each
/// tagged and length-prefixed so different messages cannot run together into one key.
pub fn message_key(m: &Message, encoding: Encoding) -> u128 {
    let mut h = Xxh3::new();
    h.update(&[FORMULA_VERSION]);
    field(&mut h, 0, encoding.name().as_bytes());
    field(&mut h, 1, m.role.name().as_bytes());
    if let Some(name) = &m.name {
        field(&mut h, 2, name.as_bytes());
    }
    parts(&mut h, &m.parts);
    h.digest128()
}

/// The 128-bit key of one part counted with `encoding` (for per-part figures such as
/// `stats`' tool breakdown). A different domain from [`message_key`]: the field after the
/// encoding is tagged 3, where a message's role is tagged 1.
pub fn part_key(p: &Part, encoding: Encoding) -> u128 {
    let mut h = Xxh3::new();
    h.update(&[FORMULA_VERSION]);
    field(&mut h, 0, encoding.name().as_bytes());
    field(&mut h, 3, b"part");
    parts(&mut h, std::slice::from_ref(p));
    h.digest128()
}

fn parts(h: &mut Xxh3, list: &[Part]) {
    for p in list {
        match p {
            Part::Text(t) => field(h, 10, t.as_bytes()),
            Part::Thinking(t) => field(h, 11, t.as_bytes()),
            Part::ToolCall {
                name, arguments, ..
            } => {
                field(h, 12, name.as_bytes());
                field(h, 13, arguments.as_bytes());
            }
            Part::ToolResult { content, .. } => {
                field(h, 14, &[]);
                parts(h, content);
                field(h, 15, &[]);
            }
            Part::Opaque { bytes, tokens, .. } => {
                field(h, 16, &bytes.to_le_bytes());
                // Billed parts only: the keys of the others stay what they were.
                if let Some(n) = tokens {
                    field(h, 19, &n.to_le_bytes());
                }
            }
            Part::Image { .. } => field(h, 17, &[]),
            Part::Other { .. } => field(h, 18, &[]),
        }
    }
}

fn field(h: &mut Xxh3, tag: u8, bytes: &[u8]) {
    h.update(&[tag]);
    h.update(&(bytes.len() as u64).to_le_bytes());
    h.update(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Origin, Role};

    fn msg(role: Role, parts: Vec<Part>) -> Message {
        Message::new(role, parts, Origin::Record(0))
    }

    #[test]
    fn keys_depend_on_everything_counted() {
        let a = msg(Role::User, vec![Part::Text("ab".into())]);
        let b = msg(
            Role::User,
            vec![Part::Text("a".into()), Part::Text("b".into())],
        );
        let c = msg(Role::Assistant, vec![Part::Text("ab".into())]);
        let k = |m: &Message| message_key(m, Encoding::O200kBase);
        assert_ne!(k(&a), k(&b));
        assert_ne!(k(&a), k(&c));
        assert_ne!(k(&a), message_key(&a, Encoding::Cl100kBase));
        // Where a message lives does not matter.
        let mut moved = a.clone();
        moved.origin = Origin::Record(9);
        assert_eq!(k(&a), k(&moved));
    }
}
