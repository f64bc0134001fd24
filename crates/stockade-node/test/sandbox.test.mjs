// The package end to end with real workers: both languages, values both
// ways, output, every error class a run raises, limits, execute(), close,
// and the ES module and CommonJS faces.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import * as stockade from "../index.mjs";
import { ENGINES } from "./engines.mjs";

const { Sandbox, run } = stockade;

test("globals persist across runs in every engine", async () => {
  for (const [language, options] of ENGINES) {
    const sandbox = new Sandbox(language, options);
    try {
      await sandbox.run(language === "python" ? "x = 40" : "var x = 40");
      assert.equal(await sandbox.run("x + 2"), 42, `${language} ${options.engine ?? ""}`);
    } finally {
      sandbox.close();
    }
  }
});

test("inputs that cannot cross are refused naming their path", async () => {
  const sandbox = new Sandbox("javascript");
  try {
    const cyclic = { a: {} };
    cyclic.a.self = cyclic;
    await assert.rejects(sandbox.run("1", { inputs: { cyclic } }), (err) =>
      err instanceof stockade.ConversionError && err.message.includes("inputs.cyclic.a.self"));
    await assert.rejects(sandbox.run("1", { inputs: { f: () => 1 } }), stockade.ConversionError);
    assert.equal(await sandbox.run("1 + 1"), 2, "the sandbox still works");
  } finally {
    sandbox.close();
  }
});

test("output reaches the print callback in order", async () => {
  const seen = [];
  await run("python", "import sys\nprint('a')\nprint('b', file=sys.stderr)\nprint('c')", {
    engine: "cpython",
    print: (stream, text) => seen.push([stream, text]),
  });
  assert.deepEqual(seen, [["stdout", "a\n"], ["stderr", "b\n"], ["stdout", "c\n"]]);
});

test("a guest exception is a GuestError and the sandbox lives", async () => {
  const sandbox = new Sandbox("python", { engine: "cpython" });
  try {
    await assert.rejects(sandbox.run("raise ValueError('no')"), (err) =>
      err instanceof stockade.GuestError && err.type === "ValueError" && err.traceback.includes("ValueError"));
    await assert.rejects(sandbox.run("def f(:"), stockade.GuestSyntaxError);
    assert.equal(await sandbox.run("1"), 1);
  } finally {
    sandbox.close();
  }
});

test("execute never throws for the run's own failure", async () => {
  const sandbox = new Sandbox("javascript");
  try {
    const ok = await sandbox.execute("console.log('hi'); 6 * 7");
    assert.deepEqual([ok.status, ok.stdout, ok.result], ["ok", "hi\n", 42]);
    const failed = await sandbox.execute("throw new TypeError('bad')");
    assert.deepEqual([failed.status, failed.errorType], ["error", "TypeError"]);
    const syntax = await sandbox.execute("let = ;");
    assert.deepEqual([syntax.status, syntax.errorType], ["error", "SyntaxError"]);
  } finally {
    sandbox.close();
  }
});

test("a closed sandbox refuses runs, and options are checked up front", async () => {
  const sandbox = new Sandbox("python", { engine: "monty" });
  await sandbox.run("1");
  sandbox.close();
  await assert.rejects(sandbox.run("1"), stockade.SandboxClosed);
  assert.throws(() => new Sandbox("ruby"), stockade.ConfigurationError);
  await assert.rejects(new Sandbox("python", { colour: 1 }).run("1"), (err) =>
    err instanceof stockade.ConfigurationError && err.message.includes("colour"));
  await assert.rejects(new Sandbox("python", { limits: { maxMemory: "lots" } }).run("1"), (err) =>
    err instanceof stockade.ConfigurationError && err.message.includes("max_memory"));
});

test("await using closes the sandbox", async () => {
  let kept;
  {
    const sandbox = new Sandbox("javascript");
    kept = sandbox;
    await sandbox.run("1");
    await sandbox[Symbol.asyncDispose ?? Symbol.for("nodejs.asyncDispose")]();
  }
  await assert.rejects(kept.run("1"), stockade.SandboxClosed);
});

test("require() gives the same package", () => {
  const require = createRequire(import.meta.url);
  const cjs = require("../index.js");
  assert.equal(cjs.Sandbox, stockade.Sandbox);
  assert.equal(typeof cjs.run, "function");
});

test("every error kind of the host library is a class of its name", () => {
  // One name a kind (the host library's ErrorKind::class_name): the addon
  // sends it, execute() reports it as errorType, and MCP and the Python
  // package use it too.
  const require = createRequire(import.meta.url);
  const names = require("../bin/stockade.node").errorClasses();
  const { fromNative } = require("../errors.js");
  assert.ok(names.includes("GuestError"), names.join(", "));
  for (const name of names) {
    const Class = stockade[name];
    assert.equal(typeof Class, "function", name);
    assert.ok(Class.prototype instanceof stockade.StockadeError, name);
    const built = fromNative({ kind: name, message: "what happened", sessionLost: false });
    assert.equal(built.constructor, Class, name);
    assert.equal(built.name, name);
  }
  assert.equal(fromNative({ kind: "NoSuchKind", message: "x" }).constructor, stockade.StockadeError);
});

test("each error carries the host library's advice, but where it names JavaScript's own types", async () => {
  const require = createRequire(import.meta.url);
  const advice = require("../bin/stockade.node").errorAdvice();
  assert.deepEqual(Object.keys(advice).sort(), require("../bin/stockade.node").errorClasses().sort());
  const sandbox = new Sandbox("javascript", { maxResultBytes: 1024 });
  try {
    await assert.rejects(sandbox.run("'x'.repeat(4096)"), (err) =>
      err instanceof stockade.ResultTooLarge && err.message.endsWith(advice.ResultTooLarge));
    await assert.rejects(sandbox.run("1 +"), (err) =>
      err instanceof stockade.GuestSyntaxError && err.message.endsWith(advice.GuestSyntaxError));
  } finally {
    sandbox.close();
  }
  await assert.rejects(new Sandbox("python", { maxThreads: 0 }).run("1"), (err) =>
    err instanceof stockade.ConfigurationError && err.message.includes("max_threads must be between 1 and")
      && err.message.endsWith(advice.ConfigurationError));
});

test("the package's version is the workspace's, as the CLI gives it", async () => {
  const { readFileSync } = await import("node:fs");
  const { spawnSync } = await import("node:child_process");
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  assert.equal(stockade.version, manifest.version);
  const cli = new URL("../../../target/release/stockade", import.meta.url).pathname;
  const shown = spawnSync(cli, ["--version"], { encoding: "utf8" });
  assert.equal(shown.status, 0, shown.stderr);
  assert.equal(shown.stdout.trim(), `stockade ${stockade.version}`);
});

test("host functions run on Node's thread, sync or async, in both languages", async () => {
  for (const [language, options, code] of [
    ["python", { engine: "cpython" }, "total = add(40, 2)\nlookup('a') + total"],
    ["python", { engine: "monty" }, "total = add(40, 2)\nlookup('a') + total"],
    ["javascript", {}, "const total = add(40, 2); lookup('a') + total"],
  ]) {
    const sandbox = new Sandbox(language, options);
    try {
      sandbox.bindFunction("add", (a, b) => a + b);
      let ticks = 0;
      const timer = setInterval(() => ticks++, 1);
      const lookup = async (key) => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        return { a: 100 }[key];
      };
      const value = await sandbox.run(code, { functions: { lookup } });
      clearInterval(timer);
      assert.equal(value, 142, `${language} ${options.engine ?? ""}`);
      assert.ok(ticks > 0, "the event loop ran while the guest waited");
      // A per-run function is gone after its run.
      await assert.rejects(sandbox.run("lookup('a')"), stockade.GuestError);
      // A run's own function stands in for a bound one of that name, for the run.
      assert.equal(await sandbox.run("add(1, 1)", { functions: { add: (a, b) => a * b * 10 } }), 10);
      assert.equal(await sandbox.run("add(1, 1)"), 2);
    } finally {
      sandbox.close();
    }
  }
});

test("a host function's error reaches the guest by its class, redacted unless asked", async () => {
  const failing = () => {
    throw new TypeError("secret detail");
  };
  const redacted = new Sandbox("python", { engine: "monty" });
  redacted.bindFunction("f", failing);
  assert.deepEqual(
    await redacted.run("try:\n    f()\nexcept TypeError as e:\n    r = ['TypeError', str(e)]\nr"),
    ["TypeError", "host function failed"],
  );
  redacted.close();
  const shown = new Sandbox("python", { engine: "monty", redactHostErrors: false });
  shown.bindFunction("f", failing);
  assert.equal(await shown.run("try:\n    f()\nexcept TypeError as e:\n    r = str(e)\nr"), "secret detail");
  shown.close();
});

test("a process with live, unclosed sandboxes exits when its work is done", async () => {
  const { spawnSync } = await import("node:child_process");
  const script = `
    const { Sandbox } = require(${JSON.stringify(new URL("../index.js", import.meta.url).pathname)});
    const s = new Sandbox("python", { engine: "monty" });
    s.bindFunction("f", async () => 41);
    s.run("f() + 1").then((v) => console.log(v));
  `;
  const child = spawnSync(process.execPath, ["-e", script], { timeout: 20000, encoding: "utf8" });
  assert.equal(child.status, 0, child.stderr);
  assert.equal(child.stdout, "42\n");
});

test("examples/agent_tools.mjs runs its tools in both languages", async () => {
  const { spawnSync } = await import("node:child_process");
  const example = new URL("../../../examples/agent_tools.mjs", import.meta.url).pathname;
  const child = spawnSync(process.execPath, [example], { timeout: 60000, encoding: "utf8" });
  assert.equal(child.status, 0, child.stderr);
  for (const language of ["python", "javascript"]) {
    assert.ok(
      child.stdout.includes(`${language} result: {"can_order":["apple","plum"],"total":8.75}`),
      child.stdout,
    );
    assert.ok(child.stdout.includes(`[${language}] pear: 0 in stock`), child.stdout);
  }
});

test("output arrives while the run goes on, in order with host calls", async () => {
  for (const [language, options, code] of [
    ["javascript", {}, "console.log('before'); check()"],
    ["python", { engine: "monty" }, "print('before')\ncheck()"],
  ]) {
    const seen = [];
    const sandbox = new Sandbox(language, options);
    try {
      sandbox.bindFunction("check", () => seen.join(""));
      const value = await sandbox.run(code, { print: (stream, text) => seen.push(text) });
      assert.equal(value, "before\n", `${language}: the host call saw the output printed before it`);
    } finally {
      sandbox.close();
    }
  }
});

test("a pool hands out fresh workers, each used once", async () => {
  const pool = new stockade.Pool("python", { engine: "monty", size: 2 });
  try {
    const first = await pool.checkout();
    await first.run("x = 1");
    first.bindFunction("double", (n) => n * 2);
    assert.equal(await first.run("double(x)"), 2);
    first.close();
    const second = await pool.checkout();
    await assert.rejects(second.run("x"), (err) => err instanceof stockade.GuestError && err.type === "NameError");
    second.close();
    assert.equal(await pool.run("6 * 7"), 42);
  } finally {
    pool.close();
  }
  await assert.rejects(pool.checkout(), stockade.SandboxClosed);
  const bad = new stockade.Pool("python", { colour: 1 });
  await assert.rejects(bad.checkout(), stockade.ConfigurationError);
});

test("packages are installed on the host and imported by a CPython guest", async () => {
  const sandbox = new Sandbox("python", { engine: "cpython", sandbox: "require", packages: ["tabulate==0.10.0"] });
  try {
    assert.equal(await sandbox.run("import tabulate\ntabulate.__version__"), "0.10.0");
  } finally {
    sandbox.close();
  }
});

test("rich outputs reach onOutput in order and execute() keeps them, in both languages", async () => {
  const cases = [
    ["python", { engine: "cpython" }, "print('a')\ndisplay('<svg></svg>')\ndisplay(b'\\x89PNG\\r\\n\\x1a\\n')\n2"],
    ["python", { engine: "monty" }, "print('a')\ndisplay('<svg></svg>')\ndisplay(b'\\x89PNG\\r\\n\\x1a\\n')\n2"],
    ["javascript", {}, "console.log('a'); display('<svg></svg>'); display(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])); 2"],
  ];
  for (const [language, options, code] of cases) {
    const sandbox = new Sandbox(language, options);
    try {
      const heard = [];
      const value = await sandbox.run(code, {
        print: (stream, text) => heard.push(["print", text]),
        onOutput: (output) => heard.push(["output", output.mimeType, output.data]),
      });
      assert.equal(value, 2);
      assert.deepEqual(heard, [
        ["print", "a\n"],
        ["output", "image/svg+xml", Buffer.from("<svg></svg>")],
        ["output", "image/png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
      ], language);
      const result = await sandbox.execute(code);
      assert.equal(result.status, "ok");
      assert.deepEqual(result.outputs.map((o) => [o.mimeType, o.text, o.extension]),
        [["image/svg+xml", "'<svg></svg>'", "svg"], ["image/png", "<image/png, 8 bytes>", "png"]], language);
      // Without onOutput, each output is noted where stderr goes.
      const notes = [];
      await sandbox.run("display('<svg></svg>')", { print: (stream, text) => notes.push([stream, text]) });
      assert.equal(notes.length, 1);
      assert.equal(notes[0][0], "stderr");
      assert.match(notes[0][1], /showed an output \(image\/svg\+xml, 11 bytes\), which this host does not take/);
      await assert.rejects(sandbox.run("1", { onOutput: "out.png" }), stockade.ConfigurationError);
    } finally {
      sandbox.close();
    }
  }
});

test("installDependencies and a script block add packages before the first run", async () => {
  const sandbox = new Sandbox("python", { engine: "cpython", sandbox: "require" });
  try {
    await sandbox.installDependencies(["tabulate==0.10.0"]);
    assert.equal(await sandbox.run("import tabulate\ntabulate.__version__"), "0.10.0");
    await assert.rejects(sandbox.installDependencies(["six==1.17.0"]), (err) =>
      err instanceof stockade.ConfigurationError && err.message.includes("before a session's first run"));
    await assert.rejects(sandbox.installDependencies("six"), stockade.ConfigurationError);
  } finally {
    sandbox.close();
  }
  const allowed = new Sandbox("python", { engine: "cpython", scriptPackages: ["tabulate"] });
  try {
    const block = "# /// script\n# dependencies = ['tabulate==0.10.0']\n# ///\nimport tabulate\n1";
    assert.equal(await allowed.run(block), 1);
  } finally {
    allowed.close();
  }
});
