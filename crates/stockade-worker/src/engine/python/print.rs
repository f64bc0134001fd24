//! Monty's print callback, fed to the worker's print buffer: the one piece
//! of printing only the Python engine knows.

use std::borrow::Cow;

use monty_types::{MontyException, PrintWriterCallback};
use stockade_wire::PrintStream;

use stockade_worker_core::link::Link;
use stockade_worker_core::print::Printer;

/// The print target handed to the interpreter for one step of a feed.
#[derive(Debug)]
pub struct PrintSink<'a> {
    pub printer: &'a Printer,
}

impl PrintWriterCallback for PrintSink<'_> {
    fn stdout_write(&mut self, output: Cow<'_, str>) -> Result<(), MontyException> {
        self.printer.push_to(PrintStream::Stdout, &output);
        Ok(())
    }

    fn stdout_push(&mut self, end: char) -> Result<(), MontyException> {
        let mut utf8 = [0u8; 4];
        self.printer
            .push_to(PrintStream::Stdout, end.encode_utf8(&mut utf8));
        Ok(())
    }

    fn poll_flush(&mut self) -> Result<(), MontyException> {
        self.printer.poll();
        Ok(())
    }
}

/// Where monty prints during one step of a feed: the link's print buffer.
pub fn to(link: &mut Link) -> PrintSink<'_> {
    PrintSink {
        printer: &link.printer,
    }
}
