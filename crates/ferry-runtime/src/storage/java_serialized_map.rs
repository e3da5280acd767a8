//! Java object serialization of a `java.util.HashMap<byte[], byte[]>`.
//!
//! Kafka Connect standalone mode (`FileOffsetBackingStore`) persists source offsets in the
//! file named by `offset.storage.file.filename` by handing such a map to an
//! `ObjectOutputStream`. Keys are the JSON-serialized offset keys, values the JSON-serialized
//! offsets (or `null` for a tombstone). This module reads files written by Java and writes
//! files Java reads back, byte-for-byte identical to what JDK 17 would produce for the same
//! entries in the same iteration order.
//!
//! Only the subset of the serialization protocol that such a map can contain is supported;
//! anything else is reported as an error rather than guessed at.

/// Stream header: magic `0xACED`, version 5.
const STREAM_HEADER: [u8; 4] = [0xAC, 0xED, 0x00, 0x05];

const TC_NULL: u8 = 0x70;
const TC_REFERENCE: u8 = 0x71;
const TC_CLASSDESC: u8 = 0x72;
const TC_OBJECT: u8 = 0x73;
const TC_ARRAY: u8 = 0x75;
const TC_BLOCKDATA: u8 = 0x77;
const TC_ENDBLOCKDATA: u8 = 0x78;
const TC_BLOCKDATALONG: u8 = 0x7A;

/// First wire handle; handles are assigned in stream order from here.
const BASE_HANDLE: u32 = 0x7E_0000;

const SC_WRITE_METHOD: u8 = 0x01;
const SC_SERIALIZABLE: u8 = 0x02;

const HASHMAP_CLASS: &str = "java.util.HashMap";
const HASHMAP_SUID: i64 = 362_498_820_763_181_265;
const BYTE_ARRAY_CLASS: &str = "[B";
const BYTE_ARRAY_SUID: i64 = -5_984_413_125_824_719_648;

/// Handles in the stream `encode` writes: the HashMap class descriptor is 0, the HashMap
/// object 1, and the `[B` descriptor (written with the first array) 2.
const BYTE_ARRAY_DESC_HANDLE: u32 = BASE_HANDLE + 2;

/// One decoded map entry: key bytes and value bytes (`None` for a Java `null`).
pub type Entry = (Vec<u8>, Option<Vec<u8>>);

/// Why a byte stream could not be decoded as a serialized `HashMap<byte[], byte[]>`.
#[derive(Debug, thiserror::Error)]
pub enum JavaSerializedMapError {
    #[error("not a Java serialization stream: header {found:02X?}, expected AC ED 00 05")]
    BadMagic { found: Vec<u8> },
    #[error("truncated stream: {needed} more byte(s) needed at byte offset {offset}")]
    Truncated { offset: usize, needed: usize },
    #[error("unexpected type code 0x{code:02X} at byte offset {offset}, expected {expected}")]
    UnexpectedTypeCode {
        code: u8,
        offset: usize,
        expected: &'static str,
    },
    #[error("unexpected class name {found:?} at byte offset {offset}, expected {expected:?}")]
    UnexpectedClassName {
        found: String,
        offset: usize,
        expected: &'static str,
    },
    #[error("reference to handle 0x{handle:08X} at byte offset {offset} is not {expected}")]
    BadReference {
        handle: u32,
        offset: usize,
        expected: &'static str,
    },
    #[error("malformed stream at byte offset {offset}: {reason}")]
    Malformed { offset: usize, reason: String },
}

type Result<T> = std::result::Result<T, JavaSerializedMapError>;

/// Decodes the bytes of a Java-serialized `HashMap<byte[],byte[]>`. Empty input => empty vec.
/// Order = the order entries appear in the stream.
///
/// Capacity, threshold and load factor are read but not checked. Keys with equal contents
/// may legitimately appear more than once (Java compares `byte[]` keys by identity), and all
/// of them are returned. Bytes after the map object are ignored, as `ObjectInputStream`
/// does when Java reads the file.
pub fn decode(bytes: &[u8]) -> std::result::Result<Vec<Entry>, JavaSerializedMapError> {
    if bytes.is_empty() {
        return Ok(Vec::new());
    }
    let mut reader = Reader {
        buf: bytes,
        pos: 0,
        handles: Vec::new(),
        block_remaining: 0,
    };
    let header = reader
        .take(4)
        .map_err(|_| JavaSerializedMapError::BadMagic {
            found: bytes[..bytes.len().min(4)].to_vec(),
        })?;
    if header != STREAM_HEADER {
        return Err(JavaSerializedMapError::BadMagic {
            found: header.to_vec(),
        });
    }
    reader.read_hashmap()
}

/// Encodes entries exactly as JDK 17's ObjectOutputStream writes a HashMap<byte[],byte[]>
/// holding them (in the given order).
///
/// Java writes entries in bucket order, which depends on identity hash codes; callers pass
/// whatever order they want, and readers do not care. Capacity and threshold model the map
/// `FileOffsetBackingStore.save()` writes: `new HashMap<>()` followed by one `put` per entry.
///
/// # Panics
/// If there are more than `i32::MAX` entries or an array longer than `i32::MAX` bytes,
/// which Java cannot represent either.
pub fn encode(entries: &[Entry]) -> Vec<u8> {
    let size = java_int(entries.len(), "entry count");
    let (capacity, threshold) = hashmap_shape(size);
    let mut out = Vec::with_capacity(128 + entries.iter().map(entry_len).sum::<usize>());

    out.extend_from_slice(&STREAM_HEADER);
    out.extend_from_slice(&[TC_OBJECT, TC_CLASSDESC]);
    put_utf(&mut out, HASHMAP_CLASS);
    out.extend_from_slice(&HASHMAP_SUID.to_be_bytes());
    out.push(SC_WRITE_METHOD | SC_SERIALIZABLE);
    // Serializable fields: primitives sorted by name, as ObjectStreamClass orders them.
    out.extend_from_slice(&2u16.to_be_bytes());
    out.push(b'F');
    put_utf(&mut out, "loadFactor");
    out.push(b'I');
    put_utf(&mut out, "threshold");
    // No class annotations; AbstractMap is not Serializable so there is no super descriptor.
    out.extend_from_slice(&[TC_ENDBLOCKDATA, TC_NULL]);

    // defaultWriteObject(): loadFactor, threshold.
    out.extend_from_slice(&0.75f32.to_bits().to_be_bytes());
    out.extend_from_slice(&threshold.to_be_bytes());
    // writeInt(capacity); writeInt(size) are buffered into one block, flushed by the first key.
    out.extend_from_slice(&[TC_BLOCKDATA, 8]);
    out.extend_from_slice(&capacity.to_be_bytes());
    out.extend_from_slice(&size.to_be_bytes());

    let mut desc_written = false;
    for (key, value) in entries {
        put_byte_array(&mut out, key, &mut desc_written);
        match value {
            Some(value) => put_byte_array(&mut out, value, &mut desc_written),
            None => out.push(TC_NULL),
        }
    }
    // End of the optional data written by HashMap.writeObject.
    out.push(TC_ENDBLOCKDATA);
    out
}

/// `(capacity, threshold)` as JDK 17 serializes a `HashMap` built by `new HashMap<>()` and
/// `size` calls to `put`.
///
/// A never-used map has no table and `threshold == 0`, so `capacity()` falls back to
/// `DEFAULT_INITIAL_CAPACITY` (16) while the serialized `threshold` field stays 0. The first
/// `put` allocates 16 buckets with threshold 12, and each `put` that makes `size > threshold`
/// doubles both (up to `MAXIMUM_CAPACITY`, where the threshold becomes `Integer.MAX_VALUE`).
fn hashmap_shape(size: i32) -> (i32, i32) {
    const MAXIMUM_CAPACITY: i32 = 1 << 30;
    if size == 0 {
        return (16, 0);
    }
    let (mut capacity, mut threshold) = (16, 12);
    while size > threshold {
        if capacity >= MAXIMUM_CAPACITY {
            return (capacity, i32::MAX);
        }
        capacity *= 2;
        threshold = if capacity >= MAXIMUM_CAPACITY {
            i32::MAX
        } else {
            threshold * 2
        };
    }
    (capacity, threshold)
}

fn entry_len((key, value): &Entry) -> usize {
    // TC_ARRAY + reference + length, per array; the one-off `[B` descriptor is in the slack.
    10 + key.len() + value.as_ref().map_or(1, |v| 10 + v.len())
}

fn java_int(n: usize, what: &str) -> i32 {
    i32::try_from(n).unwrap_or_else(|_| panic!("{what} {n} exceeds Java's int range"))
}

fn put_utf(out: &mut Vec<u8>, s: &str) {
    // Class and field names here are ASCII, where modified UTF-8 equals UTF-8.
    out.extend_from_slice(&(s.len() as u16).to_be_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn put_byte_array(out: &mut Vec<u8>, data: &[u8], desc_written: &mut bool) {
    out.push(TC_ARRAY);
    if *desc_written {
        out.push(TC_REFERENCE);
        out.extend_from_slice(&BYTE_ARRAY_DESC_HANDLE.to_be_bytes());
    } else {
        out.push(TC_CLASSDESC);
        put_utf(out, BYTE_ARRAY_CLASS);
        out.extend_from_slice(&BYTE_ARRAY_SUID.to_be_bytes());
        out.push(SC_SERIALIZABLE);
        out.extend_from_slice(&0u16.to_be_bytes());
        out.extend_from_slice(&[TC_ENDBLOCKDATA, TC_NULL]);
        *desc_written = true;
    }
    out.extend_from_slice(&java_int(data.len(), "byte[] length").to_be_bytes());
    out.extend_from_slice(data);
}

/// What a wire handle refers to. Arrays keep their position in the input instead of a copy.
enum Handle {
    ClassDesc(ClassDesc),
    Object,
    ByteArray(std::ops::Range<usize>),
}

#[derive(Clone)]
struct ClassDesc {
    name: String,
    flags: u8,
    /// Type codes of the primitive fields, in stream order.
    fields: Vec<u8>,
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    handles: Vec<Handle>,
    /// Unread bytes of the current block-data block while reading HashMap's custom data.
    block_remaining: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let available = self.buf.len() - self.pos;
        if available < n {
            return Err(JavaSerializedMapError::Truncated {
                offset: self.pos,
                needed: n - available,
            });
        }
        let slice = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_be_bytes(self.array()?))
    }

    fn i32(&mut self) -> Result<i32> {
        Ok(i32::from_be_bytes(self.array()?))
    }

    fn utf(&mut self) -> Result<String> {
        let len = usize::from(self.u16()?);
        Ok(String::from_utf8_lossy(self.take(len)?).into_owned())
    }

    /// A non-negative Java `int` length, read at the current position.
    fn length(&mut self, what: &str) -> Result<usize> {
        let offset = self.pos;
        let len = self.i32()?;
        usize::try_from(len).map_err(|_| malformed(offset, format!("negative {what} {len}")))
    }

    fn unexpected(&self, code: u8, expected: &'static str) -> JavaSerializedMapError {
        JavaSerializedMapError::UnexpectedTypeCode {
            code,
            offset: self.pos - 1,
            expected,
        }
    }

    fn assign(&mut self, handle: Handle) -> usize {
        self.handles.push(handle);
        self.handles.len() - 1
    }

    /// Reads a TC_REFERENCE body (code already consumed) and extracts what it points at.
    fn reference<T>(
        &mut self,
        expected: &'static str,
        pick: impl FnOnce(&Handle) -> Option<T>,
    ) -> Result<T> {
        let offset = self.pos - 1;
        let handle = u32::from_be_bytes(self.array()?);
        handle
            .checked_sub(BASE_HANDLE)
            .and_then(|index| self.handles.get(index as usize))
            .and_then(pick)
            .ok_or(JavaSerializedMapError::BadReference {
                handle,
                offset,
                expected,
            })
    }

    fn read_hashmap(&mut self) -> Result<Vec<Entry>> {
        let code = self.u8()?;
        if code != TC_OBJECT {
            return Err(self.unexpected(code, "TC_OBJECT (0x73)"));
        }
        let desc_offset = self.pos;
        let desc = self.read_class_desc(HASHMAP_CLASS)?;
        if desc.flags & (SC_SERIALIZABLE | SC_WRITE_METHOD) != SC_SERIALIZABLE | SC_WRITE_METHOD {
            let reason = format!(
                "{HASHMAP_CLASS} descriptor flags 0x{:02X} lack SC_SERIALIZABLE|SC_WRITE_METHOD",
                desc.flags
            );
            return Err(malformed(desc_offset, reason));
        }
        self.assign(Handle::Object);
        // defaultWriteObject() data (loadFactor, threshold): accepted whatever its values.
        for &type_code in &desc.fields {
            self.take(primitive_size(type_code))?;
        }

        // HashMap.writeObject's optional data: int capacity, int size, then key/value objects.
        let _capacity = self.block_i32()?;
        let size_offset = self.pos;
        let size = self.block_i32()?;
        let size = usize::try_from(size)
            .map_err(|_| malformed(size_offset, format!("negative map size {size}")))?;
        // Each entry takes at least two bytes, which bounds a lying size.
        let mut entries = Vec::with_capacity(size.min((self.buf.len() - self.pos) / 2));
        for _ in 0..size {
            let key_offset = self.pos;
            let key = self
                .read_byte_array_or_null()?
                .ok_or_else(|| malformed(key_offset, "null key is not supported".to_owned()))?;
            let value = self.read_byte_array_or_null()?;
            entries.push((key, value));
        }
        // Like ObjectInputStream, skip whatever optional data the writer left unread.
        self.take(self.block_remaining)?;
        self.block_remaining = 0;
        self.skip_to_end_block()?;
        Ok(entries)
    }

    /// Reads a class descriptor (new or back-referenced) and checks its name.
    fn read_class_desc(&mut self, expected: &'static str) -> Result<ClassDesc> {
        let code = self.u8()?;
        let name_offset = self.pos;
        let desc = match code {
            TC_CLASSDESC => self.read_new_class_desc()?,
            TC_REFERENCE => self.reference("a class descriptor", |handle| match handle {
                Handle::ClassDesc(desc) => Some(desc.clone()),
                _ => None,
            })?,
            _ => return Err(self.unexpected(code, "TC_CLASSDESC (0x72) or TC_REFERENCE (0x71)")),
        };
        if desc.name != expected {
            return Err(JavaSerializedMapError::UnexpectedClassName {
                found: desc.name,
                offset: name_offset,
                expected,
            });
        }
        Ok(desc)
    }

    /// Reads the body of a TC_CLASSDESC, registering its handle.
    fn read_new_class_desc(&mut self) -> Result<ClassDesc> {
        let name = self.utf()?;
        let _serial_version_uid = self.take(8)?;
        // Java assigns the descriptor's handle before anything nested in it; the placeholder
        // makes a reference to a half-read descriptor fail instead of resolving.
        let handle = self.assign(Handle::Object);
        let flags = self.u8()?;
        let field_count = self.u16()?;
        let mut fields = Vec::new();
        for _ in 0..field_count {
            let offset = self.pos;
            let type_code = self.u8()?;
            let field_name = self.utf()?;
            if primitive_size(type_code) == 0 {
                let reason = format!(
                    "field {field_name:?} of {name} has type code 0x{type_code:02X}; \
                     only primitive fields are supported"
                );
                return Err(malformed(offset, reason));
            }
            fields.push(type_code);
        }
        self.skip_to_end_block()?; // class annotations
        let code = self.u8()?;
        if code != TC_NULL {
            return Err(self.unexpected(code, "TC_NULL (0x70) superclass descriptor"));
        }
        let desc = ClassDesc {
            name,
            flags,
            fields,
        };
        self.handles[handle] = Handle::ClassDesc(desc.clone());
        Ok(desc)
    }

    /// Reads a key or value: a new `byte[]`, a reference to an earlier one, or `null`.
    fn read_byte_array_or_null(&mut self) -> Result<Option<Vec<u8>>> {
        if self.block_remaining > 0 {
            // ObjectInputStream would throw OptionalDataException here.
            let reason = format!(
                "{} unread block-data byte(s) before an object",
                self.block_remaining
            );
            return Err(malformed(self.pos, reason));
        }
        let code = self.u8()?;
        let range = match code {
            TC_NULL => return Ok(None),
            TC_ARRAY => {
                self.read_class_desc(BYTE_ARRAY_CLASS)?;
                let len = self.length("byte[] length")?;
                let start = self.pos;
                self.take(len)?;
                self.assign(Handle::ByteArray(start..self.pos));
                start..self.pos
            }
            TC_REFERENCE => self.reference("a byte[]", |handle| match handle {
                Handle::ByteArray(range) => Some(range.clone()),
                _ => None,
            })?,
            _ => {
                return Err(self.unexpected(
                    code,
                    "TC_ARRAY (0x75), TC_REFERENCE (0x71) or TC_NULL (0x70)",
                ))
            }
        };
        Ok(Some(self.buf[range].to_vec()))
    }

    /// Reads an `int` of block data; Java lets primitives straddle block boundaries.
    fn block_i32(&mut self) -> Result<i32> {
        let mut bytes = [0; 4];
        for byte in &mut bytes {
            while self.block_remaining == 0 {
                let code = self.u8()?;
                self.block_remaining = match code {
                    TC_BLOCKDATA => usize::from(self.u8()?),
                    TC_BLOCKDATALONG => self.length("block-data length")?,
                    _ => {
                        return Err(
                            self.unexpected(code, "TC_BLOCKDATA (0x77) or TC_BLOCKDATALONG (0x7A)")
                        )
                    }
                };
            }
            *byte = self.u8()?;
            self.block_remaining -= 1;
        }
        Ok(i32::from_be_bytes(bytes))
    }

    /// Skips block data up to and including TC_ENDBLOCKDATA.
    fn skip_to_end_block(&mut self) -> Result<()> {
        loop {
            let code = self.u8()?;
            let len = match code {
                TC_ENDBLOCKDATA => return Ok(()),
                TC_BLOCKDATA => usize::from(self.u8()?),
                TC_BLOCKDATALONG => self.length("block-data length")?,
                _ => return Err(self.unexpected(code, "TC_ENDBLOCKDATA (0x78)")),
            };
            self.take(len)?;
        }
    }
}

fn malformed(offset: usize, reason: String) -> JavaSerializedMapError {
    JavaSerializedMapError::Malformed { offset, reason }
}

/// Size of a primitive field's value, or 0 if `type_code` is not a primitive type.
fn primitive_size(type_code: u8) -> usize {
    match type_code {
        b'B' | b'Z' => 1,
        b'C' | b'S' => 2,
        b'F' | b'I' => 4,
        b'D' | b'J' => 8,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything up to the first key, spelled out from the JDK 17 layout.
    fn hashmap_prefix(threshold: i32, capacity: i32, size: i32) -> Vec<u8> {
        let mut v = vec![0xAC, 0xED, 0x00, 0x05]; // magic, version 5
        v.extend_from_slice(&[0x73, 0x72, 0x00, 0x11]); // TC_OBJECT, TC_CLASSDESC, name length 17
        v.extend_from_slice(b"java.util.HashMap");
        v.extend_from_slice(&[0x05, 0x07, 0xDA, 0xC1, 0xC3, 0x16, 0x60, 0xD1]); // serialVersionUID
        v.extend_from_slice(&[0x03, 0x00, 0x02]); // SC_WRITE_METHOD|SC_SERIALIZABLE, 2 fields
        v.extend_from_slice(&[0x46, 0x00, 0x0A]); // float loadFactor
        v.extend_from_slice(b"loadFactor");
        v.extend_from_slice(&[0x49, 0x00, 0x09]); // int threshold
        v.extend_from_slice(b"threshold");
        v.extend_from_slice(&[0x78, 0x70]); // no annotations, no serializable superclass
        v.extend_from_slice(&[0x3F, 0x40, 0x00, 0x00]); // loadFactor 0.75f
        v.extend_from_slice(&threshold.to_be_bytes());
        v.extend_from_slice(&[0x77, 0x08]); // block data, 8 bytes: capacity, size
        v.extend_from_slice(&capacity.to_be_bytes());
        v.extend_from_slice(&size.to_be_bytes());
        v
    }

    /// The first byte[] in a stream: TC_ARRAY plus a full `[B` class descriptor (handle 2).
    fn first_array(data: &[u8]) -> Vec<u8> {
        let mut v = vec![0x75, 0x72, 0x00, 0x02, b'[', b'B'];
        v.extend_from_slice(&[0xAC, 0xF3, 0x17, 0xF8, 0x06, 0x08, 0x54, 0xE0]); // serialVersionUID
        v.extend_from_slice(&[0x02, 0x00, 0x00, 0x78, 0x70]); // SC_SERIALIZABLE, 0 fields, end, no super
        v.extend_from_slice(&(data.len() as i32).to_be_bytes());
        v.extend_from_slice(data);
        v
    }

    /// A later byte[]: TC_ARRAY plus a back-reference to the `[B` descriptor.
    fn later_array(data: &[u8]) -> Vec<u8> {
        let mut v = vec![0x75, 0x71, 0x00, 0x7E, 0x00, 0x02];
        v.extend_from_slice(&(data.len() as i32).to_be_bytes());
        v.extend_from_slice(data);
        v
    }

    fn entry(key: &[u8], value: Option<&[u8]>) -> Entry {
        (key.to_vec(), value.map(<[u8]>::to_vec))
    }

    #[test]
    fn constants_match_the_documented_layout() {
        assert_eq!(
            HASHMAP_SUID.to_be_bytes(),
            [0x05, 0x07, 0xDA, 0xC1, 0xC3, 0x16, 0x60, 0xD1]
        );
        assert_eq!(
            BYTE_ARRAY_SUID.to_be_bytes(),
            [0xAC, 0xF3, 0x17, 0xF8, 0x06, 0x08, 0x54, 0xE0]
        );
        assert_eq!(0.75f32.to_bits(), 0x3F40_0000);
    }

    #[test]
    fn encodes_empty_map() {
        // Never-used map: threshold field 0, capacity() falls back to 16.
        let mut expected = hashmap_prefix(0, 16, 0);
        expected.push(0x78); // end of writeObject data
        assert_eq!(encode(&[]), expected);
        assert!(decode(&expected).unwrap().is_empty());
    }

    #[test]
    fn encodes_one_entry() {
        let key = br#"["src",{"file":"a"}]"#;
        let value = br#"{"pos":7}"#;
        let mut expected = hashmap_prefix(12, 16, 1); // first put allocates 16 buckets
        expected.extend(first_array(key));
        expected.extend(later_array(value));
        expected.push(0x78);
        assert_eq!(encode(&[entry(key, Some(value))]), expected);
    }

    #[test]
    fn encodes_two_entries_with_null_value() {
        let entries = [
            entry(b"key-one-fifteen", Some(b"value-1")),
            entry(b"k2", None),
        ];
        let mut expected = hashmap_prefix(12, 16, 2);
        expected.extend(first_array(b"key-one-fifteen"));
        expected.extend(later_array(b"value-1"));
        expected.extend(later_array(b"k2"));
        expected.push(0x70); // null value
        expected.push(0x78);
        assert_eq!(encode(&entries), expected);
    }

    #[test]
    fn thirteen_entries_resize_to_32_buckets() {
        let entries: Vec<Entry> = (0..13u8).map(|i| entry(&[i], Some(&[i, i]))).collect();
        let encoded = encode(&entries);
        assert!(encoded.starts_with(&hashmap_prefix(24, 32, 13)));
        // Twelve entries still fit in the initial table.
        assert!(encode(&entries[..12]).starts_with(&hashmap_prefix(12, 16, 12)));
        assert_eq!(decode(&encoded).unwrap(), entries);
    }

    #[test]
    fn hashmap_shape_follows_put_resizes() {
        assert_eq!(hashmap_shape(0), (16, 0));
        assert_eq!(hashmap_shape(1), (16, 12));
        assert_eq!(hashmap_shape(24), (32, 24));
        assert_eq!(hashmap_shape(25), (64, 48));
        assert_eq!(hashmap_shape(805_306_369), (1 << 30, i32::MAX));
        assert_eq!(hashmap_shape(i32::MAX), (1 << 30, i32::MAX));
    }

    #[test]
    fn round_trips() {
        let big: Vec<u8> = (0..70_000u32).map(|i| i as u8).collect();
        let cases: Vec<Vec<Entry>> = vec![
            vec![],
            vec![entry(b"", None)],
            vec![entry(b"", Some(b""))],
            vec![entry(b"same", Some(b"1")), entry(b"same", Some(b"2"))],
            vec![
                entry(&big, Some(&big)),
                entry(b"x", None),
                entry(b"y", Some(b"z")),
            ],
            (0..100u8)
                .map(|i| entry(&[i; 3], (i % 3 != 0).then_some(&[i][..])))
                .collect(),
        ];
        for entries in cases {
            assert_eq!(decode(&encode(&entries)).unwrap(), entries);
        }
    }

    #[test]
    fn every_truncation_is_an_error() {
        let encoded = encode(&[entry(b"key", Some(b"value")), entry(b"k2", None)]);
        for len in 1..encoded.len() {
            assert!(
                decode(&encoded[..len]).is_err(),
                "prefix of {len} bytes decoded"
            );
        }
    }

    #[test]
    fn garbage_never_panics() {
        let encoded = encode(&[entry(b"key", Some(b"value")), entry(b"k2", None)]);
        for i in 0..encoded.len() {
            for replacement in [0x00, 0x70, 0x71, 0x72, 0x75, 0x77, 0x78, 0x7A, 0x7F, 0xFF] {
                let mut mutated = encoded.clone();
                mutated[i] = replacement;
                let _ = decode(&mutated);
            }
        }
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..2_000 {
            let mut noise = STREAM_HEADER.to_vec();
            for _ in 0..(state % 64) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                noise.push(state as u8);
            }
            let _ = decode(&noise);
        }
    }

    #[test]
    fn reports_clear_errors() {
        let err = decode(b"{\"not\":\"java\"}").unwrap_err();
        assert!(
            matches!(err, JavaSerializedMapError::BadMagic { .. }),
            "{err}"
        );
        assert!(err.to_string().contains("AC ED 00 05"), "{err}");

        let err = decode(&[0xAC, 0xED, 0x00]).unwrap_err();
        assert!(
            matches!(err, JavaSerializedMapError::BadMagic { .. }),
            "{err}"
        );

        let err = decode(&[0xAC, 0xED, 0x00, 0x05, 0x74]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unexpected type code 0x74 at byte offset 4, expected TC_OBJECT (0x73)"
        );

        let mut tree_map = encode(&[]);
        tree_map[8..25].copy_from_slice(b"java.util.TreeMap");
        let err = decode(&tree_map).unwrap_err();
        assert!(
            err.to_string()
                .contains("\"java.util.TreeMap\" at byte offset 6"),
            "{err}"
        );

        let encoded = encode(&[entry(b"key", None)]);
        let err = decode(&encoded[..encoded.len() - 2]).unwrap_err();
        assert!(
            matches!(err, JavaSerializedMapError::Truncated { .. }),
            "{err}"
        );

        // An array claiming 2 GiB must fail on length, not try to allocate it.
        let mut huge = hashmap_prefix(12, 16, 1);
        let mut array = first_array(b"");
        array.truncate(array.len() - 4);
        huge.extend(array);
        huge.extend_from_slice(&[0x7F, 0xFF, 0xFF, 0xFF, 0x00]);
        assert!(matches!(
            decode(&huge).unwrap_err(),
            JavaSerializedMapError::Truncated { .. }
        ));

        let mut lying_size = hashmap_prefix(12, 16, i32::MAX);
        lying_size.push(0x78);
        assert!(decode(&lying_size).is_err());

        let mut null_key = hashmap_prefix(12, 16, 1);
        null_key.extend_from_slice(&[0x70, 0x70, 0x78]);
        assert!(decode(&null_key)
            .unwrap_err()
            .to_string()
            .contains("null key"));
    }

    #[test]
    fn decodes_references_to_earlier_arrays() {
        // Handles: 0 HashMap desc, 1 HashMap, 2 `[B` desc, 3 first key, 4 first value.
        let mut bytes = hashmap_prefix(12, 16, 3);
        bytes.extend(first_array(b"k"));
        bytes.extend(later_array(b"v"));
        bytes.extend_from_slice(&[0x71, 0x00, 0x7E, 0x00, 0x03]); // second key: same byte[] as key 1
        bytes.push(0x70);
        bytes.extend(later_array(b"k3")); // handle 5
        bytes.extend_from_slice(&[0x71, 0x00, 0x7E, 0x00, 0x04]); // value: same byte[] as value 1
        bytes.push(0x78);
        let expected = vec![
            entry(b"k", Some(b"v")),
            entry(b"k", None),
            entry(b"k3", Some(b"v")),
        ];
        assert_eq!(decode(&bytes).unwrap(), expected);

        // A reference to a class descriptor where a byte[] belongs is rejected.
        let mut bad = hashmap_prefix(12, 16, 1);
        bad.extend_from_slice(&[0x71, 0x00, 0x7E, 0x00, 0x00, 0x70, 0x78]);
        assert!(matches!(
            decode(&bad).unwrap_err(),
            JavaSerializedMapError::BadReference { .. }
        ));
    }

    #[test]
    fn tolerates_other_block_framing_and_values() {
        // Capacity and size split across a TC_BLOCKDATALONG and a short block, plus trailing
        // optional data; loadFactor/threshold/capacity values that Java would never write.
        let mut bytes = hashmap_prefix(7, 3, 1);
        bytes.truncate(bytes.len() - 10);
        let load_factor = bytes.len() - 8;
        bytes[load_factor..load_factor + 4].copy_from_slice(&1.5f32.to_bits().to_be_bytes());
        bytes.extend_from_slice(&[
            0x7A, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00,
        ]);
        bytes.extend_from_slice(&[0x77, 0x00, 0x77, 0x02, 0x00, 0x01]);
        bytes.extend(first_array(b"k"));
        bytes.push(0x70);
        bytes.extend_from_slice(&[0x77, 0x03, 0xAA, 0xBB, 0xCC, 0x78]);
        bytes.extend_from_slice(b"trailing bytes are ignored");
        assert_eq!(decode(&bytes).unwrap(), vec![entry(b"k", None)]);
    }

    #[test]
    fn first_array_may_reference_its_descriptor() {
        // The decoder resolves an array's descriptor by reference whichever array it is, so a
        // first array may use TC_REFERENCE. Handle 0 is the HashMap descriptor: wrong class.
        let mut wrong_class = hashmap_prefix(12, 16, 1);
        wrong_class
            .extend_from_slice(&[0x75, 0x71, 0x00, 0x7E, 0x00, 0x00, 0, 0, 0, 0, 0x70, 0x78]);
        let err = decode(&wrong_class).unwrap_err();
        assert!(
            matches!(err, JavaSerializedMapError::UnexpectedClassName { .. }),
            "{err}"
        );
        // Handle 2 is not defined before the first array here: a bad reference, not a panic.
        let mut undefined = hashmap_prefix(12, 16, 1);
        undefined.extend(later_array(b"k"));
        undefined.extend_from_slice(&[0x70, 0x78]);
        let err = decode(&undefined).unwrap_err();
        assert!(matches!(
            err,
            JavaSerializedMapError::BadReference {
                handle: 0x7E_0002,
                ..
            }
        ));
    }
}
