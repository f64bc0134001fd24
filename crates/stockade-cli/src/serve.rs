//! `stockade serve`: sandboxed sessions for remote clients over WebSocket
//! (the server lives in the stockade-server crate; this is its command
//! line). Prints `listening on ws://ADDR` (or `wss://`) once it takes
//! connections, then where it answers MCP (`http://ADDR/mcp`).

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;
use stockade::SandboxMode;
use stockade::relay::RelayPolicy;
use stockade_server::{ServeConfig, run};

use crate::args::named;
use crate::exit;
use crate::units::{Seconds, Size, parse_seconds, parse_size};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on; without --tls-cert, plain WebSocket is served
    /// on loopback only unless --insecure is given. Port 0 picks a free one.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7341")]
    listen: SocketAddr,
    /// File of bearer tokens, one a line (blank lines and # comments
    /// skipped; at least 16 characters each), read again on SIGHUP.
    /// Required off loopback; without it on loopback anyone local connects.
    #[arg(long, value_name = "FILE")]
    tokens: Option<PathBuf>,
    /// The certificate chain to serve TLS (wss://) with, PEM.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert, PEM.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Serve plain WebSocket on an address other than loopback (behind a
    /// proxy that terminates TLS).
    #[arg(long)]
    insecure: bool,
    /// Sessions at once; more are refused (503, OverCapacity). Each
    /// sandbox an MCP client starts at /mcp counts as one.
    #[arg(long, value_name = "N", default_value_t = ServeConfig::DEFAULT_MAX_SESSIONS)]
    max_sessions: usize,
    /// Sessions one token may hold at once (default: --max-sessions).
    #[arg(long, value_name = "N")]
    max_sessions_per_token: Option<usize>,
    /// MCP sessions clients may hold open at once at /mcp (each idle one
    /// costs memory; the sandboxes they start count in --max-sessions).
    #[arg(long, value_name = "N", default_value_t = ServeConfig::DEFAULT_MAX_MCP_SESSIONS)]
    max_mcp_sessions: usize,
    /// MCP sessions one token may hold open at once (default: 64, or
    /// --max-mcp-sessions if that is less).
    #[arg(long, value_name = "N")]
    max_mcp_sessions_per_token: Option<usize>,
    /// Seconds a session may wait for its client's next message (an MCP
    /// client's session too, beyond a call's --request-timeout).
    #[arg(long, value_name = "S", default_value_t = Seconds(ServeConfig::DEFAULT_IDLE_TIMEOUT), value_parser = parse_seconds)]
    idle_timeout: Seconds,
    /// Seconds SIGTERM lets running sessions go on before ending them (a
    /// turn running then still finishes, within --request-timeout).
    #[arg(long, value_name = "S", default_value_t = Seconds(ServeConfig::DEFAULT_GRACE), value_parser = parse_seconds)]
    grace: Seconds,
    /// The largest message a client may send (a request: code, inputs, a
    /// dump to restore), at most the wire's frame bound (256M).
    #[arg(long, value_name = "SIZE", default_value_t = Size(ServeConfig::DEFAULT_MAX_MESSAGE_SIZE as u64), value_parser = parse_size)]
    max_message_size: Size,
    /// The largest MCP request at /mcp, such as 4M; one larger, or whose
    /// parsed form would take more than 4 times that, is refused unparsed
    /// (413). A token's requests under way hold at most two of this size,
    /// the server's eight.
    #[arg(long, value_name = "SIZE", default_value_t = Size(ServeConfig::DEFAULT_MAX_MCP_REQUEST_SIZE as u64), value_parser = parse_size)]
    max_mcp_request_size: Size,
    /// Answer /readyz and /metrics only with a token from --tokens (they
    /// tell how busy the server is, and so what its tenants do); /healthz
    /// stays open for liveness probes.
    #[arg(long, requires = "tokens")]
    status_needs_token: bool,
    /// Connections held at once, authenticated or not (default:
    /// --max-sessions + 64); past it the server stops accepting.
    #[arg(long, value_name = "N")]
    max_connections: Option<usize>,
    /// Ceiling of a turn's wall-clock time (a client's --timeout above it
    /// is refused); the default for clients that name none.
    #[arg(long, value_name = "S", default_value_t = Seconds(RelayPolicy::default().request_timeout), value_parser = parse_seconds)]
    request_timeout: Seconds,
    /// Ceiling of a session's guest time (max_duration); sessions that
    /// ask for none get this.
    #[arg(long, value_name = "S", default_value_t = Seconds(RelayPolicy::default().max_duration), value_parser = parse_seconds)]
    max_duration: Seconds,
    /// Ceiling of a session's guest memory (max_memory), such as 512M.
    #[arg(long, value_name = "SIZE", default_value_t = Size(RelayPolicy::default().max_memory), value_parser = parse_size)]
    max_memory: Size,
    /// Ceiling of the print output one feed may send, such as 8M.
    #[arg(long, value_name = "SIZE", default_value_t = Size(RelayPolicy::default().max_output_bytes), value_parser = parse_size)]
    max_output_bytes: Size,
    /// Ceiling of a CPython session's scratch directory (max_scratch_bytes),
    /// such as 256M; a session asking more is refused. (A monty or
    /// JavaScript session's scratch is kept by its client.)
    #[arg(long = "max-scratch", value_name = "SIZE", default_value_t = Size(RelayPolicy::default().max_scratch_bytes), value_parser = parse_size)]
    max_scratch_bytes: Size,
    /// Ceiling of what one value from a worker (a result, a call's
    /// arguments, a dump's image) may take in the server, as the wire
    /// counts it: a client's max_result_bytes above it is held to it, and
    /// a value past it is read past, never built (ResultTooLarge).
    #[arg(long, value_name = "SIZE", default_value_t = Size(RelayPolicy::default().max_result_bytes), value_parser = parse_size)]
    max_result_bytes: Size,
    /// A package CPython sessions may ask this server to install and show
    /// (a name; any version), with uv, wheels only (repeatable; none by
    /// default).
    #[arg(long = "allow-package", value_name = "NAME")]
    allowed_packages: Vec<String>,
    /// The least sandbox every worker runs with (a client may ask for more).
    #[arg(long, default_value = "require", value_parser = named::<SandboxMode>())]
    sandbox: SandboxMode,
    /// Worker binary (default: $STOCKADE_WORKER, beside this program, then PATH).
    #[arg(long, value_name = "PATH")]
    worker: Option<PathBuf>,
}

pub fn serve(args: ServeArgs) -> i32 {
    let config = ServeConfig {
        listen: args.listen,
        tokens: args.tokens,
        tls: args.tls_cert.zip(args.tls_key),
        insecure: args.insecure,
        max_sessions: args.max_sessions,
        max_sessions_per_token: args.max_sessions_per_token.unwrap_or(args.max_sessions),
        max_mcp_sessions: args.max_mcp_sessions,
        max_mcp_sessions_per_token: args
            .max_mcp_sessions_per_token
            .unwrap_or(ServeConfig::DEFAULT_MAX_MCP_SESSIONS_PER_TOKEN.min(args.max_mcp_sessions)),
        idle_timeout: args.idle_timeout.0,
        grace: args.grace.0,
        max_message_size: usize::try_from(args.max_message_size.0).unwrap_or(usize::MAX),
        max_connections: args
            .max_connections
            .unwrap_or(args.max_sessions.saturating_add(64)),
        max_mcp_request_size: usize::try_from(args.max_mcp_request_size.0).unwrap_or(usize::MAX),
        status_needs_token: args.status_needs_token,
        policy: RelayPolicy {
            sandbox: args.sandbox,
            worker: args.worker,
            python: None,
            request_timeout: args.request_timeout.0,
            max_duration: args.max_duration.0,
            max_memory: args.max_memory.0,
            max_output_bytes: args.max_output_bytes.0,
            max_scratch_bytes: args.max_scratch_bytes.0,
            max_result_bytes: args.max_result_bytes.0,
            max_threads: stockade::SessionOptions::DEFAULT_MAX_THREADS,
            allowed_packages: args.allowed_packages,
        },
    };
    let announce = |url: &str| {
        // The same listener answers MCP over HTTP(S) at /mcp.
        let mcp = url.replacen("ws", "http", 1);
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "stockade serve: listening on {url}");
        let _ = writeln!(out, "stockade serve: MCP at {mcp}/mcp");
        let _ = out.flush();
    };
    match run(config, announce) {
        Ok(()) => exit::OK,
        Err(err) => {
            eprintln!("stockade serve: {err}");
            exit::BAD_INPUT
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};

    #[derive(Parser)]
    struct Command {
        #[command(flatten)]
        serve: ServeArgs,
    }

    /// Each ceiling the options table names is a flag of this command, and
    /// sets the policy's ceiling on that option.
    #[test]
    fn every_ceiling_the_table_names_is_a_flag_of_serve() {
        let command = Command::command();
        let mut ceilings = 0;
        for spec in stockade::contract::OPTIONS {
            let Some(flag) = spec.server_ceiling else {
                continue;
            };
            ceilings += 1;
            let long = flag.trim_start_matches("--");
            assert!(
                command
                    .get_arguments()
                    .any(|arg| arg.get_long() == Some(long)),
                "stockade serve has no {flag} for {}",
                spec.name
            );
            let given = Command::try_parse_from(["stockade", flag, "7"])
                .unwrap_or_else(|err| panic!("{flag} 7: {err}"))
                .serve;
            let seconds = std::time::Duration::from_secs(7);
            let set = match spec.name {
                "request_timeout" => given.request_timeout.0 == seconds,
                "max_duration" => given.max_duration.0 == seconds,
                "max_memory" => given.max_memory.0 == 7,
                "max_output_bytes" => given.max_output_bytes.0 == 7,
                "max_scratch_bytes" => given.max_scratch_bytes.0 == 7,
                "max_result_bytes" => given.max_result_bytes.0 == 7,
                other => panic!("the table names a ceiling on {other} that serve does not hold"),
            };
            assert!(set, "{flag} does not set the ceiling on {}", spec.name);
        }
        assert_eq!(
            ceilings, 6,
            "every ceiling RelayPolicy holds is in the table"
        );
    }
}
