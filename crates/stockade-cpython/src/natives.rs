//! The native libraries extension modules link, found before the sandbox
//! so that each can be shown read-only at the path the dynamic loader
//! opens: the standard library's (zlib for `binascii`, libexpat for
//! `pyexpat`, OpenSSL for `hashlib`...) and those of every module in the
//! host's `site_packages` (the system's `libstdc++` and `libgcc_s` that
//! scipy's modules link, say, beside what wheels bundle in `NAME.libs/`).
//! Nothing else of the system's library directories is visible.
//!
//! Dependencies are read from each object's ELF dynamic section
//! (`DT_NEEDED`), followed transitively, and looked up as the dynamic
//! loader does: the object's `DT_RPATH` (when it has no `DT_RUNPATH`), its
//! `DT_RUNPATH`, both with `$ORIGIN` read as the object's directory, then
//! the system's library directories. Libraries the process has mapped
//! already, and those inside trees the guest reads anyway, are left out.
//! libffi is shown like any other, so `ctypes` imports: a guest runs
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
/// terminal, the network and system databases, none of which a sandboxed
/// guest has. They fail to import, naming the library they miss.
const LEFT_OUT: &[&str] = &[
    "_tkinter",
    "_curses",
    "readline",
    "nis",
    "spwd",
    "ossaudiodev",
    "_ssl",
];

/// Most libraries followed, whatever the modules say.
const MAX_LIBRARIES: usize = 256;

const PT_LOAD: u32 = 1;
const PT_DYNAMIC: u32 = 2;
const DT_NULL: i64 = 0;
const DT_NEEDED: i64 = 1;
const DT_STRTAB: i64 = 5;
const DT_RPATH: i64 = 15;
const DT_RUNPATH: i64 = 29;

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

/// What an object's dynamic section says of its dependencies.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Dynamic {
    /// The sonames it needs (`DT_NEEDED`), in order.
    pub needed: Vec<String>,
    /// `DT_RPATH`'s directories, as written.
    pub rpath: Vec<String>,
    /// `DT_RUNPATH`'s directories, as written.
    pub runpath: Vec<String>,
}

impl Dynamic {
    /// Where the loader looks for this object's dependencies before the
    /// system's directories, `$ORIGIN` read as `origin`.
    fn search_path(&self, origin: &Path) -> Vec<PathBuf> {
        // A DT_RUNPATH makes the loader ignore DT_RPATH.
        let written = if self.runpath.is_empty() {
            &self.rpath
        } else {
            &self.runpath
        };
        written
            .iter()
            .filter(|dir| !dir.is_empty())
            .map(|dir| {
                let origin = origin.to_string_lossy();
                PathBuf::from(
                    dir.replace("${ORIGIN}", &origin)
                        .replace("$ORIGIN", &origin),
                )
            })
            .collect()
    }
}

/// The dynamic section of a 64-bit little-endian ELF file; None if it is
/// not one.
pub fn dynamic(path: &Path) -> Option<Dynamic> {
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
    let mut section = None;
    for i in 0..phnum {
        let at = i * phentsize;
        let kind = u32_at(&table, at)?;
        let offset = u64_at(&table, at + 8)?;
        let vaddr = u64_at(&table, at + 16)?;
        let filesz = u64_at(&table, at + 32)?;
        match kind {
            PT_LOAD => loads.push((vaddr, offset, filesz)),
            PT_DYNAMIC => section = Some((offset, filesz)),
            _ => {}
        }
    }
    let (offset, size) = section?;
    let entries = read_at(&file, offset, usize::try_from(size.min(1 << 20)).ok()?)?;
    let (mut needed, mut rpath, mut runpath) = (Vec::new(), Vec::new(), Vec::new());
    let mut strtab = None;
    for entry in entries.chunks_exact(16) {
        let tag = i64::from_le_bytes(entry.get(..8)?.try_into().ok()?);
        let value = u64_at(entry, 8)?;
        match tag {
            DT_NULL => break,
            DT_NEEDED => needed.push(value),
            DT_RPATH => rpath.push(value),
            DT_RUNPATH => runpath.push(value),
            DT_STRTAB => strtab = Some(value),
            _ => {}
        }
    }
    let strtab = strtab?;
    // The string table's address, as a place in the file.
    let base = loads.iter().find_map(|&(vaddr, offset, filesz)| {
        (strtab >= vaddr && strtab < vaddr + filesz).then(|| strtab - vaddr + offset)
    })?;
    let string = |at: u64| -> Option<String> {
        // A path list may be long; the file may end sooner.
        let mut bytes = vec![0u8; 4096];
        let got = file.read_at(&mut bytes, base.checked_add(at)?).ok()?;
        let end = bytes.get(..got)?.iter().position(|&b| b == 0)?;
        String::from_utf8(bytes.get(..end)?.to_vec()).ok()
    };
    let strings =
        |offsets: Vec<u64>| -> Vec<String> { offsets.into_iter().filter_map(string).collect() };
    let dirs = |offsets: Vec<u64>| -> Vec<String> {
        strings(offsets)
            .iter()
            .flat_map(|list| list.split(':').map(str::to_owned).collect::<Vec<_>>())
            .collect()
    };
    Some(Dynamic {
        needed: strings(needed),
        rpath: dirs(rpath),
        runpath: dirs(runpath),
    })
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
    let found = standard_library_scan(&dirs);
    let _ = REMEMBERED.set((dirs, found));
}

/// The libraries the extension modules in the standard library's `dynload`
/// directories and anywhere in the `packages` trees need, as the paths the
/// dynamic loader will open: less those already mapped and those inside
/// the packages' trees, which the guest reads anyway.
pub fn libraries(dynload: &[PathBuf], packages: &[PathBuf]) -> Vec<PathBuf> {
    let mut shown = match REMEMBERED.get() {
        Some((scanned, found)) if scanned == dynload => found.clone(),
        _ => standard_library_scan(dynload),
    };
    if !packages.is_empty() {
        let mut scan = Scan::new(packages);
        scan.seen.extend(shown.iter().cloned());
        for tree in packages {
            scan.tree(tree, 0);
        }
        shown.extend(scan.shown);
    }
    shown
}

fn standard_library_scan(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut scan = Scan::new(&[]);
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.ends_with(".so") && !LEFT_OUT.iter().any(|module| name.starts_with(module)) {
                scan.object(&entry.path());
            }
        }
    }
    scan.shown
}

/// Deepest directory of a package tree looked into for extension modules.
const MAX_TREE_DEPTH: usize = 16;

/// One search for the libraries some objects need.
struct Scan<'a> {
    mapped: BTreeSet<PathBuf>,
    /// Trees the guest reads anyway: what is found there is followed, not shown.
    trees: &'a [PathBuf],
    /// Every library path met, shown or not.
    seen: BTreeSet<PathBuf>,
    shown: Vec<PathBuf>,
}

impl<'a> Scan<'a> {
    fn new(trees: &'a [PathBuf]) -> Self {
        Self {
            mapped: mapped(),
            trees,
            seen: BTreeSet::new(),
            shown: Vec::new(),
        }
    }

    /// Every shared object under `dir` (symbolic links to directories are
    /// not followed: what they name is not what the guest reads there).
    fn tree(&mut self, dir: &Path, depth: usize) {
        if depth > MAX_TREE_DEPTH {
            return;
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                self.tree(&entry.path(), depth + 1);
            } else if kind.is_file() && is_shared_object(&entry.file_name().to_string_lossy()) {
                self.object(&entry.path());
            }
        }
    }

    /// Follows what the object at `path` needs.
    fn object(&mut self, path: &Path) {
        let Some(dynamic) = dynamic(path) else {
            return;
        };
        let origin = path.parent().unwrap_or(Path::new("/"));
        let search = dynamic.search_path(origin);
        for soname in &dynamic.needed {
            if self.seen.len() >= MAX_LIBRARIES {
                return;
            }
            // Shared libraries by name only (a module may also name its
            // interpreter, or a path).
            if soname.contains('/') || !is_shared_object(soname) {
                continue;
            }
            let Some(found) = search
                .iter()
                .map(PathBuf::as_path)
                .chain(SYSTEM_DIRS.iter().map(Path::new))
                .map(|dir| dir.join(soname))
                .find(|path| path.is_file())
            else {
                continue;
            };
            if !self.seen.insert(found.clone()) {
                continue;
            }
            let real = std::fs::canonicalize(&found).unwrap_or_else(|_| found.clone());
            if self.mapped.contains(&real) || self.mapped.contains(&found) {
                continue;
            }
            if !self.trees.iter().any(|tree| found.starts_with(tree)) {
                self.shown.push(found.clone());
            }
            self.object(&found);
        }
    }
}

/// A shared object's file name: `NAME.so` or `NAME.so.VERSION`.
fn is_shared_object(name: &str) -> bool {
    name.ends_with(".so") || name.contains(".so.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runpath_replaces_rpath_and_origin_is_the_objects_directory() {
        let both = Dynamic {
            needed: vec![],
            rpath: vec!["/old".into()],
            runpath: vec!["$ORIGIN/../pkg.libs".into(), "${ORIGIN}".into(), "".into()],
        };
        assert_eq!(
            both.search_path(Path::new("/sp/pkg")),
            vec![
                PathBuf::from("/sp/pkg/../pkg.libs"),
                PathBuf::from("/sp/pkg")
            ]
        );
        let rpath_only = Dynamic {
            needed: vec![],
            rpath: vec!["/opt/lib".into()],
            runpath: vec![],
        };
        assert_eq!(
            rpath_only.search_path(Path::new("/x")),
            vec![PathBuf::from("/opt/lib")]
        );
    }

    #[test]
    fn shared_object_names_with_and_without_versions() {
        assert!(is_shared_object("libstdc++.so.6"));
        assert!(is_shared_object("_umath.cpython-311-x86_64-linux-gnu.so"));
        assert!(!is_shared_object("libsomething.a"));
        assert!(!is_shared_object("data.sofa"));
    }
}
