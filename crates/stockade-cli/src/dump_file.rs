//! Sealed session files for `stockade repl --save/--load`: the key (from
//! `--key-file` or `STOCKADE_DUMP_KEY`), the context, and writing a dump
//! so that a crash never leaves half a file and no other user can read it.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use clap::Args;
use stockade::{DumpSeal, Error, Session, SessionOptions};

use crate::exit;

/// The variable holding the dump key when `--key-file` is not given.
pub const KEY_ENV: &str = "STOCKADE_DUMP_KEY";

/// How dumps are sealed and opened.
#[derive(Debug, Args)]
pub struct DumpFileArgs {
    /// A file holding the dump key: at least 32 random bytes (a trailing
    /// newline is not part of the key). Default: the STOCKADE_DUMP_KEY
    /// variable's value.
    #[arg(long, value_name = "FILE")]
    key_file: Option<PathBuf>,
    /// What a dump is bound to (a user or conversation id): a dump saved
    /// under one context does not load under another.
    #[arg(long, value_name = "TEXT", default_value = "stockade repl")]
    dump_context: String,
}

impl DumpFileArgs {
    /// The key and context, or the exit status after saying what is wrong.
    pub fn seal(&self) -> Result<DumpSeal, i32> {
        let key = match &self.key_file {
            Some(path) => match std::fs::read(path) {
                Ok(mut key) => {
                    if key.last() == Some(&b'\n') {
                        key.pop();
                    }
                    key
                }
                Err(err) => {
                    eprintln!(
                        "stockade: cannot read the key file {}: {err}",
                        path.display()
                    );
                    return Err(exit::BAD_INPUT);
                }
            },
            None => match std::env::var_os(KEY_ENV) {
                Some(value) => value.into_encoded_bytes(),
                None => {
                    eprintln!(
                        "stockade: --save and --load need a dump key: --key-file FILE, or {KEY_ENV} (at least 32 random bytes)"
                    );
                    return Err(exit::BAD_INPUT);
                }
            },
        };
        DumpSeal::new(&[key], self.dump_context.as_bytes()).map_err(|err| exit::report(&err))
    }
}

/// A session restored from the dump in `path`.
pub fn load_session(
    options: SessionOptions,
    seal: &DumpSeal,
    path: &Path,
) -> Result<Session, Error> {
    let bytes = std::fs::read(path)
        .map_err(|err| Error::DumpRejected(format!("cannot read {}: {err}", path.display())))?;
    Session::restore(options, seal, &bytes)
}

/// Seals `session` into `path`: written beside it, then renamed over it,
/// readable by its owner only. Returns the exit status.
pub fn save_session(session: &mut Session, seal: &DumpSeal, path: &Path) -> i32 {
    let bytes = match session.dump(seal) {
        Ok(bytes) => bytes,
        Err(err) => return exit::report(&err),
    };
    let mut partial = path.as_os_str().to_owned();
    partial.push(format!(".{}.partial", std::process::id()));
    let partial = PathBuf::from(partial);
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&partial)
        .and_then(|mut file| {
            file.write_all(&bytes)?;
            file.sync_all()
        })
        .and_then(|()| std::fs::rename(&partial, path));
    match written {
        Ok(()) => exit::OK,
        Err(err) => {
            let _ = std::fs::remove_file(&partial);
            eprintln!(
                "stockade: cannot save the session to {}: {err}",
                path.display()
            );
            exit::CRASHED
        }
    }
}
