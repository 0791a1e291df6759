//! What a rewrite changed: two sessions aligned message by message (Myers' diff over a
//! digest of each message), with replaced runs paired into edits where a message kept its
//! role and tool ids but not its content (a shortened tool result, a masked output).

use similar::{capture_diff_slices, Algorithm, DiffOp};

use crate::session::Message;

/// One step of the alignment, by message index in `a` and `b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Kept { a: usize, b: usize },
    Removed { a: usize },
    Added { b: usize },
    Edited { a: usize, b: usize },
}

/// Aligns the messages of `a` with those of `b`.
pub fn align(a: &[Message], b: &[Message]) -> Vec<Change> {
    let ka: Vec<u64> = a.iter().map(key).collect();
    let kb: Vec<u64> = b.iter().map(key).collect();
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    for op in capture_diff_slices(Algorithm::Myers, &ka, &kb) {
        match op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => out.extend((0..len).map(|i| Change::Kept {
                a: old_index + i,
                b: new_index + i,
            })),
            DiffOp::Delete {
                old_index, old_len, ..
            } => out.extend((old_index..old_index + old_len).map(|a| Change::Removed { a })),
            DiffOp::Insert {
                new_index, new_len, ..
            } => out.extend((new_index..new_index + new_len).map(|b| Change::Added { b })),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => pair(
                a,
                b,
                old_index..old_index + old_len,
                new_index..new_index + new_len,
                &mut out,
            ),
        }
    }
    out
}

/// A replaced run: messages that are the same message changed become edits, in order; the
/// rest are removals and additions.
fn pair(
    a: &[Message],
    b: &[Message],
    old: std::ops::Range<usize>,
    new: std::ops::Range<usize>,
    out: &mut Vec<Change>,
) {
    let mut j = new.start;
    for i in old {
        match (j..new.end).find(|&k| same_message(&a[i], &b[k])) {
            Some(k) => {
                out.extend((j..k).map(|b| Change::Added { b }));
                out.push(Change::Edited { a: i, b: k });
                j = k + 1;
            }
            None => out.push(Change::Removed { a: i }),
        }
    }
    out.extend((j..new.end).map(|b| Change::Added { b }));
}

/// Whether `y` is `x` with its content changed: the same role and the same tool call or
/// result ids (which a rewrite keeps), or, without ids, the same opening text.
fn same_message(x: &Message, y: &Message) -> bool {
    if x.role != y.role {
        return false;
    }
    let ids = |m: &Message| -> Vec<String> {
        m.call_ids()
            .chain(m.result_ids())
            .map(str::to_string)
            .collect()
    };
    let (ix, iy) = (ids(x), ids(y));
    if !ix.is_empty() || !iy.is_empty() {
        return ix == iy;
    }
    let head = |m: &Message| m.text().chars().take(48).collect::<String>();
    let (hx, hy) = (head(x), head(y));
    hx.chars().count() >= 16 && hx == hy
}

/// A digest of everything a message holds that the model sees.
fn key(m: &Message) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(m.role.name().as_bytes());
    h.update(format!("{:?}", m.parts).as_bytes());
    h.digest()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Origin, Part, Role};

    fn msg(role: Role, text: &str) -> Message {
        Message::new(role, vec![Part::Text(text.into())], Origin::Record(0))
    }

    fn result(id: &str, text: &str) -> Message {
        Message::new(
            Role::Tool,
            vec![Part::ToolResult {
                call_id: id.into(),
                content: vec![Part::Text(text.into())],
                is_error: false,
            }],
            Origin::Record(0),
        )
    }

    #[test]
    fn a_compaction_is_removals_and_an_addition_a_shortened_result_an_edit() {
        let a = vec![
            msg(Role::System, "be brief"),
            msg(Role::User, "first question"),
            msg(Role::Assistant, "first answer"),
            result("c1", &"long output ".repeat(50)),
            msg(Role::User, "latest question"),
        ];
        let b = vec![
            msg(Role::System, "be brief"),
            msg(Role::User, "summary of what came before"),
            result("c1", "long output …"),
            msg(Role::User, "latest question"),
        ];
        let got = align(&a, &b);
        // Every message of each side appears exactly once.
        let mut seen_a = vec![0; a.len()];
        let mut seen_b = vec![0; b.len()];
        for c in &got {
            match *c {
                Change::Kept { a, b } | Change::Edited { a, b } => {
                    seen_a[a] += 1;
                    seen_b[b] += 1;
                }
                Change::Removed { a } => seen_a[a] += 1,
                Change::Added { b } => seen_b[b] += 1,
            }
        }
        assert!(seen_a.iter().chain(&seen_b).all(|&n| n == 1), "{got:?}");
        assert!(got.contains(&Change::Kept { a: 0, b: 0 }), "{got:?}");
        assert!(got.contains(&Change::Kept { a: 4, b: 3 }), "{got:?}");
        assert!(got.contains(&Change::Removed { a: 1 }), "{got:?}");
        assert!(got.contains(&Change::Removed { a: 2 }), "{got:?}");
        assert!(got.contains(&Change::Edited { a: 3, b: 2 }), "{got:?}");
        assert!(got.contains(&Change::Added { b: 1 }), "{got:?}");
    }

    #[test]
    fn identical_sessions_are_all_kept() {
        let a = vec![msg(Role::User, "hi"), msg(Role::Assistant, "hello")];
        assert!(align(&a, &a)
            .iter()
            .all(|c| matches!(c, Change::Kept { .. })));
        assert!(align(&[], &[]).is_empty());
    }
}
