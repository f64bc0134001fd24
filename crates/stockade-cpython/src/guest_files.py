"""stockade's Python half of the CPython engine, continued: mounted files.
Run in guest.py's namespace, after it.
"""

# -- Mounted files (docs/files.md) -----------------------------------------
#
# A path under one of the session's mounts is the host's to serve: `open`,
# `os.stat`/`lstat`, `listdir`, `scandir`, `mkdir`, `remove`/`unlink`,
# `rmdir`, `rename`/`replace` and `access` send it to the host as an OS
# call (as monty names them), and everything built on them (pathlib,
# os.path, glob, shutil, csv, pandas) follows. Any other path goes to the
# real function, under the sandbox; when that fails and the host has an
# `os_handler`, the call goes to the host after all, for the handler.

_ERRNO = {"FileNotFoundError": 2, "PermissionError": 13, "FileExistsError": 17,
          "IsADirectoryError": 21, "NotADirectoryError": 20}


def mount_files(os_call):
    """Puts the host's mounts under the guest's file functions; `os_call(name,
    args)` asks the host (True, value) or (False, (type, message))."""
    import builtins
    import errno as _errno_module
    import io
    import os
    import stat as _stat

    real = {name: getattr(os, name) for name in
            ("stat", "lstat", "listdir", "scandir", "mkdir", "remove", "unlink", "rmdir",
             "rename", "replace", "access")}
    real_open = io.open
    prefixes = []
    handled = []
    asked = []

    def learned():
        """Whether the host said where the mounts are (asked once a
        session, inside a feed: outside one the host cannot be reached)."""
        if not asked:
            try:
                ok, found = os_call("stockade.mounts", [])
            except RuntimeError:
                return False
            if not ok:
                return False
            prefixes.extend(found[0])
            handled.extend([True] if found[1] else [])
            asked.append(True)
        return True

    def normal(path):
        """`path` as a normalised absolute guest path, or None."""
        if isinstance(path, int):
            return None
        try:
            path = os.fspath(path)
        except TypeError:
            return None
        if isinstance(path, bytes):
            path = path.decode("utf-8", "surrogateescape")
        if not path.startswith("/"):
            # Relative to the working directory (the scratch, /tmp, unless
            # the guest moved), as the real call would read it.
            try:
                path = os.getcwd() + "/" + path
            except OSError:
                path = "/" + path
        parts = []
        for part in path.split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                if parts:
                    parts.pop()
            else:
                parts.append(part)
        return "/" + "/".join(parts)

    def mounted(path):
        """The normalised guest path when `path` lies under a mount."""
        if not learned() or not prefixes:
            return None
        target = normal(path)
        if target is None:
            return None
        for prefix in prefixes:
            if prefix == "/" or target == prefix or target.startswith(prefix + "/"):
                return target
        return None

    def either(path, usable, real_call, host_call):
        """The host's answer for a mounted path; else the real call, and
        the host's (its `os_handler`'s) when that fails and there is one."""
        target = mounted(path) if usable else None
        if target is not None:
            return host_call(target)
        try:
            return real_call()
        except (FileNotFoundError, PermissionError):
            target = normal(path) if usable and learned() and handled else None
            if target is None:
                raise
            return host_call(target)

    def fail(kind, message, path, path2=None):
        number = _ERRNO.get(kind)
        if number is not None:
            cls = getattr(builtins, kind)
            # The host's reason, when it says more than the errno does.
            at = message.rfind(" (")
            detail = message[at:] if at != -1 and message.endswith(")") else ""
            raise cls(number, os.strerror(number) + detail, path,
                      *(() if path2 is None else (None, path2)))
        if kind == "OSError" and "not empty" in message:
            raise OSError(_errno_module.ENOTEMPTY, os.strerror(_errno_module.ENOTEMPTY), path)
        if kind == "OSError" and ("cross" in message or "mount" in message):
            raise OSError(_errno_module.EXDEV, os.strerror(_errno_module.EXDEV), path, None, path2)
        cls = getattr(builtins, kind, None)
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            cls = OSError
        raise cls(message)

    def call(name, path, *args, path2=None):
        ok, value = os_call(name, [path, *args])
        if ok:
            return value
        fail(value[0], value[1], path, path2)

    class MountedFile(io.BytesIO):
        """A mounted file: its bytes in memory, sent to the host on flush
        and close (whole, or what was appended)."""

        def __init__(self, path, kind, plus, data):
            super().__init__(data)
            self.name = path
            self._kind, self._plus = kind, plus
            self._dirty = False
            self._appended = len(data)
            if kind == "a":
                self.seek(0, 2)

        def readable(self):
            return self._kind == "r" or self._plus

        def writable(self):
            return self._kind != "r" or self._plus

        def read(self, *args):
            if not self.readable():
                raise io.UnsupportedOperation("not readable")
            return super().read(*args)

        def read1(self, *args):
            if not self.readable():
                raise io.UnsupportedOperation("not readable")
            return super().read1(*args)

        def readinto(self, buffer):
            if not self.readable():
                raise io.UnsupportedOperation("not readable")
            return super().readinto(buffer)

        def write(self, data):
            if not self.writable():
                raise io.UnsupportedOperation("not writable")
            if self._kind == "a":
                self.seek(0, 2)
            self._dirty = True
            return super().write(data)

        def truncate(self, size=None):
            if not self.writable():
                raise io.UnsupportedOperation("not writable")
            self._dirty = True
            return super().truncate(size)

        def flush(self):
            if not self.closed and self._dirty:
                if self._kind == "a":
                    call("Path.append_bytes", self.name, bytes(self.getbuffer()[self._appended:]))
                    self._appended = len(self.getbuffer())
                else:
                    call("Path.write_bytes", self.name, self.getvalue())
                self._dirty = False
            super().flush()

        def close(self):
            if not self.closed:
                try:
                    self.flush()
                finally:
                    super().close()

        def fileno(self):
            raise io.UnsupportedOperation("a mounted file has no descriptor")

    # Python 3.9's pathlib opens through an opener of its own, which only
    # calls os.open: a mounted path it opens is the host's all the same.
    pathlib_opener = None
    if sys.version_info < (3, 10):
        import pathlib
        pathlib_opener = pathlib.Path._opener

    def open_(file, mode="r", buffering=-1, encoding=None, errors=None, newline=None,
              closefd=True, opener=None):
        plain = opener is None or (pathlib_opener is not None
                                   and getattr(opener, "__func__", None) is pathlib_opener)
        return either(file, plain,
                      lambda: real_open(file, mode, buffering, encoding, errors, newline,
                                        closefd, opener),
                      lambda path: host_open(path, mode, encoding, errors, newline))

    def host_open(path, mode, encoding, errors, newline):
        kinds = [k for k in "rwax" if k in mode]
        if not isinstance(mode, str) or len(kinds) != 1 or set(mode) - set("rwaxbt+"):
            raise ValueError(f"invalid mode: {mode!r}")
        kind, plus, binary = kinds[0], "+" in mode, "b" in mode
        if binary and encoding is not None:
            raise ValueError("binary mode doesn't take an encoding argument")
        if kind == "r":
            data = call("Path.read_bytes", path)
        elif kind == "x":
            if call("Path.exists", path):
                fail("FileExistsError", "exists", path)
            call("Path.write_bytes", path, b"")
            data = b""
        elif kind == "w":
            call("Path.write_bytes", path, b"")
            data = b""
        else:
            call("Path.append_bytes", path, b"")
            data = call("Path.read_bytes", path) if plus else b""
        raw = MountedFile(path, kind, plus, data)
        if kind == "a" and not plus:
            raw._appended = 0
        if binary:
            raw.mode = mode
            return raw
        text = io.TextIOWrapper(raw, encoding=encoding, errors=errors, newline=newline,
                                write_through=True)
        text.mode = mode
        return text

    def host_stat(target):
        return os.stat_result(tuple(call("Path.stat", target)))

    def stat_(path, *, dir_fd=None, follow_symlinks=True):
        return either(path, dir_fd is None,
                      lambda: real["stat"](path, dir_fd=dir_fd, follow_symlinks=follow_symlinks),
                      host_stat)

    def lstat_(path, *, dir_fd=None):
        return either(path, dir_fd is None, lambda: real["lstat"](path, dir_fd=dir_fd), host_stat)

    def host_listdir(target):
        return [entry.rsplit("/", 1)[-1] for entry in call("Path.iterdir", target)]

    def listdir_(path="."):
        return either(path, True, lambda: real["listdir"](path), host_listdir)

    class Entry:
        """os.DirEntry for a mounted directory's entry."""

        def __init__(self, directory, name):
            self.name = name
            self.path = directory.rstrip("/") + "/" + name if directory != "/" else "/" + name

        def stat(self, *, follow_symlinks=True):
            return stat_(self.path)

        def is_dir(self, *, follow_symlinks=True):
            try:
                return _stat.S_ISDIR(self.stat().st_mode)
            except OSError:
                return False

        def is_file(self, *, follow_symlinks=True):
            try:
                return _stat.S_ISREG(self.stat().st_mode)
            except OSError:
                return False

        def is_symlink(self):
            return False

        def inode(self):
            return self.stat().st_ino

        def __fspath__(self):
            return self.path

        def __repr__(self):
            return f"<DirEntry {self.name!r}>"

    class Scan:
        def __init__(self, entries):
            self._entries = iter(entries)

        def __iter__(self):
            return self

        def __next__(self):
            return next(self._entries)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.close()

        def close(self):
            self._entries = iter(())

    def scandir_(path="."):
        return either(path, True, lambda: real["scandir"](path),
                      lambda target: Scan([Entry(os.fspath(path), name)
                                           for name in host_listdir(target)]))

    def mkdir_(path, mode=0o777, *, dir_fd=None):
        return either(path, dir_fd is None, lambda: real["mkdir"](path, mode, dir_fd=dir_fd),
                      lambda target: call("Path.mkdir", target, False, False))

    def unlink_(path, *, dir_fd=None):
        return either(path, dir_fd is None, lambda: real["unlink"](path, dir_fd=dir_fd),
                      lambda target: call("Path.unlink", target))

    def rmdir_(path, *, dir_fd=None):
        return either(path, dir_fd is None, lambda: real["rmdir"](path, dir_fd=dir_fd),
                      lambda target: call("Path.rmdir", target))

    def rename_(src, dst, *, src_dir_fd=None, dst_dir_fd=None):
        source, target = mounted(src), mounted(dst)
        if source is None and target is None:
            return real["rename"](src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)
        if source is None or target is None:
            raise OSError(_errno_module.EXDEV, os.strerror(_errno_module.EXDEV), os.fspath(src), None, os.fspath(dst))
        call("Path.rename", source, target, path2=target)

    def access_(path, mode, *, dir_fd=None, effective_ids=False, follow_symlinks=True):
        return either(path, dir_fd is None,
                      lambda: real["access"](path, mode, dir_fd=dir_fd,
                                             effective_ids=effective_ids,
                                             follow_symlinks=follow_symlinks),
                      lambda target: bool(call("Path.exists", target)))

    def like(function, name):
        return BuiltinLike(function, real_open if name == "open" else real[name],
                           "io" if name == "open" else "os")

    builtins.open = io.open = like(open_, "open")
    os.stat, os.lstat = like(stat_, "stat"), like(lstat_, "lstat")
    os.listdir, os.scandir = like(listdir_, "listdir"), like(scandir_, "scandir")
    os.mkdir, os.rmdir = like(mkdir_, "mkdir"), like(rmdir_, "rmdir")
    os.unlink, os.remove = like(unlink_, "unlink"), like(unlink_, "remove")
    os.rename, os.replace = like(rename_, "rename"), like(rename_, "replace")
    os.access = like(access_, "access")
    if pathlib_opener is not None:
        # 3.9's pathlib took os's functions when it was imported (above).
        for name in ("stat", "lstat", "listdir", "scandir", "mkdir", "unlink", "rmdir",
                     "rename", "replace"):
            setattr(pathlib._NormalAccessor, name, getattr(os, name))
