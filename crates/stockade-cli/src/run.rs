//! `stockade run`: one file (or stdin) in one fresh worker.

use clap::Args;
use stockade::{Language, Session, Value};

use crate::args::{SessionArgs, named, read_source};
use crate::exit;
use crate::output::outln;
use crate::output::{OutputArgs, print_to_stdio};

/// Run a Python or JavaScript file in a supervised worker.
///
/// Guest output streams as it is printed; then the result's repr is printed
/// unless it is None. Exit status: 0 success, 1 guest exception (traceback on
/// stderr), 2 usage or bad input (including syntax errors), 3 a time limit,
/// 4 a memory limit, 5 the worker crashed for any other reason.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Guest language; by default taken from the file extension (.py, .js, .mjs).
    #[arg(long, value_parser = named::<Language>())]
    lang: Option<Language>,
    #[command(flatten)]
    session: SessionArgs,
    #[command(flatten)]
    outputs: OutputArgs,
    /// Scripts run in the same session before FILE, in order (a library
    /// bundle, say); their results are not printed.
    #[arg(long, value_name = "FILE")]
    preload: Vec<String>,
    /// The file to run, or - for standard input.
    #[arg(value_name = "FILE")]
    file: String,
}

fn language_of(args: &RunArgs) -> Result<Language, String> {
    if let Some(language) = args.lang {
        return Ok(language);
    }
    if args.file == "-" {
        return Ok(Language::Python);
    }
    match std::path::Path::new(&args.file)
        .extension()
        .and_then(|e| e.to_str())
    {
        Some("py") => Ok(Language::Python),
        Some("js" | "mjs" | "cjs") => Ok(Language::JavaScript),
        _ => Err(format!(
            "cannot tell the language of {}: name it .py or .js, or pass --lang",
            args.file
        )),
    }
}

pub fn run(args: RunArgs) -> i32 {
    let language = match language_of(&args) {
        Ok(language) => language,
        Err(message) => {
            eprintln!("stockade: {message}");
            return exit::BAD_INPUT;
        }
    };
    let source = match read_source(&args.file) {
        Ok(source) => source,
        Err(message) => {
            eprintln!("stockade: {message}");
            return exit::BAD_INPUT;
        }
    };
    let mut preloads = Vec::with_capacity(args.preload.len());
    for file in &args.preload {
        match read_source(file) {
            Ok(source) => preloads.push(source),
            Err(message) => {
                eprintln!("stockade: {message}");
                return exit::BAD_INPUT;
            }
        }
    }
    if let Some(message) = args.session.unused_worker(language) {
        eprintln!("stockade: {message}");
        return exit::BAD_INPUT;
    }
    let options = args.session.options(language);
    let mut session = match Session::new(options) {
        Ok(session) => session,
        Err(err) => return exit::report(&err),
    };
    session.on_print(print_to_stdio);
    session.on_output(args.outputs.receiver());
    for preload in &preloads {
        if let Err(err) = session.run(preload) {
            return exit::report(&err);
        }
    }
    match session.run(&source) {
        // None, and JavaScript's undefined, are no result to show.
        Ok(Value::None | Value::Undefined) => exit::OK,
        Ok(value) => {
            outln!("{value}");
            exit::OK
        }
        Err(err) => exit::report(&err),
    }
}
