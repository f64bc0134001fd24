//! Who may start a sandbox: a server that bounds its workers (`stockade
//! serve`'s session caps) is asked before each of a client's sandboxes
//! starts, and holds a place for it as long as the sandbox lives.

use std::any::Any;

/// What an admission holds for a live sandbox; dropped when it ends
/// (lost, reset, or its client gone).
pub type Held = Box<dyn Any + Send>;

/// Who asked for a call, as the transport knows it: over HTTP, the
/// extensions of the request that carried the call, where the server's
/// own middleware left what it learned (the caller's token).
#[derive(Debug, Clone, Default)]
pub struct Caller {
    pub http: Option<http::Extensions>,
}

/// Decides whether a sandbox may start for `caller`.
pub trait Admission: Send + Sync + 'static {
    /// A place for one more sandbox, or why there is none (words the
    /// client's model reads, such as "this server runs its most sessions
    /// at once (8); try again later").
    fn admit(&self, caller: &Caller) -> Result<Held, String>;
}
