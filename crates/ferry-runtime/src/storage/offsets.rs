//! The offset backing store abstraction and the source tasks' reader over it.

use std::sync::Arc;

use async_trait::async_trait;
use ferry_api::record::OffsetMap;
use ferry_api::task::OffsetStorageReader;
use ferry_api::ConnectError;

use crate::storage::offset_codec::{decode_offset, encode_key};

#[derive(Debug, thiserror::Error)]
pub enum OffsetStoreError {
    #[error("could not read offsets from {path}: {message}")]
    Load { path: String, message: String },
    #[error("could not write offsets to {path}: {cause}")]
    Write { path: String, cause: std::io::Error },
    #[error("offset data is invalid: {0}")]
    Data(String),
}

/// Raw key bytes to raw value bytes (`None` = tombstone), as the Java stores hold them.
#[async_trait]
pub trait OffsetBackingStore: Send + Sync {
    async fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, OffsetStoreError>;
    /// Writes every entry durably before answering.
    async fn set(&self, entries: Vec<(Vec<u8>, Option<Vec<u8>>)>) -> Result<(), OffsetStoreError>;
    /// Every (key, value) pair currently stored.
    async fn all(&self) -> Result<Vec<(Vec<u8>, Vec<u8>)>, OffsetStoreError>;
    /// Before a source task starts: whatever the store opens lazily (a connector's own offsets
    /// topic, created when missing) is open.
    async fn open(&self) -> Result<(), OffsetStoreError> {
        Ok(())
    }
}

/// Reads the offsets of one connector's source partitions.
pub struct ConnectorOffsetReader {
    pub connector: String,
    pub store: Arc<dyn OffsetBackingStore>,
}

#[async_trait]
impl OffsetStorageReader for ConnectorOffsetReader {
    async fn offset(&self, partition: &OffsetMap) -> ferry_api::error::Result<Option<OffsetMap>> {
        let key = encode_key(&self.connector, partition)?;
        let raw = self
            .store
            .get(&key)
            .await
            .map_err(|e| ConnectError::with_source("Failed to fetch offsets", e))?;
        raw.map(|bytes| decode_offset(&bytes)).transpose()
    }
}
