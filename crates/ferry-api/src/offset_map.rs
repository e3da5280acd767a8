//! `OffsetMap`: a source partition or offset, a tiny ordered string-keyed map.
//!
//! A source task makes one offset per record (the file source one per line), so making it must
//! cost next to nothing: the entries live inline while there is one (the common case: a
//! position, a sequence number), keys that are string constants are not copied, and lookups scan
//! the few entries instead of hashing. The order the connector gave is kept, because it is part
//! of the key and value bytes written to the offsets topic.

use std::borrow::Cow;
use std::fmt;
use std::ops::Index;

use smallvec::SmallVec;

use crate::data::Value;

/// An offset map's key: a string constant of the connector, or a string read back from storage.
pub type OffsetKey = Cow<'static, str>;

/// String keys to (primitive) values, in insertion order; equal to another map with the same
/// entries in any order, as Java's `Map.equals` is.
#[derive(Clone, Default)]
pub struct OffsetMap {
    entries: SmallVec<[(OffsetKey, Value); 1]>,
}

impl OffsetMap {
    pub fn new() -> Self {
        OffsetMap::default()
    }

    pub fn with_capacity(capacity: usize) -> Self {
        OffsetMap {
            entries: SmallVec::with_capacity(capacity),
        }
    }

    /// A map of one entry, built in place: the file source makes one per line.
    pub fn single(key: impl Into<OffsetKey>, value: Value) -> Self {
        OffsetMap {
            entries: SmallVec::from_buf([(key.into(), value)]),
        }
    }

    /// Sets `key` to `value`; a key already present keeps its place and gives back its old value.
    pub fn insert(&mut self, key: impl Into<OffsetKey>, value: Value) -> Option<Value> {
        let key = key.into();
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some((_, old)) => Some(std::mem::replace(old, value)),
            None => {
                self.entries.push((key, value));
                None
            }
        }
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries in insertion order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Value)> {
        self.into_iter()
    }

    pub fn keys(&self) -> impl ExactSizeIterator<Item = &str> {
        self.entries.iter().map(|(k, _)| k.as_ref())
    }

    pub fn values(&self) -> impl ExactSizeIterator<Item = &Value> {
        self.entries.iter().map(|(_, v)| v)
    }
}

impl PartialEq for OffsetMap {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl fmt::Debug for OffsetMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Index<&str> for OffsetMap {
    type Output = Value;

    /// # Panics
    /// When `key` is absent, as `HashMap`'s indexing does.
    fn index(&self, key: &str) -> &Value {
        self.get(key)
            .unwrap_or_else(|| panic!("no key {key:?} in offset map {self:?}"))
    }
}

impl<K: Into<OffsetKey>> FromIterator<(K, Value)> for OffsetMap {
    /// A key given twice keeps its first place and its last value.
    fn from_iter<I: IntoIterator<Item = (K, Value)>>(iter: I) -> Self {
        let iter = iter.into_iter();
        let mut map = OffsetMap::with_capacity(iter.size_hint().0);
        for (k, v) in iter {
            map.insert(k, v);
        }
        map
    }
}

impl<K: Into<OffsetKey>, const N: usize> From<[(K, Value); N]> for OffsetMap {
    fn from(entries: [(K, Value); N]) -> Self {
        entries.into_iter().collect()
    }
}

impl<'a> IntoIterator for &'a OffsetMap {
    type Item = (&'a str, &'a Value);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (OffsetKey, Value)>,
        fn(&'a (OffsetKey, Value)) -> (&'a str, &'a Value),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(k, v)| (k.as_ref(), v))
    }
}

impl IntoIterator for OffsetMap {
    type Item = (OffsetKey, Value);
    type IntoIter = smallvec::IntoIter<[(OffsetKey, Value); 1]>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_entry_with_a_constant_key_needs_no_heap() {
        let map = OffsetMap::from([("position", Value::Int64(7))]);
        assert!(!map.entries.spilled());
        assert!(matches!(map.entries[0].0, Cow::Borrowed("position")));
        assert_eq!(map["position"], Value::Int64(7));
        let single = OffsetMap::single("position", Value::Int64(7));
        assert!(!single.entries.spilled());
        assert!(matches!(single.entries[0].0, Cow::Borrowed("position")));
        assert_eq!(single, map);
    }

    #[test]
    fn insertion_order_is_kept_and_a_repeated_key_keeps_its_place() {
        let mut map = OffsetMap::new();
        assert_eq!(map.insert("b", Value::Int32(1)), None);
        assert_eq!(map.insert("a".to_owned(), Value::Int32(2)), None);
        assert_eq!(map.insert("b", Value::Int32(3)), Some(Value::Int32(1)));
        assert_eq!(map.keys().collect::<Vec<_>>(), ["b", "a"]);
        assert_eq!(
            map.values().collect::<Vec<_>>(),
            [&Value::Int32(3), &Value::Int32(2)]
        );
        let collected: OffsetMap = [
            ("x", Value::Null),
            ("y", Value::Null),
            ("x", Value::Boolean(true)),
        ]
        .into_iter()
        .collect();
        assert_eq!(collected.len(), 2);
        assert_eq!(collected.iter().next(), Some(("x", &Value::Boolean(true))));
    }

    #[test]
    fn maps_with_the_same_entries_in_another_order_are_equal() {
        let a = OffsetMap::from([("x", Value::Int64(1)), ("y", Value::Int64(2))]);
        let b = OffsetMap::from([("y", Value::Int64(2)), ("x", Value::Int64(1))]);
        let c = OffsetMap::from([("x", Value::Int64(1)), ("y", Value::Int64(3))]);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, OffsetMap::from([("x", Value::Int64(1))]));
        assert_eq!(format!("{a:?}"), r#"{"x": Int64(1), "y": Int64(2)}"#);
    }

    #[test]
    fn a_missing_key_is_absent() {
        let map = OffsetMap::from([("position", Value::Int64(7))]);
        assert_eq!(map.get("offset"), None);
        assert!(!map.contains_key("offset"));
        assert!(map.contains_key("position"));
    }
}
