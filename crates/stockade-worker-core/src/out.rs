//! Frames out to the parent: one writer, shared by the print buffer (which
//! the watchdog thread may flush) and every reply, behind one lock so that
//! frames never interleave.

use std::fs::File;
use std::io::Write;
use std::sync::{Arc, Mutex};

use stockade_wire::{EncodeError, Response, WireLimits, WorkerExit, encode_response};

/// Frames out to the parent; clones write to the same pipe.
#[derive(Debug, Clone)]
pub struct Out {
    writer: Arc<Mutex<Writer>>,
}

#[derive(Debug)]
struct Writer {
    file: File,
    limits: WireLimits,
}

impl Out {
    pub fn new(file: File, limits: WireLimits) -> Self {
        Self {
            writer: Arc::new(Mutex::new(Writer { file, limits })),
        }
    }

    /// Encodes and writes one response, whole.
    pub fn send(&self, response: &Response) -> Result<(), EncodeError> {
        // A poisoned lock means a panic on another thread mid-write; the
        // frame stream cannot be trusted after that.
        let Ok(mut writer) = self.writer.lock() else {
            crate::exit_now(WorkerExit::Internal);
        };
        let frame = encode_response(response, &writer.limits)?;
        if writer.file.write_all(&frame).is_err() {
            // The parent stopped listening; there is no one left to tell.
            crate::exit_now(WorkerExit::Io);
        }
        Ok(())
    }

    /// Sends a response that is known to be small and valid.
    pub fn send_or_exit(&self, response: &Response) {
        if let Err(err) = self.send(response) {
            crate::note(format_args!("cannot encode a response: {err}"));
            crate::exit_now(WorkerExit::Io);
        }
    }
}
