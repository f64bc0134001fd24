//! How many sessions a server runs: at most `max_sessions` in all and
//! `max_per_token` for any one token, each slot held by a guard for the
//! session's life, so a refused or ended session never leaks one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::tokens::TokenId;

#[derive(Debug)]
pub struct Capacity {
    max_sessions: usize,
    max_per_token: usize,
    held: Mutex<Held>,
}

#[derive(Debug, Default)]
struct Held {
    total: usize,
    by_token: HashMap<TokenId, usize>,
}

/// Why no slot was free, in words the client is sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Full(pub String);

/// One session's slot, given back on drop.
#[derive(Debug)]
pub struct Slot {
    capacity: Arc<Capacity>,
    token: TokenId,
}

impl Capacity {
    pub fn new(max_sessions: usize, max_per_token: usize) -> Arc<Self> {
        Arc::new(Self {
            max_sessions,
            max_per_token,
            held: Mutex::new(Held::default()),
        })
    }

    /// A slot for a session of `token`, or why there is none.
    pub fn take(self: &Arc<Self>, token: TokenId) -> Result<Slot, Full> {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        if held.total >= self.max_sessions {
            return Err(Full(format!(
                "this server runs its most sessions at once ({}); try again later",
                self.max_sessions
            )));
        }
        let mine = held.by_token.entry(token).or_insert(0);
        if *mine >= self.max_per_token {
            return Err(Full(format!(
                "this token holds its most sessions at once ({}); end one first",
                self.max_per_token
            )));
        }
        *mine += 1;
        held.total += 1;
        Ok(Slot {
            capacity: Arc::clone(self),
            token,
        })
    }

    /// Sessions running now.
    pub fn active(&self) -> usize {
        self.held.lock().unwrap_or_else(|e| e.into_inner()).total
    }

    /// The most sessions at once.
    pub fn most(&self) -> usize {
        self.max_sessions
    }

    /// Whether another session would find a slot (a token's own share
    /// aside).
    pub fn has_room(&self) -> bool {
        self.active() < self.max_sessions
    }
}

impl Slot {
    /// The identity of the token the slot is held for.
    pub fn token(&self) -> TokenId {
        self.token
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut held = self.capacity.held.lock().unwrap_or_else(|e| e.into_inner());
        held.total = held.total.saturating_sub(1);
        if let Some(mine) = held.by_token.get_mut(&self.token) {
            *mine = mine.saturating_sub(1);
            if *mine == 0 {
                held.by_token.remove(&self.token);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_bounded_in_all_and_per_token_and_come_back_on_drop() -> Result<(), Full> {
        let capacity = Capacity::new(3, 2);
        let a = capacity.take([1; 32])?;
        let _b = capacity.take([1; 32])?;
        assert!(capacity.take([1; 32]).unwrap_err().0.contains("this token"));
        let _c = capacity.take([2; 32])?;
        assert!(
            capacity
                .take([3; 32])
                .unwrap_err()
                .0
                .contains("most sessions")
        );
        drop(a);
        assert_eq!(capacity.active(), 2);
        assert!(capacity.take([1; 32]).is_ok());
        Ok(())
    }
}
