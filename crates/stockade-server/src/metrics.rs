//! The server's counters, and their Prometheus text form (`/metrics`):
//! sessions active, started and ended by cause, refusals, turns and a
//! histogram of their latency.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use stockade_wire::EndCause;

/// Upper bounds of the turn-latency buckets, in seconds.
const BUCKETS: [f64; 10] = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0, 60.0];

/// The gauge of MCP sessions open at `/mcp`.
pub fn mcp_sessions(open: usize) -> String {
    format!(
        "# HELP stockade_mcp_sessions_open MCP sessions clients hold open at /mcp.\n# TYPE stockade_mcp_sessions_open gauge\nstockade_mcp_sessions_open {open}\n"
    )
}

#[derive(Debug, Default)]
pub struct Metrics {
    started: AtomicU64,
    ended: [AtomicU64; EndCause::ALL.len()],
    /// Sessions the client closed cleanly (ended with `Exited` 0 after a
    /// Close), counted apart from workers that exited by themselves.
    closed: AtomicU64,
    /// Sessions whose client went away without closing.
    disconnected: AtomicU64,
    unauthorized: AtomicU64,
    over_capacity: AtomicU64,
    turns: AtomicU64,
    buckets: [AtomicU64; BUCKETS.len()],
    turn_micros: AtomicU64,
}

impl Metrics {
    pub fn started(&self) {
        self.started.fetch_add(1, Ordering::Relaxed);
    }

    pub fn ended(&self, cause: EndCause, clean_close: bool) {
        if clean_close {
            self.closed.fetch_add(1, Ordering::Relaxed);
            return;
        }
        if let Some(at) = EndCause::ALL.iter().position(|c| *c == cause) {
            self.ended[at].fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn disconnected(&self) {
        self.disconnected.fetch_add(1, Ordering::Relaxed);
    }

    pub fn unauthorized(&self) {
        self.unauthorized.fetch_add(1, Ordering::Relaxed);
    }

    pub fn over_capacity(&self) {
        self.over_capacity.fetch_add(1, Ordering::Relaxed);
    }

    pub fn turn(&self, took: Duration) {
        self.turns.fetch_add(1, Ordering::Relaxed);
        let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        self.turn_micros.fetch_add(micros, Ordering::Relaxed);
        let seconds = took.as_secs_f64();
        for (bound, count) in BUCKETS.iter().zip(&self.buckets) {
            if seconds <= *bound {
                count.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// The Prometheus text exposition of every counter.
    pub fn render(&self, active: usize, most: usize, ready: bool) -> String {
        let load = |c: &AtomicU64| c.load(Ordering::Relaxed);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# HELP stockade_sessions_active Sessions with a worker now.\n# TYPE stockade_sessions_active gauge\nstockade_sessions_active {active}"
        );
        let _ = writeln!(
            out,
            "# HELP stockade_sessions_capacity The most sessions at once (--max-sessions).\n# TYPE stockade_sessions_capacity gauge\nstockade_sessions_capacity {most}"
        );
        let _ = writeln!(
            out,
            "# HELP stockade_ready Whether the server takes new sessions (not draining, not full).\n# TYPE stockade_ready gauge\nstockade_ready {}",
            u8::from(ready)
        );
        let _ = writeln!(
            out,
            "# HELP stockade_sessions_started_total Sessions whose worker started.\n# TYPE stockade_sessions_started_total counter\nstockade_sessions_started_total {}",
            load(&self.started)
        );
        let _ = writeln!(
            out,
            "# HELP stockade_sessions_ended_total Sessions ended, by why.\n# TYPE stockade_sessions_ended_total counter\nstockade_sessions_ended_total{{reason=\"closed\"}} {}\nstockade_sessions_ended_total{{reason=\"disconnected\"}} {}",
            load(&self.closed),
            load(&self.disconnected)
        );
        for (cause, count) in EndCause::ALL.iter().zip(&self.ended) {
            let _ = writeln!(
                out,
                "stockade_sessions_ended_total{{reason=\"{cause}\"}} {}",
                load(count)
            );
        }
        let _ = writeln!(
            out,
            "# HELP stockade_connections_refused_total Connections refused before the upgrade, by why.\n# TYPE stockade_connections_refused_total counter\nstockade_connections_refused_total{{reason=\"unauthorized\"}} {}\nstockade_connections_refused_total{{reason=\"over-capacity\"}} {}",
            load(&self.unauthorized),
            load(&self.over_capacity)
        );
        let _ = writeln!(
            out,
            "# HELP stockade_turn_seconds Time from a client's request to the worker handing the turn back.\n# TYPE stockade_turn_seconds histogram"
        );
        for (bound, count) in BUCKETS.iter().zip(&self.buckets) {
            let _ = writeln!(
                out,
                "stockade_turn_seconds_bucket{{le=\"{bound}\"}} {}",
                load(count)
            );
        }
        let turns = load(&self.turns);
        let _ = writeln!(
            out,
            "stockade_turn_seconds_bucket{{le=\"+Inf\"}} {turns}\nstockade_turn_seconds_sum {}\nstockade_turn_seconds_count {turns}",
            load(&self.turn_micros) as f64 / 1e6
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_form_counts_turns_into_cumulative_buckets() {
        let metrics = Metrics::default();
        metrics.turn(Duration::from_micros(500));
        metrics.turn(Duration::from_millis(20));
        metrics.ended(EndCause::RequestTimeout, false);
        let text = metrics.render(3, 8, true);
        assert!(
            text.contains("stockade_turn_seconds_bucket{le=\"0.001\"} 1\n"),
            "{text}"
        );
        assert!(
            text.contains("stockade_turn_seconds_bucket{le=\"0.05\"} 2\n"),
            "{text}"
        );
        assert!(text.contains("stockade_turn_seconds_count 2\n"), "{text}");
        assert!(text.contains("stockade_sessions_ended_total{reason=\"request-timeout\"} 1\n"));
        assert!(text.contains("stockade_sessions_active 3\n"));
        assert!(text.contains("stockade_sessions_capacity 8\n"));
    }
}
