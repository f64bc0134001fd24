//! Dumps: a session, idle or suspended at a cursor, as sealed bytes
//! (`Session::dump`), and a session rebuilt from them in a fresh worker
//! (`Session::restore`), in this process or another.
//!
//! The bytes leave the host untrusted, so they are sealed (`stockade-dump`)
//! under the host's keys and bound to its context; everything is checked in
//! the host before a byte reaches a worker. The engine's state travels as
//! the image its worker made (monty serialises its interpreter); the rest
//! (guest time, callable names, the pending cursor) is the host's record.
//! The restoring host's options and functions apply, never the dump's.

mod body;
mod replay;

use std::time::{Duration, Instant};

use stockade_dump::{DumpError, Kind, SealKeys, open, seal};
use stockade_wire::{Interpreter, Request, Response};

use self::body::{Body, Suspension};
use super::turn::Turn;
use super::{Reply, Session, TurnDeadline};
use crate::error::Error;
use crate::options::SessionOptions;
use crate::progress::Progress;
use crate::session::Pause;
use crate::session::step::Suspended;

/// The keys and context that seal and open a host's dumps.
#[derive(Debug)]
pub struct DumpSeal {
    keys: SealKeys,
    context: Vec<u8>,
}

impl DumpSeal {
    /// `keys` (at least one, each at least 32 random bytes; the first
    /// seals, any opens, so keys can rotate) and `context`, which a dump
    /// is bound to (a tenant or conversation id): a dump sealed for one
    /// context never opens under another.
    pub fn new<K: AsRef<[u8]>>(keys: &[K], context: impl Into<Vec<u8>>) -> Result<Self, Error> {
        let keys = SealKeys::new(keys).map_err(|err| Error::invalid_option(err.to_string()))?;
        Ok(Self {
            keys,
            context: context.into(),
        })
    }
}

/// The engines whose workers image their sessions.
fn images(engine: Interpreter) -> bool {
    engine == Interpreter::Monty
}

/// Opens `bytes` for a session of `engine`: the engine version it was
/// made by, and its body.
fn opened(
    seal_with: &DumpSeal,
    bytes: &[u8],
    engine: Interpreter,
) -> Result<(String, Body), Error> {
    let (header, plaintext) = open(&seal_with.keys, &seal_with.context, bytes).map_err(rejected)?;
    if header.engine != engine.name() {
        return Err(Error::DumpRejected(format!(
            "the dump holds a {} session, but this is a {engine} session",
            header.engine
        )));
    }
    let body = Body::read(&plaintext)
        .map_err(|why| Error::DumpRejected(format!("its body is malformed: {why}")))?;
    Ok((header.engine_version, body))
}

fn rejected(err: DumpError) -> Error {
    match err {
        DumpError::VersionMismatch { found, expected } => Error::DumpVersionMismatch {
            found: format!("dump format {found}"),
            expected: format!("dump format {expected}"),
        },
        other => Error::DumpRejected(other.to_string()),
    }
}

impl Session {
    /// The session as sealed bytes: between feeds, or suspended at a cursor
    /// (the dump then holds the cursor, which a restored session announces
    /// again). The session is unaffected and goes on.
    ///
    /// A remote session its server ended by shutting down
    /// (`Error::ServerShutdown`) is lost, yet dumps all the same: from the
    /// image the server sent of it, or from its journal.
    pub fn dump(&mut self, seal_with: &DumpSeal) -> Result<Vec<u8>, Error> {
        let shutdown_image = match &self.lost {
            Some(Error::ServerShutdown(_)) => Some(self.worker.shutdown_image()),
            Some(err) => return Err(err.clone()),
            None => None,
        };
        if !self.worker.owned() {
            return Err(Error::Forked {
                owner: self.worker.owner(),
            });
        }
        let engine = self.options.interpreter();
        let (image, journal) = if images(engine) {
            match shutdown_image {
                None => (self.snapshot()?, None),
                Some(Some(image)) => (image, None),
                Some(None) => {
                    return Err(self.lost.clone().unwrap_or_else(|| {
                        Error::ServerShutdown("the server sent no image".into())
                    }));
                }
            }
        } else {
            match &self.journal {
                Some(journal) => match journal.broken() {
                    Some(why) => {
                        return Err(Error::invalid_option(format!(
                            "this session cannot be dumped: {why}"
                        )));
                    }
                    // A feed the shutdown cut off is left out: the dump
                    // is the session as it was before it.
                    None if shutdown_image.is_some() => {
                        (Vec::new(), Some((journal.seed, journal.finished_entries())))
                    }
                    None => (Vec::new(), Some((journal.seed, journal.entries.clone()))),
                },
                None => {
                    return Err(Error::invalid_option(format!(
                        "a {engine} session can be dumped only if it keeps a journal from its start: make it with SessionOptions::dumpable (the Python package: dump_keys=)"
                    )));
                }
            }
        };
        let suspension = self.suspended.as_ref().map(|suspended| Suspension {
            cursor: suspended.cursor,
            calls: suspended.turn.calls(),
            deferred: self.step_futures.ids(),
            pause: suspended.pause.clone(),
        });
        let mut listed: Vec<String> = self.listed.iter().cloned().collect();
        listed.sort_unstable();
        // A CPython replay writes its scratch again; the host keeps the
        // others', which nothing would rebuild.
        let scratch = match (&mut self.files, engine) {
            (_, Interpreter::CPython) | (None, _) => Vec::new(),
            (Some(files), _) => files.scratch_contents().map_err(|why| {
                Error::Conversion(format!("the scratch directory cannot be dumped: {why}"))
            })?,
        };
        let body = Body {
            elapsed_us: u64::try_from(self.elapsed.as_micros()).unwrap_or(u64::MAX),
            cursors: self.cursors,
            listed,
            image,
            journal,
            suspension,
            scratch,
        };
        let plaintext = body.write().map_err(Error::Conversion)?;
        let kind = if self.suspended.is_some() {
            Kind::Suspended
        } else {
            Kind::Idle
        };
        seal(
            &seal_with.keys,
            &seal_with.context,
            kind,
            engine.name(),
            &self.info.engine,
            &plaintext,
            self.wire.max_frame as u64,
        )
        .map_err(|err| match err {
            DumpError::TooLarge { size, limit } => Error::Conversion(format!(
                "the dump would take {size} bytes, more than the {limit} a dump may (the frame limit); the session is unaffected"
            )),
            other => Error::Conversion(other.to_string()),
        })
    }

    /// The worker's image, for a server ending the session (`relay.rs`):
    /// None when its engine keeps no image (a journaled session's client
    /// holds the journal) or the worker cannot give one.
    pub(crate) fn image_for_shutdown(&mut self) -> Option<Vec<u8>> {
        if !images(self.options.interpreter()) || self.lost.is_some() {
            return None;
        }
        self.snapshot().ok()
    }

    /// Asks the worker for its image, idle or suspended (a suspended
    /// worker answers and goes on waiting).
    fn snapshot(&mut self) -> Result<Vec<u8>, Error> {
        self.answer(&Request::Snapshot)?;
        let deadline = TurnDeadline {
            at: Instant::now() + self.options.request_timeout,
            backstop: false,
        };
        let reply = self.recv_within(deadline, self.options.max_result_bytes);
        if reply.is_err() || matches!(reply, Ok(Reply::Message(Response::Error { .. }))) {
            // A suspended worker that cannot image itself ends its feed; a
            // lost one has no feed: either way no cursor is live any more.
            self.suspended = None;
        }
        match reply? {
            Reply::Message(Response::Image { image, .. }) => Ok(image),
            Reply::Message(Response::Error { exception, .. }) => {
                Err(Error::Protocol(exception.message))
            }
            Reply::Message(other) => Err(self.broken(format!(
                "the worker answered Snapshot with {}",
                other.name()
            ))),
            Reply::TooLarge { .. } => Err(Error::ResultTooLarge {
                limit: self.options.max_result_bytes,
            }),
        }
    }

    /// A session rebuilt from `bytes` (a dump sealed under one of `seal`'s
    /// keys for its context) in a fresh worker started with `options`,
    /// idle or suspended where the dump was made (`pending` gives the
    /// cursor). Nothing reaches a worker until the dump has opened and
    /// matches: another key, another context, altered or truncated bytes
    /// are `DumpRejected`; another format or engine version is
    /// `DumpVersionMismatch`. Guest time used before the dump counts
    /// against `options`' `max_duration`.
    pub fn restore(
        options: SessionOptions,
        seal_with: &DumpSeal,
        bytes: &[u8],
    ) -> Result<Session, Error> {
        // Checked before a worker starts; `restore_into` checks again.
        let (_, body) = opened(seal_with, bytes, options.interpreter())?;
        let mut options = options;
        if let Some((seed, _)) = &body.journal {
            // The replay must draw the numbers the journaled session drew;
            // a spare with this one seed would serve no other session.
            options.dumpable = true;
            match options.interpreter() {
                Interpreter::CPython => options.journal_seed = Some(*seed),
                _ => options.javascript.random_seed = Some(*seed),
            }
            options.spare = false;
        }
        let mut session = Session::new(options)?;
        session.restore_into(seal_with, bytes)?;
        Ok(session)
    }

    /// Restores `bytes` into this session, which must not have run
    /// anything yet (a pool's checkout, say); as `restore` otherwise.
    pub fn restore_into(&mut self, seal_with: &DumpSeal, bytes: &[u8]) -> Result<(), Error> {
        if let Some(err) = &self.lost {
            return Err(err.clone());
        }
        if self.fed {
            return Err(Error::DumpRejected(
                "a dump restores only into a fresh session, and this one has already run code"
                    .into(),
            ));
        }
        let (engine_version, body) = opened(seal_with, bytes, self.options.interpreter())?;
        if self.info.engine != engine_version {
            return Err(Error::DumpVersionMismatch {
                found: engine_version,
                expected: self.info.engine.clone(),
            });
        }
        if let Some((seed, _)) = &body.journal
            && self.journal.as_ref().map(|j| j.seed) != Some(*seed)
        {
            return Err(Error::DumpRejected(
                "a journaled dump restores only into a worker seeded as its session was: restore it with Session::restore".into(),
            ));
        }
        self.files().restore_scratch(body.scratch).map_err(|why| {
            Error::DumpRejected(format!("its scratch directory cannot be restored: {why}"))
        })?;
        if let Some((_, entries)) = body.journal {
            self.cursors = body.cursors;
            self.listed.extend(body.listed);
            self.replay(&entries, body.suspension)?;
            let recorded = Duration::from_micros(body.elapsed_us);
            self.elapsed = self.elapsed.max(recorded);
            // Two restores of one dump must not draw the same numbers from
            // here on; the feed in flight, if any, finishes on the old ones.
            self.reseed_before_feed = true;
            return Ok(());
        }
        self.fed = true;
        self.elapsed = Duration::from_micros(body.elapsed_us);
        self.cursors = body.cursors;
        self.listed.extend(body.listed.iter().cloned());
        self.answer(&Request::Restore {
            image: body.image,
            functions: body.listed,
        })?;
        match body.suspension {
            None => self.await_restored(),
            Some(suspension) => self.resume_suspension(suspension),
        }
    }

    /// Mixes a fresh seed into a restored journaled session's randomness
    /// (journaled, so that a replay of this session mixes in the same).
    pub(in crate::session) fn reseed(&mut self) -> Result<(), Error> {
        self.answer(&Request::Reseed {
            seed: crate::session::journal::fresh_seed(),
        })?;
        self.await_restored().map_err(|err| match err {
            Error::DumpRejected(why) => {
                Error::Protocol(format!("cannot reseed the session: {why}"))
            }
            other => other,
        })
    }

    /// Waits for an idle restore's Restored.
    fn await_restored(&mut self) -> Result<(), Error> {
        let deadline = TurnDeadline {
            at: Instant::now() + self.options.request_timeout,
            backstop: false,
        };
        match self.recv_within(deadline, self.options.max_result_bytes)? {
            Reply::Message(Response::Restored { elapsed_us }) => {
                self.elapsed = self.elapsed.max(Duration::from_micros(elapsed_us));
                Ok(())
            }
            Reply::Message(Response::Error { exception, .. }) => Err(Error::DumpRejected(format!(
                "the worker could not restore it: {}",
                exception.message
            ))),
            Reply::Message(other) => {
                Err(self.broken(format!("the worker answered Restore with {}", other.name())))
            }
            Reply::TooLarge { .. } => {
                Err(self.broken("the worker answered Restore with a huge frame".into()))
            }
        }
    }

    /// Runs a restored suspended feed to where it was dumped: the worker
    /// announces the same pause again, which becomes the live cursor under
    /// its old number.
    fn resume_suspension(&mut self, suspension: Suspension) -> Result<(), Error> {
        self.step_futures = super::step::StepFutures::from_ids(&suspension.deferred);
        let mut turn = Turn::new(self.elapsed, self.options.max_result_bytes);
        // The re-announced call or lookup is counted again as it arrives.
        let recounted = matches!(suspension.pause, Pause::Call { .. } | Pause::Lookup { .. });
        turn.set_calls(suspension.calls.saturating_sub(u32::from(recounted)));
        let cursors = self.cursors.max(suspension.cursor);
        let progress = self.advance(turn)?;
        let completed = matches!(progress, Progress::Complete(_));
        drop(progress);
        self.cursors = cursors;
        match &mut self.suspended {
            Some(Suspended { pause, cursor, .. })
                if !completed && pause.same_as(&suspension.pause) =>
            {
                // The cursor keeps the number it had when it was dumped.
                *cursor = suspension.cursor;
                Ok(())
            }
            other => {
                let found = other
                    .as_ref()
                    .map_or("the end of its feed".to_owned(), |s| s.pause.describe());
                let err = Error::DumpRejected(format!(
                    "the restored worker stopped at {found}, but the dump was made at {}",
                    suspension.pause.describe()
                ));
                self.suspended = None;
                Err(self.record_lost(err))
            }
        }
    }
}
