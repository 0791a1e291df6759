//! The elements of a JSON array that has already been validated, found without parsing it
//! again: a byte scan that skips strings at memchr speed and cuts at the top-level commas.
//! A second full serde pass over the message list cost as much as reading the file.

use std::ops::Range;

/// The byte ranges (within `array`) of the elements of `array`, a valid JSON array such as
/// a `&RawValue` serde_json has checked, without the whitespace around them.
pub fn array_items(array: &str) -> Vec<Range<usize>> {
    let b = array.as_bytes();
    let mut items = Vec::new();
    let mut depth = 0usize;
    let mut start: Option<usize> = None;
    let mut i = 1; // past the opening `[`
    while i < b.len() {
        match b[i] {
            b'"' => {
                start.get_or_insert(i);
                i = string_end(b, i + 1);
                continue;
            }
            b'[' | b'{' => {
                start.get_or_insert(i);
                depth += 1;
            }
            b']' | b'}' if depth > 0 => depth -= 1,
            b']' => {
                if let Some(s) = start {
                    items.push(s..trim_end(b, i));
                }
                break;
            }
            b',' if depth == 0 => {
                if let Some(s) = start.take() {
                    items.push(s..trim_end(b, i));
                }
            }
            b' ' | b'\t' | b'\n' | b'\r' => {}
            _ => {
                start.get_or_insert(i);
            }
        }
        i += 1;
    }
    items
}

/// The index just past the closing quote of the string whose content starts at `from`.
fn string_end(b: &[u8], mut from: usize) -> usize {
    while let Some(off) = memchr::memchr2(b'"', b'\\', &b[from..]) {
        let at = from + off;
        if b[at] == b'"' {
            return at + 1;
        }
        from = at + 2; // an escape: skip the escaped byte
    }
    b.len()
}

/// `end` moved back over whitespace.
fn trim_end(b: &[u8], mut end: usize) -> usize {
    while end > 0 && matches!(b[end - 1], b' ' | b'\t' | b'\n' | b'\r') {
        end -= 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::value::RawValue;
    use serde_json::{json, Value};

    /// What serde_json finds, as ranges within `array`.
    fn serde_items(array: &str) -> Vec<Range<usize>> {
        let items: Vec<&RawValue> = serde_json::from_str(array).unwrap();
        items
            .iter()
            .map(|r| {
                let s = r.get().as_ptr() as usize - array.as_ptr() as usize;
                s..s + r.get().len()
            })
            .collect()
    }

    #[test]
    fn tricky_arrays_split_as_serde_splits_them() {
        for array in [
            "[]",
            "[ ]",
            "[1]",
            "[ 1 , -2.5e3 ,true,false , null ]",
            r#"["a,b", "]", "[", "\"", "\\", "\\\"]", "}"]"#,
            r#"[{"a":[1,{"b":"],}"}]}, [[], {}], "x"]"#,
            "[\n  {\n    \"role\": \"user\"\n  },\n  {\n    \"content\": \"é ✓\"\n  }\n]",
        ] {
            assert_eq!(array_items(array), serde_items(array), "{array}");
        }
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            "[\\[\\]{},:\"\\\\ a-zé\\n\\t\\u{1}]{0,12}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 40, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
                prop::collection::btree_map("[a-z\",\\]]{0,4}", inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// Any array, compact or pretty, splits exactly as serde_json splits it.
        #[test]
        fn arrays_split_as_serde_splits_them(items in prop::collection::vec(value(), 0..8)) {
            let v = json!(items);
            for text in [serde_json::to_string(&v).unwrap(), serde_json::to_string_pretty(&v).unwrap()] {
                prop_assert_eq!(array_items(&text), serde_items(&text), "{}", text);
            }
        }
    }
}
