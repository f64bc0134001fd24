//! Templates (docs/protocol.md, "Templates"): how a host starts a worker
//! binary as a template, and the engine name the template's Ready
//! carries. The host and the worker both read these from here.

/// The argument that starts a worker binary as a template.
pub const TEMPLATE_FLAG: &str = "--template";

/// The engine a template's Ready names: it serves no session itself.
pub const TEMPLATE_ENGINE: &str = "template";
