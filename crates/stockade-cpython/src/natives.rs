//! The system libraries the standard library's extension modules link
//! (zlib for `binascii`, libexpat for `pyexpat`, libmpdec for `decimal`,
//! OpenSSL for `hashlib`...), found before the sandbox so that each can be
//! shown read-only at the path the dynamic loader opens: the standard
//! library imports as on the host, and nothing else of the system's library
//! directories is visible.
//!
//! Dependencies are read from each module's ELF dynamic section
//! (`DT_NEEDED`), followed transitively, and looked up in the system's
//! library directories; libraries the process has mapped already are left
//! out. libffi is shown like any other, so `ctypes` imports: a guest runs
//! native code anyway (every extension module is native code), and what
//! contains it is the namespaces, Landlock and seccomp, which the ctypes
//! attack tests fire raw system calls at (docs/security.md).

use std::collections::BTreeSet;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Where the dynamic loader looks when it has no cache to read (the
/// sandbox shows none): the multiarch and plain system directories.
const SYSTEM_DIRS: &[&str] = &[
    "/lib/x86_64-linux-gnu",
    "/usr/lib/x86_64-linux-gnu",
    "/lib64",
    "/usr/lib64",
    "/lib",
    "/usr/lib",
];

/// Extension modules whose libraries are not looked for: a display, a
/// terminal, the network, system databases and CPython's own test
/// modules, none of which a sandboxed guest has. They fail to import,
/// naming the library they miss.
const LEFT_OUT: &[&str] = &[
    "_tkinter",
    "_curses",
    "readline",
    "nis",
    "spwd",
    "ossaudiodev",
    "_ssl",
    "_test",
    "_xx",
    "xx",
];

/// Most libraries followed, whatever the modules say.
const MAX_LIBRARIES: usize = 256;

const PT_LOAD: u32 = 1;
const PT_DYNAMIC: u32 = 2;
const DT_NULL: i64 = 0;
const DT_NEEDED: i64 = 1;
const DT_STRTAB: i64 = 5;

fn read_at(file: &File, offset: u64, len: usize) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; len];
    file.read_exact_at(&mut buf, offset).ok()?;
    Some(buf)
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// The sonames a 64-bit little-endian ELF file needs; None if it is not one.
pub fn needed(path: &Path) -> Option<Vec<String>> {
    let file = File::open(path).ok()?;
    let header = read_at(&file, 0, 64)?;
    if header.get(..4)? != b"\x7fELF" || header.get(4)? != &2 || header.get(5)? != &1 {
        return None;
    }
    let phoff = u64_at(&header, 0x20)?;
    let phentsize = usize::from(u16_at(&header, 0x36)?);
    let phnum = usize::from(u16_at(&header, 0x38)?);
    let table = read_at(&file, phoff, phentsize.checked_mul(phnum)?)?;
    // (vaddr, offset, filesz) of each loaded segment, and the dynamic section.
    let mut loads = Vec::new();
    let mut dynamic = None;
    for i in 0..phnum {
        let at = i * phentsize;
        let kind = u32_at(&table, at)?;
        let offset = u64_at(&table, at + 8)?;
        let vaddr = u64_at(&table, at + 16)?;
        let filesz = u64_at(&table, at + 32)?;
        match kind {
            PT_LOAD => loads.push((vaddr, offset, filesz)),
            PT_DYNAMIC => dynamic = Some((offset, filesz)),
            _ => {}
        }
    }
    let (offset, size) = dynamic?;
    let entries = read_at(&file, offset, usize::try_from(size.min(1 << 20)).ok()?)?;
    let mut wanted = Vec::new();
    let mut strtab = None;
    for entry in entries.chunks_exact(16) {
        let tag = i64::from_le_bytes(entry.get(..8)?.try_into().ok()?);
        let value = u64_at(entry, 8)?;
        match tag {
            DT_NULL => break,
            DT_NEEDED => wanted.push(value),
            DT_STRTAB => strtab = Some(value),
            _ => {}
        }
    }
    let strtab = strtab?;
    // The string table's address, as a place in the file.
    let base = loads.iter().find_map(|&(vaddr, offset, filesz)| {
        (strtab >= vaddr && strtab < vaddr + filesz).then(|| strtab - vaddr + offset)
    })?;
    Some(
        wanted
            .into_iter()
            .filter_map(|at| {
                let bytes = read_at(&file, base.checked_add(at)?, 256)?;
                let end = bytes.iter().position(|&b| b == 0)?;
                String::from_utf8(bytes.get(..end)?.to_vec()).ok()
            })
            .collect(),
    )
}

/// CPython's test and experimental extension modules in `dirs`, hidden
/// from guests: they exist to poke at the interpreter's internals.
pub fn test_modules(dirs: &[PathBuf]) -> Vec<PathBuf> {
    const TEST_MODULES: &[&str] = &["_test", "_xx", "xx", "_ctypes_test"];
    dirs.iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flat_map(|entries| entries.flatten())
        .filter(|entry| {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            TEST_MODULES.iter().any(|prefix| name.starts_with(prefix))
        })
        .map(|entry| entry.path())
        .collect()
}

/// Files the process has mapped (its interpreter, libc, what it loaded).
fn mapped() -> BTreeSet<PathBuf> {
    std::fs::read_to_string("/proc/self/maps")
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .filter(|path| path.starts_with('/'))
        .map(PathBuf::from)
        .collect()
}

/// The scan a template interpreter made once, for the workers it forks.
static REMEMBERED: OnceLock<(Vec<PathBuf>, Vec<PathBuf>)> = OnceLock::new();

/// Scans the interpreter's lib-dynload directories now (a template does, so
/// that its forked workers need not).
pub fn remember_system_libraries(py: pyo3::Python<'_>) {
    use pyo3::prelude::*;
    let dirs: Vec<PathBuf> = py
        .import("sys")
        .and_then(|sys| sys.getattr("path"))
        .and_then(|path| path.extract::<Vec<String>>())
        .unwrap_or_default()
        .into_iter()
        .map(PathBuf::from)
        .filter(|dir| dir.ends_with("lib-dynload"))
        .collect();
    let found = scan(&dirs);
    let _ = REMEMBERED.set((dirs, found));
}

/// The system libraries the extension modules in `dirs` need, as the paths
/// the dynamic loader will open, less those already mapped.
pub fn system_libraries(dirs: &[PathBuf]) -> Vec<PathBuf> {
    match REMEMBERED.get() {
        Some((scanned, found)) if scanned == dirs => found.clone(),
        _ => scan(dirs),
    }
}

fn scan(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mapped = mapped();
    let mut queue: Vec<String> = Vec::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if path.extension().is_some_and(|e| e == "so")
                && !LEFT_OUT.iter().any(|module| name.starts_with(module))
            {
                queue.extend(needed(&path).unwrap_or_default());
            }
        }
    }
    let mut seen = BTreeSet::new();
    let mut shown = Vec::new();
    while let Some(soname) = queue.pop() {
        if seen.len() >= MAX_LIBRARIES || !seen.insert(soname.clone()) {
            continue;
        }
        // Shared libraries only (a module may also name its interpreter).
        if !soname.starts_with("lib") || !soname.contains(".so") {
            continue;
        }
        let Some(path) = SYSTEM_DIRS
            .iter()
            .map(|dir| Path::new(dir).join(&soname))
            .find(|path| path.is_file())
        else {
            continue;
        };
        let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if mapped.contains(&real) || mapped.contains(&path) {
            continue;
        }
        queue.extend(needed(&real).unwrap_or_default());
        shown.push(path);
    }
    shown
}
