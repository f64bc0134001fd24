//! The scratch directory of monty and QuickJS guests (docs/data.md,
//! "Scratch"): a private `/tmp` the host keeps in memory, also the guest's
//! working directory, `TMPDIR` and `HOME`, empty at start, gone at the end,
//! bounded by `max_scratch_bytes`, carried in a dump.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use stockade::{
    DumpSeal, Error, Interpreter, Language, Mount, MountMode, Session, SessionOptions, Value,
};

fn monty() -> SessionOptions {
    SessionOptions::new(Language::Python).engine(Interpreter::Monty)
}

fn javascript() -> SessionOptions {
    SessionOptions::new(Language::JavaScript)
}

fn s(text: &str) -> Value {
    Value::Str(text.to_owned())
}

fn strs(items: &[&str]) -> Value {
    Value::List(items.iter().map(|item| s(item)).collect())
}

fn guest_error(result: Result<Value, Error>) -> stockade::GuestError {
    match result {
        Err(Error::Guest(err)) => err,
        other => panic!("expected a guest error, got {other:?}"),
    }
}

/// A host directory of the test's own, removed when dropped.
struct HostDir(PathBuf);

impl HostDir {
    fn new(name: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "stockade-host-scratch-{}-{}-{name}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for HostDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The host's temporary directory holds nothing this process made for a
/// scratch: the empty directory each scratch overlays was removed once
/// opened, and nothing a guest wrote reached the disk.
fn no_scratch_directory_left_on_the_host() {
    let prefix = format!(".stockade-scratch-{}-", std::process::id());
    let left: Vec<String> = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(&prefix))
        .collect();
    assert!(left.is_empty(), "left on the host: {left:?}");
}

#[test]
fn a_monty_guest_writes_its_scratch_and_relative_paths_are_beneath_it() {
    let mut session = Session::new(monty()).unwrap();
    let code = "\
from pathlib import Path
import os
Path('/tmp/a.txt').write_text('one')
with open('b.txt', 'w') as f:
    f.write('two')
Path('sub').mkdir()
Path('sub/c.txt').write_text('three')
[Path('b.txt').read_text(), Path('/tmp/b.txt').read_text(),
 sorted([str(p) for p in Path('.').iterdir()]), [str(p) for p in Path('sub').iterdir()],
 str(Path('b.txt').resolve()), os.getenv('TMPDIR'), os.getenv('HOME')]";
    assert_eq!(
        session.run(code).unwrap(),
        Value::List(vec![
            s("two"),
            s("two"),
            strs(&["a.txt", "b.txt", "sub"]),
            strs(&["sub/c.txt"]),
            s("/tmp/b.txt"),
            s("/tmp"),
            s("/tmp"),
        ])
    );
    // The files last between feeds; a missing one is named as the guest
    // named it, as CPython names it.
    assert_eq!(
        session
            .run("from pathlib import Path\nPath('sub/c.txt').read_text()")
            .unwrap(),
        s("three")
    );
    let missing =
        guest_error(session.run("from pathlib import Path\nPath('nope.txt').read_text()"));
    assert_eq!(missing.type_name, "FileNotFoundError", "{missing:?}");
    assert!(missing.message.contains("'nope.txt'"), "{missing:?}");
    // Out of the scratch through `..`: the path is the guest's own, and no
    // mount covers where it leads.
    for path in [
        "../etc/hostname",
        "/tmp/../etc/hostname",
        "sub/../../etc/passwd",
    ] {
        let refused = guest_error(session.run(&format!(
            "from pathlib import Path\nPath('{path}').read_text()"
        )));
        assert_eq!(refused.type_name, "PermissionError", "{path}: {refused:?}");
    }
    drop(session);
    no_scratch_directory_left_on_the_host();
}

#[test]
fn a_javascript_guest_writes_its_scratch_with_fs_and_relative_paths() {
    let mut session = Session::new(javascript()).unwrap();
    let code = "
        import fs from 'node:fs';
        import path from 'node:path';
        fs.writeFileSync('/tmp/a.txt', 'one');
        fs.writeFileSync('b.txt', 'two');
        fs.mkdirSync('sub/deeper', { recursive: true });
        fs.writeFileSync(path.join('sub', 'c.json'), JSON.stringify({ n: 3 }));
        let missing;
        try { fs.readFileSync('nope.txt'); } catch (e) { missing = [e.code, e.path]; }
        export default [fs.readFileSync('b.txt', 'utf8'), fs.readdirSync('/tmp'), fs.readdirSync('.'),
                        fs.readdirSync('sub'), JSON.parse(fs.readFileSync('/tmp/sub/c.json', 'utf8')).n,
                        path.resolve('b.txt'), path.resolve(), missing];";
    assert_eq!(
        session.run(code).unwrap(),
        Value::List(vec![
            s("two"),
            strs(&["a.txt", "b.txt", "sub"]),
            strs(&["a.txt", "b.txt", "sub"]),
            strs(&["c.json", "deeper"]),
            Value::Int(3),
            s("/tmp/b.txt"),
            s("/tmp"),
            strs(&["ENOENT", "nope.txt"]),
        ])
    );
    let code = "
        import fs from 'fs';
        let codes = [];
        for (const p of ['../etc/hostname', '/tmp/../etc/hostname']) {
            try { fs.readFileSync(p, 'utf8'); codes.push('read'); } catch (e) { codes.push(e.code); }
        }
        export default [fs.readFileSync('/tmp/a.txt', 'utf8'), codes];";
    assert_eq!(
        session.run(code).unwrap(),
        Value::List(vec![s("one"), strs(&["EACCES", "EACCES"])])
    );
    drop(session);
    no_scratch_directory_left_on_the_host();
}

#[test]
fn each_monty_and_javascript_session_has_its_own_scratch_empty_at_start() {
    let write_python = "from pathlib import Path\nPath('/tmp/mine.txt').write_text('a secret')";
    let list_python = "import os\nos.listdir('/tmp')";
    let write_js = "import fs from 'fs'; fs.writeFileSync('/tmp/mine.txt', 'a secret');";
    let list_js = "import fs from 'fs'; export default fs.readdirSync('/tmp');";
    for (options, write, list) in [
        (monty(), write_python, list_python),
        (javascript(), write_js, list_js),
    ] {
        let mut first = Session::new(options.clone()).unwrap();
        let mut second = Session::new(options.clone()).unwrap();
        first.run(write).unwrap();
        assert_eq!(first.run(list).unwrap(), strs(&["mine.txt"]));
        assert_eq!(second.run(list).unwrap(), Value::List(Vec::new()));
        drop(first);
        let mut later = Session::new(options).unwrap();
        assert_eq!(later.run(list).unwrap(), Value::List(Vec::new()));
    }
    assert!(
        !std::env::temp_dir().join("mine.txt").exists(),
        "a guest's file reached the host's disk"
    );
    no_scratch_directory_left_on_the_host();
}

#[test]
fn a_full_host_kept_scratch_is_enospc_and_the_session_lives() {
    let small = 64 * 1024;
    let mut session = Session::new(monty().max_scratch_bytes(small)).unwrap();
    let code = "\
from pathlib import Path
Path('/tmp/small.txt').write_text('x' * 1000)
try:
    Path('/tmp/big.txt').write_text('x' * 100000)
    r = 'written'
except OSError as e:
    r = str(e)
r";
    let full = session.run(code).unwrap();
    assert!(
        matches!(&full, Value::Str(message) if message.contains("[Errno 28] No space left on device: '/tmp/big.txt'")),
        "{full:?}"
    );
    // Files count as well as bytes: empty ones cannot fill the host's
    // memory either.
    let code = "\
from pathlib import Path
n = 0
try:
    while n < 100000:
        Path(f'/tmp/empty-{n}').write_text('')
        n += 1
except OSError as e:
    r = str(e)
[n, 'No space left' in r]";
    match session.run(code).unwrap() {
        Value::List(items) => {
            assert!(
                matches!(items[0], Value::Int(n) if n > 0 && n < 300),
                "{items:?}"
            );
            assert_eq!(items[1], Value::Bool(true));
        }
        other => panic!("{other:?}"),
    }
    // The session lives, and what the guest frees it may use again.
    let code = "\
from pathlib import Path
import os
for name in os.listdir('/tmp'):
    if name.startswith('empty-'):
        Path('/tmp/' + name).unlink()
Path('/tmp/big.txt').write_text('y' * 50000)
[Path('/tmp/small.txt').read_text()[:3], len(Path('/tmp/big.txt').read_text())]";
    assert_eq!(
        session.run(code).unwrap(),
        Value::List(vec![s("xxx"), Value::Int(50000)])
    );

    let mut session = Session::new(javascript().max_scratch_bytes(small)).unwrap();
    let code = "
        import fs from 'fs';
        let chunks = 0, code;
        try {
            for (;;) { fs.appendFileSync('grow.log', 'z'.repeat(10000)); chunks++; }
        } catch (e) { code = e.code; }
        export default [chunks, code, fs.statSync('grow.log').size];";
    assert_eq!(
        session.run(code).unwrap(),
        Value::List(vec![Value::Int(6), s("ENOSPC"), Value::Int(60000)])
    );
    assert_eq!(
        session
            .run("import fs from 'fs'; fs.unlinkSync('grow.log'); fs.writeFileSync('a', 'ok'); export default fs.readFileSync('a', 'utf8');")
            .unwrap(),
        s("ok")
    );
}

#[test]
fn max_scratch_bytes_of_zero_gives_monty_and_javascript_no_scratch() {
    let mut session = Session::new(monty().max_scratch_bytes(0)).unwrap();
    let refused =
        guest_error(session.run("from pathlib import Path\nPath('/tmp/a.txt').write_text('a')"));
    assert_eq!(refused.type_name, "PermissionError", "{refused:?}");
    let refused = guest_error(session.run("open('relative.txt', 'w')"));
    assert_eq!(refused.type_name, "PermissionError", "{refused:?}");
    assert_eq!(
        session.run("import os\nos.getenv('TMPDIR')").unwrap(),
        Value::None
    );
    let mut session = Session::new(javascript().max_scratch_bytes(0)).unwrap();
    assert_eq!(
        session
            .run("import fs from 'fs'; let c; try { fs.writeFileSync('/tmp/a', 'a'); } catch (e) { c = e.code; } export default c;")
            .unwrap(),
        s("EACCES")
    );
}

#[test]
fn a_mount_at_tmp_takes_the_scratchs_place_and_one_beneath_it_shows_in_its_listing() {
    let uploads = HostDir::new("uploads");
    std::fs::write(uploads.0.join("x.csv"), "a,b\n1,2\n").unwrap();
    let mut options = monty();
    options.mounts = vec![Mount::new("/tmp/data", &uploads.0, MountMode::ReadOnly).unwrap()];
    let mut session = Session::new(options).unwrap();
    let code = "\
from pathlib import Path
import os
Path('out.txt').write_text('report')
try:
    Path('data/y.csv').write_text('no')
    w = 'written'
except PermissionError:
    w = 'refused'
[sorted(os.listdir('/tmp')), Path('data/x.csv').read_text(), w]";
    assert_eq!(
        session.run(code).unwrap(),
        Value::List(vec![
            strs(&["data", "out.txt"]),
            s("a,b\n1,2\n"),
            s("refused")
        ])
    );
    assert!(!uploads.0.join("y.csv").exists());

    let reports = HostDir::new("reports");
    let mut options = javascript();
    options.mounts = vec![Mount::new("/tmp", &reports.0, MountMode::ReadWrite).unwrap()];
    let mut session = Session::new(options).unwrap();
    session
        .run("import fs from 'fs'; fs.writeFileSync('kept.txt', 'on the host');")
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(reports.0.join("kept.txt")).unwrap(),
        "on the host"
    );
}

fn seal() -> DumpSeal {
    DumpSeal::new(&[[0x3c; 32]], "scratch").unwrap()
}

#[test]
fn a_restored_monty_or_javascript_session_finds_the_files_its_feeds_wrote_in_its_scratch() {
    let write_python = "\
from pathlib import Path
Path('/tmp/notes').mkdir()
Path('/tmp/notes/today.txt').write_text('remember')
Path('/tmp/raw.bin').write_bytes(b'\\x00\\xff' * 128)
Path('/tmp/empty').mkdir()
kept = 1";
    let read_python = "\
from pathlib import Path
import os
[Path('notes/today.txt').read_text(), len(Path('/tmp/raw.bin').read_bytes()), sorted(os.listdir('/tmp')), kept]";
    let write_js = "
        import fs from 'fs';
        fs.mkdirSync('/tmp/notes');
        fs.writeFileSync('/tmp/notes/today.txt', 'remember');
        fs.writeFileSync('/tmp/raw.bin', new Uint8Array(256));
        fs.mkdirSync('/tmp/empty');
        globalThis.kept = 1;";
    let read_js = "
        import fs from 'fs';
        export default [fs.readFileSync('notes/today.txt', 'utf8'), fs.readFileSync('/tmp/raw.bin').length,
                        fs.readdirSync('/tmp'), globalThis.kept];";
    let expected = Value::List(vec![
        s("remember"),
        Value::Int(256),
        strs(&["empty", "notes", "raw.bin"]),
        Value::Int(1),
    ]);
    for (options, write, read) in [
        (monty(), write_python, read_python),
        (javascript().dumpable(true), write_js, read_js),
    ] {
        let mut session = Session::new(options.clone()).unwrap();
        session.run(write).unwrap();
        let dump = session.dump(&seal()).unwrap();
        let mut restored = Session::restore(options.clone(), &seal(), &dump).unwrap();
        assert_eq!(restored.run(read).unwrap(), expected);
        // The copies go their own ways.
        assert_eq!(session.run(read).unwrap(), expected);

        // A session with a smaller scratch, or none, cannot take it.
        for bytes in [0, 600] {
            let Err(err) =
                Session::restore(options.clone().max_scratch_bytes(bytes), &seal(), &dump)
            else {
                panic!("{bytes}: a scratch that does not fit was restored");
            };
            assert!(
                matches!(&err, Error::DumpRejected(why) if why.contains("scratch directory")),
                "{bytes}: {err:?}"
            );
        }
    }
}

#[test]
fn files_made_and_removed_in_a_loop_never_fill_the_scratch() {
    // 64 KiB holds a few hundred names at most: what is removed must give
    // back all it took, or these loops would fill it.
    let mut session = Session::new(monty().max_scratch_bytes(64 * 1024)).unwrap();
    let code = "\
from pathlib import Path
import os
for i in range(2000):
    Path(f'/tmp/part-{i}.tmp').write_text('x' * 1000)
    Path(f'/tmp/part-{i}.tmp').rename('/tmp/result.txt')
    Path(f'/tmp/dir-{i}').mkdir()
    Path(f'/tmp/dir-{i}').rmdir()
    Path(f'/tmp/scrap-{i}').write_text('y')
    Path(f'/tmp/scrap-{i}').unlink()
os.listdir('/tmp')";
    assert_eq!(session.run(code).unwrap(), strs(&["result.txt"]));
    let mut session = Session::new(javascript().max_scratch_bytes(64 * 1024)).unwrap();
    let code = "
        import fs from 'fs';
        for (let i = 0; i < 2000; i++) {
            fs.writeFileSync(`part-${i}.tmp`, 'x'.repeat(1000));
            fs.renameSync(`part-${i}.tmp`, 'result.txt');
            fs.mkdirSync(`dir-${i}/inner`, { recursive: true });
            fs.rmSync(`dir-${i}`, { recursive: true });
        }
        export default fs.readdirSync('.');";
    assert_eq!(session.run(code).unwrap(), strs(&["result.txt"]));
}
