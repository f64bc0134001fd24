//! Compiles Node's util.inspect (third_party/node-inspect-extracted) into
//! QuickJS bytecode, so that a worker loads it without parsing 51 KB of
//! JavaScript the first time a guest logs an object (parsing costs a cold
//! worker about 6 ms; loading bytecode, a fraction of it).

use std::error::Error;
use std::path::PathBuf;

use rquickjs::{Context, Module, Runtime, WriteOptions};

const BUNDLE: &str = "../../third_party/node-inspect-extracted/inspect.js";
const WRAPPER: &str = "src/engine/javascript/js/inspect_module.js";
const MARKER: &str = "/* THE BUNDLE */";

fn main() -> Result<(), Box<dyn Error>> {
    println!("cargo::rerun-if-changed={BUNDLE}");
    println!("cargo::rerun-if-changed={WRAPPER}");
    let bundle = std::fs::read_to_string(BUNDLE)?;
    let wrapper = std::fs::read_to_string(WRAPPER)?;
    if !wrapper.contains(MARKER) {
        return Err(format!("{WRAPPER} has no {MARKER} line").into());
    }
    let source = wrapper.replacen(MARKER, &bundle, 1);
    let runtime = Runtime::new()?;
    let context = Context::full(&runtime)?;
    let bytecode = context.with(|ctx| {
        Module::declare(ctx.clone(), "node:util/inspect", source)
            .and_then(|module| {
                // The library's own source text and line tables are of no
                // use in a worker: a guest never sees its frames' source.
                module.write(WriteOptions {
                    strip_source: true,
                    strip_debug: true,
                    ..WriteOptions::default()
                })
            })
            .map_err(|err| format!("{err}: {:?}", ctx.catch()))
    })?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?).join("inspect.qjsbc");
    std::fs::write(out, bytecode)?;
    Ok(())
}
