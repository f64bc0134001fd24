//! Modules a guest may import, statically or with `import()`: those the
//! host registers by name, and Node's built-ins (`node_modules.rs`). Any
//! other specifier is refused.

use std::collections::HashMap;
use std::rc::Rc;

use rquickjs::loader::{ImportAttributes, Loader, Resolver};
use rquickjs::module::Declared;
use rquickjs::{Ctx, Error, Module};

/// The registered sources, shared by the resolver and the loader.
#[derive(Debug, Clone, Default)]
pub struct HostModules {
    sources: Rc<HashMap<String, String>>,
}

impl HostModules {
    pub fn new(modules: Vec<(String, String)>) -> Self {
        Self {
            sources: Rc::new(modules.into_iter().collect()),
        }
    }
}

impl Resolver for HostModules {
    fn resolve<'js>(
        &mut self,
        _ctx: &Ctx<'js>,
        base: &str,
        name: &str,
        _attributes: Option<ImportAttributes<'js>>,
    ) -> rquickjs::Result<String> {
        // Names are exact: no relative paths, files or URLs.
        if self.sources.contains_key(name) || super::node_modules::module_source(name).is_some() {
            Ok(name.to_owned())
        } else {
            Err(Error::new_resolving_message(
                base,
                name,
                "only modules the host registered (and Node's fs, fs/promises and path) can be imported",
            ))
        }
    }
}

impl Loader for HostModules {
    fn load<'js>(
        &mut self,
        ctx: &Ctx<'js>,
        name: &str,
        _attributes: Option<ImportAttributes<'js>>,
    ) -> rquickjs::Result<Module<'js, Declared>> {
        match self.sources.get(name) {
            Some(source) => Module::declare(ctx.clone(), name, source.as_str()),
            None => match super::node_modules::module_source(name) {
                Some(source) => Module::declare(ctx.clone(), name, source),
                None => Err(Error::new_loading(name)),
            },
        }
    }
}
