//! `AsyncSession`: a session driven from async code on tokio.
//!
//! Each turn runs on tokio's blocking pool, so the runtime's own threads
//! never wait on the worker, and async host functions run on the runtime
//! while the turn waits for them. A stepped feed's suspensions come owned
//! (`Stepped`) and are answered by cursor number.

use std::sync::{Arc, Mutex, MutexGuard};

use stockade_wire::{Output, PrintStream, Value};

use crate::error::{ConfigurationKind, Error};
use crate::host::{Args, HostResult};
use crate::options::SessionOptions;
use crate::progress::{CursorAnswer, Stepped};
use crate::session::{DumpSeal, RunLimits, Session};

/// A [`Session`] for async hosts. Cloning shares the session.
#[derive(Debug, Clone)]
pub struct AsyncSession {
    inner: Arc<Mutex<Session>>,
}

fn lock(inner: &Mutex<Session>) -> MutexGuard<'_, Session> {
    // A host callback's panic is caught inside the session, so a poisoned
    // lock still guards a consistent session.
    inner
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn cancelled(err: tokio::task::JoinError) -> Error {
    Error::configuration(
        ConfigurationKind::CannotStart,
        format!("the blocking task driving the session failed: {err}"),
    )
}

impl AsyncSession {
    /// Starts and configures a worker without blocking the runtime.
    pub async fn new(options: SessionOptions) -> Result<Self, Error> {
        let session = tokio::task::spawn_blocking(move || Session::new(options))
            .await
            .map_err(cancelled)??;
        Ok(Self {
            inner: Arc::new(Mutex::new(session)),
        })
    }

    /// Runs `code`; see [`Session::run`].
    pub async fn run(&self, code: &str) -> Result<Value, Error> {
        self.run_with_inputs(code, Vec::new()).await
    }

    /// Binds `inputs`, then runs `code`; see [`Session::run_with_inputs`].
    pub async fn run_with_inputs(
        &self,
        code: &str,
        inputs: Vec<(String, Value)>,
    ) -> Result<Value, Error> {
        self.run_with_limits(code, inputs, RunLimits::default())
            .await
    }

    /// As `run_with_inputs`, with this run's tighter limits; see
    /// [`Session::run_with_limits`].
    pub async fn run_with_limits(
        &self,
        code: &str,
        inputs: Vec<(String, Value)>,
        limits: RunLimits,
    ) -> Result<Value, Error> {
        let code = code.to_owned();
        self.blocking(move |session| session.run_with_limits(&code, inputs, limits))
            .await?
    }

    /// Runs `turn` on the session, on tokio's blocking pool.
    async fn blocking<T: Send + 'static>(
        &self,
        turn: impl FnOnce(&mut Session) -> T + Send + 'static,
    ) -> Result<T, Error> {
        let inner = Arc::clone(&self.inner);
        tokio::task::spawn_blocking(move || turn(&mut lock(&inner)))
            .await
            .map_err(cancelled)
    }

    /// Starts `code` as a stepped feed and runs it to its first suspension
    /// or its end; see [`Session::start`]. The suspension comes owned, and
    /// is answered by its cursor's number with [`AsyncSession::answer_cursor`].
    pub async fn start(&self, code: &str, inputs: Vec<(String, Value)>) -> Result<Stepped, Error> {
        let code = code.to_owned();
        self.blocking(move |session| session.start(&code, inputs).map(Stepped::from))
            .await?
    }

    /// Answers the live cursor `cursor` and runs the feed on to its next
    /// suspension or its end; see [`Session::answer_cursor`].
    pub async fn answer_cursor(&self, cursor: u64, answer: CursorAnswer) -> Result<Stepped, Error> {
        self.blocking(move |session| session.answer_cursor(cursor, answer).map(Stepped::from))
            .await?
    }

    /// Where a suspended feed waits (after a restore, say); `None` when no
    /// feed is suspended. See [`Session::pending`].
    pub async fn pending(&self) -> Result<Option<Stepped>, Error> {
        self.blocking(|session| session.pending().map(Stepped::from))
            .await
    }

    /// See [`Session::set_os_handler`].
    pub fn set_os_handler(
        &self,
        handler: impl FnMut(&str, crate::host::Args) -> HostResult + Send + 'static,
    ) {
        lock(&self.inner).set_os_handler(handler);
    }

    /// See [`Session::declare_function`].
    pub fn declare_function(&self, name: &str) {
        lock(&self.inner).declare_function(name);
    }

    /// Registers a synchronous host function; see [`Session::register_function`].
    pub fn register_function(
        &self,
        name: &str,
        function: impl FnMut(Args) -> HostResult + Send + 'static,
    ) {
        lock(&self.inner).register_function(name, function);
    }

    /// Registers an async host function that runs on the current runtime.
    /// Must be called from within a tokio runtime.
    pub fn register_async_function<F, Fut>(&self, name: &str, function: F)
    where
        F: Fn(Args) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = HostResult> + Send + 'static,
    {
        let runtime = tokio::runtime::Handle::current();
        lock(&self.inner).register_async_function(name, runtime, function);
    }

    /// See [`Session::set_global`].
    pub fn set_global(&self, name: &str, value: Value) -> Result<(), Error> {
        lock(&self.inner).set_global(name, value)
    }

    /// See [`Session::on_print`].
    pub fn on_print(&self, callback: impl FnMut(PrintStream, &str) + Send + 'static) {
        lock(&self.inner).on_print(callback);
    }

    /// See [`Session::on_output`].
    pub fn on_output(&self, callback: impl FnMut(Output) + Send + 'static) {
        lock(&self.inner).on_output(callback);
    }

    /// The session as sealed bytes; see [`Session::dump`].
    pub async fn dump(&self, seal: Arc<DumpSeal>) -> Result<Vec<u8>, Error> {
        self.blocking(move |session| session.dump(&seal)).await?
    }

    /// A session rebuilt from `bytes` in a fresh worker, without blocking
    /// the runtime; see [`Session::restore`].
    pub async fn restore(
        options: SessionOptions,
        seal: Arc<DumpSeal>,
        bytes: Vec<u8>,
    ) -> Result<Self, Error> {
        let session = tokio::task::spawn_blocking(move || Session::restore(options, &seal, &bytes))
            .await
            .map_err(cancelled)??;
        Ok(Self {
            inner: Arc::new(Mutex::new(session)),
        })
    }
}
