//! A JSONL record held as its top-level keys with their raw JSON text, so that changing one
//! field of a line leaves every other byte of it (signatures, encrypted content, number and
//! escape formatting) exactly as it was.

use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;

/// One JSON object, its top-level values kept as raw text, in file order.
#[derive(Debug)]
pub struct RawRecord {
    fields: Vec<(String, Box<RawValue>)>,
}

impl RawRecord {
    /// Parses `line`, which must hold a JSON object.
    pub fn parse(line: &str) -> Result<RawRecord, serde_json::Error> {
        let mut de = serde_json::Deserializer::from_str(line);
        let fields = de.deserialize_map(FieldsVisitor)?;
        de.end()?;
        Ok(RawRecord { fields })
    }

    /// Replaces `key`'s value in place, or appends the key when it is missing. A key that
    /// appears more than once (JSON readers take the last) keeps only its last place, so the
    /// new value is the one every reader sees.
    pub fn set(&mut self, key: &str, value: &Value) -> Result<(), serde_json::Error> {
        let raw = RawValue::from_string(serde_json::to_string(value)?)?;
        match self.fields.iter().rposition(|(k, _)| k == key) {
            Some(last) => {
                self.fields[last].1 = raw;
                let mut i = 0;
                self.fields.retain(|(k, _)| {
                    i += 1;
                    k != key || i - 1 == last
                });
            }
            None => self.fields.push((key.to_string(), raw)),
        }
        Ok(())
    }

    /// Removes every occurrence of `key`.
    pub fn remove(&mut self, key: &str) {
        self.fields.retain(|(k, _)| k != key);
    }

    /// The record as one compact JSON line (no terminator).
    pub fn to_line(&self) -> Result<String, serde_json::Error> {
        let mut out = String::from("{");
        for (i, (k, v)) in self.fields.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&serde_json::to_string(k)?);
            out.push(':');
            out.push_str(v.get());
        }
        out.push('}');
        Ok(out)
    }
}

struct FieldsVisitor;

impl<'de> Visitor<'de> for FieldsVisitor {
    type Value = Vec<(String, Box<RawValue>)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Box<RawValue>>()? {
            out.push((k, v));
        }
        Ok(out)
    }
}

/// Sets `key` to `value` in the JSON object on `line`, leaving the other fields' bytes as they
/// were. Several keys can be set at once.
pub fn set_fields(line: &str, fields: &[(&str, Value)]) -> Result<String, serde_json::Error> {
    let mut rec = RawRecord::parse(line)?;
    for (k, v) in fields {
        rec.set(k, v)?;
    }
    rec.to_line()
}

/// Removes `key` from the JSON object on `line`, leaving the other fields' bytes as they were.
pub fn remove_field(line: &str, key: &str) -> Result<String, serde_json::Error> {
    let mut rec = RawRecord::parse(line)?;
    rec.remove(key);
    rec.to_line()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn untouched_fields_keep_their_bytes() {
        let line = r#"{"a":1.50,"sig":"\u00e9x","b":{"c" : [1,2]}}"#;
        let out = set_fields(line, &[("a", json!(2))]).unwrap();
        assert_eq!(out, r#"{"a":2,"sig":"\u00e9x","b":{"c" : [1,2]}}"#);
    }

    #[test]
    fn missing_keys_are_appended() {
        let mut rec = RawRecord::parse(r#"{"x":null}"#).unwrap();
        rec.set("y", &json!("z")).unwrap();
        assert_eq!(rec.to_line().unwrap(), r#"{"x":null,"y":"z"}"#);
    }

    #[test]
    fn a_duplicated_key_is_set_once_at_its_last_place() {
        let mut rec = RawRecord::parse(r#"{"c":1,"a":2,"c":3}"#).unwrap();
        rec.set("c", &json!(4)).unwrap();
        assert_eq!(rec.to_line().unwrap(), r#"{"a":2,"c":4}"#);
    }

    #[test]
    fn removing_a_field_keeps_the_others() {
        let line = r#"{"a":1.50,"m":{"x":true},"b":"\u00e9"}"#;
        assert_eq!(
            remove_field(line, "m").unwrap(),
            r#"{"a":1.50,"b":"\u00e9"}"#
        );
        assert_eq!(remove_field(line, "zz").unwrap(), line);
    }

    #[test]
    fn non_objects_are_rejected() {
        assert!(RawRecord::parse("[1]").is_err());
        assert!(RawRecord::parse(r#"{"a":1} x"#).is_err());
    }
}
