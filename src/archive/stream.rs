//! An archive file read with its records handed over one at a time: a compaction's
//! records can be most of a large session, and a restore that keeps only the ones the
//! session no longer holds need not have them all at once.

use std::fmt;
use std::path::Path;

use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::store::read_json_with;
use super::{ArchiveEntry, ArchiveError, ArchiveFile, ArchiveStore};

/// The archive at `path` with its `records` left empty, each of them given to `each` in
/// order as it is read instead.
pub fn read_each_record(
    path: &Path,
    each: &mut dyn FnMut(Box<RawValue>),
) -> Result<ArchiveFile, ArchiveError> {
    read_json_with(path, |r| from_reader_each(r, each))
}

impl ArchiveStore {
    /// [`ArchiveStore::get`] with the archive's `records` left empty, each let go as it is
    /// read: a compaction's records (most of a large session) are not held for its facts.
    pub fn get_facts(&self, id: &str) -> Result<(ArchiveEntry, ArchiveFile), ArchiveError> {
        self.get_with(id, |path| read_each_record(path, &mut |_| {}))
    }
}

/// [`read_each_record`] of an archive's JSON text, read from `r`.
fn from_reader_each(
    r: &mut dyn std::io::Read,
    each: &mut dyn FnMut(Box<RawValue>),
) -> Result<ArchiveFile, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_reader(r);
    let mut facts = de.deserialize_map(Facts { each })?;
    de.end()?;
    // The facts are few and small; they become an archive (records none) as serde reads one.
    facts.insert("records".into(), Value::Array(Vec::new()));
    serde_json::from_value(Value::Object(facts))
}

/// The archive's fields but its records, which go to `each`.
struct Facts<'f> {
    each: &'f mut dyn FnMut(Box<RawValue>),
}

impl<'de> Visitor<'de> for Facts<'_> {
    type Value = Map<String, Value>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an archive object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut facts = Map::new();
        let mut records = false;
        while let Some(key) = map.next_key::<String>()? {
            if key == "records" {
                if records {
                    return Err(A::Error::duplicate_field("records"));
                }
                records = true;
                map.next_value_seed(Each { each: self.each })?;
            } else if facts.contains_key(&key) {
                return Err(A::Error::custom(format!("duplicate field `{key}`")));
            } else {
                let v = map.next_value::<Value>()?;
                facts.insert(key, v);
            }
        }
        if !records {
            return Err(A::Error::missing_field("records"));
        }
        Ok(facts)
    }
}

/// The `records` list, each record given to `each`.
struct Each<'f> {
    each: &'f mut dyn FnMut(Box<RawValue>),
}

impl<'de> DeserializeSeed<'de> for Each<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Each<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of records")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(r) = seq.next_element::<Box<RawValue>>()? {
            (self.each)(r);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<(ArchiveFile, Vec<String>), serde_json::Error> {
        let mut got = Vec::new();
        let file = from_reader_each(&mut text.as_bytes(), &mut |r| got.push(r.get().to_string()))?;
        Ok((file, got))
    }

    fn archive(records: &str) -> String {
        format!(
            r#"{{"ctxctl_version": "0.1.0", "session": "s", "seq": 1, "compact_id": "c",
            "created": "2026-01-01T00:00:00Z", "source": null, "format": "claude-code",
            "model": null, "first_message": 0, "messages": 2, "records": {records},
            "summarizer": "x", "tokens": {{"original": 3, "compacted": 2, "archived": 1}}, "summary": "s"}}"#
        )
    }

    #[test]
    fn records_come_one_by_one_and_the_facts_as_a_whole_read_has_them() {
        let text = archive("[{\"a\": 1},\n    {\"b\":\"\\u00e9\"}]");
        let (facts, got) = read(&text).unwrap();
        assert_eq!(got, ["{\"a\": 1}", "{\"b\":\"\\u00e9\"}"]);
        let mut whole: ArchiveFile = serde_json::from_str(&text).unwrap();
        whole.records.clear();
        assert_eq!(facts, whole);
    }

    #[test]
    fn an_archive_without_records_or_with_them_twice_is_refused() {
        let none = archive("[]").replace("\"records\": [],", "");
        assert!(read(&none).is_err());
        let twice = archive("[1], \"records\": [2]");
        assert!(read(&twice).is_err());
        assert!(read(&archive("[1]")).is_ok());
        assert!(read(&(archive("[1]") + " x")).is_err());
    }
}
