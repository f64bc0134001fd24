//! The cursors of a stepped feed (`Session::start`): what the suspended
//! feed waits for, and the answers the host may give. A cursor borrows its
//! session, so nothing else can feed the session meanwhile, and answering
//! consumes it, so it resumes at most once. Bindings that cannot hold a
//! borrow answer by number through `Session::answer_cursor`, which refuses
//! a cursor that is not the live one.
//!
//! ```no_run
//! use stockade::{Language, Progress, Session, SessionOptions, Value};
//!
//! let mut session = Session::new(SessionOptions::new(Language::Python))?;
//! session.declare_function("price");
//! let mut progress = session.start("price('apple') * 3", Vec::new())?;
//! let value = loop {
//!     progress = match progress {
//!         Progress::FunctionCall(call) => call.resume(Value::Float(1.25))?,
//!         Progress::NameLookup(lookup) => lookup.resume_not_found()?,
//!         Progress::PendingFutures(futures) => {
//!             let ids = futures.call_ids().to_vec();
//!             futures.resolve(ids.into_iter().map(|id| (id, Ok(Value::None))).collect())?
//!         }
//!         Progress::Complete(value) => break value,
//!     };
//! };
//! assert_eq!(value, Value::Float(3.75));
//! # Ok::<(), stockade::Error>(())
//! ```

use stockade_wire::Value;

use crate::error::Error;
use crate::host::{Args, HostError};
use crate::session::{DumpSeal, Pause, Session};

/// Where a stepped feed is: suspended at a cursor, or complete.
#[derive(Debug)]
pub enum Progress<'s> {
    /// The guest called a host function and waits for its outcome.
    FunctionCall(FunctionCall<'s>),
    /// The guest read a name nothing defines.
    NameLookup(NameLookup<'s>),
    /// Every guest task waits on calls the host deferred as futures.
    PendingFutures(PendingFutures<'s>),
    /// The feed ended with this value.
    Complete(Value),
}

impl<'s> Progress<'s> {
    /// The cursor of the feed suspended at `cursor`.
    pub(crate) fn suspended(session: &'s mut Session, cursor: u64) -> Self {
        match session.pause_at(cursor) {
            Some(Pause::Call { .. }) => Progress::FunctionCall(FunctionCall { session, cursor }),
            Some(Pause::Lookup { .. }) => Progress::NameLookup(NameLookup { session, cursor }),
            _ => Progress::PendingFutures(PendingFutures { session, cursor }),
        }
    }

    /// The cursor's number, unless the feed is complete.
    pub fn cursor(&self) -> Option<u64> {
        match self {
            Progress::FunctionCall(call) => Some(call.cursor),
            Progress::NameLookup(lookup) => Some(lookup.cursor),
            Progress::PendingFutures(futures) => Some(futures.cursor),
            Progress::Complete(_) => None,
        }
    }
}

/// Where a stepped feed stopped, owned rather than borrowing its session:
/// what hosts receive that answer by number ([`Session::answer_cursor`],
/// `AsyncSession::start`), each suspension with its cursor's number.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Stepped {
    /// The guest called a host function and waits for its outcome.
    FunctionCall {
        cursor: u64,
        name: String,
        args: Args,
        call_id: u32,
    },
    /// The guest read a name nothing defines.
    NameLookup { cursor: u64, name: String },
    /// Every guest task waits on calls the host deferred.
    PendingFutures { cursor: u64, call_ids: Vec<u32> },
    /// The feed ended with this value.
    Complete(Value),
}

impl Stepped {
    /// The cursor's number, unless the feed is complete.
    pub fn cursor(&self) -> Option<u64> {
        match self {
            Stepped::FunctionCall { cursor, .. }
            | Stepped::NameLookup { cursor, .. }
            | Stepped::PendingFutures { cursor, .. } => Some(*cursor),
            Stepped::Complete(_) => None,
        }
    }
}

impl From<Progress<'_>> for Stepped {
    /// The progress, owned; the session stays suspended at the cursor
    /// (`Session::pending` gives it back).
    fn from(progress: Progress<'_>) -> Self {
        match progress {
            Progress::FunctionCall(call) => Stepped::FunctionCall {
                cursor: call.cursor,
                name: call.name().to_owned(),
                args: call.args().clone(),
                call_id: call.call_id(),
            },
            Progress::NameLookup(lookup) => Stepped::NameLookup {
                cursor: lookup.cursor,
                name: lookup.name().to_owned(),
            },
            Progress::PendingFutures(futures) => Stepped::PendingFutures {
                cursor: futures.cursor,
                call_ids: futures.call_ids().to_vec(),
            },
            Progress::Complete(value) => Stepped::Complete(value),
        }
    }
}

/// An answer to a cursor, for bindings that answer by number
/// ([`Session::answer_cursor`]); Rust hosts use the cursors' own methods.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum CursorAnswer {
    /// A function call returns this value.
    Return(Value),
    /// A function call raises this exception in the guest.
    Raise(HostError),
    /// A function call runs on: the guest gets a future, resolved later at
    /// a `PendingFutures` cursor.
    Defer,
    /// A looked-up name is this value.
    Bind(Value),
    /// A looked-up name is a host function (calls to it come as cursors).
    Function,
    /// A looked-up name is not defined: the guest gets a NameError.
    NotFound,
    /// Outcomes of some or all of the awaited calls, by call id.
    Resolve(Vec<(u32, Result<Value, HostError>)>),
}

impl Session {
    /// Answers the live cursor `cursor` of a stepped feed and runs the
    /// feed on. A cursor that was already answered, or an answer that does
    /// not fit what the feed waits for, is an `Error::Cursor`, and the
    /// feed stays suspended where it was.
    pub fn answer_cursor(
        &mut self,
        cursor: u64,
        answer: CursorAnswer,
    ) -> Result<Progress<'_>, Error> {
        self.reply(cursor, answer)
    }
}

/// Arguments of a call the fallback accessors show, which a live cursor
/// never needs (its pause is always its own kind).
static NO_ARGS: Args = Args {
    positional: Vec::new(),
    keyword: Vec::new(),
};

/// A suspended call of a host function.
#[derive(Debug)]
pub struct FunctionCall<'s> {
    session: &'s mut Session,
    cursor: u64,
}

impl<'s> FunctionCall<'s> {
    /// The cursor's number, unique in its session.
    pub fn cursor(&self) -> u64 {
        self.cursor
    }

    /// The session suspended here, as sealed bytes (`Session::dump`); a
    /// restored session announces this cursor again. The cursor stays live.
    pub fn dump(&mut self, seal: &DumpSeal) -> Result<Vec<u8>, Error> {
        self.session.dump(seal)
    }

    fn call(&self) -> Option<(u32, &str, &Args)> {
        match self.session.pause_at(self.cursor) {
            Some(Pause::Call {
                call_id,
                name,
                args,
            }) => Some((*call_id, name, args)),
            _ => None,
        }
    }

    /// The function's name.
    pub fn name(&self) -> &str {
        self.call().map_or("", |(_, name, _)| name)
    }

    /// The call's arguments.
    pub fn args(&self) -> &Args {
        self.call().map_or(&NO_ARGS, |(_, _, args)| args)
    }

    /// The call's id, by which a deferred call is resolved later.
    pub fn call_id(&self) -> u32 {
        self.call().map_or(0, |(id, _, _)| id)
    }

    /// The call returns `value`.
    pub fn resume(self, value: Value) -> Result<Progress<'s>, Error> {
        self.session.reply(self.cursor, CursorAnswer::Return(value))
    }

    /// The call raises `type_name(message)` in the guest (names outside
    /// the wire's closed set become `Exception` or `Error`).
    pub fn resume_error(self, type_name: &str, message: &str) -> Result<Progress<'s>, Error> {
        self.session.reply(
            self.cursor,
            CursorAnswer::Raise(HostError::new(type_name, message)),
        )
    }

    /// The call runs on: the guest gets a future to await, and its outcome
    /// is given at a later `PendingFutures` cursor, by `call_id`.
    pub fn resume_pending(self) -> Result<Progress<'s>, Error> {
        self.session.reply(self.cursor, CursorAnswer::Defer)
    }
}

/// A suspended lookup of a name nothing in the guest defines.
#[derive(Debug)]
pub struct NameLookup<'s> {
    session: &'s mut Session,
    cursor: u64,
}

impl<'s> NameLookup<'s> {
    /// The cursor's number, unique in its session.
    pub fn cursor(&self) -> u64 {
        self.cursor
    }

    /// The session suspended here, as sealed bytes (`Session::dump`); a
    /// restored session announces this cursor again. The cursor stays live.
    pub fn dump(&mut self, seal: &DumpSeal) -> Result<Vec<u8>, Error> {
        self.session.dump(seal)
    }

    /// The name the guest read.
    pub fn name(&self) -> &str {
        match self.session.pause_at(self.cursor) {
            Some(Pause::Lookup { name }) => name,
            _ => "",
        }
    }

    /// The name is bound to `value`.
    pub fn resume(self, value: Value) -> Result<Progress<'s>, Error> {
        self.session.reply(self.cursor, CursorAnswer::Bind(value))
    }

    /// The name is a host function: calls to it come as cursors.
    pub fn resume_function(self) -> Result<Progress<'s>, Error> {
        self.session.reply(self.cursor, CursorAnswer::Function)
    }

    /// The name is not defined: the guest gets a NameError.
    pub fn resume_not_found(self) -> Result<Progress<'s>, Error> {
        self.session.reply(self.cursor, CursorAnswer::NotFound)
    }
}

/// Every guest task waits on calls the host deferred.
#[derive(Debug)]
pub struct PendingFutures<'s> {
    session: &'s mut Session,
    cursor: u64,
}

impl<'s> PendingFutures<'s> {
    /// The cursor's number, unique in its session.
    pub fn cursor(&self) -> u64 {
        self.cursor
    }

    /// The session suspended here, as sealed bytes (`Session::dump`); a
    /// restored session announces this cursor again. The cursor stays live.
    pub fn dump(&mut self, seal: &DumpSeal) -> Result<Vec<u8>, Error> {
        self.session.dump(seal)
    }

    /// The ids of the calls the guest awaits.
    pub fn call_ids(&self) -> &[u32] {
        match self.session.pause_at(self.cursor) {
            Some(Pause::Await { call_ids }) => call_ids,
            _ => &[],
        }
    }

    /// Resolves some or all of the awaited calls, each with its value or
    /// the exception it raises in the guest.
    pub fn resolve(
        self,
        results: Vec<(u32, Result<Value, HostError>)>,
    ) -> Result<Progress<'s>, Error> {
        self.session
            .answer_cursor(self.cursor, CursorAnswer::Resolve(results))
    }
}
