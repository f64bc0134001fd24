//! The bytes of MCP requests the server holds at once, in all and for each
//! token. A POST to `/mcp` is charged its size (the size it declares, or
//! the most a request may be) before its body is read, and keeps the
//! charge until its answer has been written: a request's parsed form and
//! its call live that long. So one tenant's requests take at most its
//! share, and never the room another tenant's need.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::tokens::TokenId;

/// How many requests of the largest size fit in one token's share, and in
/// the server's whole budget.
pub const PER_TOKEN_REQUESTS: usize = 2;
pub const IN_ALL_REQUESTS: usize = 8;

#[derive(Debug)]
pub struct McpBodies {
    most: usize,
    per_token: usize,
    held: Mutex<Held>,
}

#[derive(Debug, Default)]
struct Held {
    total: usize,
    by_token: HashMap<TokenId, usize>,
}

/// Bytes held for one request, given back on drop.
#[derive(Debug)]
pub struct BodyHold {
    bodies: Arc<McpBodies>,
    token: TokenId,
    bytes: usize,
}

impl McpBodies {
    /// The budget of a server whose largest MCP request is `max_request`
    /// bytes.
    pub fn new(max_request: usize) -> Arc<Self> {
        Arc::new(Self {
            most: max_request.saturating_mul(IN_ALL_REQUESTS),
            per_token: max_request.saturating_mul(PER_TOKEN_REQUESTS),
            held: Mutex::new(Held::default()),
        })
    }

    /// Holds `bytes` for a request of `token`, or says why not (the
    /// client is told to try again once its other requests are answered).
    pub fn take(self: &Arc<Self>, token: TokenId, bytes: usize) -> Result<BodyHold, String> {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        let mine = held.by_token.get(&token).copied().unwrap_or(0);
        if mine.saturating_add(bytes) > self.per_token {
            return Err(format!(
                "this token's MCP requests under way hold {mine} bytes, and another of {bytes} would pass its share ({} bytes); wait for an answer, then send it again",
                self.per_token
            ));
        }
        if held.total.saturating_add(bytes) > self.most {
            return Err(format!(
                "this server holds its most MCP request bytes at once ({}); send it again shortly",
                self.most
            ));
        }
        held.total += bytes;
        *held.by_token.entry(token).or_insert(0) += bytes;
        Ok(BodyHold {
            bodies: Arc::clone(self),
            token,
            bytes,
        })
    }

    fn give_back(&self, token: &TokenId, bytes: usize) {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        held.total = held.total.saturating_sub(bytes);
        if let Some(mine) = held.by_token.get_mut(token) {
            *mine = mine.saturating_sub(bytes);
            if *mine == 0 {
                held.by_token.remove(token);
            }
        }
    }
}

impl BodyHold {
    /// Holds only `bytes` from now on (the body was smaller than charged).
    pub fn shrink_to(&mut self, bytes: usize) {
        if bytes < self.bytes {
            self.bodies.give_back(&self.token, self.bytes - bytes);
            self.bytes = bytes;
        }
    }
}

impl Drop for BodyHold {
    fn drop(&mut self) {
        self.bodies.give_back(&self.token, self.bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_holds_at_most_its_share_and_the_rest_is_left_to_others() -> Result<(), String> {
        let bodies = McpBodies::new(100);
        let (greedy, other) = ([1u8; 32], [2u8; 32]);
        let held = (0..PER_TOKEN_REQUESTS)
            .map(|_| bodies.take(greedy, 100))
            .collect::<Result<Vec<_>, _>>()?;
        assert!(bodies.take(greedy, 1).is_err());
        let mut theirs = bodies.take(other, 100)?;
        theirs.shrink_to(10);
        drop(held);
        assert!(bodies.take(greedy, 100).is_ok());
        drop(theirs);
        let held = bodies.held.lock().unwrap_or_else(|e| e.into_inner());
        assert_eq!(held.total, 0);
        assert!(held.by_token.is_empty());
        Ok(())
    }

    #[test]
    fn the_server_holds_at_most_its_whole_budget() -> Result<(), String> {
        let bodies = McpBodies::new(100);
        let held = (0..IN_ALL_REQUESTS)
            .map(|n| bodies.take([n as u8; 32], 100))
            .collect::<Result<Vec<_>, _>>()?;
        assert!(bodies.take([200; 32], 1).is_err());
        drop(held);
        assert!(bodies.take([200; 32], 100).is_ok());
        Ok(())
    }
}
