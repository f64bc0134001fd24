//! The red-team suite: the `redteam` example plays a compromised worker
//! under exactly the production sandbox and fires each dangerous system call
//! directly; these tests read what happened. Security claims here are
//! checked by attacking, never by reading configuration back.

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use stockade_sandbox::seccomp::KILLED;

const EPERM: &str = "err 1";

fn redteam_binary() -> PathBuf {
    // Test binaries live in target/<profile>/deps; examples in target/<profile>/examples.
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(|deps| deps.parent()).unwrap();
    let path = profile_dir.join("examples").join("redteam");
    assert!(
        path.is_file(),
        "build the example first: {}",
        path.display()
    );
    path
}

fn redteam(args: &[&str]) -> Output {
    Command::new(redteam_binary()).args(args).output().unwrap()
}

/// Runs a command and returns label → outcome ("ok N" or "err N").
fn outcomes(args: &[&str]) -> BTreeMap<String, String> {
    let output = redteam(args);
    assert!(
        output.status.success(),
        "redteam {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_once(' '))
        .map(|(label, outcome)| (label.to_owned(), outcome.to_owned()))
        .collect()
}

#[test]
fn the_production_sandbox_is_complete_on_this_kernel() {
    let output = redteam(&["report"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = String::from_utf8_lossy(&output.stdout);
    for layer in [
        "Rlimits",
        "NotDumpable",
        "Nobody",
        "Namespaces",
        "EmptyRoot",
        "NoCapabilities",
        "NoNewPrivs",
        "LandlockFilesystem",
        "LandlockNetwork",
        "LandlockScopes",
        "Seccomp",
        "SelfTest",
    ] {
        assert!(report.contains(layer), "{layer} is not in force: {report}");
    }
    assert!(report.contains("missing: []"), "{report}");
}

#[test]
fn every_call_on_the_kill_list_kills_the_worker_with_sigsys() {
    assert!(KILLED.len() >= 40);
    for (name, _) in KILLED {
        for pattern in ["0", "1", "2", "3"] {
            let output = redteam(&["fire", name, pattern]);
            assert_eq!(
                output.status.signal(),
                Some(libc::SIGSYS),
                "{name} with junk pattern {pattern} did not kill: {:?} {}",
                output.status,
                String::from_utf8_lossy(&output.stdout)
            );
        }
    }
}

#[test]
fn every_denied_call_answers_eperm_whatever_its_arguments() {
    let results = outcomes(&["denied"]);
    assert!(results.len() >= 300, "only {} attempts ran", results.len());
    for (label, outcome) in &results {
        assert_eq!(outcome, EPERM, "{label} was not denied");
    }
}

#[test]
fn attacks_on_files_network_processes_and_memory_fail() {
    let results = outcomes(&["attacks"]);
    let expect = |label: &str, outcome: &str| {
        assert_eq!(
            results.get(label).map(String::as_str),
            Some(outcome),
            "{label}: {results:?}"
        );
    };
    for label in [
        "open-etc-passwd",
        "create-file",
        "stat-usr",
        "socket-inet",
        "socket-unix",
        "connect-loopback",
        "bind-port",
        "signal-parent",
        "signal-init",
        "fork",
        "fork-from-thread",
        "clone-process",
        "clone-newuser",
        "mmap-write-exec",
        "mprotect-write-exec",
        "prlimit-parent",
        "tgkill-parent",
        "prctl-set-dumpable",
        "seccomp-strict",
    ] {
        expect(label, EPERM);
    }
    for process in ["parent", "init"] {
        for probe in PROCESS_PROBES {
            expect(&format!("{process}-{probe}"), EPERM);
        }
    }
    // clone3 answers ENOSYS so the C library falls back to clone, whose flags the filter checks.
    expect("clone3", "err 38");
}

/// What `process_probes` tries on another process: its CPU clocks (read,
/// resolution, a sleep on one), a futex it would own, and its affinity,
/// any of which would tell a guest what runs on the machine and how hard.
const PROCESS_PROBES: [&str; 6] = [
    "clock",
    "thread-clock",
    "clock-res",
    "clock-sleep",
    "futex-owner",
    "affinity",
];

#[test]
fn a_worker_forked_from_a_template_cannot_reach_the_template_or_a_sibling() {
    let results = outcomes(&["--forked", "attacks"]);
    for label in [
        // What any worker is refused...
        "open-etc-passwd",
        "socket-unix",
        "signal-parent",
        "fork",
        "clone-process",
        "clone-newuser",
        "prlimit-parent",
        // ...and what the template's own filter allows it.
        "signal-template",
        "signal-sibling",
        "tgkill-sibling",
        "prlimit-sibling",
        "fork-as-template",
        "recvmsg",
        "dup3",
    ] {
        assert_eq!(
            results.get(label).map(String::as_str),
            Some(EPERM),
            "{label}: {results:?}"
        );
    }
    for process in ["parent", "init", "template", "sibling"] {
        for probe in PROCESS_PROBES {
            let label = format!("{process}-{probe}");
            assert_eq!(
                results.get(&label).map(String::as_str),
                Some(EPERM),
                "{label}: {results:?}"
            );
        }
    }
}

#[test]
fn a_worker_forked_from_a_template_still_makes_the_calls_it_needs_on_itself() {
    let results = outcomes(&["--forked", "allowed"]);
    for label in [
        "getpid",
        "kill-self-0",
        "tgkill-self-0",
        "prlimit-self",
        "thread-in-thread",
    ]
    .into_iter()
    .chain(OWN_CLOCKS_AND_AFFINITY)
    {
        let outcome = results.get(label).map(String::as_str).unwrap_or("missing");
        assert!(outcome.starts_with("ok"), "{label}: {outcome}");
    }
}

/// The clocks and the affinity a worker may read: the system's clocks and
/// its own CPU clocks, by their fixed ids and by pid 0.
const OWN_CLOCKS_AND_AFFINITY: [&str; 9] = [
    "clock-realtime",
    "clock-monotonic",
    "clock-boottime",
    "clock-process-cputime",
    "clock-thread-cputime",
    "clock-own-cpu",
    "clock-own-thread-cpu",
    "affinity-self-0",
    "affinity-self",
];

#[test]
fn the_calls_a_worker_needs_on_itself_still_work() {
    let results = outcomes(&["allowed"]);
    for label in [
        "getpid",
        "kill-self-0",
        "tgkill-self-0",
        "prlimit-self",
        "mmap-read-write",
        "mprotect-read",
        "munmap",
        "getrandom",
        "thread-in-thread",
        "write-stdout",
    ]
    .into_iter()
    .chain(OWN_CLOCKS_AND_AFFINITY)
    {
        let outcome = results.get(label).map(String::as_str).unwrap_or("missing");
        assert!(outcome.starts_with("ok"), "{label}: {outcome}");
    }
}

#[test]
fn without_seccomp_the_empty_root_has_nothing_to_find_or_write() {
    let results = outcomes(&["--skip", "seccomp", "attacks"]);
    assert_eq!(
        results["stat-usr"], "err 2",
        "stat(\"/usr\") should be ENOENT under the empty root"
    );
    assert_eq!(results["open-etc-passwd"], "err 2");
    assert_eq!(
        results["create-file"], "err 30",
        "the root should be read-only (EROFS)"
    );
}

#[test]
fn without_seccomp_landlock_refuses_tcp() {
    let results = outcomes(&["--skip", "seccomp", "attacks"]);
    assert_eq!(results["connect-loopback"], "err 13");
    assert_eq!(results["bind-port"], "err 13");
    assert_eq!(results["signal-parent"], EPERM);
}

#[test]
fn without_seccomp_or_landlock_the_network_namespace_reaches_nothing() {
    let results = outcomes(&["--skip", "seccomp", "--skip", "landlock", "attacks"]);
    assert_eq!(
        results["connect-loopback"], "err 101",
        "expected ENETUNREACH in the empty network namespace"
    );
}

/// Reads `/proc/<pid>/<file>` of a sandboxed program while it holds still.
fn read_proc_of_sandboxed(file: &str) -> String {
    let mut child = Command::new(redteam_binary())
        .arg("hold")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    assert_eq!(line, "holding\n");
    let text = std::fs::read_to_string(format!("/proc/{}/{file}", child.id())).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    text
}

#[test]
fn a_worker_started_as_root_runs_as_nobody_with_no_capabilities() {
    let status = read_proc_of_sandboxed("status");
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>().join(" "))
            .unwrap_or_default()
    };
    if rustix::process::geteuid().is_root() {
        assert_eq!(field("Uid:"), "65534 65534 65534 65534");
        assert_eq!(field("Gid:"), "65534 65534 65534 65534");
    }
    assert_eq!(field("CapEff:"), "0000000000000000");
    assert_eq!(field("CapPrm:"), "0000000000000000");
    assert_eq!(field("NoNewPrivs:"), "1");
    assert_eq!(field("Seccomp:"), "2");
}

#[test]
fn rlimit_cpu_stops_a_worker_that_burns_its_cpu_time() {
    let started = std::time::Instant::now();
    let output = redteam(&["--cpu", "1", "burn"]);
    assert_eq!(
        output.status.signal(),
        Some(libc::SIGXCPU),
        "{:?}",
        output.status
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}

#[test]
fn core_dumps_are_off() {
    // RLIMIT_CORE is 0 and the process is not dumpable: a crash leaves nothing.
    let limits = read_proc_of_sandboxed("limits");
    let core = limits
        .lines()
        .find(|l| l.starts_with("Max core file size"))
        .unwrap();
    assert!(
        core.split_whitespace().filter(|w| *w == "0").count() >= 2,
        "{core}"
    );
    let files = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap();
    assert!(files.contains(" 16 "), "{files}");
}

/// A host directory to show the guest: `pkg/` (a file, a subdirectory, a
/// link to /etc/passwd, a link to a sibling) beside `other/`, which is not
/// shown. World-writable, so that what refuses a write is the sandbox and
/// not the files' permissions (a worker started as root acts as nobody).
struct Trees {
    root: PathBuf,
}

impl Trees {
    fn new(name: &str) -> Self {
        use std::os::unix::fs::{PermissionsExt, symlink};
        let root = std::env::temp_dir().join(format!("stockade-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("pkg/sub")).unwrap();
        std::fs::create_dir_all(root.join("pkg/private")).unwrap();
        std::fs::write(root.join("pkg/private/key.txt"), "hidden").unwrap();
        std::fs::write(root.join("pkg/test_module.so"), "hidden").unwrap();
        std::fs::create_dir_all(root.join("other")).unwrap();
        std::fs::write(root.join("pkg/data.txt"), "shown").unwrap();
        std::fs::write(root.join("pkg/sub/deep.txt"), "shown").unwrap();
        std::fs::write(root.join("other/secret.txt"), "not shown").unwrap();
        symlink("/etc/passwd", root.join("pkg/passwd")).unwrap();
        symlink("../other/secret.txt", root.join("pkg/sibling")).unwrap();
        for dir in ["", "pkg", "pkg/sub", "pkg/private", "other"] {
            let mode = std::fs::Permissions::from_mode(0o777);
            std::fs::set_permissions(root.join(dir), mode).unwrap();
        }
        for file in [
            "pkg/data.txt",
            "pkg/sub/deep.txt",
            "pkg/private/key.txt",
            "pkg/test_module.so",
            "other/secret.txt",
        ] {
            let mode = std::fs::Permissions::from_mode(0o666);
            std::fs::set_permissions(root.join(file), mode).unwrap();
        }
        Trees { root }
    }

    fn path(&self, rel: &str) -> String {
        self.root.join(rel).display().to_string()
    }

    /// Runs `files` on each of `rels` with `pkg/` readable, under `flags`;
    /// returns "<attempt> <rel>" → outcome.
    fn attempt(&self, flags: &[&str], rels: &[&str]) -> BTreeMap<String, String> {
        self.attempt_hiding(flags, &[], rels)
    }

    /// As `attempt`, with `hidden` (relative) covered.
    fn attempt_hiding(
        &self,
        flags: &[&str],
        hidden: &[&str],
        rels: &[&str],
    ) -> BTreeMap<String, String> {
        let pkg = self.path("pkg");
        let paths: Vec<String> = rels.iter().map(|r| self.path(r)).collect();
        let hidden: Vec<String> = hidden.iter().map(|r| self.path(r)).collect();
        let mut args: Vec<&str> = flags.to_vec();
        for path in &hidden {
            args.extend(["--hidden", path.as_str()]);
        }
        args.extend(["--readable", pkg.as_str(), "files"]);
        args.extend(paths.iter().map(String::as_str));
        let output = redteam(&args);
        assert!(
            output.status.success(),
            "redteam {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let prefix = format!("{}/", self.root.display());
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| {
                let mut parts = line.splitn(3, ' ');
                let (what, path, outcome) = (parts.next()?, parts.next()?, parts.next()?);
                let rel = path.strip_prefix(&prefix).unwrap_or(path);
                Some((format!("{what} {rel}"), outcome.to_owned()))
            })
            .collect()
    }
}

impl Drop for Trees {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

#[test]
fn a_readable_tree_can_be_read_and_listed_but_not_written() {
    let trees = Trees::new("readable");
    let results = trees.attempt(&[], &["pkg/data.txt", "pkg/sub/deep.txt", "pkg", "pkg/sub"]);
    assert_eq!(results["read pkg/data.txt"], "ok 5");
    assert_eq!(results["read pkg/sub/deep.txt"], "ok 5");
    assert!(results["list pkg"].starts_with("ok "));
    assert_eq!(results["list pkg/sub"], "ok 1");
    for rel in ["pkg/data.txt", "pkg", "pkg/sub"] {
        for what in ["write", "create", "create-in"] {
            let outcome = &results[&format!("{what} {rel}")];
            assert!(outcome.starts_with("err "), "{what} {rel}: {outcome}");
        }
    }
}

#[test]
fn beside_a_readable_tree_nothing_of_the_host_is_visible() {
    let trees = Trees::new("beside");
    let results = trees.attempt(
        &[],
        &["other/secret.txt", "other", "pkg/passwd", "pkg/sibling"],
    );
    for attempt in [
        "read other/secret.txt",
        "list other",
        "read pkg/passwd",
        "read pkg/sibling",
    ] {
        assert_eq!(results[attempt], "err 2", "{attempt} should find nothing");
    }
}

#[test]
fn without_seccomp_or_landlock_a_readable_tree_is_a_read_only_mount() {
    let trees = Trees::new("rdonly");
    let results = trees.attempt(
        &["--skip", "seccomp", "--skip", "landlock"],
        &["pkg/data.txt", "pkg"],
    );
    assert_eq!(results["read pkg/data.txt"], "ok 5");
    assert_eq!(results["write pkg/data.txt"], "err 30", "expected EROFS");
    assert_eq!(results["create-in pkg"], "err 30", "expected EROFS");
}

#[test]
fn without_namespaces_landlock_lets_only_the_readable_tree_be_read() {
    let trees = Trees::new("landlock");
    let results = trees.attempt(
        &["--skip", "namespaces", "--skip", "seccomp"],
        &["pkg/data.txt", "other/secret.txt", "pkg"],
    );
    assert_eq!(results["read pkg/data.txt"], "ok 5");
    assert_eq!(
        results["read other/secret.txt"], "err 13",
        "expected EACCES"
    );
    assert_eq!(results["write pkg/data.txt"], "err 13", "expected EACCES");
    assert_eq!(results["create-in pkg"], "err 13", "expected EACCES");
}

#[test]
fn with_seccomp_alone_files_open_for_reading_only() {
    let trees = Trees::new("seccomp-files");
    let results = trees.attempt(
        &["--skip", "namespaces", "--skip", "landlock"],
        &["other/secret.txt", "pkg"],
    );
    // Only seccomp stands (no empty root, so no scratch either), so the
    // host file is readable; every way of writing is refused by the filter
    // itself: the writing calls come only with a mounted scratch.
    assert_eq!(results["read other/secret.txt"], "ok 9");
    assert_eq!(results["write other/secret.txt"], EPERM);
    assert_eq!(results["create other/secret.txt"], EPERM);
    assert_eq!(results["create-in pkg"], EPERM);
}

#[test]
fn hidden_paths_inside_a_readable_tree_show_nothing() {
    let trees = Trees::new("hidden");
    let results = trees.attempt_hiding(
        &[],
        &["pkg/private", "pkg/test_module.so"],
        &[
            "pkg/private/key.txt",
            "pkg/private",
            "pkg/test_module.so",
            "pkg/data.txt",
        ],
    );
    assert_eq!(
        results["read pkg/private/key.txt"], "err 2",
        "the hidden directory is empty"
    );
    assert_eq!(results["list pkg/private"], "ok 0", "no entries");
    assert_eq!(results["create-in pkg/private"], "err 1");
    assert_eq!(
        results["read pkg/test_module.so"], "ok 0",
        "the hidden file reads empty"
    );
    assert_eq!(
        results["read pkg/data.txt"], "ok 5",
        "the rest of the tree is shown"
    );
}

/// The sweep's outcome by call number: `ok N`, `err N`, `killed`, `ended`.
fn sweep(trees: &[&str]) -> BTreeMap<u32, String> {
    let mut args = vec!["sweep", "511"];
    args.extend_from_slice(trees);
    let output = redteam(&args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| {
            let (nr, outcome) = line.split_once(' ')?;
            Some((nr.parse().ok()?, outcome.trim().to_owned()))
        })
        .collect()
}

/// `uretprobe` and `uprobe`: let through every filter by the kernels that
/// have them, denied by the rest; left out of the comparison.
const PROBE_CALLS: [u32; 2] = [335, 336];

/// What the filter lets through: neither denied (EPERM), nor answered
/// ENOSYS, nor killed.
fn let_through(outcomes: &BTreeMap<u32, String>) -> Vec<u32> {
    outcomes
        .iter()
        .filter(|(_, outcome)| !["err 1", "err 38", "killed"].contains(&outcome.as_str()))
        .map(|(nr, _)| *nr)
        .filter(|nr| !PROBE_CALLS.contains(nr))
        .collect()
}

/// The call numbers of the `| nr | name | result |` rows of `text`.
fn documented_numbers(text: &str) -> Vec<u32> {
    text.lines()
        .filter_map(|line| line.strip_prefix("| ")?.split(" |").next()?.parse().ok())
        .filter(|nr| !PROBE_CALLS.contains(nr))
        .collect()
}

#[test]
fn the_documented_system_call_sweep_is_what_the_filter_lets_through() {
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/security.md"),
    )
    .unwrap();
    let section = doc
        .split("## The system-call sweep")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("docs/security.md has the sweep's section");
    let (closed_doc, readable_doc) = section
        .split_once("With readable trees")
        .expect("and its part for readable trees");
    let closed = sweep(&[]);
    assert_eq!(
        let_through(&closed),
        documented_numbers(closed_doc),
        "rerun scripts/syscall-sweep and put its output in docs/security.md"
    );
    let (readable_doc, scratch_doc) = readable_doc
        .split_once("With a scratch")
        .expect("and its part for a scratch directory");
    let readable = sweep(&["/usr"]);
    let mut both = documented_numbers(closed_doc);
    both.extend(documented_numbers(readable_doc));
    both.sort_unstable();
    assert_eq!(
        let_through(&readable),
        both,
        "rerun scripts/syscall-sweep --readable and put what it adds in docs/security.md"
    );
    let scratch = sweep(&["--scratch", "/usr"]);
    let mut all = both.clone();
    all.extend(documented_numbers(scratch_doc));
    all.sort_unstable();
    assert_eq!(
        let_through(&scratch),
        all,
        "rerun scripts/syscall-sweep --scratch and put what it adds in docs/security.md"
    );
    // The calls that kill, as the kill list names them, and the one ENOSYS.
    let killed: Vec<&str> = KILLED
        .iter()
        .filter(|(_, nr)| closed.get(&(*nr as u32)).map(String::as_str) == Some("killed"))
        .map(|(name, _)| *name)
        .collect();
    assert_eq!(killed.len(), KILLED.len());
    let documented_killed = closed_doc
        .split("Killed with SIGSYS:")
        .nth(1)
        .map(|rest| rest.split_whitespace().collect::<Vec<_>>())
        .unwrap_or_default();
    let mut killed_sorted = killed.clone();
    killed_sorted.sort_unstable();
    let mut documented_sorted = documented_killed.clone();
    documented_sorted.sort_unstable();
    assert_eq!(killed_sorted, documented_sorted);
    assert_eq!(
        closed
            .iter()
            .filter(|(_, o)| o.as_str() == "err 38")
            .count(),
        1,
        "clone3 alone answers ENOSYS"
    );
}
