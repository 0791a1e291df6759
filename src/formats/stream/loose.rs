//! Skeletons of JSON records, for reading a few fields of a line without parsing the rest:
//! [`Loose`] takes any value and keeps it only when it is a string, a boolean or (as `T`)
//! an object, [`Obj`] an object, [`Seq`] an array; anything else counts as absent, as a
//! parsed value's `get` and `as_str` find nothing in it. Strings are borrowed from the
//! line when they hold no escapes; whatever is skipped is not copied.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

/// Nesting at which a skeleton gives up on a line. A skipped value is not held to
/// serde_json's recursion limit (128) as a parsed one is, so a line nested deeper than a
/// whole read can take would pass the skeleton: such a line goes to the whole reader,
/// which words the error.
const DEEPEST: usize = 100;

/// Whether `text` (one record) nests arrays and objects deeper than a skeleton takes. A
/// line with fewer brackets than that is not scanned.
pub fn too_deep(text: &str) -> bool {
    let b = text.as_bytes();
    if memchr::memchr2_iter(b'[', b'{', b).count() <= DEEPEST {
        return false;
    }
    let (mut depth, mut in_str, mut escaped) = (0usize, false, false);
    for &c in b {
        if in_str {
            match c {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            b'"' => in_str = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > DEEPEST {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// Any JSON value, kept only when it is a string, a boolean or (as `T`) an object.
#[derive(Default)]
pub enum Loose<'a, T = IgnoredAny> {
    #[default]
    Absent,
    Null,
    Str(Cow<'a, str>),
    Bool(bool),
    Object(T),
    Other,
}

impl<T> Loose<'_, T> {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Loose::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Loose::Bool(b) => Some(*b),
            _ => None,
        }
    }
}

impl<'de: 'a, 'a, T: Deserialize<'de>> Deserialize<'de> for Loose<'a, T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LooseVisitor(std::marker::PhantomData))
    }
}

struct LooseVisitor<'a, T>(std::marker::PhantomData<(&'a (), T)>);

impl<'de: 'a, 'a, T: Deserialize<'de>> Visitor<'de> for LooseVisitor<'a, T> {
    type Value = Loose<'a, T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Loose::Str(Cow::Borrowed(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Loose::Str(Cow::Owned(v.to_string())))
    }

    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Loose::Str(Cow::Owned(v)))
    }

    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Loose::Bool(v))
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Loose::Null)
    }

    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Loose::Null)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Loose::Other)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Loose::Other)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Loose::Other)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Loose::Other)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        // A number read with arbitrary precision comes as a map with one private key: it
        // is no object, and `T` (fields all defaulted) takes it as one whose fields are
        // absent, as a value's `get` finds none in a number.
        T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Loose::Object)
    }
}

/// An object read as `T`, anything else as `None`.
pub struct Obj<T>(pub Option<T>);

impl<T> Default for Obj<T> {
    fn default() -> Self {
        Obj(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Loose::<'de, T>::deserialize(d)? {
            Loose::Object(t) => Obj(Some(t)),
            _ => Obj(None),
        })
    }
}

/// An array read as `Vec<T>`, anything else as `None`.
pub struct Seq<T>(pub Option<Vec<T>>);

impl<T> Default for Seq<T> {
    fn default() -> Self {
        Seq(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Seq<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SeqVisitor(std::marker::PhantomData))
    }
}

struct SeqVisitor<T>(std::marker::PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for SeqVisitor<T> {
    type Value = Seq<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(t) = seq.next_element::<T>()? {
            out.push(t);
        }
        Ok(Seq(Some(out)))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Seq(None))
    }

    fn visit_borrowed_str<E>(self, _: &'de str) -> Result<Self::Value, E> {
        Ok(Seq(None))
    }

    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Seq(None))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Seq(None))
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Seq(None))
    }

    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Seq(None))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Seq(None))
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Seq(None))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Seq(None))
    }
}

#[cfg(test)]
mod depth_tests {
    use super::too_deep;

    #[test]
    fn nesting_is_measured_outside_strings() {
        let deep = format!("{}{}", "[".repeat(150), "]".repeat(150));
        assert!(too_deep(&format!(r#"{{"a":{deep}}}"#)));
        assert!(!too_deep(&format!(r#"{{"a":"{deep}"}}"#)));
        let escaped = format!(r#"{{"a":"\"{deep}"}}"#);
        assert!(!too_deep(&escaped));
        let wide = format!("[{}]", "[],".repeat(300) + "[]");
        assert!(!too_deep(&wide));
    }
}
