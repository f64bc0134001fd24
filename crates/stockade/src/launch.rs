//! What process a session's worker is, resolved from its options: the
//! worker binary (monty, QuickJS), or for CPython the chosen interpreter
//! started to load the engine module and serve from it.

use std::ffi::OsString;
use std::path::PathBuf;

use stockade_wire::Interpreter;

use crate::cpython::find_python;
use crate::error::Error;
use crate::locate::{locate_engine_module, locate_worker};
use crate::options::SessionOptions;

/// The code the interpreter runs (`python -I -S -c BOOT MODULE`): load the
/// engine module from its path, register it under its name (the guest
/// side imports from it), serve, and exit with the worker's status.
/// Nothing else of the interpreter's start-up may run: `-I` ignores the
/// environment and the user's site directory, `-S` skips `site`. The
/// loader, which holds the module's path, is not left in `__main__` (the
/// module forgets its path, and `sys.argv` is emptied, as the engine
/// prepares: docs/security.md).
pub const BOOT: &str = "import sys\n\
if sys.path[:1] == ['']: del sys.path[0]\n\
from importlib.machinery import ExtensionFileLoader as L, ModuleSpec as S\n\
l = L('stockade_cpython', sys.argv[1])\n\
m = l.create_module(S('stockade_cpython', l, origin=sys.argv[1]))\n\
sys.modules['stockade_cpython'] = m\n\
l.exec_module(m)\n\
del L, S, l\n\
sys.exit(m.serve())\n";

/// Whether CPython `version` (`major.minor.micro`) takes `-P` (3.11 on).
fn has_safe_path_option(version: &str) -> bool {
    let mut numbers = version.split('.').map(|n| n.parse::<u32>().unwrap_or(0));
    (numbers.next().unwrap_or(0), numbers.next().unwrap_or(0)) >= (3, 11)
}

/// `path` made absolute against the current directory: the worker starts
/// in `/`, where a relative path would name something else.
fn absolute(path: PathBuf) -> PathBuf {
    std::path::absolute(&path).unwrap_or(path)
}

/// The string hash seed a journaled CPython session's interpreter starts
/// with (`PYTHONHASHSEED`, 1 to 2^32 - 1; 0 would turn hashing's
/// randomisation off): the same for a session and its replay, so that sets
/// and dicts of strings iterate in the same order in both. Derived one
/// way from the journal seed, which also keys the guest's `os.urandom`: a
/// hash seed that shows through iteration order gives none of it away.
fn hash_seed(seed: u64) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::new()
        .chain_update(b"stockade string hash seed\0")
        .chain_update(seed.to_le_bytes())
        .finalize();
    let mut first = [0u8; 4];
    first.copy_from_slice(&digest[..4]);
    u32::from_le_bytes(first).max(1).to_string()
}

/// A worker process to start: a program, its arguments and its
/// environment (otherwise empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Launch {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub env: Vec<(OsString, OsString)>,
    /// Fork the worker from a template interpreter (`template.rs`) rather
    /// than start it from scratch: for CPython workers started ahead of use
    /// or often (library sessions that keep spares, pools); a one-off
    /// session (the CLI's) is cheaper started directly.
    pub template: bool,
    /// Whose workers these are, for a server of several tenants: workers
    /// forked from one template share its address-space layout and
    /// CPython's hash secret, so each tenant gets templates of its own.
    pub tenant: Option<[u8; 32]>,
}

impl Launch {
    /// The worker for `options`, with every path resolved.
    pub(crate) fn resolve(options: &SessionOptions) -> Result<Self, Error> {
        match options.interpreter() {
            Interpreter::CPython => {
                let python = find_python(options.cpython.python.as_deref())?;
                let worker = options.worker.clone().or_else(|| locate_worker(None).ok());
                let module = absolute(locate_engine_module(
                    options.cpython.module.as_deref(),
                    worker.as_deref(),
                )?);
                // A journaled session's interpreter reads its hash seed
                // from the environment, which `-I` would ignore: `-P -s`
                // (with the environment otherwise empty) isolate it as
                // `-I` does. Before 3.11, which has no `-P`, BOOT takes
                // the current directory off `sys.path` itself.
                let seed = options.journal_seed.filter(|_| options.dumpable);
                let isolation: &[&str] = match seed {
                    Some(_) if has_safe_path_option(&python.version) => &["-P", "-s"],
                    Some(_) => &["-s"],
                    None => &["-I"],
                };
                let mut args: Vec<OsString> = isolation.iter().map(OsString::from).collect();
                args.extend([
                    "-S".into(),
                    "-c".into(),
                    BOOT.into(),
                    module.into_os_string(),
                ]);
                Ok(Self {
                    program: python.executable,
                    args,
                    env: seed
                        .map(|seed| ("PYTHONHASHSEED".into(), hash_seed(seed).into()))
                        .into_iter()
                        .collect(),
                    template: false,
                    tenant: options.tenant,
                })
            }
            Interpreter::Monty | Interpreter::QuickJs => Ok(Self {
                program: absolute(locate_worker(options.worker.as_deref())?),
                args: Vec::new(),
                env: Vec::new(),
                template: false,
                tenant: options.tenant,
            }),
        }
    }

    /// `options` with the paths this launch resolved written in, so a
    /// spare started later runs exactly this.
    pub(crate) fn pin(&self, mut options: SessionOptions) -> SessionOptions {
        options.engine = Some(options.interpreter());
        match options.interpreter() {
            Interpreter::CPython => {
                options.cpython.python = Some(self.program.clone());
                options.cpython.module = self.args.last().map(PathBuf::from);
            }
            Interpreter::Monty | Interpreter::QuickJs => {
                options.worker = Some(self.program.clone());
            }
        }
        options
    }
}

/// The Configure frames of a new worker: the one a worker started from
/// scratch is sent, and the one a template for these options is started
/// with (its test-fire offer is a template's), and the template's key
/// (the Configure with no offer: what the workers it forks must share).
pub(crate) struct ConfigureFrames {
    pub worker: Vec<u8>,
    pub template: Vec<u8>,
    pub key: Vec<u8>,
}
