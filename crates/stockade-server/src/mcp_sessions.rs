//! How many MCP sessions clients hold open at `/mcp`: at most
//! `--max-mcp-sessions` in all and `--max-mcp-sessions-per-token` for any
//! one token; which token opened each (a session serves only it); and
//! each session's one event stream. A session costs the server memory
//! until its client ends it or it goes idle too long, even when it holds
//! no sandbox (those count in `capacity.rs`), so opening one is bounded.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

#[cfg(doc)]
use stockade_mcp::HttpTools;

use crate::tokens::TokenId;

/// The MCP sessions open, by token, and their bounds.
#[derive(Debug)]
pub struct McpSessions {
    max: usize,
    max_per_token: usize,
    /// Taken by one opening at a time, across its look at the endpoint's
    /// sessions.
    gate: tokio::sync::Mutex<()>,
    held: Mutex<Held>,
}

#[derive(Debug, Default)]
struct Held {
    /// The sessions each token opened, as the endpoint named them, with
    /// the order they were recorded in.
    open: HashMap<TokenId, Vec<(u64, Arc<str>)>>,
    /// Sessions being opened now, whose ids are not known yet.
    opening: HashMap<TokenId, usize>,
    recorded: u64,
    /// The sessions whose event stream (a GET without Last-Event-ID) is
    /// open now.
    streaming: HashSet<Arc<str>>,
}

impl Held {
    fn of(&self, token: &TokenId) -> usize {
        self.open.get(token).map_or(0, Vec::len) + self.opening.get(token).copied().unwrap_or(0)
    }

    fn total(&self) -> usize {
        self.open.values().map(Vec::len).sum::<usize>() + self.opening.values().sum::<usize>()
    }
}

/// A place for one MCP session being opened; given back when dropped
/// unless [`Opening::opened`] named the session it became.
#[derive(Debug)]
pub struct Opening {
    sessions: Arc<McpSessions>,
    token: TokenId,
    settled: bool,
}

impl McpSessions {
    /// At most `max` sessions in all, `max_per_token` for one token.
    pub fn new(max: usize, max_per_token: usize) -> Arc<Self> {
        Arc::new(Self {
            max,
            max_per_token,
            gate: tokio::sync::Mutex::new(()),
            held: Mutex::new(Held::default()),
        })
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A place for another session of `token`, or why there is none. The
    /// sessions that are no longer among `live` (the endpoint's open
    /// sessions, [`HttpTools::open_sessions`]) are let go first.
    pub async fn open(
        self: &Arc<Self>,
        token: TokenId,
        live: impl Future<Output = HashSet<Arc<str>>>,
    ) -> Result<Opening, String> {
        let _one_at_a_time = self.gate.lock().await;
        let mut held = self.let_go(live).await;
        if held.total() >= self.max {
            return Err(format!(
                "this server holds its most MCP sessions open ({}); try again later",
                self.max
            ));
        }
        if held.of(&token) >= self.max_per_token {
            return Err(format!(
                "this token holds its most MCP sessions open ({}); end one first",
                self.max_per_token
            ));
        }
        *held.opening.entry(token).or_insert(0) += 1;
        Ok(Opening {
            sessions: Arc::clone(self),
            token,
            settled: false,
        })
    }

    /// Lets go of the sessions no longer among `live`; the caller holds
    /// the gate.
    async fn let_go(
        &self,
        live: impl Future<Output = HashSet<Arc<str>>>,
    ) -> std::sync::MutexGuard<'_, Held> {
        // A session recorded after this look began may be missing from it:
        // only those recorded before are let go.
        let before = self.held().recorded;
        let live = live.await;
        let mut held = self.held();
        held.open.retain(|_, ids| {
            ids.retain(|(at, id)| *at >= before || live.contains(id));
            !ids.is_empty()
        });
        held
    }

    fn settle(&self, token: TokenId, opened: Option<&str>) {
        let mut held = self.held();
        if let Some(count) = held.opening.get_mut(&token) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                held.opening.remove(&token);
            }
        }
        if let Some(id) = opened {
            let at = held.recorded;
            held.recorded += 1;
            held.open
                .entry(token)
                .or_default()
                .push((at, Arc::from(id)));
        }
    }

    /// Whether `token` opened the MCP session `id`: a session serves only
    /// the token that opened it.
    pub fn opened_by(&self, token: &TokenId, id: &str) -> bool {
        self.held()
            .open
            .get(token)
            .is_some_and(|ids| ids.iter().any(|(_, open)| &**open == id))
    }

    /// The event stream of session `id`, unless it has one open: a client
    /// holds one, where the protocol library would keep dozens, each a
    /// connection of the server's.
    pub fn stream(self: &Arc<Self>, id: &str) -> Option<Stream> {
        let id: Arc<str> = Arc::from(id);
        self.held()
            .streaming
            .insert(Arc::clone(&id))
            .then(|| Stream {
                sessions: Arc::clone(self),
                id,
            })
    }

    /// MCP sessions open (or being opened) now, of those `live` names.
    pub async fn count(&self, live: impl Future<Output = HashSet<Arc<str>>>) -> usize {
        let _one_at_a_time = self.gate.lock().await;
        self.let_go(live).await.total()
    }
}

/// A session's one event stream, open as long as this lives.
#[derive(Debug)]
pub struct Stream {
    sessions: Arc<McpSessions>,
    id: Arc<str>,
}

impl Drop for Stream {
    fn drop(&mut self) {
        self.sessions.held().streaming.remove(&self.id);
    }
}

impl Opening {
    /// The request that took the place opened session `id`; None: it
    /// opened none, and the place is given back.
    pub fn opened(mut self, id: Option<&str>) {
        self.settled = true;
        self.sessions.settle(self.token, id);
    }
}

impl Drop for Opening {
    fn drop(&mut self) {
        // The request was dropped before its answer (its client went).
        if !self.settled {
            self.sessions.settle(self.token, None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn live(ids: &[&str]) -> std::future::Ready<HashSet<Arc<str>>> {
        std::future::ready(ids.iter().map(|id| Arc::from(*id)).collect())
    }

    #[tokio::test]
    async fn mcp_sessions_are_bounded_in_all_and_per_token_and_ended_ones_let_go()
    -> Result<(), String> {
        let sessions = McpSessions::new(3, 2);
        sessions.open([1; 32], live(&[])).await?.opened(Some("a"));
        sessions
            .open([1; 32], live(&["a"]))
            .await?
            .opened(Some("b"));
        let refused = sessions.open([1; 32], live(&["a", "b"])).await;
        assert!(refused.is_err_and(|why| why.contains("this token")));
        // Being opened counts: a place is held until the answer.
        let opening = sessions.open([2; 32], live(&["a", "b"])).await?;
        let full = sessions.open([3; 32], live(&["a", "b"])).await;
        assert!(full.is_err_and(|why| why.contains("this server")));
        // An initialize that opened nothing (or whose client went) gives
        // its place back.
        drop(opening);
        sessions
            .open([2; 32], live(&["a", "b"]))
            .await?
            .opened(None);
        assert_eq!(sessions.count(live(&["a", "b"])).await, 2);
        // "a" ended (its client, or its idle time): its place is free.
        assert_eq!(sessions.count(live(&["b"])).await, 1);
        sessions
            .open([1; 32], live(&["b"]))
            .await?
            .opened(Some("c"));
        assert_eq!(sessions.count(live(&["b", "c"])).await, 2);
        // A session serves the token that opened it.
        assert!(sessions.opened_by(&[1; 32], "c") && sessions.opened_by(&[1; 32], "b"));
        assert!(!sessions.opened_by(&[2; 32], "c") && !sessions.opened_by(&[1; 32], "a"));
        // One event stream a session.
        let stream = sessions.stream("c");
        assert!(stream.is_some() && sessions.stream("c").is_none());
        drop(stream);
        assert!(sessions.stream("c").is_some());
        Ok(())
    }
}
