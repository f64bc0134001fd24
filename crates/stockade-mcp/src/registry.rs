//! The handlers of MCP sessions over HTTP, by session id: the transport
//! routes each request to its session's handler but gives no way back to
//! it, which ending a session (`HttpTools::end_session`) needs to stop
//! its calls at once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use crate::sessions::Sessions;

/// The header that carries an HTTP client's MCP session id.
pub const SESSION_HEADER: &str = "mcp-session-id";

/// Each MCP session's sessions, entered by its first call.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    by_id: Mutex<HashMap<String, Weak<Sessions>>>,
}

impl Registry {
    pub(crate) fn enter(&self, id: &str, sessions: &Arc<Sessions>) {
        let mut by_id = self.by_id.lock().unwrap_or_else(PoisonError::into_inner);
        // A handler gone (a dropped request's) leaves its place to the next.
        if by_id.get(id).is_some_and(|known| known.strong_count() > 0) {
            return;
        }
        by_id.retain(|_, sessions| sessions.strong_count() > 0);
        by_id.insert(id.to_owned(), Arc::downgrade(sessions));
    }

    /// Takes the MCP session `id` out, if it made calls.
    pub(crate) fn take(&self, id: &str) -> Option<Weak<Sessions>> {
        self.by_id
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id)
    }
}
