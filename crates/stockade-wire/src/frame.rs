//! Framing: a 4-byte little-endian payload length, then the payload.

use std::io::{self, Read, Write};

use crate::error::DecodeError;
use crate::limits::WireLimits;

/// Bytes in a frame header.
pub const FRAME_HEADER_LEN: usize = 4;

/// Validates a frame header and returns the payload length it announces.
pub fn frame_length(
    header: [u8; FRAME_HEADER_LEN],
    limits: &WireLimits,
) -> Result<usize, DecodeError> {
    let len = u32::from_le_bytes(header) as usize;
    if len == 0 {
        return Err(DecodeError::EmptyFrame);
    }
    if len > limits.max_frame {
        return Err(DecodeError::FrameTooLarge {
            len: len as u64,
            max: limits.max_frame,
        });
    }
    Ok(len)
}

/// Reads one frame's payload from a blocking reader.
///
/// Returns `Ok(None)` when the stream ends cleanly between frames. A stream
/// that ends inside a frame, or a header over the limit, is an error; the
/// oversize check happens before any payload byte is read or allocated.
pub fn read_frame(reader: &mut impl Read, limits: &WireLimits) -> io::Result<Option<Vec<u8>>> {
    let mut header = [0u8; FRAME_HEADER_LEN];
    let mut got = 0;
    while got < FRAME_HEADER_LEN {
        match reader.read(&mut header[got..]) {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "stream ended inside a frame header",
                ));
            }
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let len =
        frame_length(header, limits).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    let mut payload = vec![0u8; len];
    reader.read_exact(&mut payload).map_err(|e| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            io::Error::new(io::ErrorKind::UnexpectedEof, "stream ended inside a frame")
        } else {
            e
        }
    })?;
    Ok(Some(payload))
}

/// Writes an already-encoded frame (header included) and flushes.
pub fn write_frame(writer: &mut impl Write, frame: &[u8]) -> io::Result<()> {
    writer.write_all(frame)?;
    writer.flush()
}

/// Reassembles frames from bytes that arrive in arbitrary pieces, for readers
/// that cannot block (the host polls its worker's pipe with a deadline).
#[derive(Debug)]
pub struct FrameReader {
    limits: WireLimits,
    buf: Vec<u8>,
    start: usize,
}

impl FrameReader {
    pub fn new(limits: &WireLimits) -> Self {
        Self {
            limits: *limits,
            buf: Vec::with_capacity(64 * 1024),
            start: 0,
        }
    }

    /// Appends bytes read from the stream.
    pub fn extend(&mut self, data: &[u8]) {
        if self.start > 0 && self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
        }
        self.buf.extend_from_slice(data);
    }

    /// Whether bytes of an unfinished frame are held.
    pub fn has_partial(&self) -> bool {
        self.start < self.buf.len()
    }

    /// Takes the next complete frame's payload, if one is buffered.
    ///
    /// A header over the limit is reported as soon as its four bytes are in,
    /// before the body is buffered.
    pub fn next_frame(&mut self) -> Result<Option<Vec<u8>>, DecodeError> {
        let pending = &self.buf[self.start..];
        if pending.len() < FRAME_HEADER_LEN {
            return Ok(None);
        }
        let mut header = [0u8; FRAME_HEADER_LEN];
        header.copy_from_slice(&pending[..FRAME_HEADER_LEN]);
        let len = frame_length(header, &self.limits)?;
        if pending.len() < FRAME_HEADER_LEN + len {
            self.buf.reserve(FRAME_HEADER_LEN + len - pending.len());
            return Ok(None);
        }
        let body = pending[FRAME_HEADER_LEN..FRAME_HEADER_LEN + len].to_vec();
        self.start += FRAME_HEADER_LEN + len;
        if self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
        } else if self.start > 1024 * 1024 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        Ok(Some(body))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_split_anywhere_reassemble() {
        let limits = WireLimits::default();
        let mut bytes = Vec::new();
        for payload in [&b"abc"[..], b"x", b"hello world"] {
            bytes.extend_from_slice(&(payload.len() as u32).to_le_bytes());
            bytes.extend_from_slice(payload);
        }
        for split in 0..bytes.len() {
            let mut reader = FrameReader::new(&limits);
            let mut out = Vec::new();
            for chunk in [&bytes[..split], &bytes[split..]] {
                reader.extend(chunk);
                while let Ok(Some(frame)) = reader.next_frame() {
                    out.push(frame);
                }
            }
            assert_eq!(
                out,
                vec![b"abc".to_vec(), b"x".to_vec(), b"hello world".to_vec()]
            );
            assert!(!reader.has_partial());
        }
    }

    #[test]
    fn an_oversized_header_is_refused_before_the_body() {
        let limits = WireLimits {
            max_frame: 10,
            ..WireLimits::default()
        };
        let mut reader = FrameReader::new(&limits);
        reader.extend(&11u32.to_le_bytes());
        assert!(matches!(
            reader.next_frame(),
            Err(DecodeError::FrameTooLarge { len: 11, max: 10 })
        ));
        let mut reader = FrameReader::new(&limits);
        reader.extend(&10u32.to_le_bytes());
        assert_eq!(reader.next_frame(), Ok(None));
    }

    #[test]
    fn blocking_reads_tell_clean_end_from_a_cut_frame() {
        let limits = WireLimits::default();
        assert!(matches!(read_frame(&mut &b""[..], &limits), Ok(None)));
        let cut = [5u8, 0, 0, 0, b'a'];
        assert!(read_frame(&mut &cut[..], &limits).is_err());
        let zero = [0u8, 0, 0, 0];
        assert!(read_frame(&mut &zero[..], &limits).is_err());
    }
}
