// Node's `fs`, `fs/promises` and `path` for guests, over the host's mounts
// (docs/files.md): every file call is one OS call the host serves, named
// as monty names them. `os(name, ...args)` returns [true, value] or
// [false, pythonType, message]; errors become Node's, with their `code`.
// Loaded the first time a guest imports or requires one of them.
export default (os) => {
  const CODES = {
    FileNotFoundError: ['ENOENT', -2, 'no such file or directory'],
    PermissionError: ['EACCES', -13, 'permission denied'],
    IsADirectoryError: ['EISDIR', -21, 'illegal operation on a directory'],
    NotADirectoryError: ['ENOTDIR', -20, 'not a directory'],
    FileExistsError: ['EEXIST', -17, 'file already exists'],
    MemoryError: ['ENOMEM', -12, 'not enough memory'],
  };
  const fail = (type, message, syscall, path) => {
    let entry = CODES[type];
    if (!entry && /not empty/i.test(message)) entry = ['ENOTEMPTY', -39, 'directory not empty'];
    if (!entry && /cross-device|different mount/i.test(message)) entry = ['EXDEV', -18, 'cross-device link not permitted'];
    if (!entry && /No space left/i.test(message)) entry = ['ENOSPC', -28, 'no space left on device'];
    if (!entry) {
      const error = type === 'TypeError' ? new TypeError(message) : new Error(message);
      throw error;
    }
    const [code, errno, words] = entry;
    const error = new Error(`${code}: ${words}, ${syscall} '${path}'`);
    error.errno = errno;
    error.code = code;
    error.syscall = syscall;
    error.path = path;
    throw error;
  };
  const call = (syscall, path, name, ...args) => {
    const answer = os(name, ...args);
    if (answer[0]) return answer[1];
    return fail(answer[1], answer[2], syscall, path);
  };
  const pathOf = (path, what = 'path') => {
    if (typeof path === 'string') return path;
    if (path instanceof URL) return decodeURIComponent(path.pathname);
    if (path instanceof Uint8Array) return new TextDecoder().decode(path);
    const error = new TypeError(`The "${what}" argument must be of type string or an instance of Buffer or URL. Received ${path === null ? 'null' : typeof path}`);
    error.code = 'ERR_INVALID_ARG_TYPE';
    throw error;
  };
  const encodingOf = (options) => (typeof options === 'string' ? options : options && options.encoding) || null;
  const text = (encoding) => encoding === 'utf8' || encoding === 'utf-8';
  const bytesOf = (data) => {
    if (typeof data === 'string') return new TextEncoder().encode(data);
    if (data instanceof Uint8Array) return data;
    if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const error = new TypeError('The "data" argument must be of type string or an instance of Buffer, TypedArray, or DataView.');
    error.code = 'ERR_INVALID_ARG_TYPE';
    throw error;
  };
  const decode = (bytes, encoding) => {
    if (encoding === null) return bytes;
    if (text(encoding)) return new TextDecoder().decode(bytes);
    if (encoding === 'latin1' || encoding === 'binary') return Array.from(bytes, (b) => String.fromCharCode(b)).join('');
    throw new TypeError(`The encoding ${encoding} is not supported here; read bytes and decode them`);
  };
  const statsOf = (fields) => {
    const [mode, ino, dev, nlink, uid, gid, size, atime, mtime, ctime] = fields;
    const kind = mode & 0o170000;
    return {
      mode, ino, dev, nlink, uid, gid, size,
      atimeMs: atime * 1000, mtimeMs: mtime * 1000, ctimeMs: ctime * 1000, birthtimeMs: ctime * 1000,
      atime: new Date(atime * 1000), mtime: new Date(mtime * 1000), ctime: new Date(ctime * 1000),
      birthtime: new Date(ctime * 1000),
      isFile: () => kind === 0o100000,
      isDirectory: () => kind === 0o040000,
      isSymbolicLink: () => kind === 0o120000,
      isFIFO: () => false, isSocket: () => false, isBlockDevice: () => false, isCharacterDevice: () => false,
    };
  };
  const exists = (path) => {
    try { return os('Path.exists', pathOf(path))[1] === true; } catch { return false; }
  };
  const readFileSync = (path, options) => {
    path = pathOf(path);
    const encoding = encodingOf(options);
    if (text(encoding)) return call('open', path, 'Path.read_text', path);
    return decode(call('open', path, 'Path.read_bytes', path), encoding);
  };
  const write = (name, path, data, options) => {
    path = pathOf(path);
    const encoding = encodingOf(options);
    if (typeof data === 'string' && (encoding === null || text(encoding))) {
      call('open', path, `Path.${name}_text`, path, data);
    } else {
      call('open', path, `Path.${name}_bytes`, path, bytesOf(data));
    }
  };
  const writeFileSync = (path, data, options) => {
    const flag = options && typeof options === 'object' ? options.flag : undefined;
    write(flag === 'a' ? 'append' : 'write', path, data, options);
  };
  const appendFileSync = (path, data, options) => write('append', path, data, options);
  const base = (full) => full.slice(full.lastIndexOf('/') + 1);
  const readdirSync = (path, options) => {
    path = pathOf(path);
    const names = call('scandir', path, 'Path.iterdir', path).map(base).sort();
    if (options && typeof options === 'object' && options.withFileTypes) {
      return names.map((name) => {
        const stats = statSync(`${path}/${name}`);
        return { name, parentPath: path, path, isFile: stats.isFile, isDirectory: stats.isDirectory, isSymbolicLink: stats.isSymbolicLink };
      });
    }
    return names;
  };
  const statSync = (path, options) => {
    path = pathOf(path);
    if (options && options.throwIfNoEntry === false && !exists(path)) return undefined;
    return statsOf(call('stat', path, 'Path.stat', path));
  };
  const mkdirSync = (path, options) => {
    path = pathOf(path);
    const recursive = !!(options && typeof options === 'object' && options.recursive);
    if (recursive && exists(path)) {
      if (!statSync(path).isDirectory()) fail('FileExistsError', 'exists', 'mkdir', path);
      return undefined;
    }
    call('mkdir', path, 'Path.mkdir', path, recursive, recursive);
    return recursive ? path : undefined;
  };
  const unlinkSync = (path) => { path = pathOf(path); call('unlink', path, 'Path.unlink', path); };
  const rmdirSync = (path) => { path = pathOf(path); call('rmdir', path, 'Path.rmdir', path); };
  const rmSync = (path, options) => {
    path = pathOf(path);
    const recursive = !!(options && options.recursive);
    const force = !!(options && options.force);
    if (!exists(path)) {
      if (force) return;
      fail('FileNotFoundError', 'missing', 'rm', path);
    }
    const stats = statSync(path);
    if (stats.isDirectory()) {
      if (!recursive) {
        const error = new Error(`Path is a directory: rm returned EISDIR (is a directory) ${path}`);
        error.code = 'ERR_FS_EISDIR';
        throw error;
      }
      for (const name of readdirSync(path)) rmSync(`${path}/${name}`, { recursive: true, force });
      rmdirSync(path);
    } else {
      unlinkSync(path);
    }
  };
  const renameSync = (from, to) => {
    from = pathOf(from, 'oldPath');
    to = pathOf(to, 'newPath');
    call('rename', from, 'Path.rename', from, to);
  };
  const copyFileSync = (from, to) => writeFileSync(to, readFileSync(from));
  const accessSync = (path) => { path = pathOf(path); if (!exists(path)) fail('FileNotFoundError', 'missing', 'access', path); };
  const sync = {
    existsSync: exists, readFileSync, writeFileSync, appendFileSync, readdirSync, statSync,
    lstatSync: statSync, mkdirSync, unlinkSync, rmdirSync, rmSync, renameSync, copyFileSync, accessSync,
    constants: { F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1 },
  };
  const promisify = (f) => (...args) => new Promise((resolve, reject) => {
    try { resolve(f(...args)); } catch (error) { reject(error); }
  });
  const promises = {
    readFile: promisify(readFileSync), writeFile: promisify(writeFileSync),
    appendFile: promisify(appendFileSync), readdir: promisify(readdirSync), stat: promisify(statSync),
    lstat: promisify(statSync), mkdir: promisify(mkdirSync), unlink: promisify(unlinkSync),
    rmdir: promisify(rmdirSync), rm: promisify(rmSync), rename: promisify(renameSync),
    copyFile: promisify(copyFileSync), access: promisify(accessSync), constants: sync.constants,
  };
  const callbacks = {};
  for (const [name, f] of Object.entries(promises)) {
    if (typeof f !== 'function') continue;
    callbacks[name] = (...args) => {
      const done = typeof args[args.length - 1] === 'function' ? args.pop() : null;
      f(...args).then((value) => done && done(null, value), (error) => done && done(error));
    };
  }
  callbacks.exists = (path, done) => { Promise.resolve().then(() => done(exists(path))); };
  const fs = { ...sync, ...callbacks, promises };
  return { fs, promises, path: posixPath() };
};

// Node's `path` (POSIX), which touches nothing: pure string work. The
// working directory `resolve` starts from is the guest's, the scratch
// directory `/tmp`, beneath which the host puts relative paths.
function posixPath() {
  const cwd = '/tmp';
  const check = (value, name = 'path') => {
    if (typeof value !== 'string') {
      const error = new TypeError(`The "${name}" argument must be of type string. Received ${value === null ? 'null' : typeof value}`);
      error.code = 'ERR_INVALID_ARG_TYPE';
      throw error;
    }
    return value;
  };
  const normalizeParts = (parts, absolute) => {
    const out = [];
    for (const part of parts) {
      if (part === '' || part === '.') continue;
      if (part === '..') {
        if (out.length && out[out.length - 1] !== '..') out.pop();
        else if (!absolute) out.push('..');
      } else {
        out.push(part);
      }
    }
    return out;
  };
  const normalize = (p) => {
    check(p);
    if (p === '') return '.';
    const absolute = p.startsWith('/');
    const trailing = p.endsWith('/');
    let joined = normalizeParts(p.split('/'), absolute).join('/');
    if (joined === '' && !absolute) joined = '.';
    if (joined !== '' && trailing) joined += '/';
    return (absolute ? '/' : '') + joined;
  };
  const join = (...parts) => {
    parts.forEach((part) => check(part));
    const joined = parts.filter((part) => part !== '').join('/');
    return joined === '' ? '.' : normalize(joined);
  };
  const resolve = (...parts) => {
    let resolved = '';
    for (let i = parts.length - 1; i >= 0 && !resolved.startsWith('/'); i--) {
      const part = check(parts[i]);
      if (part !== '') resolved = resolved === '' ? part : `${part}/${resolved}`;
    }
    if (!resolved.startsWith('/')) resolved = `${cwd}/${resolved}`;
    const out = '/' + normalizeParts(resolved.split('/'), true).join('/');
    return out;
  };
  const isAbsolute = (p) => check(p).startsWith('/');
  const trimEnd = (p) => { while (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1); return p; };
  const dirname = (p) => {
    check(p);
    if (p === '') return '.';
    const trimmed = trimEnd(p);
    const at = trimmed.lastIndexOf('/');
    if (at === -1) return '.';
    if (at === 0) return '/';
    return trimEnd(trimmed.slice(0, at));
  };
  const basename = (p, ext) => {
    check(p);
    const trimmed = trimEnd(p);
    let base = trimmed === '/' ? '' : trimmed.slice(trimmed.lastIndexOf('/') + 1);
    if (ext !== undefined && base.endsWith(check(ext, 'ext')) && base !== ext) base = base.slice(0, -ext.length);
    return base;
  };
  const extname = (p) => {
    const base = basename(p);
    const at = base.lastIndexOf('.');
    return at <= 0 ? '' : base.slice(at);
  };
  const relative = (from, to) => {
    const a = resolve(from).split('/').filter(Boolean);
    const b = resolve(to).split('/').filter(Boolean);
    let same = 0;
    while (same < a.length && same < b.length && a[same] === b[same]) same++;
    return [...Array(a.length - same).fill('..'), ...b.slice(same)].join('/');
  };
  const parse = (p) => {
    check(p);
    const root = p.startsWith('/') ? '/' : '';
    const base = basename(p);
    const ext = extname(p);
    let dir = dirname(p);
    if (dir === '.' && !p.includes('/')) dir = '';
    return { root, dir, base, ext, name: ext ? base.slice(0, -ext.length) : base };
  };
  const format = (o) => {
    const dir = o.dir || o.root || '';
    const base = o.base || `${o.name || ''}${o.ext || ''}`;
    if (!dir) return base;
    return dir === o.root ? `${dir}${base}` : `${dir}/${base}`;
  };
  const path = { sep: '/', delimiter: ':', normalize, join, resolve, isAbsolute, dirname, basename, extname, relative, parse, format, toNamespacedPath: (p) => p };
  path.posix = path;
  return path;
}
