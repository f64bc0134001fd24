//! The CPython guest's scratch directory (docs/data.md, "Scratch"): a
//! private, writable, in-memory `/tmp` that is also its `TMPDIR`, `HOME`
//! and working directory, bounded by `max_scratch_bytes`, for workers
//! started from scratch and forked from a template alike.

use stockade::{Error, Interpreter, Language, SandboxMode, Session, SessionOptions, Value};

fn options() -> SessionOptions {
    SessionOptions::new(Language::Python)
        .engine(Interpreter::CPython)
        .sandbox(SandboxMode::Require)
}

/// A session started from scratch, and one forked from a template.
fn both_ways(options: SessionOptions) -> Vec<(&'static str, Session)> {
    vec![
        (
            "started",
            Session::new(options.clone().spare(false)).expect("starts"),
        ),
        ("forked", Session::new(options.spare(true)).expect("starts")),
    ]
}

fn s(text: &str) -> Value {
    Value::Str(text.to_owned())
}

fn guest_error(result: Result<Value, Error>) -> stockade::GuestError {
    match result {
        Err(Error::Guest(guest)) => guest,
        other => panic!("expected a guest exception, got {other:?}"),
    }
}

#[test]
fn a_cpython_guest_writes_temporary_files_a_database_and_its_working_directory_in_its_scratch() {
    for (how, mut session) in both_ways(options()) {
        let code = r#"
import os, tempfile, sqlite3, shutil
where = [os.getcwd(), os.environ["TMPDIR"], os.environ["HOME"], tempfile.gettempdir(), os.listdir("/tmp")]
with tempfile.TemporaryDirectory() as d:
    with open(os.path.join(d, "x.txt"), "w") as f:
        f.write("in a temporary directory")
    shutil.copy(os.path.join(d, "x.txt"), "copied.txt")
with tempfile.NamedTemporaryFile("w", delete=False, suffix=".csv") as f:
    f.write("a,b\n1,2\n")
os.rename(f.name, "data.csv")
open("report.txt", "w").write("report")
db = sqlite3.connect("/tmp/db.sqlite")
db.execute("create table t(a)")
db.executemany("insert into t values (?)", [(i,) for i in range(100)])
db.commit()
total = db.execute("select sum(a) from t").fetchone()[0]
db.close()
os.makedirs("out/charts", exist_ok=True)
os.symlink("report.txt", "link.txt")
[where, open("copied.txt").read(), open("/tmp/data.csv").read(), open("link.txt").read(), total, sorted(os.listdir("."))]
"#;
        let got = session.run(code).unwrap_or_else(|e| panic!("{how}: {e}"));
        let expected = Value::List(vec![
            Value::List(vec![
                s("/tmp"),
                s("/tmp"),
                s("/tmp"),
                s("/tmp"),
                Value::List(vec![]),
            ]),
            s("in a temporary directory"),
            s("a,b\n1,2\n"),
            s("report"),
            Value::Int(4950),
            Value::List(
                [
                    "copied.txt",
                    "data.csv",
                    "db.sqlite",
                    "link.txt",
                    "out",
                    "report.txt",
                ]
                .into_iter()
                .map(s)
                .collect(),
            ),
        ]);
        assert_eq!(got, expected, "{how}");
        // Only the scratch is writable: the root, the standard library and
        // anything else answer with an error, whatever the path says.
        let outside = r#"
import os, sys
refused = []
for path in ["/x.txt", "/tmp/../x.txt", os.path.join(os.path.dirname(os.__file__), "x.py"), "/etc/passwd"]:
    try:
        open(path, "w").write("x")
    except OSError as e:
        refused.append(type(e).__name__)
try:
    os.symlink("/etc", "/tmp/etc")
    open("/tmp/etc/passwd").read()
except OSError as e:
    refused.append(type(e).__name__)
len(refused)
"#;
        assert_eq!(session.run(outside).unwrap(), Value::Int(5), "{how}");
    }
}

#[test]
fn each_session_has_its_own_scratch_empty_at_start() {
    // Siblings forked from one template, and a later session after the
    // first has ended: none sees another's files.
    let mut first = Session::new(options()).expect("starts");
    let mut second = Session::new(options()).expect("starts");
    first
        .run("open('/tmp/secret.txt', 'w').write('first')")
        .unwrap();
    second
        .run("open('/tmp/mine.txt', 'w').write('second')")
        .unwrap();
    assert_eq!(
        first.run("import os\nsorted(os.listdir('/tmp'))").unwrap(),
        Value::List(vec![s("secret.txt")])
    );
    assert_eq!(
        second.run("import os\nsorted(os.listdir('/tmp'))").unwrap(),
        Value::List(vec![s("mine.txt")])
    );
    drop(first);
    let mut third = Session::new(options()).expect("starts");
    assert_eq!(
        third.run("import os\nos.listdir('/tmp')").unwrap(),
        Value::List(vec![])
    );
}

#[test]
fn a_full_scratch_is_enospc_to_the_guest_and_the_session_lives() {
    let limited = options().max_scratch_bytes(1024 * 1024);
    for (how, mut session) in both_ways(limited) {
        let fill = r#"
import errno
try:
    with open("big.bin", "wb") as f:
        for _ in range(64):
            f.write(b"x" * 65536)
    outcome = "written"
except OSError as e:
    outcome = errno.errorcode[e.errno]
outcome
"#;
        assert_eq!(session.run(fill).unwrap(), s("ENOSPC"), "{how}");
        // Room again once the file is gone.
        let again = "import os\nos.remove('big.bin')\nopen('small.txt', 'w').write('x' * 1000)";
        assert_eq!(session.run(again).unwrap(), Value::Int(1000), "{how}");
        // Many small files run out too (inodes are bounded), as ENOSPC.
        let many = r#"
import errno
made = 0
try:
    for i in range(100000):
        open(f"f{i}", "w").close()
        made += 1
    outcome = "made all"
except OSError as e:
    outcome = errno.errorcode[e.errno]
outcome
"#;
        assert_eq!(session.run(many).unwrap(), s("ENOSPC"), "{how}");
        assert_eq!(session.run("1 + 1").unwrap(), Value::Int(2), "{how}");
    }
}

#[test]
fn the_scratch_and_the_heap_are_bounded_apart() {
    // A full scratch leaves the heap its whole limit, and the heap's limit
    // is not raised by the scratch: together they are what a guest can hold.
    let limited = options()
        .max_scratch_bytes(8 * 1024 * 1024)
        .max_memory(64 * 1024 * 1024);
    for (how, mut session) in both_ways(limited) {
        let fill = "import errno\ntry:\n    open('fill', 'wb').write(b'x' * (16 << 20))\nexcept OSError as e:\n    r = errno.errorcode[e.errno]\nr";
        assert_eq!(session.run(fill).unwrap(), s("ENOSPC"), "{how}");
        assert_eq!(
            session.run("len(bytearray(32 << 20))").unwrap(),
            Value::Int(32 << 20),
            "{how}"
        );
        let over = session.run("bytearray(96 << 20)");
        assert!(matches!(over, Err(Error::Memory { .. })), "{how}: {over:?}");
    }
}

#[test]
fn max_scratch_bytes_of_zero_gives_no_scratch() {
    for (how, mut session) in both_ways(options().max_scratch_bytes(0)) {
        let err = guest_error(session.run("open('/tmp/x', 'w')"));
        assert!(
            err.type_name == "PermissionError"
                || err.type_name == "FileNotFoundError"
                || err.type_name == "OSError",
            "{how}: {err:?}"
        );
    }
}

#[test]
fn a_restored_cpython_session_finds_the_files_its_feeds_wrote_in_its_scratch() {
    // A dump is a journal of feeds; their replay writes the scratch again.
    let seal = stockade::DumpSeal::new(&[[9u8; 32]], "scratch").unwrap();
    let dumpable = || options().dumpable(true);
    let mut session = Session::new(dumpable()).expect("starts");
    session
        .run("import os\nos.makedirs('out')\nopen('out/a.txt', 'w').write('from the first feed')")
        .unwrap();
    session
        .run("open('/tmp/out/a.txt', 'a').write(', and the second')")
        .unwrap();
    let bytes = session.dump(&seal).unwrap();
    drop(session);
    let mut restored = Session::restore(dumpable(), &seal, &bytes).unwrap();
    assert_eq!(
        restored.run("open('/tmp/out/a.txt').read()").unwrap(),
        s("from the first feed, and the second")
    );
}

#[test]
fn locks_are_answered_without_being_taken() {
    // A guest's lock would be kernel memory no limit counts, and one on a
    // file of the readable trees would reach other workers and the host:
    // each is answered with success, unrun, and the host can still lock
    // the file the guest "locked".
    let mut session = Session::new(options()).expect("starts");
    let code = r#"
import fcntl, os, struct
held = open(os.__file__, "rb")
fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
mine = open("/tmp/locked", "wb")
fcntl.lockf(mine, fcntl.LOCK_EX | fcntl.LOCK_NB)
fcntl.fcntl(mine, fcntl.F_SETLK, struct.pack("hhllhh", fcntl.F_WRLCK, 0, 0, 0, 0, 0))
os.__file__
"#;
    let Value::Str(stdlib_file) = session.run(code).unwrap() else {
        panic!("the module's path")
    };
    let file = std::fs::File::open(&stdlib_file).unwrap();
    rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive)
        .expect("the host locks what the guest 'locked': the guest's lock was never taken");
    rustix::fs::flock(&file, rustix::fs::FlockOperation::Unlock).unwrap();
    // Still a working session, whose database (which locks) works.
    let db = "import sqlite3\nc = sqlite3.connect('/tmp/l.db')\nc.execute('create table t(a)')\nc.execute('insert into t values (1)')\nc.commit()\nc.execute('select count(*) from t').fetchone()[0]";
    assert_eq!(session.run(db).unwrap(), Value::Int(1));
}

/// A guest with a scratch may hold as many files open as the system's
/// usual soft limit (1024, RLIMIT_NOFILE): a hundred temporary files at
/// once works; past the limit `open` fails with EMFILE, which the guest
/// catches, and the session lives.
#[test]
fn a_guest_with_a_scratch_holds_hundreds_of_files_open_and_past_the_limit_gets_emfile() {
    for (how, mut session) in both_ways(options()) {
        let code = "import errno, tempfile\n\
            held = [tempfile.TemporaryFile() for _ in range(200)]\n\
            try:\n    while True:\n        held.append(open('/tmp/x', 'w'))\n\
            except OSError as err:\n    outcome = (err.errno == errno.EMFILE, len(held) < 1024)\n\
            for f in held:\n    f.close()\n\
            outcome";
        assert_eq!(
            session.run(code).unwrap(),
            Value::Tuple(vec![Value::Bool(true), Value::Bool(true)]),
            "{how}"
        );
        assert_eq!(session.run("1 + 1").unwrap(), Value::Int(2), "{how}");
    }
}

#[test]
fn a_cpython_guest_finds_the_null_zero_and_full_devices_and_no_other() {
    for (how, mut session) in both_ways(options()) {
        let code = r#"
import contextlib, errno, os
names = ["null", "zero", "full", "urandom", "random", "tty", "ptmx", "shm", "kmsg", "mem"]
seen = {"exist": [name for name in names if os.path.exists("/dev/" + name)]}
with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
    print("silenced")
seen["null reads"] = open("/dev/null", "rb").read()
seen["zero reads"] = open("/dev/zero", "rb").read(4)
try:
    with open("/dev/full", "w") as full:
        full.write("x")
        full.flush()
    seen["full"] = "written"
except OSError as e:
    seen["full"] = errno.errorcode[e.errno]
def refused(action):
    try:
        action()
        return "done"
    except OSError as e:
        return errno.errorcode[e.errno]
seen["chmod"] = refused(lambda: os.chmod("/dev/null", 0o600))
seen["remove"] = refused(lambda: os.unlink("/dev/null"))
seen["new device"] = refused(lambda: os.mknod("/dev/tty0", 0o020600, os.makedev(4, 0)))
seen["urandom"] = refused(lambda: open("/dev/urandom", "rb"))
# Listed no more than the root is.
seen["listing"] = refused(lambda: os.listdir("/dev"))
seen
"#;
        let Value::Dict(seen) = session.run(code).unwrap_or_else(|e| panic!("{how}: {e}")) else {
            panic!("{how}: expected what the guest saw");
        };
        let get = |key: &str| {
            seen.iter()
                .find(|(k, _)| *k == s(key))
                .map(|(_, v)| v.clone())
                .unwrap_or_else(|| panic!("{how}: {key} missing"))
        };
        assert_eq!(
            get("exist"),
            Value::List(vec![s("null"), s("zero"), s("full")]),
            "{how}"
        );
        assert_eq!(get("listing"), s("EACCES"), "{how}");
        assert_eq!(get("null reads"), Value::Bytes(Vec::new()), "{how}");
        assert_eq!(get("zero reads"), Value::Bytes(vec![0; 4]), "{how}");
        assert_eq!(get("full"), s("ENOSPC"), "{how}");
        assert_eq!(get("chmod"), s("EROFS"), "{how}");
        // The root is read-only; the filter refuses making devices outright.
        assert_eq!(get("remove"), s("EROFS"), "{how}");
        assert_eq!(get("new device"), s("EPERM"), "{how}");
        assert_eq!(get("urandom"), s("ENOENT"), "{how}");
    }
}
