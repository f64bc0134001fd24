//! Rich outputs on the host: each goes to the host's `on_output` callback,
//! or, when the host set none, becomes a note on the guest's stderr so
//! that nothing the guest showed goes unmentioned.

use stockade_wire::{Output, PrintStream};

use super::Session;

impl Session {
    /// Hands `output` to the host's callback, or notes it on stderr.
    pub(super) fn deliver_output(&mut self, output: Output) {
        match &mut self.output {
            Some(callback) => callback(output),
            None => self.note_to_guest_stderr(&unclaimed_output_note(&output)),
        }
    }

    /// Writes one of the host's own notes where the guest's stderr goes.
    pub(super) fn note_to_guest_stderr(&mut self, line: &str) {
        if let Some(print) = &mut self.print {
            print(PrintStream::Stderr, line);
        }
    }
}

/// The line a host that takes no outputs shows on the guest's stderr in
/// place of `output` (a binding whose caller passed no output callback
/// shows this one too).
pub fn unclaimed_output_note(output: &Output) -> String {
    format!(
        "[stockade: the guest showed an output ({}, {} bytes), which this host does not take]\n",
        output.mime_type,
        output.data.len()
    )
}
