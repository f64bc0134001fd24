// Types of the stockade package (index.js); checked by `npm run typecheck`.

/** The stockade version (the workspace's), as `stockade --version` gives it. */
export declare const version: string;

/** A guest value with no JavaScript equivalent: its repr. */
export declare class Repr extends String {}
/** A guest container that held itself, as a marker. */
export declare class Cycle {
  readonly text: string;
}
/** A guest tuple: an array that remembers it was one. */
export declare class Tuple<T = GuestValue> extends Array<T> {}
/** A number a Python guest sees as a float even when it is whole: `new Float(2)` is `2.0`. */
export declare class Float extends Number {}

/** What crosses between the host and the guest. */
export type GuestValue =
  | null
  | undefined
  | boolean
  | number
  | bigint
  | string
  | Buffer
  | Uint8Array
  | Date
  | GuestValue[]
  | Map<GuestValue, GuestValue>
  | Set<GuestValue>
  | { [name: string]: GuestValue }
  | Repr
  | Cycle
  | Float
  | Error;

// The options below are the host library's (docs/options.md lists each
// with its range and scope), in camel case; a test holds their names,
// types and defaults to the library's table.

export interface Limits {
  /** Seconds of guest execution, cumulative across runs (default none). */
  maxDuration?: number;
  /** Bytes of guest heap (default 1 GiB); 0 removes the limit. */
  maxMemory?: number;
  /** Deepest guest call stack of a Python guest (default 1,000). */
  maxRecursionDepth?: number;
  /** Bytes of print output one run may send (default 8 MiB). */
  maxOutputBytes?: number;
  /**
   * Bytes the private scratch directory (/tmp, also TMPDIR, HOME and the
   * working directory) may hold (default 256 MiB): a tmpfs in a CPython
   * worker, the host's memory for monty and JavaScript guests; a write past
   * it fails with ENOSPC in the guest. 0: no scratch directory.
   */
  maxScratchBytes?: number;
  /** JavaScript guests: bytes of engine heap (default maxMemory). */
  maxHeapSize?: number;
  /** JavaScript guests: live ArrayBuffer bytes (default a quarter of maxMemory). */
  maxBufferBytes?: number;
  /** JavaScript guests: native stack bytes, 64 KiB to 128 MiB (default 8 MiB). */
  maxStackBytes?: number;
}

export interface SandboxOptions {
  limits?: Limits;
  /** The worker binary (default: the package's). */
  worker?: string;
  /** Python's engine: "cpython" or "monty"; JavaScript's: "quickjs". */
  engine?: "monty" | "cpython" | "quickjs";
  /** CPython: the interpreter, 3.9 or later (default: python3 on PATH). */
  python?: string;
  /** CPython: package directories guests may import from, read-only. */
  sitePackages?: string[];
  /**
   * CPython guests: packages they may import, such as "pandas==3.1.1",
   * installed on the host by uv (wheels only, cached for later sandboxes).
   */
  packages?: string[];
  /** CPython: modules imported before the first run; a pool's template imports them once for all its workers. */
  preload?: string[];
  /** CPython: packages a `# /// script` block may name ("*": any); without, such a block is a comment. */
  scriptPackages?: string[];
  /** "require" (every layer, or refuse), "auto" (default auto), "off". */
  sandbox?: "off" | "auto" | "require";
  /** Seconds a turn may take before the worker is killed (default 60 s). */
  requestTimeout?: number;
  /** Seconds past the maxDuration budget before the host kills a worker that did not stop (default 1 s). */
  durationGrace?: number;
  /** Seconds the worker may leave a request unread before it is killed (default 10 s). */
  writeStallTimeout?: number;
  /** Threads the worker may run before it is killed (default 64). */
  maxThreads?: number;
  /** Host-function calls and lookups of undefined names one run may make (default 10,000). */
  maxHostCalls?: number;
  /** Async host calls in flight at once (default 64). */
  maxInflightHostCalls?: number;
  /** Seconds a host function may take before the guest gets a TimeoutError (default 600 s). */
  maxHostWait?: number;
  /** Host-function errors reach the guest as their class and "host function failed" (default true). */
  redactHostErrors?: boolean;
  /** Host memory one value from the guest may take, at most 1 GiB (default 64 MiB). */
  maxResultBytes?: number;
  /** Keep a spare worker started for the next sandbox with the same options (default true). */
  spare?: boolean;
  /** Keep what a dump needs from the start (default false; dumpKeys sets it). */
  dumpable?: boolean;
  /** Host memory the sandbox's mounted files may take, at most 200 MiB (default 100 MiB). */
  maxFileMemory?: number;
  /** The guest's environment variables (none by default). */
  environ?: Record<string, string>;
  /** The guest's clock: "real", or seconds since the Unix epoch to freeze it at (default real). */
  clock?: "real" | number;
  /** JavaScript: eval and the function constructors throw EvalError (default false). */
  strictEval?: boolean;
  /** JavaScript: timers on virtual time, TextEncoder, atob, structuredClone and more (default false). */
  webPolyfills?: boolean;
  /** JavaScript: a result comes back as the text util.inspect gives it (default false). */
  inspectResults?: boolean;
  /** JavaScript: the seed of Math.random (default: unpredictable). */
  randomSeed?: number;
  /** JavaScript: modules the guest may import, by name to source. */
  modules?: Record<string, string>;
  /** A server of sessions (`stockade serve`) to run on: ws:// or wss://. */
  remote?: string;
  /** The bearer token for remote. */
  token?: string;
  /** Certificates (PEM) trusted for a wss:// remote besides the system's roots. */
  remoteCa?: string;
  /** Keys dumps are sealed with (32 bytes or more each; the first seals, all open). */
  dumpKeys?: Uint8Array[];
  /** What a dump is bound to (a tenant or conversation id). */
  dumpContext?: string | Uint8Array;
  [option: string]: unknown;
}

export type PrintCallback = (stream: "stdout" | "stderr", text: string) => void;

/** A host function: it may return a value or a promise of one. */
export type HostFunction = (...args: any[]) => GuestValue | Promise<GuestValue>;

/** A rich output the guest showed: a matplotlib figure, `display(df)`. */
export interface Output {
  /** "image/png", "text/html", "image/svg+xml", "text/plain", ... */
  mimeType: string;
  data: Buffer;
  /** A plain-text form of it. */
  text: string;
  /** The file-name extension its type is written with ("png", "svg"; "bin" for a type without one). */
  extension: string;
}

export type OutputCallback = (output: Output) => void;

export interface RunOptions {
  inputs?: Record<string, GuestValue>;
  print?: PrintCallback;
  /** Where rich outputs go; without it, each is noted on stderr. */
  onOutput?: OutputCallback;
  /** Host functions for this run only. */
  functions?: Record<string, HostFunction>;
}

export interface BindOptions {
  /** The guest awaits the function instead of waiting at the call; several calls may be in flight. */
  async?: boolean;
}

/** The OS sandbox layers in force for a worker. */
export interface SandboxReport {
  mode: "off" | "auto" | "require";
  applied: string[];
  /** Layers not in force, each with the reason. */
  missing: Record<string, string>;
  notes: string[];
}

/** An error a cursor's call raises in the guest: an Error (by its name), or [type, message]. */
export type ErrorSpec = Error | [string, string];

declare class Cursor {
  /** The cursor's number, unique in its sandbox. */
  readonly cursor: number;
  /** The sandbox suspended here, as sealed bytes. */
  dump(): Promise<Buffer>;
}
/** The guest called host function `name` and waits for its outcome. */
export declare class FunctionCall extends Cursor {
  readonly name: string;
  readonly args: GuestValue[];
  readonly kwargs: { [name: string]: GuestValue };
  readonly callId: number;
  resume(value: GuestValue): Promise<Progress>;
  resumeError(error: Error): Promise<Progress>;
  resumeError(type: string, message: string): Promise<Progress>;
  resumePending(): Promise<Progress>;
}
/** The guest read `name`, which nothing in it defines (Python guests). */
export declare class NameLookup extends Cursor {
  readonly name: string;
  resume(value: GuestValue): Promise<Progress>;
  resumeFunction(): Promise<Progress>;
  resumeNotFound(): Promise<Progress>;
}
/** Every guest task waits on deferred calls. */
export declare class PendingFutures extends Cursor {
  readonly callIds: number[];
  resolve(
    results?: Map<number, GuestValue> | Record<number, GuestValue>,
    options?: { errors?: Map<number, ErrorSpec> | Record<number, ErrorSpec> },
  ): Promise<Progress>;
}
/** The stepped run ended with `value`. */
export declare class Complete {
  readonly value: GuestValue;
}
export type Progress = FunctionCall | NameLookup | PendingFutures | Complete;

export interface ExecutionResult {
  status: "ok" | "error";
  stdout: string;
  stderr: string;
  result: GuestValue;
  error: string | null;
  /** The guest's exception class ("TypeError", "SyntaxError"), or the
   *  StockadeError subclass's name ("TimeLimitError", "MemoryLimitError"). */
  errorType: string | null;
  truncated: boolean;
  /** The rich outputs the guest showed, in order. */
  outputs: Output[];
}

export declare class Sandbox {
  constructor(language?: "python" | "javascript", options?: SandboxOptions);
  readonly language: "python" | "javascript";
  bindFunction(name: string, fn: HostFunction, options?: BindOptions): void;
  run(code: string, options?: RunOptions): Promise<GuestValue>;
  execute(code: string, options?: RunOptions & { maxStreamBytes?: number; maxResultBytes?: number }): Promise<ExecutionResult>;
  /** A stepped run: each host call, lookup and await is a cursor the host answers. */
  start(
    code: string,
    options?: {
      inputs?: Record<string, GuestValue>;
      functions?: string[];
      print?: PrintCallback;
      onOutput?: OutputCallback;
    },
  ): Promise<Progress>;
  /** The cursor a stepped run waits at, or null. */
  pending(): Promise<Progress | null>;
  /** CPython: packages the guest may import, installed before the first run. */
  installDependencies(requirements: string[]): Promise<void>;
  /** The sandbox as sealed bytes (needs `dumpKeys` and `dumpContext`). */
  dump(): Promise<Buffer>;
  /** A sandbox rebuilt from a dump, in a fresh worker. */
  static restore(
    data: Uint8Array,
    language?: "python" | "javascript",
    options?: SandboxOptions,
  ): Promise<Sandbox>;
  /** Restores a monty dump into this fresh sandbox. */
  restoreInto(data: Uint8Array): Promise<void>;
  workerPid(): Promise<number>;
  sandboxReport(): Promise<SandboxReport>;
  /** Waits for the worker, so that a failed start is seen here. */
  ready(): Promise<this>;
  close(): void;
  [Symbol.asyncDispose](): Promise<void>;
}

export declare class Pool {
  constructor(language?: "python" | "javascript", options?: SandboxOptions & { size?: number });
  /** A sandbox on a fresh worker from the pool. */
  checkout(): Promise<Sandbox>;
  /** One run on a fresh worker, closed after it. */
  run(code: string, options?: RunOptions): Promise<GuestValue>;
  close(): void;
  [Symbol.asyncDispose](): Promise<void>;
}

export declare function run(
  language: "python" | "javascript",
  code: string,
  options?: SandboxOptions & RunOptions,
): Promise<GuestValue>;

export declare class StockadeError extends Error {
  readonly sessionLost?: boolean;
}
export declare class GuestError extends StockadeError {
  /** The guest's exception class. */
  readonly type: string;
  readonly guestMessage: string;
  readonly traceback: string;
}
export declare class GuestSyntaxError extends GuestError {}
export declare class TimeLimitError extends StockadeError {
  readonly limit: "max_duration" | "request_timeout";
  readonly seconds: number;
}
export declare class MemoryLimitError extends StockadeError {
  readonly detail: string;
  readonly workerDied: boolean;
}
export declare class WorkerCrashed extends StockadeError {
  readonly exitCode: number | null;
  readonly signal: number | null;
  readonly timedOut: boolean;
  readonly detail: string | null;
}
export declare class Disconnected extends WorkerCrashed {}
export declare class ServerShutdown extends Disconnected {}
export declare class ConversionError extends StockadeError {}
export declare class ConfigurationError extends StockadeError {}
export declare class ResultTooLarge extends StockadeError {
  readonly limit: number;
}
export declare class ProtocolError extends StockadeError {}
export declare class Unauthorized extends StockadeError {}
export declare class OverCapacity extends StockadeError {}
export declare class SandboxClosed extends StockadeError {}
export declare class CursorError extends StockadeError {}
export declare class DumpRejected extends StockadeError {}
export declare class DumpVersionMismatch extends StockadeError {}
export declare class ReplayDiverged extends StockadeError {}
export declare class Interrupted extends WorkerCrashed {}
/** The sandbox was made by another process, of which this one is a fork; make a new one here. */
export declare class Forked extends StockadeError {}
