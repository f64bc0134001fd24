//! What several subcommands read from the command line: the language and
//! sandbox mode (by the names the host library gives them), source files,
//! and the session's limits and JavaScript options.

use std::io::Read;
use std::path::PathBuf;
use std::time::{Duration, UNIX_EPOCH};

use clap::Args;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use stockade::{Interpreter, JavaScriptOptions, Language, Limits, SandboxMode, SessionOptions};

use crate::units::{Seconds, Size, parse_seconds, parse_size, parse_size_or_zero};

/// A closed set of names the host library parses (`FromStr`), offered to
/// clap with its possible values so `--help` lists them.
pub trait Named: Copy + Send + Sync + std::str::FromStr + 'static {
    const ALL: &'static [Self];
    fn name(self) -> &'static str;
}

impl Named for Language {
    const ALL: &'static [Self] = &Language::ALL;
    fn name(self) -> &'static str {
        Language::name(self)
    }
}

impl Named for Interpreter {
    const ALL: &'static [Self] = &Interpreter::ALL;
    fn name(self) -> &'static str {
        Interpreter::name(self)
    }
}

impl Named for SandboxMode {
    const ALL: &'static [Self] = &SandboxMode::ALL;
    fn name(self) -> &'static str {
        SandboxMode::name(self)
    }
}

/// The value parser for a `Named` option.
pub fn named<T: Named + Clone>() -> impl TypedValueParser<Value = T> {
    PossibleValuesParser::new(T::ALL.iter().map(|item| item.name())).try_map(|name| {
        name.parse::<T>()
            .map_err(|_| format!("{name:?} is not one of the possible values"))
    })
}

/// The worker's limits and sandbox, shared by `run` and `repl`.
#[derive(Debug, Args)]
pub struct SessionArgs {
    /// Hard wall-clock limit per turn, in seconds; the worker is killed when it passes.
    #[arg(long, value_name = "S", default_value_t = Seconds(SessionOptions::DEFAULT_REQUEST_TIMEOUT), value_parser = parse_seconds)]
    timeout: Seconds,
    /// Cumulative guest execution limit, in seconds (default: only --timeout applies).
    #[arg(long, value_name = "S", value_parser = parse_seconds)]
    max_duration: Option<Seconds>,
    /// Guest memory ceiling, such as 512M or 2G.
    #[arg(long, value_name = "SIZE", default_value_t = Size(Limits::DEFAULT_MAX_MEMORY), value_parser = parse_size)]
    max_memory: Size,
    /// Host memory the result may take (48 bytes a value plus its data),
    /// such as 64M; a larger result is refused unread (exit 4).
    #[arg(long, value_name = "SIZE", default_value_t = Size(SessionOptions::DEFAULT_MAX_RESULT_BYTES), value_parser = parse_size)]
    max_result_bytes: Size,
    /// OS sandbox: require (refuse to run without every layer), auto (every
    /// layer the kernel gives), or off (debugging only).
    #[arg(long, default_value = "auto", value_parser = named::<SandboxMode>())]
    sandbox: SandboxMode,
    /// Worker binary to use (default: $STOCKADE_WORKER, beside this program, then PATH).
    #[arg(long, value_name = "PATH")]
    worker: Option<PathBuf>,
    /// Show a host directory to the guest at GUEST_PATH: read only (ro,
    /// the default), read-write (rw), or as an overlay whose writes last
    /// the session only (overlay). Repeatable. The directory is opened
    /// now; Python guests reach it through open() and pathlib.
    #[arg(long = "mount", value_name = "HOST_DIR:GUEST_PATH[:ro|rw|overlay]", value_parser = parse_mount)]
    mounts: Vec<stockade::Mount>,
    /// Host memory the guest's files may take: overlay data and any one
    /// read or write, such as 100M (a MemoryError in the guest past it).
    #[arg(long, value_name = "SIZE", default_value_t = Size(stockade::DEFAULT_MAX_FILE_MEMORY), value_parser = parse_size)]
    max_file_memory: Size,
    /// Bytes the guest's private scratch directory may hold (/tmp, also its
    /// TMPDIR, HOME and working directory, in every engine), such as 256M;
    /// a write past it fails with ENOSPC. 0: none.
    #[arg(long = "max-scratch", value_name = "SIZE", default_value_t = Size(Limits::DEFAULT_MAX_SCRATCH_BYTES), value_parser = parse_size_or_zero)]
    max_scratch_bytes: Size,
    /// The guest's clock: real (the host's time, in UTC), or frozen at this
    /// many seconds since the Unix epoch (datetime.now(), date.today(),
    /// JavaScript's Date).
    #[arg(long, value_name = "real|SECONDS", default_value = "real", allow_hyphen_values = true, value_parser = parse_clock)]
    clock: stockade::GuestClock,
    /// An environment variable the guest sees, as NAME=VALUE (repeatable;
    /// none by default: the host's own environment never reaches it).
    #[arg(long = "env", value_name = "NAME=VALUE", value_parser = parse_env)]
    environ: Vec<(String, String)>,
    /// Run the session on a server of sessions (`stockade serve`) at
    /// ws://HOST:PORT; host functions, mounts and these limits stay here,
    /// and the server's ceilings win.
    #[arg(long, value_name = "URL")]
    remote: Option<String>,
    /// A file whose first line (past blank lines and # comments) is the
    /// bearer token for --remote.
    #[arg(long, value_name = "FILE", requires = "remote", value_parser = parse_token_file)]
    token_file: Option<Token>,
    /// Certificates (PEM) trusted for a wss:// --remote besides the
    /// system's roots: a private CA's.
    #[arg(long, value_name = "FILE", requires = "remote")]
    remote_ca: Option<PathBuf>,
    #[command(flatten)]
    python: PythonArgs,
    #[command(flatten)]
    javascript: JavaScriptArgs,
}

/// Options for Python guests only.
#[derive(Debug, Args)]
#[command(next_help_heading = "Python")]
pub struct PythonArgs {
    /// The interpreter Python guests run on: cpython (the real interpreter
    /// and its standard library) or monty (a subset interpreter, the
    /// fastest to start).
    #[arg(long, value_parser = named::<Interpreter>())]
    engine: Option<Interpreter>,
    /// The Python interpreter of --engine cpython (default: python3 on PATH).
    #[arg(long, value_name = "PATH")]
    python: Option<PathBuf>,
    /// A package directory CPython guests may import from, read-only
    /// (repeatable; a virtualenv's site-packages, say).
    #[arg(long = "site-packages", value_name = "DIR")]
    site_packages: Vec<PathBuf>,
    /// A package CPython guests may import, such as pandas or
    /// "pandas==3.1.1" (repeatable, as `uv run --with`): installed on the
    /// host by uv, wheels only, into a cache later runs reuse; the guest
    /// never has the network.
    #[arg(long = "with", value_name = "REQUIREMENT")]
    packages: Vec<String>,
    /// A module CPython guests find imported before the code runs, such as
    /// pandas (repeatable); a pool's template imports it once for all.
    #[arg(long = "preload-module", value_name = "MODULE")]
    preload_modules: Vec<String>,
    /// A package the code's PEP 723 `# /// script` block may name, installed
    /// as --with installs it (repeatable; `*` allows any). Without it such
    /// a block is a comment.
    #[arg(long = "allow-script-package", value_name = "NAME")]
    script_packages: Vec<String>,
}

impl PythonArgs {
    fn apply(&self, mut options: SessionOptions) -> SessionOptions {
        if let Some(engine) = self.engine {
            options = options.engine(engine);
        }
        if let Some(python) = &self.python {
            options = options.python(python);
        }
        if !self.site_packages.is_empty() {
            let dirs = self
                .site_packages
                .iter()
                .map(|dir| std::path::absolute(dir).unwrap_or_else(|_| dir.clone()))
                .collect();
            options = options.site_packages(dirs);
        }
        if !self.packages.is_empty() {
            options = options.packages(self.packages.clone());
        }
        if !self.preload_modules.is_empty() {
            options = options.preload(self.preload_modules.clone());
        }
        if !self.script_packages.is_empty() {
            options = options.script_packages(self.script_packages.clone());
        }
        options
    }
}

impl SessionArgs {
    /// The session options these flags give for `language`; one session
    /// per process, so no spare worker.
    pub fn options(&self, language: Language) -> SessionOptions {
        let mut javascript = self.javascript.options();
        // The command shows a JavaScript result as Node's REPL does.
        javascript.inspect_results = language == Language::JavaScript;
        let mut options = SessionOptions::new(language)
            .spare(false)
            .javascript(javascript)
            .sandbox(self.sandbox)
            .request_timeout(self.timeout.0)
            .max_memory(self.max_memory.0)
            .max_result_bytes(self.max_result_bytes.0)
            .max_file_memory(self.max_file_memory.0)
            .max_scratch_bytes(self.max_scratch_bytes.0);
        options.mounts = self.mounts.clone();
        options.clock = self.clock;
        options.environ = self.environ.clone();
        if let Some(Seconds(limit)) = self.max_duration {
            options = options.max_duration(limit);
        }
        if let Some(worker) = &self.worker {
            options = options.worker(worker);
        }
        if let Some(url) = &self.remote {
            let token = self.token_file.as_ref().map(|token| token.0.clone());
            options = options.remote(url.clone(), token);
            if let Some(ca) = &self.remote_ca {
                options = options.remote_ca(ca);
            }
        }
        self.python.apply(options)
    }
}

impl SessionArgs {
    /// Why `--worker` would do nothing for `language`'s sessions: the
    /// CPython engine starts `--python`'s interpreter, never the worker
    /// binary, and uses the worker's directory only to find its engine
    /// module there. None when it is not given, or is used (a remote
    /// session's server decides for itself).
    pub fn unused_worker(&self, language: Language) -> Option<String> {
        let worker = self.worker.as_ref()?;
        if self.remote.is_some() || self.options(language).interpreter() != Interpreter::CPython {
            return None;
        }
        let beside = stockade::locate_engine_module(None, Some(worker)).ok();
        if beside.is_some() && beside != stockade::locate_engine_module(None, None).ok() {
            return None;
        }
        Some(format!(
            "--worker {} is the worker binary of the monty and JavaScript engines; Python guests here run on the cpython engine, which starts --python's interpreter instead and finds its engine module elsewhere (add --engine monty to run them in that worker)",
            worker.display()
        ))
    }
}

/// A bearer token read from a file; never shown in debug output.
#[derive(Clone)]
pub struct Token(String);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(<set>)")
    }
}

/// The first line of a token file that is neither blank nor a `#`
/// comment (the server's token files read the same way).
fn parse_token_file(path: &str) -> Result<Token, String> {
    let text = std::fs::read_to_string(path).map_err(|err| format!("cannot read {path}: {err}"))?;
    text.lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| Token(line.to_owned()))
        .ok_or_else(|| format!("{path} holds no token"))
}

/// Options for JavaScript guests only.
#[derive(Debug, Args)]
#[command(next_help_heading = "JavaScript")]
pub struct JavaScriptArgs {
    /// eval, new Function and the other function constructors throw EvalError.
    #[arg(long)]
    strict_eval: bool,
    /// Install the web polyfills (timers on virtual time, TextEncoder, atob, ...).
    #[arg(long)]
    web_polyfills: bool,
    /// Seed Math.random.
    #[arg(long, value_name = "N")]
    random_seed: Option<u64>,
    /// JavaScript heap limit, such as 256M (default: --max-memory).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    max_heap_size: Option<Size>,
    /// Live ArrayBuffer bytes, such as 64M (default: a quarter of --max-memory).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    max_buffer_bytes: Option<Size>,
    /// Register a module the guest may import, as NAME=FILE (repeatable).
    #[arg(long = "module", value_name = "NAME=FILE", value_parser = parse_module)]
    modules: Vec<(String, String)>,
}

impl JavaScriptArgs {
    pub fn options(&self) -> JavaScriptOptions {
        JavaScriptOptions {
            max_heap_size: self.max_heap_size.map(|size| size.0),
            max_buffer_bytes: self.max_buffer_bytes.map(|size| size.0),
            max_stack_bytes: None,
            strict_eval: self.strict_eval,
            web_polyfills: self.web_polyfills,
            random_seed: self.random_seed,
            modules: self.modules.clone(),
            inspect_results: false,
        }
    }
}

fn parse_module(text: &str) -> Result<(String, String), String> {
    let (name, file) = text
        .split_once('=')
        .ok_or_else(|| format!("{text:?} is not NAME=FILE"))?;
    if name.is_empty() {
        return Err(format!("{text:?} has an empty module name"));
    }
    Ok((name.to_owned(), read_source(file)?))
}

/// `real`, or a frozen instant in seconds since the Unix epoch.
fn parse_clock(text: &str) -> Result<stockade::GuestClock, String> {
    if text == "real" {
        return Ok(stockade::GuestClock::Real);
    }
    let seconds: i64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is neither real nor a number of seconds"))?;
    let offset = Duration::from_secs(seconds.unsigned_abs());
    Ok(stockade::GuestClock::Frozen(if seconds >= 0 {
        UNIX_EPOCH + offset
    } else {
        UNIX_EPOCH - offset
    }))
}

/// `NAME=VALUE`.
fn parse_env(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.is_empty() => Ok((name.to_owned(), value.to_owned())),
        _ => Err(format!("{text:?} is not NAME=VALUE")),
    }
}

/// `HOST_DIR:GUEST_PATH[:MODE]`, opened now. The guest path is the last
/// part that starts with `/` (a host directory may hold `:` itself).
fn parse_mount(text: &str) -> Result<stockade::Mount, String> {
    let (rest, mode) = match text.rsplit_once(':') {
        Some((rest, word)) if ["ro", "rw", "overlay"].contains(&word) => (rest, word),
        _ => (text, "ro"),
    };
    let (host, guest) = rest
        .rsplit_once(':')
        .filter(|(host, guest)| !host.is_empty() && guest.starts_with('/'))
        .ok_or_else(|| format!("{text:?} is not HOST_DIR:GUEST_PATH[:ro|rw|overlay]"))?;
    let mode = stockade::MountMode::parse(mode).map_err(|err| err.to_string())?;
    stockade::Mount::new(guest, host, mode).map_err(|err| match err {
        stockade::Error::Configuration(err) => err.message().to_owned(),
        other => other.to_string(),
    })
}

/// Reads a source file (or standard input, for `-`) as UTF-8.
pub fn read_source(file: &str) -> Result<String, String> {
    let mut bytes = Vec::new();
    if file == "-" {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|err| format!("cannot read standard input: {err}"))?;
    } else {
        bytes = std::fs::read(file).map_err(|err| format!("cannot read {file}: {err}"))?;
    }
    let name = if file == "-" { "standard input" } else { file };
    String::from_utf8(bytes).map_err(|err| {
        format!(
            "{name} is not valid UTF-8 (invalid byte at offset {})",
            err.utf8_error().valid_up_to()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Command {
        #[command(flatten)]
        session: SessionArgs,
    }

    /// The flags' defaults, as `--help` shows them and clap reads them
    /// back, give the library's own default options: every option of the
    /// table, but the two the command sets for itself.
    #[test]
    fn the_flags_defaults_are_the_librarys() -> Result<(), String> {
        for language in [Language::Python, Language::JavaScript] {
            let given = Command::parse_from(["stockade"]).session.options(language);
            let library = SessionOptions::new(language);
            for spec in stockade::contract::OPTIONS {
                // One session per process keeps no spare; the command shows
                // a JavaScript result as Node's REPL does.
                if ["spare", "inspect_results"].contains(&spec.name) {
                    continue;
                }
                assert_eq!(
                    given.get(spec.name)?,
                    library.get(spec.name)?,
                    "{} for {language}",
                    spec.name
                );
            }
        }
        Ok(())
    }

    /// Each flag the table names sets its option: given a value, the
    /// option reads back other than its default.
    #[test]
    fn every_flag_the_table_names_is_the_commands_and_sets_its_option() -> Result<(), String> {
        use clap::CommandFactory;
        let command = Command::command();
        let longs: Vec<String> = command
            .get_arguments()
            .filter_map(|arg| arg.get_long().map(|long| format!("--{long}")))
            .collect();
        let dir = std::env::temp_dir();
        let token = dir.join(format!("stockade-args-token-{}", std::process::id()));
        std::fs::write(&token, "a-token-of-sixteen\n").map_err(|err| err.to_string())?;
        let module = dir.join(format!("stockade-args-module-{}.js", std::process::id()));
        std::fs::write(&module, "export default 1").map_err(|err| err.to_string())?;
        for spec in stockade::contract::OPTIONS {
            let Some(flag) = spec.cli_flag else {
                continue;
            };
            assert!(
                longs.iter().any(|long| long == flag),
                "no {flag} for {}",
                spec.name
            );
            let value = match spec.name {
                "worker" | "python" | "remote_ca" => "/bin/true".to_owned(),
                "engine" => "quickjs".into(),
                "site_packages" => "/usr".into(),
                "packages" | "script_packages" => "pandas".into(),
                "preload" => "json".into(),
                "sandbox" => "require".into(),
                "environ" => "A=b".into(),
                "clock" => "86400".into(),
                "modules" => format!("m={}", module.display()),
                "remote" => "ws://127.0.0.1:7341".into(),
                "token" => token.display().to_string(),
                _ if matches!(spec.kind, stockade::contract::Kind::Flag) => String::new(),
                _ => "3".into(),
            };
            let mut argv = vec!["stockade".to_owned(), flag.to_owned()];
            if !value.is_empty() {
                argv.push(value);
            }
            if spec.name == "token" || spec.name == "remote_ca" {
                argv.extend(["--remote".into(), "ws://127.0.0.1:7341".into()]);
            }
            let language = match spec.engines {
                stockade::contract::Engines::JavaScript => Language::JavaScript,
                _ => Language::Python,
            };
            let given = Command::try_parse_from(&argv)
                .map_err(|err| format!("{argv:?}: {err}"))?
                .session
                .options(language);
            assert_ne!(
                given.get(spec.name)?,
                SessionOptions::new(language).get(spec.name)?,
                "{flag} did not set {}",
                spec.name
            );
        }
        let _ = std::fs::remove_file(token);
        let _ = std::fs::remove_file(module);
        Ok(())
    }
}
