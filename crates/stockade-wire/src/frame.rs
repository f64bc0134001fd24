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

/// The payload of one whole frame held in a message of its own (the
/// remote hop's): its header must give exactly the bytes after it.
pub fn whole_frame_payload(message: &[u8]) -> Result<&[u8], String> {
    if message.len() <= FRAME_HEADER_LEN {
        return Err("an empty or cut frame".into());
    }
    let (header, payload) = message.split_at(FRAME_HEADER_LEN);
    let mut announced = [0u8; FRAME_HEADER_LEN];
    announced.copy_from_slice(header);
    let announced = u32::from_le_bytes(announced) as usize;
    if announced != payload.len() {
        return Err(format!(
            "a frame whose header says {announced} bytes but holds {}",
            payload.len()
        ));
    }
    Ok(payload)
}

/// Writes an already-encoded frame (header included) and flushes.
pub fn write_frame(writer: &mut impl Write, frame: &[u8]) -> io::Result<()> {
    writer.write_all(frame)?;
    writer.flush()
}

/// Bytes of a skipped frame's payload that [`FrameReader`] keeps: enough
/// for any message's fixed fields and a name, so the reader of a frame too
/// large to take can still tell what it was (`peek_response_head`).
pub const SKIPPED_HEAD_LEN: usize = 2048;

/// A frame [`FrameReader::next_with`] took from the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame<T> {
    /// A whole frame, handed to the caller's decoder in place.
    Whole(T),
    /// A frame longer than the reader accepts (yet within the wire's frame
    /// bound) was read past without being buffered; its first bytes, up to
    /// [`SKIPPED_HEAD_LEN`], are kept.
    Skipped { head: Vec<u8>, len: usize },
}

/// A frame being read past: what is kept of it and what is left to drop.
#[derive(Debug)]
struct Skipping {
    head: Vec<u8>,
    len: usize,
    left: usize,
}

/// Buffered bytes past which the reader gives memory back once it is empty.
const KEEP_CAPACITY: usize = 1024 * 1024;

/// Reassembles frames from bytes that arrive in arbitrary pieces, for readers
/// that cannot block (the host polls its worker's pipe with a deadline).
///
/// A frame is decoded where it lies in the buffer, never copied out, and a
/// frame longer than [`set_accept`](Self::set_accept) allows is dropped as
/// its bytes arrive: the buffer never holds more than one accepted frame and
/// one read's worth of bytes.
#[derive(Debug)]
pub struct FrameReader {
    limits: WireLimits,
    accept: usize,
    buf: Vec<u8>,
    start: usize,
    skipping: Option<Skipping>,
}

impl FrameReader {
    /// A reader that accepts every frame within `limits.max_frame`.
    pub fn new(limits: &WireLimits) -> Self {
        Self {
            limits: *limits,
            accept: limits.max_frame,
            buf: Vec::with_capacity(64 * 1024),
            start: 0,
            skipping: None,
        }
    }

    /// Frames longer than `max` bytes (but within the wire's frame bound,
    /// past which a header is an error) are skipped from now on, not buffered.
    pub fn set_accept(&mut self, max: usize) {
        self.accept = max.min(self.limits.max_frame);
    }

    /// Appends bytes read from the stream.
    pub fn extend(&mut self, data: &[u8]) {
        self.buf.extend_from_slice(data);
    }

    /// Whether bytes of an unfinished frame are held (or being skipped).
    pub fn has_partial(&self) -> bool {
        self.start < self.buf.len() || self.skipping.is_some()
    }

    /// Takes the next frame if one is complete: a whole one is passed to
    /// `decode` in place and its result returned; a skipped one is reported
    /// once its last byte has gone by.
    ///
    /// A header over the wire's frame bound is an error as soon as its four
    /// bytes are in, before any of the body is buffered.
    pub fn next_with<T>(
        &mut self,
        decode: impl FnOnce(&[u8]) -> T,
    ) -> Result<Option<Frame<T>>, DecodeError> {
        if let Some(skipped) = self.skip() {
            return Ok(Some(skipped));
        }
        if self.skipping.is_some() {
            return Ok(None);
        }
        let pending = &self.buf[self.start..];
        if pending.len() < FRAME_HEADER_LEN {
            self.compact();
            return Ok(None);
        }
        let mut header = [0u8; FRAME_HEADER_LEN];
        header.copy_from_slice(&pending[..FRAME_HEADER_LEN]);
        let len = frame_length(header, &self.limits)?;
        if len > self.accept {
            let kept = len.min(SKIPPED_HEAD_LEN);
            if pending.len() < FRAME_HEADER_LEN + kept {
                return Ok(None);
            }
            let head = pending[FRAME_HEADER_LEN..FRAME_HEADER_LEN + kept].to_vec();
            self.start += FRAME_HEADER_LEN + kept;
            self.skipping = Some(Skipping {
                head,
                len,
                left: len - kept,
            });
            return Ok(self.skip());
        }
        if pending.len() < FRAME_HEADER_LEN + len {
            self.buf.reserve(FRAME_HEADER_LEN + len - pending.len());
            return Ok(None);
        }
        let decoded = decode(&pending[FRAME_HEADER_LEN..FRAME_HEADER_LEN + len]);
        self.start += FRAME_HEADER_LEN + len;
        self.compact();
        Ok(Some(Frame::Whole(decoded)))
    }

    /// Drops what has arrived of a frame being skipped; the frame once its
    /// last byte has gone by.
    fn skip<T>(&mut self) -> Option<Frame<T>> {
        let skipping = self.skipping.as_mut()?;
        let dropped = (self.buf.len() - self.start).min(skipping.left);
        skipping.left -= dropped;
        let done = skipping.left == 0;
        self.start += dropped;
        self.compact();
        if !done {
            return None;
        }
        let Skipping { head, len, .. } = self.skipping.take()?;
        Some(Frame::Skipped { head, len })
    }

    /// Forgets consumed bytes; gives a large buffer back once it is empty.
    fn compact(&mut self) {
        if self.start == self.buf.len() {
            if self.buf.capacity() > KEEP_CAPACITY {
                self.buf = Vec::with_capacity(64 * 1024);
            } else {
                self.buf.clear();
            }
            self.start = 0;
        } else if self.start > KEEP_CAPACITY {
            self.buf.drain(..self.start);
            self.start = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The next whole frame's payload, copied.
    fn next(reader: &mut FrameReader) -> Result<Option<Vec<u8>>, DecodeError> {
        Ok(match reader.next_with(<[u8]>::to_vec)? {
            Some(Frame::Whole(payload)) => Some(payload),
            Some(Frame::Skipped { len, .. }) => panic!("a frame of {len} bytes was skipped"),
            None => None,
        })
    }

    fn framed(payloads: &[&[u8]]) -> Vec<u8> {
        let mut bytes = Vec::new();
        for payload in payloads {
            bytes.extend_from_slice(&(payload.len() as u32).to_le_bytes());
            bytes.extend_from_slice(payload);
        }
        bytes
    }

    #[test]
    fn frames_split_anywhere_reassemble() {
        let limits = WireLimits::default();
        let bytes = framed(&[b"abc", b"x", b"hello world"]);
        for split in 0..bytes.len() {
            let mut reader = FrameReader::new(&limits);
            let mut out = Vec::new();
            for chunk in [&bytes[..split], &bytes[split..]] {
                reader.extend(chunk);
                while let Ok(Some(frame)) = next(&mut reader) {
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
            next(&mut reader),
            Err(DecodeError::FrameTooLarge { len: 11, max: 10 })
        ));
        let mut reader = FrameReader::new(&limits);
        reader.extend(&10u32.to_le_bytes());
        assert_eq!(next(&mut reader), Ok(None));
    }

    #[test]
    fn a_frame_past_the_accepted_size_is_skipped_keeping_its_head() -> Result<(), DecodeError> {
        let big: Vec<u8> = (0..5000u32).map(|i| i as u8).collect();
        let bytes = framed(&[b"before", &big, b"after"]);
        // Byte by byte, the skipped body is never buffered.
        let mut reader = FrameReader::new(&WireLimits::default());
        reader.set_accept(100);
        let mut seen = Vec::new();
        let mut most_buffered = 0;
        for byte in &bytes {
            reader.extend(std::slice::from_ref(byte));
            most_buffered = most_buffered.max(reader.buf.len() - reader.start);
            while let Some(frame) = reader.next_with(<[u8]>::to_vec)? {
                seen.push(frame);
            }
        }
        assert_eq!(
            seen,
            vec![
                Frame::Whole(b"before".to_vec()),
                Frame::Skipped {
                    head: big[..SKIPPED_HEAD_LEN].to_vec(),
                    len: big.len()
                },
                Frame::Whole(b"after".to_vec()),
            ]
        );
        assert!(most_buffered <= SKIPPED_HEAD_LEN + FRAME_HEADER_LEN);
        assert!(!reader.has_partial());
        // All at once, the same frames.
        let mut reader = FrameReader::new(&WireLimits::default());
        reader.set_accept(100);
        reader.extend(&bytes);
        let mut again = Vec::new();
        while let Some(frame) = reader.next_with(<[u8]>::to_vec)? {
            again.push(frame);
        }
        assert_eq!(again, seen);
        Ok(())
    }

    #[test]
    fn a_short_skipped_frame_keeps_all_of_itself() -> Result<(), DecodeError> {
        let bytes = framed(&[b"0123456789"]);
        let mut reader = FrameReader::new(&WireLimits::default());
        reader.set_accept(4);
        reader.extend(&bytes);
        assert_eq!(
            reader.next_with(<[u8]>::to_vec)?,
            Some(Frame::Skipped {
                head: b"0123456789".to_vec(),
                len: 10
            })
        );
        Ok(())
    }

    #[test]
    fn a_large_buffer_is_given_back_once_its_frame_is_taken() -> Result<(), DecodeError> {
        let big = vec![7u8; 4 * KEEP_CAPACITY];
        let mut reader = FrameReader::new(&WireLimits::default());
        reader.extend(&framed(&[&big]));
        assert_eq!(next(&mut reader)?.map(|f| f.len()), Some(big.len()));
        assert!(reader.buf.capacity() <= KEEP_CAPACITY);
        Ok(())
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
