//! A small look at a possibly huge JSON value: the same structure as `serde_json::Value`,
//! but long strings cut short and long arrays and objects cut after their first entries, so
//! format detection never builds a tree the size of the file. The whole input is still
//! parsed (and so validated, with error positions) — only what is kept is bounded.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Strings longer than this many bytes are cut (at a character boundary).
const MAX_STRING: usize = 256;
/// Array elements kept.
pub const MAX_ITEMS: usize = 32;
/// Object members kept.
pub const MAX_MEMBERS: usize = 256;

/// The magic key serde_json uses to hand over numbers under `arbitrary_precision`.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// Parses `text` into a bounded skeleton.
pub fn skeleton(text: &str) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let v = Skeleton.deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

#[derive(Clone, Copy)]
struct Skeleton;

impl<'de> DeserializeSeed<'de> for Skeleton {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

fn cut(s: &str) -> String {
    if s.len() <= MAX_STRING {
        return s.to_string();
    }
    let mut end = MAX_STRING;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

impl<'de> Visitor<'de> for Skeleton {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(cut(v)))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while out.len() < MAX_ITEMS {
            match seq.next_element_seed(self)? {
                Some(v) => out.push(v),
                None => return Ok(Value::Array(out)),
            }
        }
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == NUMBER_TOKEN {
                let digits: String = map.next_value()?;
                return serde_json::from_str(&digits).map_err(de::Error::custom);
            }
            if out.len() < MAX_MEMBERS {
                let v = map.next_value_seed(self)?;
                out.insert(key.into_owned(), v);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_structure_and_bounds_size() {
        let long = "é".repeat(1000);
        let items: Vec<String> = (0..100).map(|i| i.to_string()).collect();
        let text = format!(
            r#"{{"a":"{long}","n":123456789012345678901234567890,"i":-5,"list":[{}],"o":{{"t":true}}}}"#,
            items.join(",")
        );
        let v = skeleton(&text).unwrap();
        assert!(v["a"].as_str().unwrap().len() <= MAX_STRING);
        assert_eq!(v["list"].as_array().unwrap().len(), MAX_ITEMS);
        assert!(v["i"].is_i64());
        assert_eq!(v["n"].to_string(), "123456789012345678901234567890");
        assert_eq!(v["o"]["t"], true);
    }

    #[test]
    fn errors_keep_their_position() {
        let e = skeleton("{\n  \"a\": [1,\n  }").unwrap_err();
        assert_eq!(e.line(), 3);
        assert!(skeleton("{} x").is_err());
    }
}
