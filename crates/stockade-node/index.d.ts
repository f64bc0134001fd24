// Types of the stockade package (index.js); checked by `npm run typecheck`.

/** A guest value with no JavaScript equivalent: its repr. */
export declare class Repr extends String {}
/** A guest container that held itself, as a marker. */
export declare class Cycle {
  readonly text: string;
}
/** A guest tuple: an array that remembers it was one. */
export declare class Tuple<T = GuestValue> extends Array<T> {}

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
  | Error;

export interface Limits {
  /** Seconds of guest execution, cumulative across runs. */
  maxDuration?: number;
  /** Bytes of guest heap (default 1 GiB). */
  maxMemory?: number;
  maxRecursionDepth?: number;
  /** Bytes of print output one run may send (default 8 MiB). */
  maxOutputBytes?: number;
  /** JavaScript guests: bytes of engine heap (default: maxMemory). */
  maxHeapSize?: number;
  maxBufferBytes?: number;
  maxStackBytes?: number;
}

export interface SandboxOptions {
  limits?: Limits;
  /** "require" (every layer, or refuse), "auto" (default), "off". */
  sandbox?: "require" | "auto" | "off";
  /** Python's engine: "cpython" or "monty". */
  engine?: "cpython" | "monty" | "quickjs";
  /** Seconds a turn may take before the worker is killed (default 60). */
  requestTimeout?: number;
  maxHostCalls?: number;
  maxResultBytes?: number;
  redactHostErrors?: boolean;
  /** The guest's environment variables (none by default). */
  environ?: Record<string, string>;
  /** A server of sessions (`stockade serve`) to run on: ws:// or wss://. */
  remote?: string;
  token?: string;
  remoteCa?: string;
  /** The worker binary (default: the package's). */
  worker?: string;
  [option: string]: unknown;
}

export type PrintCallback = (stream: "stdout" | "stderr", text: string) => void;

/** A host function: it may return a value or a promise of one. */
export type HostFunction = (...args: any[]) => GuestValue | Promise<GuestValue>;

export interface RunOptions {
  inputs?: Record<string, GuestValue>;
  print?: PrintCallback;
  /** Host functions for this run only. */
  functions?: Record<string, HostFunction>;
}

export interface ExecutionResult {
  status: "ok" | "error";
  stdout: string;
  stderr: string;
  result: GuestValue;
  error: string | null;
  /** The guest's exception class, or the StockadeError subclass's name. */
  errorType: string | null;
  truncated: boolean;
}

export declare class Sandbox {
  constructor(language?: "python" | "javascript", options?: SandboxOptions);
  readonly language: "python" | "javascript";
  bindFunction(name: string, fn: HostFunction): void;
  run(code: string, options?: RunOptions): Promise<GuestValue>;
  execute(
    code: string,
    options?: { inputs?: Record<string, GuestValue>; functions?: Record<string, HostFunction>; maxStreamBytes?: number },
  ): Promise<ExecutionResult>;
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
