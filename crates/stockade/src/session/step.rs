//! Stepping: a feed that stops at each suspension (a host call, a name
//! lookup, guest tasks awaiting pending calls) and hands the host a cursor
//! instead of answering itself. `run` drives the same turn (`next_stop`)
//! and answers for the host; here the answer comes through `reply`.
//!
//! While suspended the worker waits and no deadline runs: the time is the
//! host's. The suspension lives in the session, not in the cursor, so a
//! cursor dropped unanswered can be taken up again (`Session::pending`),
//! and a stale one (a binding's, resumed twice) is refused by its number.

use std::collections::HashSet;
use std::time::Instant;

use stockade_wire::{
    CallOutcome, GuestException, LookupOutcome, Request, Value, encode_request, encode_value,
};

use crate::error::Error;
use crate::host::{Args, HostError};
use crate::progress::{CursorAnswer, Progress};

use super::turn::{Stop, Turn};
use super::{Session, check_input};

/// What a suspended feed waits for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Pause {
    Call {
        call_id: u32,
        name: String,
        args: Args,
    },
    Lookup {
        name: String,
    },
    Await {
        call_ids: Vec<u32>,
    },
}

impl Pause {
    /// Whether two pauses are the same, values compared by their encoding
    /// (so an argument that is NaN equals itself).
    pub(crate) fn same_as(&self, other: &Pause) -> bool {
        match (self.key(), other.key()) {
            (Some(mine), Some(theirs)) => mine == theirs,
            // A pause that cannot be encoded matches nothing.
            _ => false,
        }
    }

    fn key(&self) -> Option<Vec<u8>> {
        let (tag, value) = match self {
            Pause::Call {
                call_id,
                name,
                args,
            } => (
                1u8,
                Value::Tuple(vec![
                    Value::Int(i64::from(*call_id)),
                    Value::Str(name.clone()),
                    Value::List(args.positional.clone()),
                    Value::List(
                        args.keyword
                            .iter()
                            .map(|(k, v)| Value::Tuple(vec![Value::Str(k.clone()), v.clone()]))
                            .collect(),
                    ),
                ]),
            ),
            Pause::Lookup { name } => (2, Value::Str(name.clone())),
            Pause::Await { call_ids } => (
                3,
                Value::List(
                    call_ids
                        .iter()
                        .map(|id| Value::Int(i64::from(*id)))
                        .collect(),
                ),
            ),
        };
        let mut key = vec![tag];
        key.extend(encode_value(&value, &stockade_wire::WireLimits::default()).ok()?);
        Some(key)
    }

    /// The pause in words, for errors: "a call to `fetch`".
    pub(crate) fn describe(&self) -> String {
        match self {
            Pause::Call { name, .. } => format!("a call to `{name}`"),
            Pause::Lookup { name } => format!("a lookup of `{name}`"),
            Pause::Await { call_ids } => format!("guest tasks awaiting calls {call_ids:?}"),
        }
    }
}

/// A feed suspended at a pause, waiting for the host.
#[derive(Debug)]
pub(crate) struct Suspended {
    /// The cursor's number, unique in the session.
    pub(crate) cursor: u64,
    pub(crate) pause: Pause,
    pub(super) turn: Turn,
    /// When the feed stopped: the time until the answer is the host's.
    since: Instant,
}

/// Pending futures of the current stepped feed (calls answered `Defer`).
#[derive(Debug, Default)]
pub(super) struct StepFutures(HashSet<u32>);

impl Suspended {
    /// A feed suspended now at `pause`, as cursor `cursor`.
    pub(crate) fn at(cursor: u64, pause: Pause, turn: Turn) -> Self {
        Self {
            cursor,
            pause,
            turn,
            since: Instant::now(),
        }
    }
}

impl StepFutures {
    /// The deferred calls' ids, in order.
    pub(super) fn ids(&self) -> Vec<u32> {
        let mut ids: Vec<u32> = self.0.iter().copied().collect();
        ids.sort_unstable();
        ids
    }

    pub(super) fn from_ids(ids: &[u32]) -> Self {
        Self(ids.iter().copied().collect())
    }
}

impl Session {
    /// Starts `code` (after binding `inputs`) as a stepped feed: the feed
    /// runs until its first suspension or its end. Registered functions are
    /// callable by name, but the host is handed every call instead of the
    /// function being run; every lookup comes to the host too.
    pub fn start(
        &mut self,
        code: &str,
        inputs: Vec<(String, Value)>,
    ) -> Result<Progress<'_>, Error> {
        self.install_script_packages(code)?;
        let (turn, feed) = self.prepare_feed(code, inputs, Default::default())?;
        self.step_futures = StepFutures::default();
        self.answer(&feed)?;
        self.advance(turn)
    }

    /// The cursor of a suspended feed, again (after its handle was dropped
    /// unanswered); `None` when no feed is suspended.
    pub fn pending(&mut self) -> Option<Progress<'_>> {
        if self.lost.is_some() {
            return None;
        }
        let cursor = self.suspended.as_ref()?.cursor;
        Some(Progress::suspended(self, cursor))
    }

    /// The error for feeding a session that is suspended, if it is.
    pub(super) fn refuse_if_suspended(&self) -> Result<(), Error> {
        match &self.suspended {
            None => Ok(()),
            Some(suspended) => Err(Error::Cursor(format!(
                "the session is suspended at cursor {} ({}); answer it before feeding the session again",
                suspended.cursor,
                suspended.pause.describe()
            ))),
        }
    }

    /// The current pause, when the feed is suspended at cursor `cursor`.
    pub(crate) fn pause_at(&self, cursor: u64) -> Option<&Pause> {
        self.suspended
            .as_ref()
            .filter(|s| s.cursor == cursor)
            .map(|s| &s.pause)
    }

    /// Answers cursor `cursor` with `reply` and runs the feed on to its
    /// next suspension or its end. An answer that does not fit the pause,
    /// or a cursor that is not the live one, is refused before anything is
    /// sent, and the feed stays suspended.
    pub(crate) fn reply(
        &mut self,
        cursor: u64,
        reply: CursorAnswer,
    ) -> Result<Progress<'_>, Error> {
        if let Some(err) = &self.lost {
            return Err(err.clone());
        }
        let Some(suspended) = self.suspended.as_ref().filter(|s| s.cursor == cursor) else {
            return Err(Error::Cursor(if cursor <= self.cursors {
                format!("cursor {cursor} was already answered; a cursor resumes at most once")
            } else {
                format!("cursor {cursor} was never given out by this session")
            }));
        };
        let request = self.request_for(suspended, reply)?;
        let Some(mut suspended) = self.suspended.take() else {
            return Err(Error::Cursor(format!("cursor {cursor} is not live")));
        };
        suspended.turn.add_host_time(suspended.since.elapsed());
        if let Request::Resume {
            call_id,
            outcome: CallOutcome::Pending,
        } = &request
        {
            self.step_futures.0.insert(*call_id);
        }
        if let Request::Resolve { results } = &request {
            for (call_id, _) in results {
                self.step_futures.0.remove(call_id);
            }
        }
        if let Request::LookupReply(LookupOutcome::Function) = &request
            && let Pause::Lookup { name } = &suspended.pause
        {
            self.listed.insert(name.clone());
        }
        if matches!(
            request,
            Request::Resume {
                outcome: CallOutcome::Abort(_),
                ..
            }
        ) {
            suspended.turn.abort();
        }
        self.answer(&request)?;
        self.advance(suspended.turn)
    }

    /// The request that answers `suspended` with `reply`, checked: values
    /// that cannot cross and answers of the wrong kind are refused here.
    fn request_for(&self, suspended: &Suspended, reply: CursorAnswer) -> Result<Request, Error> {
        let cursor = suspended.cursor;
        let wrong = |what: &str| {
            Err(Error::Cursor(format!(
                "cursor {cursor} is {}, which cannot be answered with {what}",
                suspended.pause.describe()
            )))
        };
        let request = match (&suspended.pause, reply) {
            (Pause::Call { call_id, name, .. }, CursorAnswer::Return(value)) => {
                check_input(&format!("the result of {name}"), &value, &self.wire)?;
                Request::Resume {
                    call_id: *call_id,
                    outcome: CallOutcome::Return(value),
                }
            }
            (Pause::Call { call_id, .. }, CursorAnswer::Raise(err)) => Request::Resume {
                call_id: *call_id,
                outcome: CallOutcome::Raise(GuestException::new(&err.type_name, &err.message)),
            },
            (Pause::Call { call_id, .. }, CursorAnswer::Defer) => {
                let outcome = if self.step_futures.0.len()
                    >= self.options.max_inflight_host_calls as usize
                {
                    CallOutcome::Abort(format!(
                        "max_inflight_host_calls exceeded: at most {} async host calls may be in flight",
                        self.options.max_inflight_host_calls
                    ))
                } else {
                    CallOutcome::Pending
                };
                Request::Resume {
                    call_id: *call_id,
                    outcome,
                }
            }
            (Pause::Lookup { name }, CursorAnswer::Bind(value)) => {
                check_input(name, &value, &self.wire)?;
                Request::LookupReply(LookupOutcome::Value(value))
            }
            (Pause::Lookup { .. }, CursorAnswer::Function) => {
                Request::LookupReply(LookupOutcome::Function)
            }
            (Pause::Lookup { .. }, CursorAnswer::NotFound) => {
                Request::LookupReply(LookupOutcome::Undefined)
            }
            (Pause::Await { call_ids }, CursorAnswer::Resolve(results)) => {
                resolution(cursor, call_ids, results, self)?
            }
            (_, CursorAnswer::Return(_)) => return wrong("a return value"),
            (_, CursorAnswer::Raise(_)) => return wrong("an exception"),
            (_, CursorAnswer::Defer) => return wrong("a pending future"),
            (_, CursorAnswer::Bind(_)) => return wrong("a value for a name"),
            (_, CursorAnswer::Function) => return wrong("a function for a name"),
            (_, CursorAnswer::NotFound) => return wrong("`not found`"),
            (_, CursorAnswer::Resolve(_)) => return wrong("future outcomes"),
        };
        // A value that passes `check_input` may still not fit in a frame.
        encode_request(&request, &self.wire)
            .map_err(|err| Error::Conversion(format!("cursor {cursor}'s answer: {err}")))?;
        Ok(request)
    }

    /// Runs the feed until the host must answer (a new cursor) or it ends.
    /// Calls and lookups past `max_host_calls` end the feed here, as in `run`.
    pub(super) fn advance(&mut self, mut turn: Turn) -> Result<Progress<'_>, Error> {
        loop {
            let pause = match self.next_stop(&mut turn)? {
                Stop::Complete(value) => {
                    self.step_futures = StepFutures::default();
                    return Ok(Progress::Complete(value));
                }
                Stop::OsCall => {
                    return Err(self.broken("an OS call stopped a turn outside a replay".into()));
                }
                Stop::Call {
                    call_id,
                    name,
                    args,
                } => {
                    if !self.listed.contains(&name) {
                        return Err(self.broken(format!(
                            "the worker called host function {name:?}, which it was never given"
                        )));
                    }
                    if let Some(abort) = self.count_host_call(&mut turn) {
                        self.answer(&Request::Resume {
                            call_id,
                            outcome: CallOutcome::Abort(abort),
                        })?;
                        continue;
                    }
                    Pause::Call {
                        call_id,
                        name,
                        args,
                    }
                }
                Stop::Lookup { name } => {
                    if let Some(abort) = self.count_host_call(&mut turn) {
                        self.answer(&Request::LookupReply(LookupOutcome::Abort(abort)))?;
                        continue;
                    }
                    Pause::Lookup { name }
                }
                Stop::Await { call_ids } => {
                    if call_ids.is_empty()
                        || !call_ids.iter().all(|id| self.step_futures.0.contains(id))
                    {
                        return Err(self.broken(format!(
                            "the worker awaited calls {call_ids:?}, which are not pending"
                        )));
                    }
                    Pause::Await { call_ids }
                }
            };
            self.cursors += 1;
            let cursor = self.cursors;
            self.suspended = Some(Suspended {
                cursor,
                pause,
                turn,
                since: Instant::now(),
            });
            return Ok(Progress::suspended(self, cursor));
        }
    }
}

/// The Resolve request for `results`, each one an awaited call's.
fn resolution(
    cursor: u64,
    awaited: &[u32],
    results: Vec<(u32, Result<Value, HostError>)>,
    session: &Session,
) -> Result<Request, Error> {
    if results.is_empty() {
        return Err(Error::Cursor(format!(
            "cursor {cursor}: resolve at least one of the awaited calls {awaited:?}"
        )));
    }
    let mut seen = HashSet::new();
    let mut outcomes = Vec::with_capacity(results.len());
    for (call_id, result) in results {
        if !awaited.contains(&call_id) {
            return Err(Error::Cursor(format!(
                "cursor {cursor}: call {call_id} is not among the awaited calls {awaited:?}"
            )));
        }
        if !seen.insert(call_id) {
            return Err(Error::Cursor(format!(
                "cursor {cursor}: call {call_id} is resolved twice"
            )));
        }
        outcomes.push((
            call_id,
            match result {
                Ok(value) => {
                    check_input(
                        &format!("the result of call {call_id}"),
                        &value,
                        &session.wire,
                    )?;
                    CallOutcome::Return(value)
                }
                Err(err) => CallOutcome::Raise(GuestException::new(&err.type_name, &err.message)),
            },
        ));
    }
    Ok(Request::Resolve { results: outcomes })
}
