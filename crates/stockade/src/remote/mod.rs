//! A session's worker on a server of sessions (`stockade serve`): the
//! client end of the remote hop, a blocking WebSocket carrying the same
//! frames a worker's pipes carry (`stockade_wire::SESSION_PATH`), under the
//! same deadlines. The server tells how the worker ended with a
//! `RemoteEnd`, which becomes the same `Error` a local worker's end would.

use std::io::ErrorKind as IoKind;
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use stockade_wire::{
    EndCause, FRAME_HEADER_LEN, MAX_RESULT_BYTES_HEADER, REQUEST_TIMEOUT_HEADER, RemoteEnd,
    Request, Response, SESSION_PATH, WireLimits, decode_remote_end, decode_remote_too_large,
    encode_request, is_remote_end, is_remote_too_large, whole_frame_payload,
};
use tungstenite::client::IntoClientRequest;
use tungstenite::error::ProtocolError;
use tungstenite::handshake::client::Response as HttpResponse;
use tungstenite::http::{HeaderValue, StatusCode, Uri};
use tungstenite::protocol::WebSocketConfig;
use tungstenite::{HandshakeError, Message, WebSocket};

use crate::channel::{ExitInfo, RecvError, SendError, decode};
use crate::error::{ConfigurationKind, CrashInfo, Error, TimeLimit};
pub use crate::remote_options::Remote;

mod stream;

use stream::Stream;

/// How long a connection and its handshake may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a closing client waits for the server's word on the worker.
const END_GRACE: Duration = Duration::from_millis(500);

/// The client end of a remote session's connection.
#[derive(Debug)]
pub(crate) struct RemoteWorker {
    socket: WebSocket<Stream>,
    limits: WireLimits,
    /// What the server said of the worker's end.
    end: Option<RemoteEnd>,
    /// Why the connection went away without the server's word.
    gone: Option<String>,
    owner: u32,
    url: String,
    /// The most a value from the worker may take, as the server holds its
    /// frames to it (its answer to the upgrade); u64::MAX when it named
    /// none.
    result_ceiling: u64,
}

/// How many times a connection closed before the server answered its
/// upgrade is made.
const UPGRADE_ATTEMPTS: u64 = 4;

/// Whether `err` says the server closed the connection without a word:
/// reset, or a clean close before any byte of an answer, which tungstenite
/// reports as a handshake left incomplete rather than as an I/O error.
fn closed_unanswered(err: &tungstenite::Error) -> bool {
    use std::io::ErrorKind;
    match err {
        tungstenite::Error::Io(err) => matches!(
            err.kind(),
            ErrorKind::ConnectionReset
                | ErrorKind::ConnectionAborted
                | ErrorKind::UnexpectedEof
                | ErrorKind::BrokenPipe
        ),
        tungstenite::Error::Protocol(ProtocolError::HandshakeIncomplete) => true,
        _ => false,
    }
}

impl RemoteWorker {
    /// Connects and upgrades; a refusal before the upgrade is `Unauthorized`
    /// (401), `OverCapacity` (503) or `Disconnected` (anything else).
    /// `max_result_bytes` is the session's: the server holds the
    /// worker's frames to it (or to its own ceiling, if lower).
    pub(crate) fn connect(
        remote: &Remote,
        request_timeout: Duration,
        max_result_bytes: u64,
        limits: WireLimits,
    ) -> Result<Self, Error> {
        let url = remote.url.clone();
        let make_request = || {
            let mut request = url.as_str().into_client_request().map_err(|err| {
                Error::invalid_option(format!(
                    "remote: {url:?} is not a ws:// or wss:// URL: {err}"
                ))
            })?;
            let uri = request.uri().clone();
            let (host, port, tls) = endpoint(&uri, &url)?;
            if uri.path() == "/" || uri.path().is_empty() {
                let scheme = if tls { "wss" } else { "ws" };
                let path: Uri =
                    format!("{scheme}://{}{SESSION_PATH}", authority(&uri, &host, port))
                        .parse()
                        .map_err(|err| Error::invalid_option(format!("remote: {url:?}: {err}")))?;
                *request.uri_mut() = path;
            }
            // The server bounds each turn by the client's timeout, or
            // refuses one above its ceiling.
            let millis = u64::try_from(request_timeout.as_millis()).unwrap_or(u64::MAX);
            if let Ok(value) = HeaderValue::from_str(&millis.to_string()) {
                request.headers_mut().insert(REQUEST_TIMEOUT_HEADER, value);
            }
            if let Ok(value) = HeaderValue::from_str(&max_result_bytes.to_string()) {
                request.headers_mut().insert(MAX_RESULT_BYTES_HEADER, value);
            }
            if let Some(token) = &remote.token {
                let value = HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| {
                    Error::invalid_option(
                        "remote: the token holds characters a header cannot carry",
                    )
                })?;
                request.headers_mut().insert("authorization", value);
            }
            Ok::<_, Error>((request, host, port, tls))
        };
        let unreachable =
            |err: std::io::Error| Error::Disconnected(format!("cannot connect to {url}: {err}"));
        let config = socket_config(&limits);
        let mut attempt = 0;
        let (socket, response) = loop {
            attempt += 1;
            let (request, host, port, tls) = make_request()?;
            let address = (host.as_str(), port)
                .to_socket_addrs()
                .map_err(unreachable)?
                .next()
                .ok_or_else(|| {
                    Error::Disconnected(format!("cannot connect to {url}: no address"))
                })?;
            let stream =
                TcpStream::connect_timeout(&address, CONNECT_TIMEOUT).map_err(unreachable)?;
            let _ = stream.set_nodelay(true);
            stream
                .set_read_timeout(Some(CONNECT_TIMEOUT))
                .map_err(unreachable)?;
            let stream = if tls {
                Stream::tls(stream, &host, remote.ca_file.as_deref())?
            } else {
                Stream::Plain(stream)
            };
            match tungstenite::client::client_with_config(request, stream, Some(config)) {
                Ok(pair) => break pair,
                Err(HandshakeError::Failure(tungstenite::Error::Http(response))) => {
                    return Err(refused(&url, &response));
                }
                // Closed before it answered: a server past its budget of
                // connections that have shown no token closes one to make
                // room (a burst of clients from one address), having done
                // nothing with it, so asking again is safe.
                Err(HandshakeError::Failure(err))
                    if attempt < UPGRADE_ATTEMPTS && closed_unanswered(&err) =>
                {
                    std::thread::sleep(Duration::from_millis(25 * attempt));
                }
                Err(HandshakeError::Failure(err)) => {
                    return Err(Error::Disconnected(format!(
                        "{url} refused the WebSocket upgrade: {err}"
                    )));
                }
                Err(HandshakeError::Interrupted(_)) => {
                    return Err(Error::Disconnected(format!(
                        "{url} did not answer the upgrade in time"
                    )));
                }
            }
        };
        let result_ceiling = response
            .headers()
            .get(MAX_RESULT_BYTES_HEADER)
            .and_then(|value| value.to_str().ok()?.parse::<u64>().ok())
            .unwrap_or(u64::MAX);
        Ok(Self {
            socket,
            limits,
            end: None,
            gone: None,
            owner: std::process::id(),
            url,
            result_ceiling,
        })
    }

    /// The most a value from the worker may take, as the server holds the
    /// worker's frames to it.
    pub(crate) fn result_ceiling(&self) -> u64 {
        self.result_ceiling
    }

    pub(crate) fn owned(&self) -> bool {
        self.owner == std::process::id()
    }

    pub(crate) fn owner(&self) -> u32 {
        self.owner
    }

    pub(crate) fn alive(&self) -> bool {
        self.end.is_none() && self.gone.is_none()
    }

    pub(crate) fn limits_mut(&mut self) -> &mut WireLimits {
        &mut self.limits
    }

    pub(crate) fn limits(&self) -> &WireLimits {
        &self.limits
    }

    /// Sends one whole frame (header included) as one binary message.
    pub(crate) fn send(&mut self, frame: &[u8], deadline: Instant) -> Result<(), SendError> {
        if !self.owned() {
            return Err(SendError::Forked);
        }
        if !self.alive() {
            return Err(SendError::Closed);
        }
        let remaining = deadline.saturating_duration_since(Instant::now());
        let _ = self
            .socket
            .get_ref()
            .tcp()
            .set_write_timeout(Some(remaining.max(Duration::from_millis(1))));
        match self.socket.send(Message::Binary(frame.to_vec().into())) {
            Ok(()) => Ok(()),
            Err(tungstenite::Error::Io(err)) if timed_out(&err) => Err(SendError::Stalled),
            Err(err) => {
                self.gone = Some(format!("the connection to {} broke: {err}", self.url));
                Err(SendError::Closed)
            }
        }
    }

    /// The next response, waiting at most until `deadline`.
    pub(crate) fn recv(&mut self, deadline: Option<Instant>) -> Result<Response, RecvError> {
        if !self.owned() {
            return Err(RecvError::Forked);
        }
        loop {
            if !self.alive() {
                return Err(RecvError::Closed);
            }
            let wait = match deadline {
                Some(at) => {
                    let left = at.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Err(RecvError::Deadline);
                    }
                    Some(left)
                }
                None => None,
            };
            let _ = self.socket.get_ref().tcp().set_read_timeout(wait);
            match self.socket.read() {
                Ok(Message::Binary(bytes)) => return self.frame(&bytes),
                Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_)) => {}
                Ok(Message::Text(_)) => {
                    return Err(RecvError::Io(std::io::Error::other(
                        "the server sent a text message, not a frame",
                    )));
                }
                Ok(Message::Close(frame)) => {
                    let why = frame
                        .map(|f| f.reason.to_string())
                        .filter(|reason| !reason.is_empty())
                        .unwrap_or_else(|| "without a word on the worker".into());
                    self.gone = Some(format!("{} closed the connection {why}", self.url));
                    return Err(RecvError::Closed);
                }
                Err(tungstenite::Error::Io(err)) if timed_out(&err) => {
                    return Err(RecvError::Deadline);
                }
                Err(err) => {
                    self.gone = Some(format!("the connection to {} broke: {err}", self.url));
                    return Err(RecvError::Closed);
                }
            }
        }
    }

    /// One binary message: a frame of the worker's, or the server's word on
    /// its end (recorded; the stream is closed from then on).
    fn frame(&mut self, bytes: &[u8]) -> Result<Response, RecvError> {
        let payload = whole_frame_payload(bytes).map_err(|why| {
            RecvError::Io(std::io::Error::other(format!("the server sent {why}")))
        })?;
        // A message the server read past rather than hold: the session
        // answers it as it would one it read past itself.
        if is_remote_too_large(payload) {
            return match decode_remote_too_large(payload, &WireLimits::default()) {
                Ok(too_large) => Err(RecvError::TooLarge {
                    head: too_large.head,
                    encoded: too_large.encoded,
                }),
                Err(err) => Err(RecvError::Malformed(err)),
            };
        }
        if is_remote_end(payload) {
            return match decode_remote_end(payload, &WireLimits::default()) {
                Ok(end) => {
                    self.end = Some(end);
                    Err(RecvError::Closed)
                }
                Err(err) => Err(RecvError::Malformed(err)),
            };
        }
        decode(payload, &self.limits)
    }

    /// What has already arrived, without waiting.
    pub(crate) fn recv_sent(&mut self) -> Result<Response, RecvError> {
        self.recv(Some(Instant::now() + Duration::from_millis(1)))
    }

    /// Waits a moment for the server's word on the worker's end.
    pub(crate) fn reap(&mut self) -> ExitInfo {
        let deadline = Instant::now() + END_GRACE;
        while self.alive() && Instant::now() < deadline {
            if let Err(RecvError::Deadline) = self.recv(Some(deadline)) {
                break;
            }
        }
        self.exit()
    }

    /// Ends the connection; the server kills the worker when it sees that.
    pub(crate) fn kill(&mut self) -> ExitInfo {
        if self.alive() && self.owned() {
            let _ = self
                .socket
                .get_ref()
                .tcp()
                .set_write_timeout(Some(END_GRACE));
            // A Close first, so that a session between turns ends cleanly
            // (its worker exits 0); mid-turn, the server sees the
            // connection go and kills the worker.
            if let Ok(close) = encode_request(&Request::Close, &self.limits) {
                let _ = self.socket.send(Message::Binary(close.into()));
            }
            let _ = self.socket.close(None);
            let _ = self.socket.flush();
            let _ = self
                .socket
                .get_ref()
                .tcp()
                .shutdown(std::net::Shutdown::Both);
            self.gone = Some("the session ended its connection".into());
        }
        self.exit()
    }

    fn exit(&self) -> ExitInfo {
        self.end
            .as_ref()
            .map_or_else(ExitInfo::default, |end| ExitInfo {
                code: end.code,
                signal: end.signal,
            })
    }

    /// The image the server sent with a shutdown, if it sent one.
    pub(crate) fn shutdown_image(&self) -> Option<Vec<u8>> {
        self.end
            .as_ref()
            .filter(|end| end.cause == EndCause::Shutdown)
            .and_then(|end| end.image.clone())
    }

    /// The server's own words on the worker's end.
    pub(crate) fn detail(&self) -> Option<String> {
        self.end.as_ref().and_then(|end| end.detail.clone())
    }

    /// The error the end of the worker (or of the connection) is for the
    /// session; None when the worker exited by itself, which the session
    /// names from its exit status as it would a local one's.
    pub(crate) fn loss(&self) -> Option<Error> {
        let Some(end) = &self.end else {
            return Some(Error::Disconnected(self.gone.clone().unwrap_or_else(
                || format!("the connection to {} went away", self.url),
            )));
        };
        let detail = end.detail.clone().unwrap_or_default();
        match end.cause {
            EndCause::Exited => None,
            EndCause::Memory => Some(Error::Memory {
                detail,
                worker_died: true,
            }),
            EndCause::RequestTimeout => Some(Error::Timeout {
                limit: TimeLimit::RequestTimeout,
                after: Duration::from_micros(end.limit_us.unwrap_or_default()),
            }),
            EndCause::Killed => Some(Error::Crashed(CrashInfo {
                reason: format!("the server ended the worker: {detail}"),
                exit_code: end.code,
                signal: end.signal,
                detail: None,
                timed_out: detail.contains("max_duration"),
            })),
            EndCause::Refused => Some(Error::configuration(
                ConfigurationKind::Refused,
                format!("the server refused the session: {detail}"),
            )),
            EndCause::IdleTimeout => Some(Error::Disconnected(format!(
                "the server ended the session, silent past its idle timeout: {detail}"
            ))),
            EndCause::Shutdown => Some(Error::ServerShutdown(detail)),
        }
    }
}

impl Drop for RemoteWorker {
    /// A dropped session closes (a Close, then the connection's end), so
    /// the server ends its worker at once.
    fn drop(&mut self) {
        self.kill();
    }
}

/// The socket's message bound: one frame of the wire's largest, header
/// included.
pub(crate) fn socket_config(limits: &WireLimits) -> WebSocketConfig {
    let most = limits.max_frame.saturating_add(FRAME_HEADER_LEN);
    WebSocketConfig::default()
        .max_message_size(Some(most))
        .max_frame_size(Some(most))
}

/// The host, port and whether the connection is TLS (`wss://`).
fn endpoint(uri: &Uri, url: &str) -> Result<(String, u16, bool), Error> {
    let tls = match uri.scheme_str() {
        Some("ws") => false,
        Some("wss") => true,
        _ => {
            return Err(Error::invalid_option(format!(
                "remote: {url:?} is not a ws:// or wss:// URL"
            )));
        }
    };
    let host = uri
        .host()
        .ok_or_else(|| Error::invalid_option(format!("remote: {url:?} names no host")))?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    let port = uri.port_u16().unwrap_or(if tls { 443 } else { 80 });
    Ok((host, port, tls))
}

/// `host:port` as a URL writes it (an IPv6 address in brackets).
fn authority(uri: &Uri, host: &str, port: u16) -> String {
    match uri.host() {
        Some(written) if written.starts_with('[') => format!("[{host}]:{port}"),
        _ => format!("{host}:{port}"),
    }
}

/// A refusal before the upgrade, by its status.
fn refused(url: &str, response: &HttpResponse) -> Error {
    let body = response
        .body()
        .as_deref()
        .map(|body| String::from_utf8_lossy(body).trim().to_owned())
        .filter(|body| !body.is_empty());
    let why = body.unwrap_or_else(|| response.status().to_string());
    match response.status() {
        StatusCode::UNAUTHORIZED => Error::Unauthorized(format!(
            "{url} refused the token (check the token the server's --tokens file holds)"
        )),
        StatusCode::SERVICE_UNAVAILABLE | StatusCode::TOO_MANY_REQUESTS => {
            Error::OverCapacity(format!("{url}: {why}"))
        }
        _ => Error::Disconnected(format!("{url} refused the session: {why}")),
    }
}

fn timed_out(err: &std::io::Error) -> bool {
    matches!(err.kind(), IoKind::WouldBlock | IoKind::TimedOut)
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpListener;
    use std::thread::JoinHandle;

    use super::*;

    /// A server that closes its first `silent` connections without a
    /// word, as one past its budget of anonymous connections does, then
    /// refuses the token on the next: a client that asked again sees the
    /// refusal, one that gave up sees the close. It returns how many
    /// connections it took.
    fn closes_then_refuses(silent: usize) -> std::io::Result<(String, JoinHandle<usize>)> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let url = format!("ws://{}", listener.local_addr()?);
        let server = std::thread::spawn(move || {
            let mut accepted = 0;
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { break };
                accepted += 1;
                if accepted <= silent {
                    drop(stream);
                    continue;
                }
                let mut request = [0u8; 4096];
                let _ = stream.read(&mut request);
                let _ = stream.write_all(
                    b"HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                );
                break;
            }
            accepted
        });
        Ok((url, server))
    }

    fn connect(url: &str) -> Result<(), Error> {
        let remote = Remote {
            url: url.to_owned(),
            token: Some("t".into()),
            ca_file: None,
        };
        RemoteWorker::connect(
            &remote,
            Duration::from_secs(5),
            1 << 20,
            WireLimits::default(),
        )
        .map(|_| ())
    }

    fn connections(server: JoinHandle<usize>) -> Result<usize, String> {
        server
            .join()
            .map_err(|_| "the server thread panicked".to_owned())
    }

    #[test]
    fn an_upgrade_closed_unanswered_is_asked_again() -> Result<(), String> {
        let (url, server) = closes_then_refuses(2).map_err(|e| e.to_string())?;
        match connect(&url) {
            Err(Error::Unauthorized(text)) => assert!(text.contains(&url), "{text}"),
            other => panic!("the client did not ask again after a silent close: {other:?}"),
        }
        assert_eq!(connections(server)?, 3);
        Ok(())
    }

    #[test]
    fn an_upgrade_closed_unanswered_every_time_is_disconnected_naming_the_server()
    -> Result<(), String> {
        let silent = UPGRADE_ATTEMPTS as usize;
        let (url, server) = closes_then_refuses(silent).map_err(|e| e.to_string())?;
        match connect(&url) {
            Err(Error::Disconnected(text)) => assert!(text.contains(&url), "{text}"),
            other => panic!("a server that never answered was not a disconnection: {other:?}"),
        }
        // Unblock the server's last accept, then it ends.
        let _ = TcpStream::connect(url.trim_start_matches("ws://"));
        assert_eq!(connections(server)?, silent + 1);
        Ok(())
    }
}
