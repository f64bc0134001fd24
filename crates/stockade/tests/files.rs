//! Host mounts (docs/files.md): a guest reads, writes and lists files in
//! the directories its host mounted, in each mode, and reaches nothing
//! outside them, whatever it or anyone else does to the paths.

#[macro_use]
mod engines;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use stockade::{Error, Interpreter, Language, Mount, MountMode, Session, SessionOptions, Value};

/// A fresh directory of its own for one test, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "stockade-files-{}-{}-{name}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn python_with(engine: Interpreter, mounts: Vec<Mount>) -> Session {
    let mut options =
        engines::remote::maybe_remote(SessionOptions::new(Language::Python).engine(engine));
    options.mounts = mounts;
    Session::new(options).unwrap()
}

on_both_python_engines_and_remote!(
    a_read_only_mount_serves_a_csv_and_refuses_writes,
    a_read_write_mount_writes_through_to_the_host,
    overlay_writes_last_the_session_and_never_reach_the_host,
    escapes_from_a_mount_are_refused,
    a_fifo_in_a_mount_is_refused_without_blocking,
    a_mount_stays_bound_to_the_directory_it_opened,
    a_host_racing_renames_during_a_guest_loop_never_leads_out,
    a_read_past_max_file_memory_is_a_memory_error,
    an_overlay_cannot_launder_a_hard_link_by_renaming_its_directory,
    a_write_past_max_file_memory_is_a_memory_error_in_every_mode,
    without_a_mount_files_are_refused_and_the_environment_is_empty,
    environ_is_what_the_host_gave_and_nothing_else,
    a_frozen_clock_fixes_datetime_now_and_date_today,
    the_real_clock_is_the_hosts_in_utc,
);

fn guest_error(result: Result<Value, Error>) -> stockade::GuestError {
    match result {
        Err(Error::Guest(guest)) => guest,
        other => panic!("expected a guest exception, got {other:?}"),
    }
}

const SALES: &str = "region,amount\nnorth,120\nsouth,80\nnorth,30\n";

fn a_read_only_mount_serves_a_csv_and_refuses_writes(engine: Interpreter) {
    let uploads = Scratch::new("ro");
    uploads.write("sales.csv", SALES);
    let mount = Mount::new("/data", uploads.path(), MountMode::ReadOnly).unwrap();
    let mut session = python_with(engine, vec![mount]);
    let total = session
        .run(
            "from pathlib import Path\n\
             rows = Path('/data/sales.csv').read_text().splitlines()[1:]\n\
             totals = {}\n\
             for row in rows:\n    region, amount = row.split(',')\n    totals[region] = totals.get(region, 0) + int(amount)\n\
             totals",
        )
        .unwrap();
    assert_eq!(
        total,
        Value::Dict(vec![
            (Value::Str("north".into()), Value::Int(150)),
            (Value::Str("south".into()), Value::Int(80)),
        ])
    );
    assert_eq!(
        session
            .run("[p.name for p in Path('/data').iterdir()]")
            .unwrap(),
        Value::List(vec![Value::Str("sales.csv".into())])
    );
    let refused = guest_error(session.run("Path('/data/out.txt').write_text('x')"));
    assert_eq!(refused.type_name, "PermissionError", "{refused:?}");
    assert!(!uploads.path().join("out.txt").exists());
}

fn a_read_write_mount_writes_through_to_the_host(engine: Interpreter) {
    let reports = Scratch::new("rw");
    let mount = Mount::new("/out", reports.path(), MountMode::ReadWrite).unwrap();
    let mut session = python_with(engine, vec![mount]);
    session
        .run(
            "from pathlib import Path\n\
             Path('/out/summary').mkdir()\n\
             with open('/out/summary/report.txt', 'w') as f:\n    f.write('north: 150\\n')\n\
             Path('/out/summary/report.txt').rename('/out/report.txt')",
        )
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(reports.path().join("report.txt")).unwrap(),
        "north: 150\n"
    );
}

fn overlay_writes_last_the_session_and_never_reach_the_host(engine: Interpreter) {
    let uploads = Scratch::new("overlay");
    uploads.write("notes.txt", "original");
    let mount = Mount::new("/work", uploads.path(), MountMode::Overlay).unwrap();
    let mut session = python_with(engine, vec![mount.clone()]);
    session
        .run(
            "from pathlib import Path\n\
             Path('/work/notes.txt').write_text('scribbled')\n\
             Path('/work/new.txt').write_text('made here')",
        )
        .unwrap();
    assert_eq!(
        session
            .run("[Path('/work/notes.txt').read_text(), Path('/work/new.txt').read_text()]")
            .unwrap(),
        Value::List(vec![
            Value::Str("scribbled".into()),
            Value::Str("made here".into())
        ])
    );
    assert_eq!(
        std::fs::read_to_string(uploads.path().join("notes.txt")).unwrap(),
        "original"
    );
    assert!(!uploads.path().join("new.txt").exists());
    // Another session on the same mount starts from the directory itself.
    let mut other = python_with(engine, vec![mount]);
    assert_eq!(
        other
            .run("from pathlib import Path\n[Path('/work/notes.txt').read_text(), Path('/work/new.txt').exists()]")
            .unwrap(),
        Value::List(vec![Value::Str("original".into()), Value::Bool(false)])
    );
}

fn escapes_from_a_mount_are_refused(engine: Interpreter) {
    let uploads = Scratch::new("escape");
    uploads.write("ok.txt", "fine");
    let outside = Scratch::new("outside");
    let secret = outside.write("secret.txt", "do not read");
    // Planted by the host (or anyone who can write there): a symlink out,
    // and a hard link to a file outside.
    std::os::unix::fs::symlink("/etc", uploads.path().join("etc")).unwrap();
    std::os::unix::fs::symlink(&secret, uploads.path().join("secret-link")).unwrap();
    // Both scratch directories are in one temporary directory, so one
    // filesystem: the hard link is made.
    std::fs::hard_link(&secret, uploads.path().join("secret-hard")).unwrap();
    let mount = Mount::new("/data", uploads.path(), MountMode::ReadWrite).unwrap();
    let mut session = python_with(engine, vec![mount]);
    session.run("from pathlib import Path").unwrap();
    for path in [
        "/data/../etc/passwd",
        "/data/../../../../etc/passwd",
        "/etc/passwd",
        "/data/etc/passwd",
        "/data/secret-link",
    ] {
        let refused = guest_error(session.run(&format!("Path({path:?}).read_text()")));
        assert!(
            ["PermissionError", "FileNotFoundError", "OSError"]
                .contains(&refused.type_name.as_str()),
            "{path}: {refused:?}"
        );
        assert!(
            !refused.message.contains("do not read"),
            "{path}: {refused:?}"
        );
    }
    let refused = guest_error(session.run("Path('/data/secret-hard').read_text()"));
    assert_eq!(refused.type_name, "PermissionError", "{refused:?}");
    assert!(refused.message.contains("hard link"), "{refused:?}");
    // Writing through a symlink that leads out changes nothing outside.
    let _ = session.run("Path('/data/secret-link').write_text('overwritten')");
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "do not read");
    assert_eq!(
        session.run("Path('/data/ok.txt').read_text()").unwrap(),
        Value::Str("fine".into())
    );
}

fn a_fifo_in_a_mount_is_refused_without_blocking(engine: Interpreter) {
    let uploads = Scratch::new("fifo");
    let fifo = uploads.path().join("pipe");
    let made = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(made.as_ptr(), 0o600) }, 0);
    let mount = Mount::new("/data", uploads.path(), MountMode::ReadOnly).unwrap();
    let mut options = SessionOptions::new(Language::Python)
        .engine(engine)
        .request_timeout(std::time::Duration::from_secs(10));
    options.mounts = vec![mount];
    let mut session = Session::new(options).unwrap();
    let refused =
        guest_error(session.run("from pathlib import Path\nPath('/data/pipe').read_text()"));
    assert!(
        ["PermissionError", "OSError"].contains(&refused.type_name.as_str()),
        "{refused:?}"
    );
    assert_eq!(session.run("1 + 1").unwrap(), Value::Int(2));
}

fn a_mount_stays_bound_to_the_directory_it_opened(engine: Interpreter) {
    let base = Scratch::new("bound");
    let original = base.path().join("uploads");
    std::fs::create_dir(&original).unwrap();
    std::fs::write(original.join("a.txt"), "first").unwrap();
    let mount = Mount::new("/data", &original, MountMode::ReadOnly).unwrap();
    // The host renames the directory and puts another in its place.
    std::fs::rename(&original, base.path().join("moved")).unwrap();
    std::fs::create_dir(&original).unwrap();
    std::fs::write(original.join("a.txt"), "impostor").unwrap();
    let mut session = python_with(engine, vec![mount]);
    assert_eq!(
        session
            .run("from pathlib import Path\nPath('/data/a.txt').read_text()")
            .unwrap(),
        Value::Str("first".into())
    );
}

fn a_host_racing_renames_during_a_guest_loop_never_leads_out(engine: Interpreter) {
    let uploads = Scratch::new("race");
    let outside = Scratch::new("race-outside");
    outside.write("inner.txt", "outside!");
    std::fs::create_dir(uploads.path().join("dir")).unwrap();
    std::fs::write(uploads.path().join("dir/inner.txt"), "inside").unwrap();
    let mount = Mount::new("/data", uploads.path(), MountMode::ReadOnly).unwrap();
    let mut session = python_with(engine, vec![mount]);
    // A host thread swaps `dir` between a real directory and a symlink to
    // a directory outside, as fast as it can, while the guest reads.
    let stop = Arc::new(AtomicBool::new(false));
    let racer = {
        let stop = Arc::clone(&stop);
        let root = uploads.path().to_path_buf();
        let target = outside.path().to_path_buf();
        std::thread::spawn(move || {
            let dir = root.join("dir");
            let parked = root.join("parked");
            while !stop.load(Ordering::Relaxed) {
                let _ = std::fs::rename(&dir, &parked);
                let _ = std::os::unix::fs::symlink(&target, &dir);
                let _ = std::fs::remove_file(&dir);
                let _ = std::fs::rename(&parked, &dir);
            }
        })
    };
    // Rounds of reads until one lands between the racer's swaps (a loaded
    // machine can starve a whole round); none may ever read outside.
    let mut seen = Vec::new();
    for _round in 0..10 {
        let round = session
            .run(
                "from pathlib import Path\n\
                 seen = set()\n\
                 for i in range(3000):\n    try:\n        seen.add(Path('/data/dir/inner.txt').read_text())\n    except OSError:\n        seen.add('refused')\n\
                 sorted(seen)",
            )
            .unwrap();
        let Value::List(round) = round else {
            panic!("expected a list, got {round:?}");
        };
        seen.extend(round);
        if seen.contains(&Value::Str("inside".into())) {
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    racer.join().unwrap();
    assert!(!seen.contains(&Value::Str("outside!".into())), "{seen:?}");
    assert!(seen.contains(&Value::Str("inside".into())), "{seen:?}");
}

fn a_read_past_max_file_memory_is_a_memory_error(engine: Interpreter) {
    let uploads = Scratch::new("budget");
    uploads.write("big.txt", &"x".repeat(64 * 1024));
    let mount = Mount::new("/data", uploads.path(), MountMode::Overlay).unwrap();
    let mut options = SessionOptions::new(Language::Python)
        .engine(engine)
        .max_file_memory(16 * 1024);
    options.mounts = vec![mount];
    let mut session = Session::new(options).unwrap();
    session.run("from pathlib import Path").unwrap();
    let refused = guest_error(session.run("Path('/data/big.txt').read_text()"));
    assert_eq!(refused.type_name, "MemoryError", "{refused:?}");
    let refused = guest_error(session.run("Path('/data/new.txt').write_text('y' * 20000)"));
    assert_eq!(refused.type_name, "MemoryError", "{refused:?}");
    assert_eq!(session.run("len('still here')").unwrap(), Value::Int(10));
}

#[test]
fn a_mount_of_a_missing_path_or_a_file_fails_when_made() {
    let base = Scratch::new("invalid");
    let file = base.write("file.txt", "not a directory");
    for (guest, host) in [
        ("/data", base.path().join("missing")),
        ("/data", file),
        ("data", base.path().to_path_buf()),
        ("/data/../etc", base.path().to_path_buf()),
    ] {
        match Mount::new(guest, &host, MountMode::ReadOnly) {
            Err(Error::Configuration(err)) => assert!(
                err.message().contains("mount"),
                "{guest} {}: {}",
                host.display(),
                err.message()
            ),
            other => panic!(
                "{guest} {}: expected an error, got {other:?}",
                host.display()
            ),
        }
    }
}

/// What a CPython guest's environment holds beyond the host's: its
/// scratch directory as `TMPDIR` and `HOME` (docs/data.md); monty's holds
/// nothing more.
/// What every engine's guest has in its environment unless the host set
/// it: its scratch directory, as `TMPDIR` and `HOME`.
fn scratch_environ(_engine: Interpreter) -> Vec<(Value, Value)> {
    ["TMPDIR", "HOME"]
        .map(|name| (Value::Str(name.into()), Value::Str("/tmp".into())))
        .to_vec()
}

fn scratch_home(_engine: Interpreter) -> Value {
    Value::Str("/tmp".into())
}

fn without_a_mount_files_are_refused_and_the_environment_is_empty(engine: Interpreter) {
    let mut session = python_with(engine, Vec::new());
    let refused =
        guest_error(session.run("from pathlib import Path\nPath('/etc/passwd').read_text()"));
    // monty's host refuses; CPython's sandbox shows an empty root.
    assert!(
        ["PermissionError", "FileNotFoundError"].contains(&refused.type_name.as_str()),
        "{refused:?}"
    );
    assert_eq!(
        session
            .run("import os\n[os.getenv('HOME'), os.getenv('PATH', 'none'), dict(os.environ)]")
            .unwrap(),
        Value::List(vec![
            scratch_home(engine),
            Value::Str("none".into()),
            Value::Dict(scratch_environ(engine))
        ])
    );
}

fn environ_is_what_the_host_gave_and_nothing_else(engine: Interpreter) {
    let mut options = SessionOptions::new(Language::Python).engine(engine);
    options.environ = vec![("REGION".into(), "north".into())];
    let mut session = Session::new(options).unwrap();
    assert_eq!(
        session
            .run("import os\n[os.getenv('REGION'), os.getenv('HOME'), os.getenv('HOME', 'x'), dict(os.environ)]")
            .unwrap(),
        Value::List(vec![
            Value::Str("north".into()),
            scratch_home(engine),
            scratch_home(engine),
            Value::Dict(
                [(Value::Str("REGION".into()), Value::Str("north".into()))]
                    .into_iter()
                    .chain(scratch_environ(engine))
                    .collect()
            ),
        ])
    );
    // The session above left a spare worker; one with another environment
    // must not take it.
    session.close();
    let mut other = SessionOptions::new(Language::Python).engine(engine);
    other.environ = vec![("REGION".into(), "south".into())];
    let mut session = Session::new(other).unwrap();
    assert_eq!(
        session.run("import os\nos.getenv('REGION')").unwrap(),
        Value::Str("south".into())
    );
}

fn a_frozen_clock_fixes_datetime_now_and_date_today(engine: Interpreter) {
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_767_225_600); // 2026-01-01T00:00:00Z
    let mut options = SessionOptions::new(Language::Python).engine(engine);
    options.clock = stockade::GuestClock::Frozen(at);
    let mut session = Session::new(options).unwrap();
    assert_eq!(
        session
            .run(
                "from datetime import datetime, date, timezone, timedelta\n\
                 [datetime.now().isoformat(), str(date.today()), datetime.now(timezone.utc).isoformat(),\n\
                  datetime.now(timezone(timedelta(hours=2))).isoformat(), datetime.now() == datetime.now()]"
            )
            .unwrap(),
        Value::List(vec![
            Value::Str("2026-01-01T00:00:00".into()),
            Value::Str("2026-01-01".into()),
            Value::Str("2026-01-01T00:00:00+00:00".into()),
            Value::Str("2026-01-01T02:00:00+02:00".into()),
            Value::Bool(true),
        ])
    );
}

fn the_real_clock_is_the_hosts_in_utc(engine: Interpreter) {
    let mut session = python_with(engine, Vec::new());
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let Value::Int(seen) = session
        .run("from datetime import datetime, timezone\nint(datetime.now(timezone.utc).timestamp())")
        .unwrap()
    else {
        panic!("expected an int");
    };
    assert!((seen - before).abs() <= 5, "guest {seen}, host {before}");
}

fn an_overlay_cannot_launder_a_hard_link_by_renaming_its_directory(engine: Interpreter) {
    let uploads = Scratch::new("launder");
    let outside = Scratch::new("launder-outside");
    let secret = outside.write("secret.txt", "do not read");
    std::fs::create_dir(uploads.path().join("sub")).unwrap();
    std::fs::hard_link(&secret, uploads.path().join("sub/secret")).unwrap();
    let mount = Mount::new("/data", uploads.path(), MountMode::Overlay).unwrap();
    let mut session = python_with(engine, vec![mount]);
    session.run("from pathlib import Path").unwrap();
    let refused = guest_error(session.run("Path('/data/sub/secret').read_text()"));
    assert!(refused.message.contains("hard link"), "{refused:?}");
    // The overlay moves the directory in memory, its file still the real
    // one: every use of it under the new name meets the same refusal.
    session
        .run("Path('/data/sub').rename('/data/sub2')")
        .unwrap();
    for call in [
        "Path('/data/sub2/secret').read_text()",
        "Path('/data/sub2/secret').stat().st_size",
        "open('/data/sub2/secret', 'a').write('more')",
    ] {
        let refused = guest_error(session.run(call));
        assert_eq!(refused.type_name, "PermissionError", "{call}: {refused:?}");
        assert!(refused.message.contains("hard link"), "{call}: {refused:?}");
    }
    // A whole new content needs nothing of the old: the overlay keeps it.
    assert_eq!(
        session
            .run("Path('/data/sub2/secret').write_text('over')\nPath('/data/sub2/secret').read_text()")
            .unwrap(),
        Value::Str("over".into())
    );
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "do not read");
}

/// Two sandboxes share one read-write mount, as the Python and JavaScript
/// sandboxes of one MCP client do. One renames two directories round and
/// round: `a/f` is a file of the mount's own, `b/f` a hard link to a file
/// outside. The other (`victim_options`, on a clone of the same mount)
/// runs `victim_code` on `/data/a/f` meanwhile, which returns
/// `[ok, refused, missing, leaked]`. The outside file never changes,
/// nothing of it is read, and the refusals show the race reached it.
fn race_renames_against_a_hard_link(
    engine: Interpreter,
    victim_options: SessionOptions,
    mode: MountMode,
    victim_code: &str,
) {
    let shared = Scratch::new("hardlink-race");
    let outside = Scratch::new("hardlink-race-outside");
    let secret = outside.write("secret.txt", "do not read\n");
    std::fs::create_dir(shared.path().join("a")).unwrap();
    std::fs::create_dir(shared.path().join("b")).unwrap();
    std::fs::write(shared.path().join("a/f"), "inside\n").unwrap();
    std::fs::hard_link(&secret, shared.path().join("b/f")).unwrap();
    let mount = Mount::new("/data", shared.path(), MountMode::ReadWrite).unwrap();

    let racing = Arc::new(AtomicBool::new(true));
    let mut racer = python_with(engine, vec![mount.clone()]);
    let still_racing = Arc::clone(&racing);
    racer.register_function("racing", move |_| {
        Ok(Value::Bool(still_racing.load(Ordering::Relaxed)))
    });
    let racer = std::thread::spawn(move || {
        racer.run(
            "from pathlib import Path\n\
             swaps = 0\n\
             while racing():\n    try:\n        Path('/data/a').rename('/data/t')\n        Path('/data/b').rename('/data/a')\n        Path('/data/t').rename('/data/b')\n        swaps += 1\n    except OSError:\n        pass\n\
             swaps",
        )
    });

    let mut options = victim_options;
    options.mounts = vec![Mount::new("/data", shared.path(), mode).unwrap()];
    if mode == MountMode::ReadWrite {
        // The very mount the racer has, as one client's two sandboxes share it.
        options.mounts = vec![mount];
    }
    let mut victim = Session::new(options).unwrap();
    let counts = victim.run(victim_code);
    racing.store(false, Ordering::Relaxed);
    let swaps = racer.join().unwrap().unwrap();
    assert_eq!(
        std::fs::read_to_string(&secret).unwrap(),
        "do not read\n",
        "the file outside the mount changed"
    );
    let Value::List(counts) = counts.unwrap() else {
        panic!("expected [ok, refused, missing, leaked]");
    };
    let count = |i: usize| match counts[i] {
        Value::Int(n) => n,
        ref other => panic!("expected a count, got {other:?}"),
    };
    assert_eq!(count(3), 0, "read the outside file: {counts:?}");
    assert!(count(0) > 0, "never used the mount's own file: {counts:?}");
    assert!(
        count(1) > 0,
        "the race never put the hard link under the path ({swaps:?} swaps): {counts:?}"
    );
}

/// What a Python victim does on `/data/a/f`, in each mode: it appends
/// only in a read-write mount (an overlay's append would keep the file in
/// memory, where no later call meets the real one).
fn python_victim(mode: MountMode) -> String {
    let touch = match mode {
        MountMode::ReadWrite => {
            "        with open('/data/a/f', 'a') as fh:\n            fh.write('x\\n')\n"
        }
        _ => "",
    };
    format!(
        "from pathlib import Path\n\
         counts = [0, 0, 0, 0]\n\
         for i in range(1500):\n    try:\n{touch}        size = Path('/data/a/f').stat().st_size\n        text = Path('/data/a/f').read_text()\n        if 'do not read' in text:\n            counts[3] += 1\n        else:\n            counts[0] += 1\n    except PermissionError:\n        counts[1] += 1\n    except OSError:\n        counts[2] += 1\n\
         counts"
    )
}

#[test]
fn a_javascript_sandbox_racing_a_python_one_never_reaches_a_hard_linked_file() {
    let victim = "
        const fs = require('fs');
        const counts = [0, 0, 0, 0];
        for (let i = 0; i < 1500; i++) {
          try {
            fs.appendFileSync('/data/a/f', 'x\\n');
            fs.statSync('/data/a/f');
            const text = fs.readFileSync('/data/a/f', 'utf8');
            counts[text.includes('do not read') ? 3 : 0]++;
          } catch (e) {
            counts[e.code === 'EACCES' || e.code === 'EPERM' ? 1 : 2]++;
          }
        }
        counts";
    race_renames_against_a_hard_link(
        Interpreter::Monty,
        SessionOptions::new(Language::JavaScript),
        MountMode::ReadWrite,
        victim,
    );
}

fn two_sandboxes_racing_renames_never_reach_a_hard_linked_file(engine: Interpreter) {
    for mode in [
        MountMode::ReadWrite,
        MountMode::ReadOnly,
        MountMode::Overlay,
    ] {
        let options = SessionOptions::new(Language::Python).engine(engine);
        race_renames_against_a_hard_link(engine, options, mode, &python_victim(mode));
    }
}

fn a_write_past_max_file_memory_is_a_memory_error_in_every_mode(engine: Interpreter) {
    let reports = Scratch::new("big-write");
    let mount = Mount::new("/out", reports.path(), MountMode::ReadWrite).unwrap();
    let mut options = SessionOptions::new(Language::Python)
        .engine(engine)
        .max_file_memory(16 * 1024);
    options.mounts = vec![mount];
    let mut session = Session::new(options).unwrap();
    session.run("from pathlib import Path").unwrap();
    let refused = guest_error(session.run("Path('/out/big.txt').write_text('y' * 20000)"));
    assert_eq!(refused.type_name, "MemoryError", "{refused:?}");
    // Nothing of it reached the host (CPython's `open('w')` makes the
    // file, empty, before the write is refused).
    assert!(std::fs::read(reports.path().join("big.txt")).map_or(true, |bytes| bytes.is_empty()));
    session
        .run("Path('/out/small.txt').write_text('ok')")
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(reports.path().join("small.txt")).unwrap(),
        "ok"
    );
}

#[test]
fn mount_options_out_of_range_are_configuration_errors() {
    let dir = Scratch::new("options");
    let mount = Mount::new("/data", dir.path(), MountMode::ReadOnly).unwrap();
    let mut twice = SessionOptions::new(Language::Python).engine(Interpreter::Monty);
    twice.mounts = vec![mount.clone(), mount];
    let huge = SessionOptions::new(Language::Python)
        .engine(Interpreter::Monty)
        .max_file_memory(stockade::MAX_FILE_MEMORY + 1);
    for (options, words) in [(twice, "two mounts"), (huge, "max_file_memory")] {
        match Session::new(options) {
            Err(Error::Configuration(err)) => {
                assert!(err.message().contains(words), "{}", err.message())
            }
            other => panic!("expected a configuration error naming {words}, got {other:?}"),
        }
    }
}

fn an_os_handler_answers_what_no_mount_covers(engine: Interpreter) {
    let uploads = Scratch::new("handler");
    uploads.write("a.txt", "mounted");
    let mut session = python_with(
        engine,
        vec![Mount::new("/data", uploads.path(), MountMode::ReadOnly).unwrap()],
    );
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    session.set_os_handler(move |name, args| {
        log.lock().unwrap().push(name.to_owned());
        match (name, args.get(0)) {
            ("Path.read_bytes" | "Path.read_text", Some(Value::Str(path)))
                if path == "/virtual/hello.txt" =>
            {
                Ok(if name == "Path.read_text" {
                    Value::Str("from the handler".into())
                } else {
                    Value::Bytes(b"from the handler".to_vec())
                })
            }
            _ => Err(stockade::HostError::new("PermissionError", "not here")),
        }
    });
    assert_eq!(
        session
            .run("from pathlib import Path\n[Path('/data/a.txt').read_text(), Path('/virtual/hello.txt').read_text()]")
            .unwrap(),
        Value::List(vec![Value::Str("mounted".into()), Value::Str("from the handler".into())])
    );
    let refused = guest_error(session.run("Path('/virtual/other.txt').read_text()"));
    assert_eq!(refused.type_name, "PermissionError", "{refused:?}");
    // The mounted file never reached the handler.
    let names = seen.lock().unwrap().clone();
    assert!(
        names
            .iter()
            .all(|name| name.starts_with("Path.read") || name == "Path.exists" || name == "open"),
        "{names:?}"
    );
    assert!(!names.is_empty());
}

on_both_python_engines!(
    an_os_handler_answers_what_no_mount_covers,
    two_sandboxes_racing_renames_never_reach_a_hard_linked_file,
);
