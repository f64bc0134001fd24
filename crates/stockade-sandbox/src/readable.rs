//! Host directories a guest may read (an interpreter's standard library, a
//! package directory the host chose), shown read-only at their own paths
//! inside the empty root and nothing else of the host beside them.
//!
//! Each tree is cloned with `open_tree` before the empty tmpfs covers the
//! host (a source under the mount point, such as a directory in /tmp, would
//! be hidden after), made read-only, nosuid and nodev through all its
//! submounts with `mount_setattr`, and attached inside the new root with
//! `move_mount`. Executable mappings stay possible: an interpreter maps its
//! extension modules from these trees, and seccomp kills `execve` anyway.

use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Component, Path, PathBuf};

use rustix::fs::{CWD, Mode};
use rustix::mount::{MoveMountFlags, OpenTreeFlags, move_mount, open_tree};

/// The hidden paths that stay hidden: absolute, and not named as readable
/// themselves (the host asked for that directory). A readable path
/// strictly inside a hidden one is refused: showing it would show the
/// whole hidden directory, hiding it would not show it.
pub fn still_hidden(hidden: &[PathBuf], readable: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    for path in hidden {
        if let Some(inside) = readable
            .iter()
            .find(|shown| shown.starts_with(path) && *shown != path)
        {
            return Err(format!(
                "readable path {} lies inside {}, which the guest may not see; name the whole directory",
                inside.display(),
                path.display()
            ));
        }
    }
    Ok(hidden
        .iter()
        .filter(|path| path.is_absolute() && !readable.contains(path))
        .cloned()
        .collect())
}

/// One host directory or file, cloned and waiting to be attached.
#[derive(Debug)]
pub struct Tree {
    /// Where the guest finds it: the path the host gave, made absolute.
    at: PathBuf,
    is_dir: bool,
    clone: OwnedFd,
}

/// The paths to show, in the order they can be attached: absolute, without
/// `.` or `..`, and without those already inside an earlier one (a tree's
/// submounts come with it; a mount point cannot be made inside a read-only
/// tree).
pub fn normalise(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out: Vec<PathBuf> = Vec::new();
    for path in paths {
        if !path.is_absolute() {
            return Err(format!("readable path {} is not absolute", path.display()));
        }
        let mut clean = PathBuf::from("/");
        for component in path.components() {
            match component {
                Component::Normal(part) => clean.push(part),
                Component::RootDir | Component::CurDir => {}
                Component::ParentDir | Component::Prefix(_) => {
                    return Err(format!("readable path {} contains '..'", path.display()));
                }
            }
        }
        if clean == Path::new("/") {
            return Err("the whole host filesystem cannot be made readable".into());
        }
        out.push(clean);
    }
    out.sort();
    out.dedup();
    let mut kept: Vec<PathBuf> = Vec::new();
    for path in out {
        if !kept.iter().any(|outer| path.starts_with(outer)) {
            kept.push(path);
        }
    }
    Ok(kept)
}

/// Inodes the tmpfs needs for the mount points of `paths`: one per
/// directory or file along each.
pub fn inodes_needed(paths: &[PathBuf]) -> usize {
    paths.iter().map(|p| p.components().count()).sum()
}

/// Clones each tree from the host, read-only all the way down, before the
/// empty root hides it.
pub fn clone_trees(paths: &[PathBuf]) -> Result<Vec<Tree>, String> {
    paths
        .iter()
        .map(|path| {
            let is_dir = path
                .metadata()
                .map_err(|e| format!("readable path {}: {e}", path.display()))?
                .is_dir();
            let clone = clone_with(path, OpenTreeFlags::AT_RECURSIVE, READ_ONLY)
                .map_err(|e| format!("readable path {}: {e}", path.display()))?;
            Ok(Tree {
                at: path.clone(),
                is_dir,
                clone,
            })
        })
        .collect()
}

/// What every readable tree is: read-only, and nothing on it a device or
/// raising privileges.
const READ_ONLY: u64 = libc::MOUNT_ATTR_RDONLY | libc::MOUNT_ATTR_NOSUID | libc::MOUNT_ATTR_NODEV;

/// A clone of the host's `path` (its submounts too with
/// `AT_RECURSIVE`), detached, with the mount attributes `attributes` set
/// through all of it.
pub(crate) fn clone_with(
    path: &Path,
    recursive: OpenTreeFlags,
    attributes: u64,
) -> Result<OwnedFd, String> {
    let clone = open_tree(
        CWD,
        path,
        OpenTreeFlags::OPEN_TREE_CLONE | OpenTreeFlags::OPEN_TREE_CLOEXEC | recursive,
    )
    .map_err(|e| format!("cannot clone it: {e}"))?;
    set_attributes(&clone, attributes).map_err(|e| format!("cannot restrict it: {e}"))?;
    Ok(clone)
}

/// A file (not a directory) cloned from the host, to attach at its own path.
pub(crate) fn file_tree(at: PathBuf, clone: OwnedFd) -> Tree {
    Tree {
        at,
        is_dir: false,
        clone,
    }
}

/// Sets `attributes` on a detached tree and every mount in it. Only adds
/// restrictions, which a user namespace may always do.
fn set_attributes(tree: &OwnedFd, attributes: u64) -> std::io::Result<()> {
    let attr = libc::mount_attr {
        attr_set: attributes,
        attr_clr: 0,
        propagation: 0,
        userns_fd: 0,
    };
    // SAFETY: mount_setattr reads `attr` (alive for the call, its size
    // passed) and the empty C string; the descriptor is a tree we own.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            tree.as_raw_fd(),
            c"".as_ptr(),
            libc::AT_EMPTY_PATH | libc::AT_RECURSIVE,
            &attr as *const libc::mount_attr,
            std::mem::size_of::<libc::mount_attr>(),
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Makes the mount points under the new root's mount `base` and attaches
/// every tree at its own path.
pub fn attach(trees: Vec<Tree>, base: &str) -> Result<(), String> {
    for tree in trees {
        let target = Path::new(base).join(tree.at.strip_prefix("/").unwrap_or(&tree.at));
        let made = if tree.is_dir {
            std::fs::create_dir_all(&target)
        } else {
            match target.parent() {
                Some(parent) => std::fs::create_dir_all(parent),
                None => Ok(()),
            }
            .and_then(|()| {
                rustix::fs::open(
                    &target,
                    rustix::fs::OFlags::CREATE | rustix::fs::OFlags::WRONLY,
                    Mode::RUSR,
                )
                .map(drop)
                .map_err(std::io::Error::from)
            })
        };
        made.map_err(|e| format!("cannot make the mount point for {}: {e}", tree.at.display()))?;
        move_mount(
            &tree.clone,
            "",
            CWD,
            &target,
            MoveMountFlags::MOVE_MOUNT_F_EMPTY_PATH,
        )
        .map_err(|e| format!("cannot attach {}: {e}", tree.at.display()))?;
    }
    Ok(())
}

/// Covers each of `hidden` that exists under the new root's mount `base`
/// (a directory inside a readable tree, such as the interpreter's own
/// site-packages; a file, such as a test module) with something empty and
/// read-only: a directory with a tiny tmpfs, a file with an empty file.
pub fn hide(hidden: &[PathBuf], base: &str) -> Result<(), String> {
    use rustix::mount::{MountFlags, mount, mount_bind, mount_remount};
    let empty_file = Path::new(base).join(".stockade-empty");
    for path in hidden {
        let relative = path.strip_prefix("/").unwrap_or(path);
        let target = Path::new(base).join(relative);
        // Followed, so a hidden path that is a link covers what it names
        // (mounting on a link mounts on its target); one that names
        // nothing shown is hidden already.
        let Ok(meta) = std::fs::metadata(&target) else {
            continue;
        };
        let flags =
            MountFlags::RDONLY | MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC;
        let covered = if meta.is_dir() {
            mount(
                "stockade-hidden",
                &target,
                "tmpfs",
                flags,
                c"size=4k,nr_inodes=2,mode=0555",
            )
        } else if meta.is_file() {
            if !empty_file.exists() {
                std::fs::write(&empty_file, b"").map_err(|e| {
                    format!(
                        "cannot make the empty file that hides {}: {e}",
                        path.display()
                    )
                })?;
            }
            mount_bind(&empty_file, &target)
                .and_then(|()| mount_remount(&target, MountFlags::BIND | flags, ""))
        } else {
            continue;
        };
        covered.map_err(|e| format!("cannot hide {}: {e}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_and_repeated_paths_are_attached_once() -> Result<(), String> {
        let paths = [
            PathBuf::from("/usr/lib/python3.11/lib-dynload"),
            PathBuf::from("/usr/lib/python3.11"),
            PathBuf::from("/usr/lib/python3.11/"),
            PathBuf::from("/opt/site/./packages"),
        ];
        assert_eq!(
            normalise(&paths)?,
            vec![
                PathBuf::from("/opt/site/packages"),
                PathBuf::from("/usr/lib/python3.11")
            ]
        );
        Ok(())
    }

    #[test]
    fn a_hidden_path_named_as_readable_is_shown_and_one_inside_it_is_refused() -> Result<(), String>
    {
        let stdlib = PathBuf::from("/py/lib/python3.11");
        let site = stdlib.join("site-packages");
        let hidden = vec![site.clone()];
        assert_eq!(
            still_hidden(&hidden, std::slice::from_ref(&stdlib))?,
            hidden,
            "inside a readable tree, it stays hidden"
        );
        assert!(still_hidden(&hidden, &[stdlib.clone(), site.clone()])?.is_empty());
        let err = still_hidden(&hidden, &[stdlib, site.join("numpy")]).unwrap_err();
        assert!(err.contains("name the whole directory"), "{err}");
        Ok(())
    }

    #[test]
    fn relative_parent_and_root_paths_are_refused() {
        for bad in ["lib", "/usr/../etc", "/", "/."] {
            let err = normalise(&[PathBuf::from(bad)]).unwrap_err();
            assert!(
                err.contains("readable path") || err.contains("whole host"),
                "{err}"
            );
        }
    }
}
