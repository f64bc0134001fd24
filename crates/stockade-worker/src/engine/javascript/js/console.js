// The guest's console, shaped as Node's: a plain, writable object whose
// methods format their arguments as Node's util.format and util.inspect
// do. A module (build.rs compiles it to bytecode) whose default export the
// worker calls once, with the native print function and a loader for
// Node's inspect (third_party/node-inspect-extracted), which is loaded
// only when something other than plain primitives is printed. Returns the
// loader's memoised form, so the worker can show results with the same
// inspect.
export default function installConsole(print, loadInspect) {
  // Node's inspect, loaded once. Should it fail to load (a guest that
  // froze the global object, say), values are shown as String shows them,
  // and it is not loaded again.
  let util;
  const plainly = (value) => {
    try { return String(value); } catch (_) { return Object.prototype.toString.call(value); }
  };
  const fallback = {
    inspect: plainly,
    formatWithOptions: (_, ...args) => args.map(plainly).join(' '),
  };
  const inspector = () => {
    if (util === undefined) {
      try {
        util = loadInspect();
      } catch (_) {
        util = fallback;
      }
    }
    return util;
  };
  // Text with lone surrogates has no UTF-8 form: they print as U+FFFD, as
  // in Node.
  const wellFormed = String.prototype.toWellFormed;

  // What util.inspect gives a primitive, without loading it.
  const primitive = (value) => {
    switch (typeof value) {
      case 'string': return value;
      case 'number': return Object.is(value, -0) ? '-0' : `${value}`;
      case 'bigint': return `${value}n`;
      case 'symbol': return value.toString();
      case 'boolean':
      case 'undefined': return `${value}`;
      default: return value === null ? 'null' : undefined;
    }
  };

  // util.format(...args): specifiers in a leading string, the rest
  // inspected and joined by spaces.
  const format = (args) => {
    let plain = args.length === 0 || typeof args[0] !== 'string' || !args[0].includes('%');
    const parts = [];
    for (let i = 0; plain && i < args.length; i++) {
      const text = primitive(args[i]);
      if (text === undefined) plain = false;
      else parts.push(text);
    }
    if (plain) return parts.join(' ');
    return inspector().formatWithOptions({}, ...args);
  };

  let indent = '';
  const write = (stream, text) => {
    if (indent.length !== 0) {
      if (text.includes('\n')) text = text.replace(/\n/g, `\n${indent}`);
      text = indent + text;
    }
    print(stream, wellFormed.call(`${text}\n`));
  };

  const counts = new Map();
  const timers = new Map();
  const elapsed = (label) => formatTime(Date.now() - timers.get(label));

  // Node's console.table: cells inspected one level deep, in a box-drawn
  // grid.
  const table = (data, properties) => {
    if (properties !== undefined && !Array.isArray(properties)) {
      throw new TypeError('The "properties" argument must be an instance of Array');
    }
    if (data === null || typeof data !== 'object') return console.log(data);
    const { inspect } = inspector();
    const cell = (v) => {
      const depth = v !== null && typeof v === 'object' && !Array.isArray(v) &&
        Object.keys(v).length > 2 ? -1 : 0;
      return inspect(v, { depth, maxArrayLength: 3, breakLength: Infinity });
    };
    const indexes = (length) => Array.from({ length }, (_, i) => cell(i));
    if (data instanceof Map) {
      const keys = [];
      const values = [];
      for (const [k, v] of data) { keys.push(cell(k)); values.push(cell(v)); }
      return write(0, grid(['(iteration index)', 'Key', 'Values'],
        [indexes(keys.length), keys, values]));
    }
    if (data instanceof Set) {
      const values = [];
      for (const v of data) values.push(cell(v));
      return write(0, grid(['(iteration index)', 'Values'], [indexes(values.length), values]));
    }
    const columns = { __proto__: null };
    let hasPrimitives = false;
    const primitives = [];
    const rows = Object.keys(data);
    for (let i = 0; i < rows.length; i++) {
      const item = data[rows[i]];
      const isPrimitive = item === null || (typeof item !== 'function' && typeof item !== 'object');
      if (properties === undefined && isPrimitive) {
        hasPrimitives = true;
        primitives[i] = cell(item);
      } else {
        for (const key of properties || Object.keys(item)) {
          columns[key] ??= [];
          columns[key][i] = (isPrimitive && properties) || !Object.prototype.hasOwnProperty.call(item, key)
            ? '' : cell(item[key]);
        }
      }
    }
    const head = Object.keys(columns);
    const body = Object.values(columns);
    if (hasPrimitives) { head.push('Values'); body.push(primitives); }
    head.unshift('(index)');
    body.unshift(rows);
    return write(0, grid(head, body));
  };

  const console = {
    log: (...args) => write(0, format(args)),
    info: (...args) => write(0, format(args)),
    debug: (...args) => write(0, format(args)),
    dirxml: (...args) => write(0, format(args)),
    warn: (...args) => write(1, format(args)),
    error: (...args) => write(1, format(args)),
    trace: (...args) => {
      const frames = (new Error().stack || '').split('\n').slice(1).filter(Boolean);
      write(1, [`Trace${args.length ? `: ${format(args)}` : ''}`, ...frames].join('\n'));
    },
    dir: (value, options) => {
      write(0, inspector().inspect(value, { customInspect: false, ...options }));
    },
    table,
    group: (...args) => {
      if (args.length > 0) write(0, format(args));
      indent += '  ';
    },
    groupCollapsed: (...args) => console.group(...args),
    groupEnd: () => { indent = indent.slice(0, Math.max(0, indent.length - 2)); },
    assert: (value, ...args) => {
      if (!value) {
        args[0] = `Assertion failed${args.length === 0 ? '' : `: ${args[0]}`}`;
        write(1, format(args));
      }
    },
    count: (label = 'default') => {
      label = `${label}`;
      const count = (counts.get(label) || 0) + 1;
      counts.set(label, count);
      write(0, `${label}: ${count}`);
    },
    countReset: (label = 'default') => {
      label = `${label}`;
      if (!counts.has(label)) write(1, `Count for '${label}' does not exist`);
      else counts.delete(label);
    },
    time: (label = 'default') => {
      label = `${label}`;
      if (timers.has(label)) write(1, `Warning: Label '${label}' already exists for console.time()`);
      else timers.set(label, Date.now());
    },
    timeEnd: (label = 'default') => {
      label = `${label}`;
      if (!timers.has(label)) return write(1, `Warning: No such label '${label}' for console.timeEnd()`);
      write(0, `${label}: ${elapsed(label)}`);
      timers.delete(label);
    },
    timeLog: (label = 'default', ...args) => {
      label = `${label}`;
      if (!timers.has(label)) return write(1, `Warning: No such label '${label}' for console.timeLog()`);
      write(0, [`${label}: ${elapsed(label)}`, ...(args.length ? [format(args)] : [])].join(' '));
    },
  };
  globalThis.console = console;
  return inspector;

  // A Node console.table grid: a header row and one row per longest
  // column, each cell padded on the right.
  function grid(head, columns) {
    const widths = head.map(width);
    const height = Math.max(...columns.map((column) => column.length));
    const rows = [];
    for (let c = 0; c < head.length; c++) {
      for (let r = 0; r < height; r++) {
        rows[r] ??= [];
        const value = rows[r][c] = Object.prototype.hasOwnProperty.call(columns[c], r)
          ? columns[c][r] : '';
        widths[c] = Math.max(widths[c] || 0, width(value));
      }
    }
    const line = (row) => '│ ' + row.map((text, c) => text + ' '.repeat(widths[c] - width(text)))
      .join(' │ ') + ' │';
    const rule = (left, middle, right) =>
      left + widths.map((w) => '─'.repeat(w + 2)).join(middle) + right;
    return [
      rule('┌', '┬', '┐'), line(head), rule('├', '┼', '┤'),
      ...rows.map(line), rule('└', '┴', '┘'),
    ].join('\n');
  }

  // Columns a string takes in a terminal: East Asian wide characters two,
  // combining marks none.
  function width(text) {
    let columns = 0;
    for (const ch of `${text}`) {
      const code = ch.codePointAt(0);
      if ((code >= 0x300 && code <= 0x36f) || (code >= 0x200b && code <= 0x200f)) continue;
      const wide = (code >= 0x1100 && code <= 0x115f) || (code >= 0x2e80 && code <= 0xa4cf) ||
        (code >= 0xac00 && code <= 0xd7a3) || (code >= 0xf900 && code <= 0xfaff) ||
        (code >= 0xfe30 && code <= 0xfe4f) || (code >= 0xff00 && code <= 0xff60) ||
        (code >= 0xffe0 && code <= 0xffe6) || (code >= 0x1f300 && code <= 0x1f64f) ||
        (code >= 0x1f900 && code <= 0x1f9ff) || (code >= 0x20000 && code <= 0x3fffd);
      columns += wide ? 2 : 1;
    }
    return columns;
  }

  // Node's console.time figure: ms below a second, then seconds, then
  // m:ss.mmm and h:mm:ss.mmm.
  function formatTime(ms) {
    let hours = 0;
    let minutes = 0;
    let seconds = 0;
    if (ms >= 1000) {
      if (ms >= 60000) {
        if (ms >= 3600000) { hours = Math.floor(ms / 3600000); ms %= 3600000; }
        minutes = Math.floor(ms / 60000);
        ms %= 60000;
      }
      seconds = ms / 1000;
    }
    const pad = (n) => `${n}`.padStart(2, '0');
    if (hours !== 0 || minutes !== 0) {
      const [whole, fraction] = seconds.toFixed(3).split('.');
      const lead = hours !== 0 ? `${hours}:${pad(minutes)}` : minutes;
      return `${lead}:${pad(whole)}.${fraction} (${hours !== 0 ? 'h:m' : ''}m:ss.mmm)`;
    }
    if (seconds !== 0) return `${seconds.toFixed(3)}s`;
    return `${Number(ms.toFixed(3))}ms`;
  }
}
