// Values between JavaScript and the addon, as the tagged JSON
// src/values.rs describes: decode() makes JavaScript's own types (BigInt
// past 2^53, Buffer, Map for non-string keys, Set, Date), encode() tags a
// host value and names the path of what cannot cross. A whole number
// crosses as an int, any other as a float; Float makes a whole one a float.
"use strict";

/** A guest value with no JavaScript equivalent: its repr, as a string. */
class Repr extends String {}
/** A guest container that held itself, as a marker. */
class Cycle {
  constructor(text) {
    this.text = text;
  }
}
/** A guest tuple: an array that remembers it was one. */
class Tuple extends Array {}
/**
 * A number the guest is to see as a float even when it is whole: a plain
 * whole number crosses as an int (Python's `2`), `new Float(2)` as Python's
 * `2.0`. JavaScript guests see a number either way.
 */
class Float extends Number {}

function floatTag(value) {
  if (Number.isNaN(value)) return { float: "nan" };
  if (!Number.isFinite(value)) return { float: value > 0 ? "inf" : "-inf" };
  return { float: value };
}

function decode(json) {
  if (json === null || typeof json === "boolean" || typeof json === "string") return json;
  if (Array.isArray(json)) return json.map(decode);
  const [tag] = Object.keys(json);
  const body = json[tag];
  switch (tag) {
    case "int": {
      const big = BigInt(body);
      return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(big)
        : big;
    }
    case "float":
      return body === "nan" ? NaN : body === "inf" ? Infinity : body === "-inf" ? -Infinity : body;
    case "bytes":
      return Buffer.from(body, "hex");
    case "tuple":
      return Tuple.from(body.map(decode));
    case "dict": {
      const pairs = body.map(([k, v]) => [decode(k), decode(v)]);
      if (pairs.every(([k]) => typeof k === "string")) {
        const object = {};
        for (const [k, v] of pairs) {
          Object.defineProperty(object, k, { value: v, enumerable: true, writable: true, configurable: true });
        }
        return object;
      }
      return new Map(pairs);
    }
    case "set":
    case "frozenset":
      return new Set(body.map(decode));
    case "date":
      return new Date(`${body}T00:00:00Z`);
    case "datetime": {
      const offset = json.offset;
      const date = new Date(`${body.slice(0, 23)}Z`);
      return offset === null || offset === undefined ? date : new Date(date.getTime() - offset * 1000);
    }
    case "time":
      return new Repr(body);
    case "timedelta": {
      const [days, seconds, micros] = body;
      return (days * 86400 + seconds) * 1000 + micros / 1000;
    }
    case "undefined":
      return undefined;
    case "exception": {
      const [type, message] = body;
      const error = new Error(message);
      error.name = type;
      return error;
    }
    case "repr":
      return new Repr(body);
    case "cycle":
      return new Cycle(body);
    default:
      return new Repr(JSON.stringify(json));
  }
}

/** Containers nested deeper than this cannot cross (the wire's own bound). */
const MAX_DEPTH = 64;

function encode(value, path, seen) {
  if (value === null) return null;
  switch (typeof value) {
    case "undefined":
      return { undefined: true };
    case "boolean":
    case "string":
      return value;
    case "number":
      // -0 has no int to be.
      if (Number.isSafeInteger(value) && !Object.is(value, -0)) return { int: String(value) };
      return floatTag(value);
    case "bigint":
      return { int: value.toString() };
    case "function":
    case "symbol":
      throw new TypeError(`${path} is a ${typeof value}, which cannot cross to the guest`);
  }
  if (value instanceof Float) return floatTag(value.valueOf());
  if (seen.has(value)) throw new TypeError(`${path} holds itself (a cycle), which cannot cross to the guest`);
  if (seen.size >= MAX_DEPTH) throw new TypeError(`${path} is nested more than ${MAX_DEPTH} deep`);
  seen.add(value);
  try {
    if (value instanceof Date) return { datetime: value.toISOString().slice(0, 23), offset: 0 };
    if (Buffer.isBuffer(value) || value instanceof Uint8Array) {
      return { bytes: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("hex") };
    }
    if (value instanceof Tuple) return { tuple: value.map((v, i) => encode(v, `${path}[${i}]`, seen)) };
    if (Array.isArray(value)) return value.map((v, i) => encode(v, `${path}[${i}]`, seen));
    if (value instanceof Map) {
      return {
        dict: [...value].map(([k, v]) => [encode(k, `${path} key`, seen), encode(v, `${path}[${String(k)}]`, seen)]),
      };
    }
    if (value instanceof Set) return { set: [...value].map((v, i) => encode(v, `${path} item ${i}`, seen)) };
    if (value instanceof Repr || value instanceof Cycle) {
      throw new TypeError(`${path} is a value only the guest can make (a repr or a cycle marker)`);
    }
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      throw new TypeError(`${path} is a ${value.constructor?.name ?? "class instance"}, which cannot cross to the guest`);
    }
    return {
      dict: Object.entries(value).map(([k, v]) => [k, encode(v, `${path}.${k}`, seen)]),
    };
  } finally {
    seen.delete(value);
  }
}

module.exports = { decode, encode, Repr, Cycle, Tuple, Float };
