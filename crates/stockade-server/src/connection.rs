//! One connection, one session: an async pump moves WebSocket messages
//! between the client and a relay thread, which owns the session's worker
//! (blocking I/O under the session's deadlines, as a local host's session
//! does) and waits for the client under the server's idle timeout.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, TrySendError, sync_channel};
use std::time::{Duration, Instant};

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use stockade::relay::{ClientAsks, Ended, RelayedWorker};
use stockade_wire::{EndCause, WireLimits, encode_remote_end};
use tokio::sync::mpsc;

use crate::Server;
use crate::capacity::Slot;

/// Client messages that may wait for the relay: the protocol alternates
/// (a request, then the worker's messages), so a client with more in
/// flight than a request and a Close is not speaking it.
const CLIENT_QUEUE: usize = 2;
/// Messages for the client that may wait for the pump: a worker's frames
/// are bounded by the wire, their number here.
const CLIENT_OUT: usize = 4;
/// How long a closing connection waits for the client's own Close.
const CLOSE_WAIT: Duration = Duration::from_secs(1);
/// How often a relay waiting for its client looks at the server's state.
const WAIT_SLICE: Duration = Duration::from_millis(100);

/// What the relay sends the pump.
#[derive(Debug)]
enum Outgoing {
    Frame(Vec<u8>),
    /// The session is over: close the connection with this reason.
    Close(String),
}

/// Sets the shared flag when dropped: the relay sees its client gone
/// however the pump ends (returned, or cancelled with the runtime).
struct Gone(Arc<AtomicBool>);

impl Drop for Gone {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Why the pump stopped reading the client.
enum Closing {
    ClientBroke(String),
    RelayDone(Option<String>),
}

/// Serves one upgraded connection until its session ends. The slot is
/// held by the pump and the relay both, so it is free only once the last
/// frame (the server's end of the session) has been sent and the worker
/// ended: a drain that waits for free slots loses no session's end.
pub async fn serve(mut socket: WebSocket, server: Arc<Server>, slot: Slot, asked: ClientAsks) {
    let tenant = slot.token();
    let slot = Arc::new(slot);
    let (to_relay, from_client) = sync_channel::<Vec<u8>>(CLIENT_QUEUE);
    let (to_client, mut from_relay) = mpsc::channel::<Outgoing>(CLIENT_OUT);
    let relay_server = Arc::clone(&server);
    let flag = Arc::new(AtomicBool::new(false));
    let gone = Gone(Arc::clone(&flag));
    let relay_slot = Arc::clone(&slot);
    let started = std::thread::Builder::new()
        .name("stockade-relay".into())
        .spawn(move || {
            relay(&from_client, &to_client, &relay_server, asked, tenant, flag);
            drop(relay_slot);
        });
    if let Err(err) = started {
        tracing::error!("cannot start a relay thread: {err}");
        let _ = socket
            .send(close("the server cannot take a session now"))
            .await;
        return;
    }
    // A message past --max-message-size never gets here: the WebSocket
    // layer ends the connection (lib.rs sets its bound).
    let idle = server.idle_timeout;
    let closing = loop {
        tokio::select! {
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Binary(bytes))) => match to_relay.try_send(Vec::from(bytes)) {
                    Ok(()) => {}
                    Err(TrySendError::Full(_)) => break Closing::ClientBroke("the client sent messages out of turn".into()),
                    // The relay has ended: what it queued is still sent.
                    Err(TrySendError::Disconnected(_)) => break Closing::RelayDone(None),
                },
                Some(Ok(Message::Text(_))) => {
                    break Closing::ClientBroke("text messages are not frames; send binary ones".into());
                }
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                Some(Ok(Message::Close(_)) | Err(_)) | None => return,
            },
            outgoing = from_relay.recv() => match outgoing {
                Some(Outgoing::Frame(frame)) => {
                    let sent = tokio::time::timeout(idle, socket.send(Message::Binary(frame.into()))).await;
                    if !matches!(sent, Ok(Ok(()))) {
                        // A client that stops reading holds no worker past
                        // the idle timeout: the relay sees it gone.
                        return;
                    }
                }
                Some(Outgoing::Close(reason)) => break Closing::RelayDone(Some(reason)),
                None => break Closing::RelayDone(None),
            },
        }
    };
    // The client is done being read (it broke the protocol, or its session
    // ended): the relay's last frames go out, then the close handshake. A
    // client that broke the protocol has its worker ended at once, mid-turn
    // too.
    let mut reason = match closing {
        Closing::ClientBroke(why) => {
            gone.0.store(true, Ordering::Relaxed);
            Some(why)
        }
        Closing::RelayDone(why) => why,
    };
    drop(to_relay);
    while let Some(outgoing) = from_relay.recv().await {
        match outgoing {
            Outgoing::Frame(frame) => {
                let sent =
                    tokio::time::timeout(idle, socket.send(Message::Binary(frame.into()))).await;
                if !matches!(sent, Ok(Ok(()))) {
                    return;
                }
            }
            Outgoing::Close(why) => reason = Some(why),
        }
    }
    let reason = reason.unwrap_or_else(|| "session ended".into());
    if matches!(
        tokio::time::timeout(idle, socket.send(close(&reason))).await,
        Ok(Ok(()))
    ) {
        // Read until the client's own Close, so the kernel does not reset
        // a connection whose last frames it has not read yet.
        let _ = tokio::time::timeout(CLOSE_WAIT, async {
            while let Some(Ok(message)) = socket.recv().await {
                if matches!(message, Message::Close(_)) {
                    break;
                }
            }
        })
        .await;
    }
    drop(slot);
    drop(gone);
}

fn close(reason: &str) -> Message {
    let mut reason = reason.to_owned();
    // A close frame's reason is at most 123 bytes.
    while reason.len() > 120 {
        reason.pop();
    }
    Message::Close(Some(CloseFrame {
        code: axum::extract::ws::close_code::NORMAL,
        reason: reason.into(),
    }))
}

/// What waiting for the client gave.
enum Waited {
    Frame(Vec<u8>),
    Idle,
    Gone,
    Shutdown,
}

fn wait(from_client: &Receiver<Vec<u8>>, server: &Server) -> Waited {
    let deadline = Instant::now() + server.idle_timeout;
    loop {
        if server.ending() {
            return Waited::Shutdown;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Waited::Idle;
        }
        match from_client.recv_timeout(left.min(WAIT_SLICE)) {
            Ok(frame) => return Waited::Frame(frame),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return Waited::Gone,
        }
    }
}

/// The session: Configure, then one exchange per client request, until
/// the worker ends, the client goes, falls silent, or the server ends.
fn relay(
    from_client: &Receiver<Vec<u8>>,
    to_client: &mpsc::Sender<Outgoing>,
    server: &Server,
    asked: ClientAsks,
    tenant: [u8; 32],
    gone: Arc<AtomicBool>,
) {
    let configure = match wait(from_client, server) {
        Waited::Frame(frame) => frame,
        Waited::Gone => return,
        Waited::Idle => {
            let _ = to_client.blocking_send(Outgoing::Close(format!(
                "no Configure within the idle timeout of {:?}",
                server.idle_timeout
            )));
            return;
        }
        Waited::Shutdown => {
            let _ = to_client.blocking_send(Outgoing::Close("the server is shutting down".into()));
            return;
        }
    };
    let (mut worker, ready) = match RelayedWorker::start(&configure, asked, tenant, &server.policy)
    {
        Ok(started) => started,
        Err(ended) => {
            tell(to_client, server, &ended);
            return;
        }
    };
    let watched = Arc::clone(&gone);
    worker.watch_client(move || watched.load(Ordering::Relaxed));
    server.metrics.started();
    if to_client.blocking_send(Outgoing::Frame(ready)).is_err() {
        return;
    }
    let mut forward = |frame: Vec<u8>| to_client.blocking_send(Outgoing::Frame(frame)).is_ok();
    loop {
        let ended = match wait(from_client, server) {
            Waited::Frame(frame) => {
                let began = Instant::now();
                match worker.exchange(&frame, &mut forward) {
                    Ok(()) => {
                        server.metrics.turn(began.elapsed());
                        continue;
                    }
                    Err(ended) if gone.load(Ordering::Relaxed) && !clean(&ended) => {
                        server.metrics.disconnected();
                        return;
                    }
                    Err(ended) => ended,
                }
            }
            Waited::Idle => worker.end(
                EndCause::IdleTimeout,
                format!(
                    "the client sent nothing for {:?} (the server's idle timeout)",
                    server.idle_timeout
                ),
            ),
            Waited::Gone => {
                worker.end(EndCause::Killed, "the client went away".into());
                server.metrics.disconnected();
                return;
            }
            Waited::Shutdown => worker.shut_down(
                "the server is shutting down; go on elsewhere (from a dump of the session where its engine allows one)"
                    .into(),
            ),
        };
        tell(to_client, server, &ended);
        return;
    }
}

/// Tells the client how its worker ended, counts it, and closes.
fn tell(to_client: &mpsc::Sender<Outgoing>, server: &Server, ended: &Ended) {
    server.metrics.ended(ended.end.cause, clean(ended));
    if let Some(fatal) = &ended.fatal {
        let _ = to_client.blocking_send(Outgoing::Frame(fatal.clone()));
    }
    match encode_remote_end(&ended.end, &WireLimits::default()) {
        Ok(frame) => {
            let _ = to_client.blocking_send(Outgoing::Frame(frame));
        }
        Err(err) => tracing::error!("cannot encode a session's end: {err}"),
    }
    let _ = to_client.blocking_send(Outgoing::Close(format!(
        "session ended: {}",
        ended.end.cause
    )));
}

/// Whether the worker ended because the client closed the session.
fn clean(ended: &Ended) -> bool {
    ended.end.cause == EndCause::Exited && ended.end.code == Some(0)
}
