//! Frames of the host protocol (docs/plugin-host-protocol.md): a big-endian u32 length of the
//! rest, a u32 length of the JSON header, the header, then a binary payload.

use std::io::{self, Read, Write};

use serde_json::{Map, Value};

pub type Header = Map<String, Value>;

pub struct Frame {
    pub header: Header,
    pub payload: Vec<u8>,
}

/// The next frame; `None` at a clean end of the stream.
pub fn read_frame(input: &mut impl Read) -> io::Result<Option<Frame>> {
    let mut len = [0u8; 4];
    match input.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let total = u32::from_be_bytes(len) as usize;
    let mut rest = vec![0u8; total];
    input.read_exact(&mut rest)?;
    if total < 4 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "frame too short",
        ));
    }
    let header_len = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
    if 4 + header_len > total {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "frame header overruns the frame",
        ));
    }
    let header: Header = serde_json::from_slice(&rest[4..4 + header_len])
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    let payload = rest.split_off(4 + header_len);
    Ok(Some(Frame { header, payload }))
}

pub fn write_frame(output: &mut impl Write, header: &Header, payload: &[u8]) -> io::Result<()> {
    let json = serde_json::to_vec(header).map_err(io::Error::other)?;
    let total = 4 + json.len() + payload.len();
    let total = u32::try_from(total)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "frame larger than 4 GiB"))?;
    output.write_all(&total.to_be_bytes())?;
    output.write_all(&(json.len() as u32).to_be_bytes())?;
    output.write_all(&json)?;
    output.write_all(payload)?;
    output.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_end_cleanly() {
        let mut header = Header::new();
        header.insert("op".into(), Value::from("source.poll"));
        let mut buf = Vec::new();
        write_frame(&mut buf, &header, b"\x00\x01payload").unwrap();
        write_frame(&mut buf, &Header::new(), b"").unwrap();
        let mut input = buf.as_slice();
        let first = read_frame(&mut input).unwrap().unwrap();
        assert_eq!(first.header["op"], "source.poll");
        assert_eq!(first.payload, b"\x00\x01payload");
        let second = read_frame(&mut input).unwrap().unwrap();
        assert!(second.header.is_empty() && second.payload.is_empty());
        assert!(read_frame(&mut input).unwrap().is_none());
    }

    #[test]
    fn a_truncated_frame_is_an_error() {
        let mut buf = Vec::new();
        write_frame(&mut buf, &Header::new(), b"abcdef").unwrap();
        buf.truncate(buf.len() - 2);
        assert!(read_frame(&mut buf.as_slice()).is_err());
    }
}
