//! The JavaScript modules the worker's build script compiled to this
//! QuickJS's bytecode: loading one runs no parser, and only these bytes,
//! never a guest's, are ever loaded as bytecode.

use rquickjs::{Ctx, FromJs, Function, Module, Value};

use super::values::show;

/// One of the modules build.rs compiled.
#[derive(Debug, Clone, Copy)]
pub enum Bundled {
    /// Node's util.inspect (third_party/node-inspect-extracted, through
    /// js/inspect_module.js).
    Inspect,
    /// The guest's console (js/console.js).
    Console,
    /// Intl (js/intl.js), on the natives of `intl/`.
    Intl,
    /// The opt-in web polyfills (js/polyfills.js).
    Polyfills,
    /// Node's `fs`, `fs/promises` and `path` (js/node_fs.js).
    NodeFs,
    /// The guest's `display()` (js/display.js).
    Display,
}

static INSPECT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/inspect.qjsbc"));
static CONSOLE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/console.qjsbc"));
static INTL: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/intl.qjsbc"));
static POLYFILLS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/polyfills.qjsbc"));
static NODE_FS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/node_fs.qjsbc"));
static DISPLAY: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/display.qjsbc"));

impl Bundled {
    fn name(self) -> &'static str {
        match self {
            Bundled::Inspect => "util.inspect",
            Bundled::Console => "console",
            Bundled::Intl => "Intl",
            Bundled::Polyfills => "polyfills",
            Bundled::NodeFs => "fs module",
            Bundled::Display => "display function",
        }
    }

    fn bytecode(self) -> &'static [u8] {
        match self {
            Bundled::Inspect => INSPECT,
            Bundled::Console => CONSOLE,
            Bundled::Intl => INTL,
            Bundled::Polyfills => POLYFILLS,
            Bundled::NodeFs => NODE_FS,
            Bundled::Display => DISPLAY,
        }
    }

    /// The module's default export.
    pub fn load<'js, T: FromJs<'js>>(self, ctx: &Ctx<'js>) -> rquickjs::Result<T> {
        // SAFETY: the bytes are bytecode this build's own QuickJS wrote
        // from our own module sources (build.rs), and they are static, as
        // QuickJS's read-only loading needs.
        let module = unsafe { Module::load(ctx.clone(), self.bytecode()) }?;
        let (module, evaluated) = module.eval()?;
        // The modules do not await: they have run. Driving the job queue
        // here would run the guest's own pending jobs in the middle of,
        // say, a log call.
        match evaluated.result::<Value>() {
            Some(Ok(_)) => module.namespace()?.get("default"),
            Some(Err(err)) => Err(err),
            None => Err(rquickjs::Error::new_from_js_message(
                "module",
                "value",
                "a bundled module did not finish loading",
            )),
        }
    }

    /// Loads the module and calls its default export with `args`, at a
    /// worker's start; the error names the module.
    pub fn install<'js, A, R>(self, ctx: &Ctx<'js>, args: A) -> Result<R, String>
    where
        A: rquickjs::function::IntoArgs<'js>,
        R: FromJs<'js>,
    {
        let install: Function = self
            .load(ctx)
            .map_err(|err| format!("cannot load the {}: {err}", self.name()))?;
        install.call(args).map_err(|err| {
            let thrown = ctx.catch();
            format!(
                "the {} failed: {err}: {}",
                self.name(),
                show(ctx, &thrown, &|| false)
            )
        })
    }
}
