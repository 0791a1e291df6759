//! Records by uuid without a copy of each uuid: the indices of the records that have one,
//! sorted by it and binary-searched. A map keyed by copied uuids cost a 160 MB
//! transcript's rewrite about 30 MB (a 36-byte string, its allocation and a table slot a
//! record) beside the records' own uuids.

/// Record indices sorted by uuid and then index: four bytes a record.
#[derive(Debug, Default)]
pub struct Uuids {
    idx: Vec<u32>,
}

impl Uuids {
    /// The index of the `n` records whose `uuid` gives one.
    pub fn new<K: Ord>(n: usize, uuid: impl Fn(usize) -> Option<K>) -> Uuids {
        let mut idx: Vec<u32> = (0..n)
            .filter(|&i| uuid(i).is_some())
            .map(|i| u32::try_from(i).expect("fewer than 2^32 records"))
            .collect();
        idx.sort_unstable_by_key(|&i| (uuid(i as usize), i));
        Uuids { idx }
    }

    /// The record with `u` (the last one, when several have it, as a map filled in file
    /// order would say); `uuid` is the one the index was made with.
    pub fn get<K: Ord>(&self, u: K, uuid: impl Fn(usize) -> Option<K>) -> Option<usize> {
        let key = |i: &u32| uuid(*i as usize);
        let u = Some(u);
        let to = self.idx.partition_point(|i| key(i) <= u);
        to.checked_sub(1)
            .map(|k| self.idx[k] as usize)
            .filter(|&i| uuid(i) == u)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_last_record_of_a_uuid_and_nothing_for_an_unknown_one() {
        let ids = [Some("b"), None, Some("a"), Some("b"), Some("c"), None];
        let uuid = |i: usize| ids[i];
        let u = Uuids::new(ids.len(), uuid);
        assert_eq!(u.get("a", uuid), Some(2));
        assert_eq!(u.get("b", uuid), Some(3), "the later of two records");
        assert_eq!(u.get("c", uuid), Some(4));
        for missing in ["", "0", "aa", "bb", "d"] {
            assert_eq!(u.get(missing, uuid), None, "{missing:?}");
        }
    }

    #[test]
    fn agrees_with_a_map_filled_in_file_order() {
        let ids: Vec<Option<String>> = (0..200u32)
            .map(|i| (i % 7 != 0).then(|| format!("{:x}", (i * 37) % 61)))
            .collect();
        let uuid = |i: usize| ids[i].as_deref();
        let u = Uuids::new(ids.len(), uuid);
        let mut map = std::collections::HashMap::new();
        for (i, id) in ids.iter().enumerate() {
            if let Some(id) = id {
                map.insert(id.clone(), i);
            }
        }
        for k in 0..70u32 {
            let key = format!("{k:x}");
            let found = u.get(key.as_str(), |i| ids[i].as_deref());
            assert_eq!(found, map.get(&key).copied(), "{key}");
        }
    }

    #[test]
    fn an_empty_index_finds_nothing() {
        let u = Uuids::new(0, |_| None::<&str>);
        assert_eq!(u.get("a", |_| None), None);
    }
}
