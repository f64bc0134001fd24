//! Connections that have not shown a token yet, on a budget of their own,
//! so that they can never take the places of authenticated ones. Every
//! connection starts anonymous; a request whose token the server holds
//! makes it authenticated for good. An anonymous connection serves one
//! request and closes (no keep-alive: a cheap request every few seconds
//! cannot hold it), and at most `most` are open at once, `per_address`
//! from one address: past either, one is closed to make room (from the
//! address that holds the most, past the whole budget), the oldest of
//! those that have sent nothing yet (read, or waiting in the socket),
//! else the oldest that has been anonymous longer than a request takes
//! (`GRACE`: one trickling its request). A connection that has just sent
//! its request is never closed for room: a client with a token gets its
//! request served through a flood of silent connections, and a burst of
//! clients behind one proxy's address all get theirs in (the places in
//! all still bound them).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::net::IpAddr;
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

/// The budget's share of `--max-connections`: a quarter (at least 8), and
/// always at least one place fewer than all of them.
pub fn most_for(max_connections: usize) -> usize {
    (max_connections / 4)
        .max(8)
        .min(max_connections.saturating_sub(1))
        .max(1)
}

/// What a connection's address counts against: the address itself, or for
/// IPv6 its /64 (one host's share of a network, however many addresses it
/// takes in it).
fn address_key(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let mut segments = v6.segments();
                segments[4..].fill(0);
                IpAddr::V6(segments.into())
            }
        },
        v4 => v4,
    }
}

/// The most anonymous connections one address may hold.
pub const PER_ADDRESS: usize = 16;

/// How long a connection that has sent something may stay anonymous
/// before it may be closed for room: far longer than a request's headers
/// take to arrive, so only a trickling one is.
const GRACE: Duration = Duration::from_secs(1);

#[derive(Debug)]
pub struct Anonymous {
    most: usize,
    per_address: usize,
    open: Mutex<Open>,
}

#[derive(Debug, Default)]
struct Open {
    next: u64,
    /// By age: each one's address, whether it has sent anything, and the
    /// signal that closes it.
    by_age: BTreeMap<u64, Entry>,
    by_address: HashMap<IpAddr, VecDeque<u64>>,
}

#[derive(Debug)]
struct Entry {
    address: IpAddr,
    heard: Arc<AtomicBool>,
    /// A duplicate of its socket, to ask whether bytes wait there unread
    /// (its request arrived, and its task has not run yet). Closed with
    /// the entry, so the connection's own close is never held up by it.
    socket: Option<OwnedFd>,
    close: oneshot::Sender<()>,
    since: Instant,
}

impl Entry {
    /// Whether it has sent anything, read or waiting.
    fn spoke(&self) -> bool {
        self.heard.load(Ordering::Relaxed)
            || self
                .socket
                .as_ref()
                .is_some_and(|socket| rustix::io::ioctl_fionread(socket).is_ok_and(|n| n > 0))
    }
}

/// One connection's standing, put in each of its requests' extensions.
#[derive(Debug)]
pub struct Standing {
    id: u64,
    authenticated: AtomicBool,
    anonymous: Arc<Anonymous>,
}

impl Anonymous {
    pub fn new(most: usize, per_address: usize) -> Arc<Self> {
        Arc::new(Self {
            most: most.max(1),
            per_address: per_address.max(1),
            open: Mutex::new(Open::default()),
        })
    }

    /// Takes in a new connection from `address`, anonymous, closing others
    /// past the budget. `heard` is set once the connection has sent a
    /// byte; the receiver fires when this one is closed to make room.
    pub fn admit(
        self: &Arc<Self>,
        address: IpAddr,
        heard: Arc<AtomicBool>,
        socket: Option<OwnedFd>,
    ) -> (Arc<Standing>, oneshot::Receiver<()>) {
        let address = address_key(address);
        let (close, closed) = oneshot::channel();
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let mine: Vec<u64> = open
            .by_address
            .get(&address)
            .map(|ids| ids.iter().copied().collect())
            .unwrap_or_default();
        if mine.len() >= self.per_address
            && let Some(victim) = open.victim(mine.into_iter())
        {
            open.close(victim);
        }
        // Past the whole budget, room is made at the address that holds
        // the most: a flood from one address cycles among itself, never
        // through another address's clients.
        if open.by_age.len() >= self.most
            && let Some(heaviest) = open
                .by_address
                .values()
                .max_by_key(|ids| ids.len())
                .map(|ids| ids.iter().copied().collect::<Vec<u64>>())
            && let Some(victim) = open.victim(heaviest.into_iter())
        {
            open.close(victim);
        }
        let id = open.next;
        open.next += 1;
        open.by_age.insert(
            id,
            Entry {
                address,
                heard,
                socket,
                close,
                since: Instant::now(),
            },
        );
        open.by_address.entry(address).or_default().push_back(id);
        let standing = Arc::new(Standing {
            id,
            authenticated: AtomicBool::new(false),
            anonymous: Arc::clone(self),
        });
        (standing, closed)
    }

    /// How many anonymous connections are open.
    #[cfg(test)]
    fn count(&self) -> usize {
        self.open
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .by_age
            .len()
    }

    fn leave(&self, id: u64) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.remove(id);
    }
}

impl Open {
    /// Which of `ids` (oldest first) to close, if any: the oldest that has
    /// sent nothing, else the oldest anonymous for longer than `GRACE`.
    fn victim(&self, ids: impl Iterator<Item = u64> + Clone) -> Option<u64> {
        let silent = ids
            .clone()
            .find(|id| self.by_age.get(id).is_some_and(|entry| !entry.spoke()));
        silent.or_else(|| {
            ids.into_iter().find(|id| {
                self.by_age
                    .get(id)
                    .is_some_and(|entry| entry.since.elapsed() > GRACE)
            })
        })
    }

    /// Forgets `id`, closing it.
    fn close(&mut self, id: u64) {
        if let Some(close) = self.remove(id) {
            let _ = close.send(());
        }
    }

    fn remove(&mut self, id: u64) -> Option<oneshot::Sender<()>> {
        let entry = self.by_age.remove(&id)?;
        if let Some(ids) = self.by_address.get_mut(&entry.address) {
            ids.retain(|other| *other != id);
            if ids.is_empty() {
                self.by_address.remove(&entry.address);
            }
        }
        Some(entry.close)
    }
}

impl Standing {
    /// The connection showed a token the server holds: it leaves the
    /// anonymous budget, and keeps alive like any client's.
    pub fn authenticate(&self) {
        if !self.authenticated.swap(true, Ordering::SeqCst) {
            self.anonymous.leave(self.id);
        }
    }

    pub fn is_authenticated(&self) -> bool {
        self.authenticated.load(Ordering::SeqCst)
    }
}

impl Drop for Standing {
    fn drop(&mut self) {
        if !self.is_authenticated() {
            self.anonymous.leave(self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn silent() -> Arc<AtomicBool> {
        Arc::new(AtomicBool::new(false))
    }

    #[test]
    fn past_the_budget_the_oldest_anonymous_connection_is_closed() {
        let anonymous = Anonymous::new(3, 2);
        let here: IpAddr = [127, 0, 0, 1].into();
        let there: IpAddr = [10, 0, 0, 1].into();
        let (first, mut first_closed) = anonymous.admit(here, silent(), None);
        let (_second, mut second_closed) = anonymous.admit(here, silent(), None);
        // A third from the same address closes the first.
        let (_third, _) = anonymous.admit(here, silent(), None);
        assert!(first_closed.try_recv().is_ok());
        assert!(second_closed.try_recv().is_err());
        drop(first);
        assert_eq!(anonymous.count(), 2);
        // Past the whole budget, room is made at the address holding most.
        let (_other, mut other_closed) = anonymous.admit(there, silent(), None);
        assert!(second_closed.try_recv().is_err());
        let (_another, _) = anonymous.admit(there, silent(), None);
        assert!(second_closed.try_recv().is_ok());
        assert!(other_closed.try_recv().is_err());
        assert_eq!(anonymous.count(), 3);
    }

    #[test]
    fn a_connection_that_has_sent_its_request_outlives_silent_ones() {
        let anonymous = Anonymous::new(2, 2);
        let here: IpAddr = [127, 0, 0, 1].into();
        let heard = Arc::new(AtomicBool::new(true));
        let (_client, mut client_closed) = anonymous.admit(here, Arc::clone(&heard), None);
        let flood: Vec<_> = (0..10)
            .map(|_| anonymous.admit(here, silent(), None))
            .collect();
        assert!(client_closed.try_recv().is_err());
        assert_eq!(flood.len(), 10);
    }

    #[test]
    fn connections_that_just_sent_their_requests_are_never_closed_for_room() {
        let anonymous = Anonymous::new(2, 2);
        let here: IpAddr = [127, 0, 0, 1].into();
        let spoke = || Arc::new(AtomicBool::new(true));
        let (_standings, mut closed): (Vec<_>, Vec<_>) = (0..10)
            .map(|_| anonymous.admit(here, spoke(), None))
            .unzip();
        assert_eq!(anonymous.count(), 10);
        for closed in &mut closed {
            assert_eq!(closed.try_recv(), Err(oneshot::error::TryRecvError::Empty));
        }
    }

    #[test]
    fn an_authenticated_connection_leaves_the_budget_and_is_never_closed() {
        let anonymous = Anonymous::new(1, 1);
        let here: IpAddr = [127, 0, 0, 1].into();
        let (client, mut closed) = anonymous.admit(here, silent(), None);
        client.authenticate();
        assert_eq!(anonymous.count(), 0);
        let (_flood, _) = anonymous.admit(here, silent(), None);
        let (_more, _) = anonymous.admit(here, silent(), None);
        assert!(closed.try_recv().is_err());
        assert!(client.is_authenticated());
    }

    #[test]
    fn the_budget_leaves_a_place_and_an_ipv6_host_counts_once()
    -> Result<(), std::net::AddrParseError> {
        assert_eq!(most_for(320), 80);
        assert_eq!(most_for(8), 7);
        assert_eq!(most_for(1), 1);
        let anonymous = Anonymous::new(10, 2);
        let one: IpAddr = "2001:db8:1:2::1".parse()?;
        let same_host: IpAddr = "2001:db8:1:2:ffff::9".parse()?;
        let (_first, mut first_closed) = anonymous.admit(one, silent(), None);
        let (_second, _) = anonymous.admit(same_host, silent(), None);
        let (_third, _) = anonymous.admit(one, silent(), None);
        assert!(first_closed.try_recv().is_ok());
        Ok(())
    }
}
