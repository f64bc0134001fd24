// The guest's display(value[, mimeType]), as the CPython engine has it: a
// rich output to the host beside the printed text. A module (build.rs
// compiles it to bytecode) whose default export the worker calls once,
// with the native `show(mimeType, data, text)` (data: a string, sent as
// UTF-8, or a Uint8Array) and the console's inspector.
//
//   display(svgStringFromD3)            // image/svg+xml
//   display(pngBytes)                   // image/png, by its first bytes
//   display('<b>hi</b>', 'text/html')   // as the type named
//   display({ rows: 3 })                // text/plain, as util.inspect shows it
export default function installDisplay(show, inspector) {
  const MAGIC = [
    [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'image/png'],
    [[0xff, 0xd8, 0xff], 'image/jpeg'],
    [[0x47, 0x49, 0x46, 0x38], 'image/gif'],
  ];
  const SVG = /^\s*(<\?xml[\s\S]{0,1024}?\?>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE[^>]*>\s*)?<svg[\s>/]/i;
  const inspect = (value) => {
    try {
      return inspector().inspect(value);
    } catch (_) {
      return Object.prototype.toString.call(value);
    }
  };
  // A typed array, a DataView or an ArrayBuffer as a Uint8Array of its
  // bytes; anything else undefined.
  const bytesOf = (value) => {
    if (value instanceof ArrayBuffer) return new Uint8Array(value);
    if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    return undefined;
  };
  const sniffed = (bytes) => {
    for (const [magic, mimeType] of MAGIC) {
      if (magic.every((byte, i) => bytes[i] === byte)) return mimeType;
    }
    return 'application/octet-stream';
  };

  function display(value, mimeType) {
    if (mimeType !== undefined && typeof mimeType !== 'string') {
      throw new TypeError('display(value, mimeType): mimeType must be a string such as "image/png"');
    }
    const bytes = bytesOf(value);
    if (bytes !== undefined) {
      const type = mimeType ?? sniffed(bytes);
      show(type, bytes, `<${type}, ${bytes.length} bytes>`);
    } else if (typeof value === 'string') {
      show(mimeType ?? (SVG.test(value) ? 'image/svg+xml' : 'text/plain'), value, inspect(value));
    } else {
      const text = inspect(value);
      if (mimeType !== undefined) throw new TypeError(`display(value, "${mimeType}") takes a string or bytes, not ${text}`);
      show('text/plain', text, text);
    }
  }
  Object.defineProperty(globalThis, 'display', { value: display, writable: true, configurable: true });
}
