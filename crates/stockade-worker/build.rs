//! Compiles the worker's bundled JavaScript modules into QuickJS bytecode:
//! the console, display(), Intl, the web polyfills, Node's `fs` and `path`, and Node's util.inspect
//! (third_party/node-inspect-extracted, loaded the first time a guest logs
//! an object), so that no worker parses them (QuickJS parses util.inspect's
//! 51 KB in about 6 ms; loading its bytecode takes a fraction of that).

use std::error::Error;
use std::path::{Path, PathBuf};

use rquickjs::{Context, Module, Runtime, WriteOptions};

const BUNDLE: &str = "../../third_party/node-inspect-extracted/inspect.js";
const INSPECT: &str = "src/engine/javascript/js/inspect_module.js";
const CONSOLE: &str = "src/engine/javascript/js/console.js";
const INTL: &str = "src/engine/javascript/js/intl.js";
const POLYFILLS: &str = "src/engine/javascript/js/polyfills.js";
const NODE_FS: &str = "src/engine/javascript/js/node_fs.js";
const DISPLAY: &str = "src/engine/javascript/js/display.js";
const MARKER: &str = "/* THE BUNDLE */";

fn main() -> Result<(), Box<dyn Error>> {
    for path in [BUNDLE, INSPECT, CONSOLE, INTL, POLYFILLS, NODE_FS, DISPLAY] {
        println!("cargo::rerun-if-changed={path}");
    }
    let bundle = std::fs::read_to_string(BUNDLE)?;
    let wrapper = std::fs::read_to_string(INSPECT)?;
    if !wrapper.contains(MARKER) {
        return Err(format!("{INSPECT} has no {MARKER} line").into());
    }
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    let runtime = Runtime::new()?;
    let context = Context::full(&runtime)?;
    let modules = [
        (
            "node:util/inspect",
            wrapper.replacen(MARKER, &bundle, 1),
            "inspect.qjsbc",
        ),
        (
            "stockade:console",
            std::fs::read_to_string(CONSOLE)?,
            "console.qjsbc",
        ),
        (
            "stockade:intl",
            std::fs::read_to_string(INTL)?,
            "intl.qjsbc",
        ),
        (
            "stockade:polyfills",
            std::fs::read_to_string(POLYFILLS)?,
            "polyfills.qjsbc",
        ),
        (
            "stockade:node-fs",
            std::fs::read_to_string(NODE_FS)?,
            "node_fs.qjsbc",
        ),
        (
            "stockade:display",
            std::fs::read_to_string(DISPLAY)?,
            "display.qjsbc",
        ),
    ];
    for (name, source, file) in modules {
        compile(&context, name, source, &out.join(file))?;
    }
    Ok(())
}

/// Compiles the module `source` and writes its bytecode to `out`.
fn compile(
    context: &Context,
    name: &str,
    source: String,
    out: &Path,
) -> Result<(), Box<dyn Error>> {
    let bytecode = context.with(|ctx| {
        Module::declare(ctx.clone(), name, source)
            .and_then(|module| {
                // Source text and line tables are of no use in a worker: a
                // guest never sees these frames' source.
                module.write(WriteOptions {
                    strip_source: true,
                    strip_debug: true,
                    ..WriteOptions::default()
                })
            })
            .map_err(|err| format!("{name}: {err}: {:?}", ctx.catch()))
    })?;
    std::fs::write(out, bytecode)?;
    Ok(())
}
