//! `stockade mcp`: a Model Context Protocol server over stdio, with the
//! tools `run_python`, `run_javascript` and `reset` (crates/stockade-mcp).
//! The client that starts it is its one connection; the sessions take
//! this command's limits, sandbox mode, engine and mounts.

use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use stockade_mcp::{OptionsFor, RequestBudget, ToolServer};

use crate::args::SessionArgs;
use crate::exit;
use crate::units::{Size, parse_size};

/// Serve the run_python, run_javascript and reset tools to an MCP client
/// over stdin and stdout.
///
/// Each language has one sandbox for the connection, so variables persist
/// across calls; a sandbox lost to a limit is replaced on the next call,
/// whose result says so. Configure an MCP client to start `stockade mcp`
/// (with any of the options below) as a stdio server.
#[derive(Debug, Args)]
pub struct McpArgs {
    #[command(flatten)]
    session: SessionArgs,
    /// The largest message the client may send, such as 4M; one larger,
    /// or whose parsed form would take more than 4 times that, is refused
    /// unparsed with an error naming why (data belongs in a --mount).
    #[arg(long, value_name = "SIZE", default_value_t = Size(stockade_mcp::budget::DEFAULT_MAX_REQUEST_BYTES as u64), value_parser = parse_size)]
    max_request_size: Size,
}

pub fn mcp(args: McpArgs) -> i32 {
    let budget = RequestBudget {
        max_bytes: usize::try_from(args.max_request_size.0).unwrap_or(usize::MAX),
    };
    // JavaScript sessions use --worker; say so when Python's do not.
    if let Some(message) = args.session.unused_worker(stockade::Language::Python) {
        eprintln!("stockade: mcp: note: {message}");
    }
    let session = Arc::new(args.session);
    let options_for: OptionsFor = Arc::new(move |language| session.options(language));
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("stockade: mcp: cannot start the async runtime: {err}");
            return exit::CRASHED;
        }
    };
    let server = ToolServer::new(options_for);
    let served = runtime.block_on(stockade_mcp::serve_stdio(server.clone(), budget));
    // The client is gone: a call still running ends now (its worker is
    // killed) instead of keeping this process until its time limit.
    server.stop_all();
    runtime.shutdown_timeout(SHUTDOWN);
    match served {
        Ok(()) => exit::OK,
        Err(err) => {
            eprintln!("stockade: mcp: {err}");
            exit::BAD_INPUT
        }
    }
}

/// How long a call stopped at the client's end has to give its worker up.
const SHUTDOWN: Duration = Duration::from_secs(5);
