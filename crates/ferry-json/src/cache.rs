//! A small bounded map for schema translations; the oldest entry goes first when full.
//! Java uses an LRU map, but the difference only affects which schema is re-translated.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::sync::Mutex;

pub(crate) struct BoundedCache<K, V> {
    inner: Mutex<Inner<K, V>>,
}

struct Inner<K, V> {
    capacity: usize,
    map: HashMap<K, V>,
    order: VecDeque<K>,
}

impl<K: Hash + Eq + Clone, V: Clone> BoundedCache<K, V> {
    /// A capacity of zero or less caches nothing.
    pub(crate) fn new(capacity: i32) -> Self {
        BoundedCache {
            inner: Mutex::new(Inner {
                capacity: usize::try_from(capacity).unwrap_or(0),
                map: HashMap::new(),
                order: VecDeque::new(),
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner<K, V>> {
        // A panic elsewhere cannot leave the map half-updated in a way that matters here.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn get(&self, key: &K) -> Option<V> {
        self.lock().map.get(key).cloned()
    }

    pub(crate) fn put(&self, key: K, value: V) {
        let mut inner = self.lock();
        if inner.capacity == 0 {
            return;
        }
        if inner.map.insert(key.clone(), value).is_none() {
            inner.order.push_back(key);
            while inner.order.len() > inner.capacity {
                if let Some(oldest) = inner.order.pop_front() {
                    inner.map.remove(&oldest);
                }
            }
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.lock().map.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_oldest_beyond_capacity() {
        let cache = BoundedCache::new(2);
        cache.put("a", 1);
        cache.put("b", 2);
        cache.put("a", 3);
        cache.put("c", 4);
        assert_eq!(cache.get(&"a"), None);
        assert_eq!(cache.get(&"b"), Some(2));
        assert_eq!(cache.get(&"c"), Some(4));
        assert_eq!(cache.len(), 2);

        let none = BoundedCache::new(0);
        none.put("a", 1);
        assert_eq!(none.len(), 0);
    }
}
