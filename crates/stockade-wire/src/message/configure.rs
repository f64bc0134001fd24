//! Configure's content beyond its version: which engine the worker runs,
//! with that engine's own configuration (`EngineConfig`; a new engine is a
//! new variant), and the limits every engine enforces (`ConfigureLimits`).

use crate::codec::{Reader, Writer};
use crate::error::{DecodeError, EncodeError};
use crate::names::named_set;
use crate::sandbox::SandboxMode;

use super::{MAX_NAME, write_label};

named_set! {
    /// The guest language a session runs.
    pub enum Language, named as "language" {
        Python = "python",
        JavaScript = "javascript",
    }
}

named_set! {
    /// The interpreter a worker runs guest code on; on the wire it opens
    /// Configure's engine configuration.
    pub enum Interpreter, named as "engine", on the wire as "engine" {
        /// monty: a Python subset interpreter in the worker binary.
        Monty = "monty" => 0,
        /// QuickJS-NG, in the worker binary.
        QuickJs = "quickjs" => 1,
        /// The real CPython, with its standard library.
        CPython = "cpython" => 2,
    }
}

impl Interpreter {
    /// The language the interpreter runs.
    pub fn language(self) -> Language {
        match self {
            Interpreter::Monty | Interpreter::CPython => Language::Python,
            Interpreter::QuickJs => Language::JavaScript,
        }
    }
}

/// Which engine a worker runs, with that engine's own configuration: the
/// worker is given exactly what its engine takes, so no engine has to
/// refuse another's options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineConfig {
    /// Python on monty; it has no options of its own.
    Python,
    /// JavaScript on QuickJS, and how its world looks.
    JavaScript(JavaScriptConfig),
    /// Python on CPython, and the package directories it may read.
    CPython(CPythonConfig),
}

impl EngineConfig {
    /// The interpreter the engine runs on.
    pub fn interpreter(&self) -> Interpreter {
        match self {
            EngineConfig::Python => Interpreter::Monty,
            EngineConfig::JavaScript(_) => Interpreter::QuickJs,
            EngineConfig::CPython(_) => Interpreter::CPython,
        }
    }

    /// The language the engine runs.
    pub fn language(&self) -> Language {
        self.interpreter().language()
    }
}

/// What a CPython worker may read beyond its standard library.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CPythonConfig {
    /// Package directories shown read-only and put on `sys.path`, in order.
    pub site_packages: Vec<String>,
    /// Set for a session its host may dump (protocol 4): the guest's
    /// randomness (`os.urandom`, `random`) is drawn from a stream keyed by
    /// this seed, and every clock reading is reported in Clock and given
    /// back by Replay, so a replay of the session sees what it saw.
    pub journal_seed: Option<u64>,
    /// The environment the guest's `os.environ` holds, and nothing else
    /// (protocol 4).
    pub environ: Vec<(String, String)>,
    /// The wall clock stands still at this instant, in microseconds since
    /// the epoch (protocol 4); None: the real clock.
    pub frozen_clock_us: Option<i64>,
    /// Bytes of the guest's private scratch directory, `/tmp` (protocol 5);
    /// None: no scratch directory.
    pub max_scratch_bytes: Option<u64>,
    /// Package requirements a server is asked to install and show, from
    /// its allow-list (protocol 5); a worker is never sent any (its host
    /// installs them and names their directory in `site_packages`).
    pub packages: Vec<String>,
    /// Modules imported before the first feed (protocol 6): once per
    /// template, for every worker forked from it.
    pub preload: Vec<String>,
}

/// Most modules one Configure may preload.
pub const MAX_PRELOAD: usize = 64;
/// Longest preloaded module name, in bytes.
pub const MAX_MODULE_NAME: usize = 256;

/// Whether `name` is a module name `import` takes: dotted identifiers.
pub fn valid_module_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_MODULE_NAME
        && name.split('.').all(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
                && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
        })
}

/// Most package requirements one Configure may carry.
pub const MAX_PACKAGES: usize = 256;
/// Longest package requirement, in bytes.
pub const MAX_REQUIREMENT: usize = 512;

/// Where a guest with a scratch directory finds it (also its `TMPDIR`,
/// `HOME` and working directory).
pub const SCRATCH_DIR: &str = "/tmp";

/// Most environment variables one Configure may carry.
pub const MAX_ENVIRON: usize = 4096;
/// Longest environment value, in bytes.
pub const MAX_ENVIRON_VALUE: usize = 128 * 1024;

/// Most package directories one Configure may name.
pub const MAX_SITE_PACKAGES: usize = 64;
/// Longest package directory path, in bytes.
pub const MAX_PATH: usize = 4096;

/// Limits the worker enforces itself, sent in Configure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConfigureLimits {
    /// Cumulative guest execution time, in microseconds.
    pub max_duration_us: Option<u64>,
    /// Live heap bytes the worker's allocator hands out.
    pub max_memory: Option<u64>,
    /// Deepest guest call stack.
    pub max_recursion_depth: u32,
    /// Print output is sent once this many bytes are buffered.
    pub print_flush_bytes: u32,
    /// Print output is sent once it has waited this long, in microseconds.
    pub print_flush_interval_us: u32,
    /// RLIMIT_CPU for the worker process, in seconds.
    pub cpu_seconds: Option<u64>,
    /// Print output one feed may send; past it the output is cut with a marker.
    pub max_output_bytes: u64,
}

/// Most modules one Configure may register.
pub const MAX_MODULES: usize = 4096;
/// Furthest a frozen clock may sit from the epoch, in milliseconds: the
/// range of a JavaScript Date.
pub const MAX_CLOCK_MS: i64 = 8_640_000_000_000_000;

/// Native stack a JavaScript guest's interpreter may use when Configure's
/// `max_stack_bytes` is 0.
pub const DEFAULT_MAX_STACK_BYTES: u32 = 8 * 1024 * 1024;

/// How a JavaScript guest's world looks, sent in Configure and fixed for the
/// worker's life.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct JavaScriptConfig {
    /// Bytes the engine's heap may hold; past it the worker sends Fatal and
    /// exits 65. None: no limit (the host sends `max_memory` unless told
    /// otherwise).
    pub max_heap_size: Option<u64>,
    /// Live ArrayBuffer bytes; past it allocating one is a catchable RangeError.
    pub max_buffer_bytes: Option<u64>,
    /// Native stack the interpreter may use before a catchable RangeError;
    /// 0 means the worker's default.
    pub max_stack_bytes: u32,
    /// eval, new Function and the other function constructors throw EvalError.
    pub strict_eval: bool,
    /// Install the project's web polyfills (timers on virtual time, TextEncoder...).
    pub web_polyfills: bool,
    /// A feed's result, unless undefined, comes back as the text Node's
    /// util.inspect gives it (a Repr), as Node's REPL shows it.
    pub inspect_results: bool,
    /// Date.now and new Date() always give this instant (ms since the epoch).
    pub frozen_clock_ms: Option<i64>,
    /// Math.random is a generator seeded with this.
    pub random_seed: Option<u64>,
    /// Every clock reading a feed makes (Date.now, new Date(), performance.now)
    /// is reported in a Clock message before the feed ends, and a Replay
    /// request gives the next feed's readings back: the host's journal of a
    /// session it may dump (protocol 4).
    pub report_clock: bool,
    /// Static modules the guest may import, by name, with their source.
    pub modules: Vec<(String, String)>,
}

const FLAG_STRICT_EVAL: u8 = 1;
const FLAG_WEB_POLYFILLS: u8 = 2;
const FLAG_INSPECT_RESULTS: u8 = 4;
const FLAG_REPORT_CLOCK: u8 = 8;

/// Writes Configure's engine, sandbox mode and limits (between the package
/// version and the engine's own configuration, which `write_engine_config`
/// writes after them).
pub(super) fn write_setup(
    w: &mut Writer,
    engine: &EngineConfig,
    sandbox: SandboxMode,
    l: &ConfigureLimits,
) {
    w.closed(engine.interpreter());
    w.closed(sandbox);
    w.opt_u64(l.max_duration_us);
    w.opt_u64(l.max_memory);
    w.u32(l.max_recursion_depth);
    w.u32(l.print_flush_bytes);
    w.u32(l.print_flush_interval_us);
    w.opt_u64(l.cpu_seconds);
    w.u64(l.max_output_bytes);
}

/// Reads what `write_setup` wrote: the interpreter, the sandbox mode and
/// the limits.
pub(super) fn read_setup(
    r: &mut Reader<'_>,
) -> Result<(Interpreter, SandboxMode, ConfigureLimits), DecodeError> {
    let interpreter = r.closed()?;
    let sandbox = r.closed()?;
    let limits = ConfigureLimits {
        max_duration_us: r.opt_u64()?,
        max_memory: r.opt_u64()?,
        max_recursion_depth: r.u32()?,
        print_flush_bytes: r.u32()?,
        print_flush_interval_us: r.u32()?,
        cpu_seconds: r.opt_u64()?,
        max_output_bytes: r.u64()?,
    };
    Ok((interpreter, sandbox, limits))
}

/// The first protocol version whose CPython configuration carries a
/// journal seed, an environment and a frozen clock.
const WORLD_SINCE: u32 = 4;
/// The first protocol version whose CPython configuration carries the
/// scratch directory's size and the packages a server is asked for.
const SCRATCH_SINCE: u32 = 5;
/// The first protocol version whose CPython configuration carries the
/// modules to preload.
const PRELOAD_SINCE: u32 = 6;

/// The engine's own configuration (nothing for monty), laid out as
/// `protocol_version` lays it out.
pub(super) fn write_engine_config(
    w: &mut Writer,
    engine: &EngineConfig,
    protocol_version: u32,
) -> Result<(), EncodeError> {
    match engine {
        EngineConfig::Python => Ok(()),
        EngineConfig::JavaScript(config) => write_javascript_config(w, config),
        EngineConfig::CPython(config) => {
            w.list(
                &config.site_packages,
                MAX_SITE_PACKAGES,
                "site_packages",
                |w, path| write_label(w, path, MAX_PATH, "site_packages path"),
            )?;
            if protocol_version >= WORLD_SINCE {
                w.opt_u64(config.journal_seed);
                w.list(
                    &config.environ,
                    MAX_ENVIRON,
                    "environ",
                    |w, (name, value)| {
                        write_label(w, name, MAX_NAME, "environment name")?;
                        write_label(w, value, MAX_ENVIRON_VALUE, "environment value")
                    },
                )?;
                w.opt_i64(config.frozen_clock_us);
            } else if config.journal_seed.is_some()
                || !config.environ.is_empty()
                || config.frozen_clock_us.is_some()
            {
                return Err(EncodeError::Invalid(format!(
                    "a journal seed, an environment or a frozen clock needs protocol {WORLD_SINCE} or later, not {protocol_version}"
                )));
            }
            if protocol_version >= SCRATCH_SINCE {
                w.opt_u64(config.max_scratch_bytes);
                w.list(
                    &config.packages,
                    MAX_PACKAGES,
                    "packages",
                    |w, requirement| {
                        write_label(w, requirement, MAX_REQUIREMENT, "package requirement")
                    },
                )?;
            } else if !config.packages.is_empty() {
                return Err(EncodeError::Invalid(format!(
                    "packages need protocol {SCRATCH_SINCE} or later, not {protocol_version}"
                )));
            }
            if protocol_version >= PRELOAD_SINCE {
                w.list(&config.preload, MAX_PRELOAD, "preload", |w, module| {
                    write_label(w, module, MAX_MODULE_NAME, "preloaded module")
                })?;
            } else if !config.preload.is_empty() {
                return Err(EncodeError::Invalid(format!(
                    "preloaded modules need protocol {PRELOAD_SINCE} or later, not {protocol_version}"
                )));
            }
            // An older worker has no scratch to size: it is left out.
            Ok(())
        }
    }
}

pub(super) fn read_engine_config(
    r: &mut Reader<'_>,
    interpreter: Interpreter,
    protocol_version: u32,
) -> Result<EngineConfig, DecodeError> {
    Ok(match interpreter {
        Interpreter::Monty => EngineConfig::Python,
        Interpreter::QuickJs => EngineConfig::JavaScript(read_javascript_config(r)?),
        Interpreter::CPython => EngineConfig::CPython(CPythonConfig {
            site_packages: r.list(MAX_SITE_PACKAGES, "site_packages count", |r| {
                r.str_capped("site_packages path", MAX_PATH)
            })?,
            journal_seed: if protocol_version >= WORLD_SINCE {
                r.opt_u64()?
            } else {
                None
            },
            environ: if protocol_version >= WORLD_SINCE {
                r.list(MAX_ENVIRON, "environ count", |r| {
                    Ok((
                        r.str_capped("environment name", MAX_NAME)?,
                        r.str_capped("environment value", MAX_ENVIRON_VALUE)?,
                    ))
                })?
            } else {
                Vec::new()
            },
            frozen_clock_us: if protocol_version >= WORLD_SINCE {
                r.opt_i64()?
            } else {
                None
            },
            max_scratch_bytes: if protocol_version >= SCRATCH_SINCE {
                r.opt_u64()?
            } else {
                None
            },
            packages: if protocol_version >= SCRATCH_SINCE {
                r.list(MAX_PACKAGES, "packages count", |r| {
                    r.str_capped("package requirement", MAX_REQUIREMENT)
                })?
            } else {
                Vec::new()
            },
            preload: if protocol_version >= PRELOAD_SINCE {
                r.list(MAX_PRELOAD, "preload count", |r| {
                    r.str_capped("preloaded module", MAX_MODULE_NAME)
                })?
            } else {
                Vec::new()
            },
        }),
    })
}

fn write_javascript_config(w: &mut Writer, c: &JavaScriptConfig) -> Result<(), EncodeError> {
    w.opt_u64(c.max_heap_size);
    w.opt_u64(c.max_buffer_bytes);
    w.u32(c.max_stack_bytes);
    let mut flags = 0;
    if c.strict_eval {
        flags |= FLAG_STRICT_EVAL;
    }
    if c.web_polyfills {
        flags |= FLAG_WEB_POLYFILLS;
    }
    if c.inspect_results {
        flags |= FLAG_INSPECT_RESULTS;
    }
    if c.report_clock {
        flags |= FLAG_REPORT_CLOCK;
    }
    w.u8(flags);
    if let Some(ms) = c.frozen_clock_ms
        && !(-MAX_CLOCK_MS..=MAX_CLOCK_MS).contains(&ms)
    {
        return Err(EncodeError::Invalid(format!(
            "frozen clock {ms} ms is outside the range of a JavaScript Date"
        )));
    }
    w.opt_i64(c.frozen_clock_ms);
    w.opt_u64(c.random_seed);
    w.list(&c.modules, MAX_MODULES, "modules", |w, (name, source)| {
        write_label(w, name, MAX_NAME, "module name")?;
        w.str(source)
    })
}

fn read_javascript_config(r: &mut Reader<'_>) -> Result<JavaScriptConfig, DecodeError> {
    let max_heap_size = r.opt_u64()?;
    let max_buffer_bytes = r.opt_u64()?;
    let max_stack_bytes = r.u32()?;
    let flags = r.code("javascript flags", |flags| {
        let known =
            FLAG_STRICT_EVAL | FLAG_WEB_POLYFILLS | FLAG_INSPECT_RESULTS | FLAG_REPORT_CLOCK;
        (flags & !known == 0).then_some(flags)
    })?;
    let at = r.position();
    let frozen_clock_ms = r.opt_i64()?;
    if let Some(ms) = frozen_clock_ms
        && !(-MAX_CLOCK_MS..=MAX_CLOCK_MS).contains(&ms)
    {
        return Err(DecodeError::Invalid {
            what: "frozen clock",
            at,
            detail: format!("{ms} ms is outside the range of a JavaScript Date"),
        });
    }
    let random_seed = r.opt_u64()?;
    let modules = r.list(MAX_MODULES, "module count", |r| {
        Ok((r.str_capped("module name", MAX_NAME)?, r.str()?))
    })?;
    Ok(JavaScriptConfig {
        max_heap_size,
        max_buffer_bytes,
        max_stack_bytes,
        strict_eval: flags & FLAG_STRICT_EVAL != 0,
        web_polyfills: flags & FLAG_WEB_POLYFILLS != 0,
        inspect_results: flags & FLAG_INSPECT_RESULTS != 0,
        report_clock: flags & FLAG_REPORT_CLOCK != 0,
        frozen_clock_ms,
        random_seed,
        modules,
    })
}
