//! A real `stockade serve` on loopback for the remote tests: started with
//! the flags a test gives, on a port of its own, stopped (SIGTERM, then
//! SIGKILL) when the test ends.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

pub const STOCKADE: &str = env!("CARGO_BIN_EXE_stockade");

/// A token the token files hold.
pub const TOKEN: &str = "a-test-token-0123456789";
/// A second token the token files hold: another tenant.
pub const OTHER_TOKEN: &str = "another-tenants-token-0123";

static FILES: AtomicUsize = AtomicUsize::new(0);

/// A running server; stopped on drop.
pub struct Server {
    pub child: Child,
    pub url: String,
    pub addr: String,
}

impl Server {
    /// Starts `stockade serve --listen 127.0.0.1:0` with `flags`.
    pub fn start(flags: &[&str]) -> Self {
        Self::start_at("127.0.0.1:0", flags)
    }

    /// Starts `stockade serve --listen LISTEN` with `flags`; `url` and
    /// `addr` reach it on loopback whatever it listens on.
    pub fn start_at(listen: &str, flags: &[&str]) -> Self {
        let mut child = Command::new(STOCKADE)
            .args(["serve", "--listen", listen])
            .args(flags)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("stockade serve starts");
        let stdout = child.stdout.take().expect("its stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("the server says where it listens");
        let url = line
            .trim()
            .strip_prefix("stockade serve: listening on ")
            .unwrap_or_else(|| panic!("unexpected first line from the server: {line:?}"))
            .to_owned();
        let url = url.replace("0.0.0.0", "127.0.0.1");
        let addr = url
            .split_once("://")
            .map_or(url.as_str(), |(_, addr)| addr)
            .to_owned();
        Self { child, url, addr }
    }

    /// Starts a server whose token file holds `TOKEN`.
    pub fn with_tokens(flags: &[&str]) -> (Self, TokenFile) {
        Self::with_tokens_at("127.0.0.1:0", flags)
    }

    /// Starts a server on `listen` whose token file holds `TOKEN`.
    pub fn with_tokens_at(listen: &str, flags: &[&str]) -> (Self, TokenFile) {
        let file = TokenFile::new(&format!("# tests\n{TOKEN}\n{OTHER_TOKEN}\n"));
        let path = file.path();
        let mut all = vec!["--tokens", path.as_str()];
        all.extend_from_slice(flags);
        (Self::start_at(listen, &all), file)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's peak resident memory so far (`VmHWM`), in KiB.
    pub fn peak_rss_kib(&self) -> u64 {
        peak_rss_kib(self.pid())
    }

    /// Sends the server a signal.
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .args([&format!("-{signal}"), &self.pid().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success());
    }

    /// One plain HTTP GET; the status code and body.
    pub fn get(&self, path: &str) -> (u16, String) {
        self.get_with(path, "")
    }

    /// One HTTP GET with `headers` (each line ending in CRLF) besides
    /// Host; the status code and body.
    pub fn get_with(&self, path: &str, headers: &str) -> (u16, String) {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(&self.addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {}\r\n{headers}Connection: close\r\n\r\n",
            self.addr
        )
        .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let status = response
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or(0);
        let body = response
            .split_once("\r\n\r\n")
            .map(|(_, body)| body.to_owned())
            .unwrap_or_default();
        (status, body)
    }

    /// Waits until `/metrics` holds every line of `lines`; panics with
    /// the last text after ten seconds.
    pub fn metrics_show(&self, lines: &[&str]) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let (_, metrics) = self.get("/metrics");
            if lines.iter().all(|line| metrics.contains(line)) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "/metrics never showed {lines:?}:\n{metrics}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The workers the server runs now: its children forked from a
    /// template (each the server's child), whose first thread is a copy of
    /// the template's session thread, and named so.
    pub fn workers(&self) -> usize {
        children(self.pid())
            .into_iter()
            .filter(|pid| {
                std::fs::read_to_string(format!("/proc/{pid}/comm"))
                    .is_ok_and(|comm| comm.trim() == "session")
            })
            .count()
    }

    /// The templates the server keeps now: its children that are not
    /// workers forked from one.
    pub fn templates(&self) -> usize {
        children(self.pid())
            .into_iter()
            .filter(|pid| {
                std::fs::read_to_string(format!("/proc/{pid}/comm"))
                    .is_ok_and(|comm| comm.trim() != "session")
            })
            .count()
    }

    /// Waits until the server keeps `count` templates; false on timeout.
    pub fn wait_for_templates(&self, count: usize) -> bool {
        wait_for(count, || self.templates())
    }

    /// Waits until the server runs `count` workers; false on timeout.
    pub fn wait_for_workers(&self, count: usize) -> bool {
        wait_for(count, || self.workers())
    }
}

/// A process's peak resident memory so far (`VmHWM`), in KiB.
pub fn peak_rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .expect("the process's status")
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in its status")
}

/// Waits (up to 10 s) until `measure()` is `count`; false on timeout.
fn wait_for(count: usize, measure: impl Fn() -> usize) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if measure() == count {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Live (not zombie) children of `pid`.
pub fn children(pid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|child| {
            std::fs::read_to_string(format!("/proc/{child}/stat")).is_ok_and(|stat| {
                let Some((_, rest)) = stat.rsplit_once(')') else {
                    return false;
                };
                let fields: Vec<&str> = rest.split_whitespace().collect();
                fields.first() != Some(&"Z") && fields.get(1) == Some(&pid.to_string().as_str())
            })
        })
        .collect()
}

/// A token file, removed on drop.
pub struct TokenFile(std::path::PathBuf);

impl TokenFile {
    pub fn new(text: &str) -> Self {
        let path = std::env::temp_dir().join(format!(
            "stockade-serve-tokens-{}-{}",
            std::process::id(),
            FILES.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&path, text).expect("write the token file");
        Self(path)
    }

    pub fn path(&self) -> String {
        self.0.display().to_string()
    }

    pub fn write(&self, text: &str) {
        std::fs::write(&self.0, text).expect("rewrite the token file");
    }
}

impl Drop for TokenFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}
