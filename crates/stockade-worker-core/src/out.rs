//! Frames out to the parent: one writer, owned by the link, shared by the
//! print buffer and every reply.

use std::fs::File;
use std::io::Write;

use stockade_wire::{EncodeError, Response, WireLimits, WorkerExit, encode_response};

/// Frames out to the parent.
#[derive(Debug)]
pub struct Out {
    file: File,
    limits: WireLimits,
}

impl Out {
    pub fn new(file: File, limits: WireLimits) -> Self {
        Self { file, limits }
    }

    /// Encodes and writes one response.
    pub fn send(&mut self, response: &Response) -> Result<(), EncodeError> {
        let frame = encode_response(response, &self.limits)?;
        if self.file.write_all(&frame).is_err() {
            // The parent stopped listening; there is no one left to tell.
            std::process::exit(WorkerExit::Io.code());
        }
        Ok(())
    }

    /// Sends a response that is known to be small and valid.
    pub fn send_or_exit(&mut self, response: &Response) {
        if let Err(err) = self.send(response) {
            eprintln!("stockade-worker: cannot encode a response: {err}");
            std::process::exit(WorkerExit::Io.code());
        }
    }
}
