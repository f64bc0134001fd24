//! The `stockade` command: runs a file in a supervised worker and reports
//! the outcome through its exit status.

// Nothing a guest, a worker or a peer controls may reach a panic.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

mod args;
mod bench;
mod doctor;
mod dump_file;
mod exit;
mod mcp;
mod output;
mod repl;
mod run;
mod serve;
mod units;

use clap::{Parser, Subcommand};

/// Run code you do not trust in a supervised stockade worker.
#[derive(Debug, Parser)]
#[command(name = "stockade", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Run(run::RunArgs),
    Repl(repl::ReplArgs),
    Doctor(doctor::DoctorArgs),
    Bench(bench::BenchArgs),
    Serve(serve::ServeArgs),
    Mcp(mcp::McpArgs),
}

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => exit::usage(err),
    };
    let code = match cli.command {
        Command::Run(args) => run::run(args),
        Command::Repl(args) => repl::repl(args),
        Command::Doctor(args) => doctor::doctor(args),
        Command::Bench(args) => bench::bench(args),
        Command::Serve(args) => serve::serve(args),
        Command::Mcp(args) => mcp::mcp(args),
    };
    std::process::exit(code);
}
