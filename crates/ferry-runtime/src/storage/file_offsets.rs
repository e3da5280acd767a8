//! Standalone offsets in `offset.storage.file.filename`, in Java's file format so an existing
//! Java standalone offsets file keeps working (and Java can read ours).

use std::path::{Path, PathBuf};

use async_trait::async_trait;
use indexmap::IndexMap;
use tokio::sync::Mutex;

use crate::storage::java_serialized_map;
use crate::storage::offsets::{OffsetBackingStore, OffsetStoreError};

pub struct FileOffsetStore {
    path: PathBuf,
    data: Mutex<IndexMap<Vec<u8>, Option<Vec<u8>>>>,
}

impl FileOffsetStore {
    /// Loads the file; a missing or empty file is an empty store.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, OffsetStoreError> {
        let path = path.as_ref().to_path_buf();
        let load_error = |message: String| OffsetStoreError::Load {
            path: path.display().to_string(),
            message,
        };
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(load_error(e.to_string())),
        };
        let entries = java_serialized_map::decode(&bytes).map_err(|e| load_error(e.to_string()))?;
        Ok(FileOffsetStore {
            path,
            data: Mutex::new(entries.into_iter().collect()),
        })
    }

    /// Rewrites the whole file. Written beside it and renamed over it, so a crash mid-write
    /// leaves the previous file whole (Java truncates in place).
    async fn save(
        &self,
        data: &IndexMap<Vec<u8>, Option<Vec<u8>>>,
    ) -> Result<(), OffsetStoreError> {
        let entries: Vec<_> = data.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        let bytes = java_serialized_map::encode(&entries);
        let path = self.path.clone();
        let tmp = self.path.with_extension("tmp-write");
        tokio::task::spawn_blocking(move || -> std::io::Result<()> {
            use std::io::Write;
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(&bytes)?;
            f.sync_all()?;
            std::fs::rename(&tmp, &path)
        })
        .await
        .map_err(|e| OffsetStoreError::Write {
            path: self.path.display().to_string(),
            cause: std::io::Error::other(e.to_string()),
        })?
        .map_err(|e| OffsetStoreError::Write {
            path: self.path.display().to_string(),
            cause: e,
        })
    }
}

#[async_trait]
impl OffsetBackingStore for FileOffsetStore {
    async fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, OffsetStoreError> {
        Ok(self.data.lock().await.get(key).cloned().flatten())
    }

    async fn set(&self, entries: Vec<(Vec<u8>, Option<Vec<u8>>)>) -> Result<(), OffsetStoreError> {
        let mut data = self.data.lock().await;
        for (k, v) in entries {
            match v {
                Some(v) => {
                    data.insert(k, Some(v));
                }
                None => {
                    data.shift_remove(&k);
                }
            }
        }
        self.save(&data).await
    }

    async fn all(&self) -> Result<Vec<(Vec<u8>, Vec<u8>)>, OffsetStoreError> {
        Ok(self
            .data
            .lock()
            .await
            .iter()
            .filter_map(|(k, v)| v.clone().map(|v| (k.clone(), v)))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn survives_reopen_and_reads_java_layout() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("connect.offsets");
        let store = FileOffsetStore::open(&path).unwrap();
        assert!(store.all().await.unwrap().is_empty());
        store
            .set(vec![
                (b"k1".to_vec(), Some(b"v1".to_vec())),
                (b"k2".to_vec(), Some(b"v2".to_vec())),
            ])
            .await
            .unwrap();
        store.set(vec![(b"k2".to_vec(), None)]).await.unwrap();
        let reopened = FileOffsetStore::open(&path).unwrap();
        assert_eq!(reopened.get(b"k1").await.unwrap(), Some(b"v1".to_vec()));
        assert_eq!(reopened.get(b"k2").await.unwrap(), None);
        // The file starts with Java's serialisation magic and the HashMap class name.
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[..4], &[0xAC, 0xED, 0x00, 0x05]);
        assert_eq!(&bytes[6..8], &[0x00, 0x11]);
        assert_eq!(&bytes[8..25], b"java.util.HashMap");
    }

    #[test]
    fn garbage_file_is_a_load_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.offsets");
        std::fs::write(&path, b"not java").unwrap();
        let err = FileOffsetStore::open(&path).err().unwrap().to_string();
        assert!(err.contains("bad.offsets"), "{err}");
    }
}
