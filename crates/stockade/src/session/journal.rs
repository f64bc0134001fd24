//! The journal of a dumpable session whose engine cannot serialise itself
//! (QuickJS, CPython): every Feed and every answer the host sent, every suspension
//! the worker announced, every clock reading it reported, and how each
//! feed ended, as the frames that crossed. A restore replays it in a fresh
//! worker: the same requests go out, and what comes back must match what
//! the journal holds, entry by entry, or the replay has diverged.
//!
//! Entries are kept as encoded frames, so equality is byte equality (a NaN
//! in an argument compares equal to itself) and the journal's size is
//! known; past the frame limit it stops and the session can no longer be
//! dumped.

use stockade_wire::{
    ErrorKind, FRAME_HEADER_LEN, Request, Response, WireLimits, decode_response, encode_response,
};

/// What one journal entry records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EntryKind {
    /// A Feed the host sent (a request frame).
    Feed = 1,
    /// An answer the host sent: Resume, LookupReply or Resolve.
    Answer = 2,
    /// A Call, Lookup, Await or OsCall the worker announced (its time zeroed).
    Stop = 3,
    /// The clock readings the worker reported for the feed.
    Clock = 4,
    /// The feed completed.
    Completed = 5,
    /// The feed raised.
    Raised = 6,
    /// A Reseed the host sent between feeds after a restore (a request
    /// frame): a replay sends it again at the same place.
    Reseed = 7,
}

impl EntryKind {
    pub(crate) fn from_byte(byte: u8) -> Option<Self> {
        Some(match byte {
            1 => EntryKind::Feed,
            2 => EntryKind::Answer,
            3 => EntryKind::Stop,
            4 => EntryKind::Clock,
            5 => EntryKind::Completed,
            6 => EntryKind::Raised,
            7 => EntryKind::Reseed,
            _ => return None,
        })
    }
}

/// One entry: its kind and, for frames, the frame's bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub kind: EntryKind,
    pub frame: Vec<u8>,
}

impl Entry {
    /// The entry in words, for a divergence report.
    pub(crate) fn describe(&self) -> String {
        let response = || {
            self.frame
                .get(FRAME_HEADER_LEN..)
                .and_then(|payload| decode_response(payload, &WireLimits::default()).ok())
        };
        match self.kind {
            EntryKind::Feed => "a feed".into(),
            EntryKind::Answer => "the host's answer".into(),
            EntryKind::Completed => "the feed's end".into(),
            EntryKind::Raised => "the feed raising an exception".into(),
            EntryKind::Reseed => "a reseed after a restore".into(),
            EntryKind::Clock => match response() {
                Some(Response::Clock { readings_ms }) => {
                    format!("{} clock readings", readings_ms.len())
                }
                _ => "clock readings".into(),
            },
            EntryKind::Stop => match response() {
                Some(Response::Call { name, .. }) => format!("a call to `{name}`"),
                Some(Response::Lookup { name, .. }) => format!("a lookup of `{name}`"),
                Some(Response::Await { call_ids, .. }) => format!("an await of calls {call_ids:?}"),
                Some(Response::OsCall { name, .. }) => format!("an OS call `{name}`"),
                _ => "a suspension".into(),
            },
        }
    }
}

/// A seed for a journaled session's randomness (and, after a restore, the
/// seed mixed into it): from the kernel's random source, so that it is
/// unpredictable outside the host and different from session to session.
/// A guest can learn its own seed, which tells it nothing it could not
/// draw itself. 64 bits: see docs/sessions.md.
pub(crate) fn fresh_seed() -> u64 {
    let mut bytes = [0u8; 8];
    let mut filled = 0;
    while filled < bytes.len() {
        match rustix::rand::getrandom(&mut bytes[filled..], rustix::rand::GetRandomFlags::empty()) {
            Ok(read) => filled += read,
            Err(rustix::io::Errno::INTR) => {}
            // No getrandom (a kernel before 3.17): std's hasher keys come
            // from the OS's randomness too.
            Err(_) => {
                use std::hash::BuildHasher;
                return std::hash::RandomState::new().hash_one(std::time::SystemTime::now());
            }
        }
    }
    u64::from_le_bytes(bytes)
}

/// A session's journal so far.
#[derive(Debug)]
pub(crate) struct Journal {
    /// The seed the worker's Math.random was started with.
    pub seed: u64,
    pub entries: Vec<Entry>,
    bytes: u64,
    /// The most bytes the journal may hold (the session's
    /// `max_result_bytes`, at most the frame limit).
    limit: u64,
    /// Why the session can no longer be replayed, once it cannot.
    broken: Option<String>,
}

impl Journal {
    /// Why a dump of this session cannot be made, if it cannot.
    pub(crate) fn broken(&self) -> Option<&str> {
        self.broken.as_deref()
    }

    fn push(&mut self, kind: EntryKind, frame: Vec<u8>) {
        if self.broken.is_some() {
            return;
        }
        self.bytes = self.bytes.saturating_add(frame.len() as u64 + 8);
        if self.bytes > self.limit {
            self.break_with(&format!(
                "its journal passed {} bytes (max_result_bytes, at most the frame limit)",
                self.limit
            ));
            return;
        }
        self.entries.push(Entry { kind, frame });
    }

    /// Records a request the host sent, if the journal keeps its kind.
    pub(crate) fn sent(&mut self, request: &Request, frame: &[u8]) {
        let kind = match request {
            Request::Feed { .. } => EntryKind::Feed,
            Request::Resume { .. }
            | Request::LookupReply(_)
            | Request::Resolve { .. }
            | Request::OsReply(_) => EntryKind::Answer,
            Request::Reseed { .. } => EntryKind::Reseed,
            _ => return,
        };
        self.push(kind, frame.to_vec());
    }

    /// Records what the worker said, if the journal keeps its kind: a
    /// suspension (with its time zeroed, which a replay never matches), the
    /// clock readings, or the feed's end.
    pub(crate) fn received(&mut self, response: &Response) {
        let stop = match response {
            Response::Call {
                call_id,
                name,
                args,
                kwargs,
                ..
            } => Response::Call {
                elapsed_us: 0,
                call_id: *call_id,
                name: name.clone(),
                args: args.clone(),
                kwargs: kwargs.clone(),
            },
            Response::Lookup { name, .. } => Response::Lookup {
                elapsed_us: 0,
                name: name.clone(),
            },
            Response::Await { call_ids, .. } => Response::Await {
                elapsed_us: 0,
                call_ids: call_ids.clone(),
            },
            Response::OsCall {
                name, args, kwargs, ..
            } => Response::OsCall {
                elapsed_us: 0,
                name: name.clone(),
                args: args.clone(),
                kwargs: kwargs.clone(),
            },
            Response::Clock { .. } => {
                self.encoded(EntryKind::Clock, response);
                return;
            }
            Response::Complete { .. } => return self.push(EntryKind::Completed, Vec::new()),
            Response::Error { kind, .. } => {
                if matches!(kind, ErrorKind::Timeout | ErrorKind::Memory) {
                    self.break_with(
                        "a feed ended at a time or memory limit, which a replay cannot reproduce",
                    );
                }
                return self.push(EntryKind::Raised, Vec::new());
            }
            _ => return,
        };
        self.encoded(EntryKind::Stop, &stop);
    }

    fn encoded(&mut self, kind: EntryKind, response: &Response) {
        match encode_response(response, &WireLimits::default()) {
            Ok(frame) => self.push(kind, frame),
            Err(err) => self.break_with(&format!("a message could not be journaled: {err}")),
        }
    }

    /// An empty journal of a worker seeded with `seed`, holding at most
    /// `limit` bytes.
    pub(crate) fn seeded(seed: u64, limit: u64) -> Self {
        Self {
            seed,
            entries: Vec::new(),
            bytes: 0,
            limit: limit.min(WireLimits::default().max_frame as u64),
            broken: None,
        }
    }

    /// Ends the journal: the session can no longer be dumped, for `why`.
    pub(crate) fn break_with(&mut self, why: &str) {
        if self.broken.is_none() {
            self.entries = Vec::new();
            self.broken = Some(why.to_owned());
        }
    }

    /// The entries up to the end of the last feed that ended: a feed a
    /// server's shutdown cut off never finished, and a replay must not
    /// wait for its end.
    pub(crate) fn finished_entries(&self) -> Vec<Entry> {
        let end = self
            .entries
            .iter()
            .rposition(|entry| {
                matches!(
                    entry.kind,
                    EntryKind::Completed | EntryKind::Raised | EntryKind::Reseed
                )
            })
            .map_or(0, |at| at + 1);
        self.entries[..end].to_vec()
    }

    /// Records an entry a replay re-sent or re-read.
    pub(crate) fn replayed(&mut self, entry: &Entry) {
        self.push(entry.kind, entry.frame.clone());
    }
}
