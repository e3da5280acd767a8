//! Record headers.

use crate::data::{SchemaRef, Value};

/// One header: a key with a Connect value and its schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    pub key: String,
    pub schema: Option<SchemaRef>,
    pub value: Value,
}

/// The ordered headers of a record; a key may appear more than once, as in Kafka.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Headers(Vec<Header>);

impl Headers {
    pub fn new() -> Self {
        Headers(Vec::new())
    }

    pub fn add(&mut self, key: impl Into<String>, schema: Option<SchemaRef>, value: Value) {
        self.0.push(Header {
            key: key.into(),
            schema,
            value,
        });
    }

    /// The last header with this key, as Java's `lastWithName`.
    pub fn last_with_name(&self, key: &str) -> Option<&Header> {
        self.0.iter().rev().find(|h| h.key == key)
    }

    pub fn remove(&mut self, key: &str) {
        self.0.retain(|h| h.key != key);
    }

    pub fn iter(&self) -> impl Iterator<Item = &Header> {
        self.0.iter()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<'a> IntoIterator for &'a Headers {
    type Item = &'a Header;
    type IntoIter = std::slice::Iter<'a, Header>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}
