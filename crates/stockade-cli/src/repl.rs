//! `stockade repl`: an interactive session in one sandboxed worker. Each
//! input runs in the same session, so definitions persist; a guest error
//! is printed and the session goes on; a lost session ends the REPL.
//! `--load` starts from a sealed dump and `--save` seals the session at the
//! end of input (`dump_file.rs` holds the key and the file handling).

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

use clap::Args;
use stockade::{Error, Language, Session, Value};

use crate::dump_file::{DumpFileArgs, load_session, save_session};

use crate::args::{SessionArgs, named};
use crate::exit;
use crate::output::outln;
use crate::output::{OutputArgs, print_to_stdio};

/// Read, run and print, in one sandboxed session, until end of input.
///
/// Python: a line ending in `:` opens a block, which an empty line closes.
/// JavaScript: an input goes on while its brackets are open.
#[derive(Debug, Args)]
pub struct ReplArgs {
    /// Guest language.
    #[arg(long, default_value = "python", value_parser = named::<Language>())]
    lang: Language,
    #[command(flatten)]
    session: SessionArgs,
    #[command(flatten)]
    outputs: OutputArgs,
    /// Start from the session sealed in FILE (see --save) instead of a new one.
    #[arg(long, value_name = "FILE")]
    load: Option<PathBuf>,
    /// At the end of input, seal the session into FILE (created with mode
    /// 0600, replaced whole), to go on later with --load.
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
    #[command(flatten)]
    dump: DumpFileArgs,
}

/// Whether `text` still needs more lines before it can run.
fn incomplete(language: Language, text: &str, last_line: &str) -> bool {
    match language {
        Language::Python => {
            let opened = text.lines().any(|l| l.trim_end().ends_with(':'))
                || text.trim_end().ends_with('\\');
            opened && !last_line.trim().is_empty()
        }
        Language::JavaScript => open_brackets(text) > 0,
    }
}

/// Brackets left open in JavaScript source, ignoring those in strings and
/// comments (roughly: enough to tell a finished input from an unfinished one).
fn open_brackets(text: &str) -> i64 {
    let mut depth = 0i64;
    let mut quote: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match quote {
            Some(q) => {
                if c == '\\' {
                    chars.next();
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                '\'' | '"' | '`' => quote = Some(c),
                '/' if chars.peek() == Some(&'/') => {
                    for rest in chars.by_ref() {
                        if rest == '\n' {
                            break;
                        }
                    }
                }
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                _ => {}
            },
        }
    }
    depth
}

fn prompt(text: &str, interactive: bool) {
    if interactive {
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(text.as_bytes());
        let _ = err.flush();
    }
}

pub fn repl(args: ReplArgs) -> i32 {
    let language = args.lang;
    if let Some(message) = args.session.unused_worker(language) {
        eprintln!("stockade: {message}");
        return exit::BAD_INPUT;
    }
    // A session that will be saved keeps what a dump needs from its start.
    let options = args.session.options(language).dumpable(args.save.is_some());
    let seal = match (&args.load, &args.save) {
        (None, None) => None,
        _ => match args.dump.seal() {
            Ok(seal) => Some(seal),
            Err(code) => return code,
        },
    };
    let started = match (&args.load, &seal) {
        (Some(path), Some(seal)) => load_session(options, seal, path),
        _ => Session::new(options),
    };
    let mut session = match started {
        Ok(session) => session,
        Err(err) => return exit::report(&err),
    };
    session.on_print(print_to_stdio);
    session.on_output(args.outputs.receiver());
    let interactive = std::io::stdin().is_terminal();
    if interactive {
        eprintln!(
            "stockade {} in a sandboxed worker ({}); end with Ctrl-D",
            language.name(),
            session.worker_info().engine
        );
    }
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut pending = String::new();
    loop {
        prompt(
            if pending.is_empty() { ">>> " } else { "... " },
            interactive,
        );
        let line = match lines.next() {
            Some(Ok(line)) => line,
            Some(Err(err)) => {
                eprintln!("stockade: cannot read input: {err}");
                return exit::BAD_INPUT;
            }
            None if pending.trim().is_empty() => {
                return match (&args.save, &seal) {
                    (Some(path), Some(seal)) => save_session(&mut session, seal, path),
                    _ => exit::OK,
                };
            }
            None => String::new(),
        };
        let at_end = line.is_empty() && !pending.is_empty();
        pending.push_str(&line);
        pending.push('\n');
        if !at_end && incomplete(language, &pending, &line) {
            continue;
        }
        let code = std::mem::take(&mut pending);
        if code.trim().is_empty() {
            continue;
        }
        match session.run(&code) {
            // Python's REPL shows nothing for None; Node's shows undefined.
            Ok(Value::None) if language == Language::Python => {}
            Ok(value) => outln!("{value}"),
            Err(err @ (Error::Guest(_) | Error::Syntax(_) | Error::Conversion(_))) => {
                exit::report(&err);
            }
            Err(err) => {
                let code = exit::report(&err);
                if session.is_lost() || err.loses_session() {
                    return code;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn javascript_inputs_go_on_while_brackets_are_open() {
        assert!(open_brackets("function f() {") > 0);
        assert_eq!(open_brackets("function f() { return '}' }"), 0);
        assert_eq!(open_brackets("const s = `{`; // {"), 0);
    }

    #[test]
    fn a_python_block_ends_at_an_empty_line() {
        assert!(incomplete(Language::Python, "def f():\n", "def f():"));
        assert!(incomplete(
            Language::Python,
            "def f():\n    return 1\n",
            "    return 1"
        ));
        assert!(!incomplete(
            Language::Python,
            "def f():\n    return 1\n\n",
            ""
        ));
        assert!(!incomplete(Language::Python, "x = 1\n", "x = 1"));
    }
}
