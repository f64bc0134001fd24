//! Host mounts from JavaScript guests (docs/files.md): Node's `fs`,
//! `fs/promises` and `path`, imported or required, over the same mounts
//! and the same host table as every engine, with Node's error codes.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use stockade::{Language, Mount, MountMode, Session, SessionOptions, Value};

fn scratch(name: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "stockade-jsfiles-{}-{}-{name}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn js_with(mounts: Vec<Mount>) -> Session {
    let mut options = SessionOptions::new(Language::JavaScript);
    options.mounts = mounts;
    Session::new(options).unwrap()
}

fn s(text: &str) -> Value {
    Value::Str(text.to_owned())
}

#[test]
fn javascript_reads_an_upload_and_writes_a_report_with_fs() {
    let uploads = scratch("uploads");
    let reports = scratch("reports");
    std::fs::write(
        uploads.join("sales.csv"),
        "region,amount\nnorth,120\nsouth,80\n",
    )
    .unwrap();
    let mut session = js_with(vec![
        Mount::new("/data", &uploads, MountMode::ReadOnly).unwrap(),
        Mount::new("/out", &reports, MountMode::ReadWrite).unwrap(),
    ]);
    let code = "
        import fs from 'node:fs';
        import { readFile } from 'fs/promises';
        import path from 'path';
        const text = await readFile(path.join('/data', 'sales.csv'), 'utf8');
        const total = text.trim().split('\\n').slice(1)
            .reduce((sum, row) => sum + Number(row.split(',')[1]), 0);
        fs.mkdirSync('/out/2026/q1', { recursive: true });
        fs.writeFileSync('/out/2026/q1/total.txt', `total ${total}\\n`);
        fs.appendFileSync('/out/2026/q1/total.txt', 'checked\\n');
        fs.renameSync('/out/2026/q1/total.txt', '/out/total.txt');
        fs.rmSync('/out/2026', { recursive: true });
        export default [total, fs.readdirSync('/out'), fs.statSync('/data/sales.csv').isFile(),
                        fs.existsSync('/data/nope.csv'), fs.readFileSync('/data/sales.csv') instanceof Uint8Array];";
    assert_eq!(
        session.run(code).unwrap(),
        Value::List(vec![
            Value::Int(200),
            Value::List(vec![s("total.txt")]),
            Value::Bool(true),
            Value::Bool(false),
            Value::Bool(true),
        ])
    );
    assert_eq!(
        std::fs::read_to_string(reports.join("total.txt")).unwrap(),
        "total 200\nchecked\n"
    );
    assert!(!reports.join("2026").exists());
    let _ = std::fs::remove_dir_all(uploads);
    let _ = std::fs::remove_dir_all(reports);
}

#[test]
fn javascript_file_errors_carry_nodes_codes() {
    let uploads = scratch("errors");
    std::fs::write(uploads.join("a.txt"), "a").unwrap();
    std::fs::create_dir(uploads.join("dir")).unwrap();
    std::os::unix::fs::symlink("/etc", uploads.join("etc")).unwrap();
    let mut session = js_with(vec![
        Mount::new("/data", &uploads, MountMode::ReadOnly).unwrap(),
    ]);
    let code = "
        const fs = require('fs');
        const code = (f) => { try { f(); return 'no error'; } catch (e) { return e.code; } };
        [code(() => fs.readFileSync('/data/missing')),
         code(() => fs.writeFileSync('/data/a.txt', 'x')),
         code(() => fs.readFileSync('/data/dir')),
         code(() => fs.readFileSync('/etc/passwd')),
         code(() => fs.readFileSync('/data/etc/passwd')),
         code(() => fs.readFileSync('/data/../../etc/passwd')),
         code(() => fs.mkdirSync('/data/dir')),
         code(() => require('child_process'))]";
    let Value::List(codes) = session.run(code).unwrap() else {
        panic!("expected a list");
    };
    assert_eq!(codes[0], s("ENOENT"));
    assert_eq!(codes[1], s("EACCES"));
    assert_eq!(codes[2], s("EISDIR"));
    assert_eq!(codes[3], s("EACCES"));
    // Out through a symlink or `..`: refused, whichever code says so.
    for refused in &codes[4..6] {
        assert!([s("EACCES"), s("ENOENT")].contains(refused), "{codes:?}");
    }
    assert_eq!(codes[6], s("EACCES"));
    assert_eq!(codes[7], s("MODULE_NOT_FOUND"));
    let _ = std::fs::remove_dir_all(uploads);
}

#[test]
fn javascript_overlay_writes_stay_in_the_session() {
    let dir = scratch("overlay");
    std::fs::write(dir.join("notes.txt"), "original").unwrap();
    let mut session = js_with(vec![Mount::new("/work", &dir, MountMode::Overlay).unwrap()]);
    session
        .run("require('fs').writeFileSync('/work/notes.txt', 'scribbled')")
        .unwrap();
    assert_eq!(
        session
            .run("require('fs').readFileSync('/work/notes.txt', 'utf8')")
            .unwrap(),
        s("scribbled")
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "original"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn javascript_path_is_nodes_posix_path() {
    let mut session = js_with(Vec::new());
    assert_eq!(
        session
            .run(
                "const path = require('node:path');
                 [path.join('/a/b', '../c', './d.txt'), path.resolve('x', '/y', 'z'), path.dirname('/a/b/c.txt'),
                  path.basename('/a/b/c.txt', '.txt'), path.extname('archive.tar.gz'), path.normalize('a//b/../c/'),
                  path.relative('/a/b/c', '/a/d'), path.isAbsolute('a'), path.parse('/home/u/f.txt').name, path.sep]"
            )
            .unwrap(),
        Value::List(vec![
            s("/a/c/d.txt"),
            s("/y/z"),
            s("/a/b"),
            s("c"),
            s(".gz"),
            s("a/c/"),
            s("../../d"),
            Value::Bool(false),
            s("f"),
            s("/"),
        ])
    );
}

#[test]
fn a_journaled_javascript_session_replays_its_file_reads_from_the_journal() {
    let dir = scratch("journal");
    std::fs::write(dir.join("state.txt"), "first").unwrap();
    let seal = stockade::DumpSeal::new(&[[5u8; 32]], "files").unwrap();
    let mut options = SessionOptions::new(Language::JavaScript).dumpable(true);
    options.mounts = vec![Mount::new("/data", &dir, MountMode::ReadOnly).unwrap()];
    let mut session = Session::new(options.clone()).unwrap();
    session
        .run("globalThis.seen = require('fs').readFileSync('/data/state.txt', 'utf8')")
        .unwrap();
    let bytes = session.dump(&seal).unwrap();
    // The file changes; the replay reads what the session read, from the
    // journal, and goes on; a new read sees the file as it is now.
    std::fs::write(dir.join("state.txt"), "second").unwrap();
    let mut restored = Session::restore(options, &seal, &bytes).unwrap();
    assert_eq!(
        restored
            .run("[seen, require('fs').readFileSync('/data/state.txt', 'utf8')]")
            .unwrap(),
        Value::List(vec![s("first"), s("second")])
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn javascript_fifos_budgets_and_racing_renames_are_refused() {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;
    let dir = scratch("hostile");
    let outside = scratch("hostile-outside");
    std::fs::write(outside.join("inner.txt"), "outside!").unwrap();
    std::fs::create_dir(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub/inner.txt"), "inside").unwrap();
    std::fs::write(dir.join("big.txt"), "x".repeat(64 * 1024)).unwrap();
    let fifo = std::ffi::CString::new(dir.join("pipe").as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let mut options = SessionOptions::new(Language::JavaScript).max_file_memory(16 * 1024);
    options.mounts = vec![Mount::new("/data", &dir, MountMode::Overlay).unwrap()];
    let mut session = Session::new(options).unwrap();
    let codes = "
        const fs = require('fs');
        const code = (f) => { try { f(); return 'no error'; } catch (e) { return e.code; } };
        [code(() => fs.readFileSync('/data/pipe')),
         code(() => fs.readFileSync('/data/big.txt')),
         code(() => fs.writeFileSync('/data/new.txt', 'y'.repeat(20000)))]";
    let Value::List(codes) = session.run(codes).unwrap() else {
        panic!("expected a list");
    };
    // Refused at once (the run returned), whatever words say so.
    assert_ne!(codes[0], s("no error"), "a FIFO must be refused: {codes:?}");
    assert_eq!(codes[1], s("ENOMEM"), "{codes:?}");
    assert_eq!(codes[2], s("ENOMEM"), "{codes:?}");
    // A host thread swaps `sub` for a symlink out while the guest reads.
    let stop = Arc::new(AtomicBool::new(false));
    let racer = {
        let stop = Arc::clone(&stop);
        let root = dir.clone();
        let target = outside.clone();
        std::thread::spawn(move || {
            let sub = root.join("sub");
            let parked = root.join("parked");
            while !stop.load(Ordering::Relaxed) {
                let _ = std::fs::rename(&sub, &parked);
                let _ = std::os::unix::fs::symlink(&target, &sub);
                let _ = std::fs::remove_file(&sub);
                let _ = std::fs::rename(&parked, &sub);
            }
        })
    };
    let seen = session
        .run(
            "const seen = new Set();
             for (let i = 0; i < 3000; i++) {
               try { seen.add(require('fs').readFileSync('/data/sub/inner.txt', 'utf8')); }
               catch (e) { seen.add(e.code); }
             }
             [...seen].sort()",
        )
        .unwrap();
    stop.store(true, Ordering::Relaxed);
    racer.join().unwrap();
    let Value::List(seen) = seen else {
        panic!("expected a list, got {seen:?}");
    };
    assert!(!seen.contains(&s("outside!")), "{seen:?}");
    assert!(seen.contains(&s("inside")), "{seen:?}");
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::remove_dir_all(outside);
}
