// Stepped runs and dumps: start() stops at each host call, name lookup and
// await and the host answers through cursors; a sandbox dumps between runs
// or at a cursor and is restored elsewhere, sealed by its keys.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import * as stockade from "../index.mjs";
import { ENGINES, label, code } from "./engines.mjs";

const { Sandbox, FunctionCall, NameLookup, PendingFutures, Complete } = stockade;

/** Answers cursors until the run completes: `fetch(n)` is 2n, `limit` is 10. */
async function answer(progress, log) {
  while (!(progress instanceof Complete)) {
    if (progress instanceof NameLookup) {
      log.push(`lookup ${progress.name}`);
      progress = await (progress.name === "limit" ? progress.resume(10) : progress.resumeNotFound());
    } else if (progress instanceof FunctionCall) {
      log.push(`call ${progress.name}(${progress.args})`);
      progress = await progress.resume(progress.args[0] * 2);
    } else {
      throw new Error(`unexpected ${progress.constructor.name}`);
    }
  }
  return progress.value;
}

test("a stepped run stops at each call and lookup, and the host answers", async () => {
  for (const [language, options] of ENGINES) {
    const sandbox = new Sandbox(language, options);
    try {
      sandbox.bindFunction("double", () => assert.fail("a stepped run never calls it"));
      const source = code(language, "a = fetch(1)\nb = double(2)\na + b + limit",
        "const a = fetch(1); const b = double(2); a + b + limit");
      const inputs = language === "javascript" ? { limit: 10 } : undefined;
      const log = [];
      const first = await sandbox.start(source, { inputs, functions: ["fetch"] });
      assert.ok(first instanceof FunctionCall || first instanceof NameLookup);
      assert.equal(await answer(first, log), 16, label(language, options));
      assert.deepEqual(log.filter((line) => line.startsWith("call")), ["call fetch(1)", "call double(2)"]);
      assert.equal(await sandbox.pending(), null);
      assert.equal(await sandbox.run("a + b"), 6);
    } finally {
      sandbox.close();
    }
  }
});

test("a cursor answers once, errors cross, and runs wait while suspended", async () => {
  for (const [language, options] of ENGINES) {
    const sandbox = new Sandbox(language, options);
    try {
      let printed = "";
      const call = await sandbox.start(code(language, "x = fetch(20)\nprint('after')\nx + 1", "const x = fetch(20); console.log('after'); x + 1"),
        { functions: ["fetch"], print: (_, text) => (printed += text) });
      assert.ok(call instanceof FunctionCall);
      assert.deepEqual([call.name, call.args], ["fetch", [20]]);
      await assert.rejects(sandbox.run("1"), (err) => err instanceof stockade.CursorError && err.message.includes(`cursor ${call.cursor}`));
      assert.throws(() => call.resume(() => 1), stockade.ConversionError);
      const again = await sandbox.pending();
      assert.ok(again instanceof FunctionCall && again.cursor === call.cursor);
      const done = await call.resume(41);
      assert.ok(done instanceof Complete && done.value === 42, label(language, options));
      // The stepped run's output went to its print, the refused run notwithstanding.
      assert.equal(printed, "after\n");
      await assert.rejects(call.resume(0), (err) => err instanceof stockade.CursorError && err.message.includes("already answered"));

      const failing = await sandbox.start(code(language,
        "try:\n    fetch(1)\nexcept ValueError as e:\n    r = 'caught ' + str(e)\nr",
        "let r; try { fetch(1) } catch (e) { r = 'caught ' + e.message } r"), { functions: ["fetch"] });
      const caught = await failing.resumeError(new (class ValueError extends Error {
        name = "ValueError";
      })("bad key"));
      assert.equal(caught.value, "caught bad key", label(language, options));
    } finally {
      sandbox.close();
    }
  }
});

test("deferred calls are resolved at a PendingFutures cursor", async () => {
  for (const [language, options] of ENGINES) {
    const sandbox = new Sandbox(language, options);
    try {
      let progress = await sandbox.start(code(language,
        "import asyncio\nasync def main():\n    return await asyncio.gather(fetch(1), fetch(2))\nawait main()",
        "await Promise.all([fetch(1), fetch(2)])"), { functions: ["fetch"] });
      const deferred = new Map();
      while (progress instanceof FunctionCall) {
        deferred.set(progress.callId, progress.args[0] * 10);
        progress = await progress.resumePending();
      }
      assert.ok(progress instanceof PendingFutures, label(language, options));
      assert.deepEqual([...progress.callIds].sort(), [...deferred.keys()].sort());
      const [first, second] = [...deferred.keys()];
      progress = await progress.resolve({ [first]: deferred.get(first) }, { errors: {} });
      if (progress instanceof PendingFutures) {
        progress = await progress.resolve(new Map([[second, deferred.get(second)]]));
      }
      assert.ok(progress instanceof Complete);
      assert.deepEqual(progress.value, [10, 20], label(language, options));
    } finally {
      sandbox.close();
    }
  }
});

test("a sandbox dumps between runs and at a cursor, and restores elsewhere", async () => {
  const keys = [randomBytes(32)];
  for (const [language, options] of ENGINES) {
    const sealed = { ...options, dumpKeys: keys, dumpContext: "conversation-1" };
    const sandbox = new Sandbox(language, sealed);
    try {
      await sandbox.run(code(language, "total = 40", "var total = 40"));
      const idle = await sandbox.dump();
      assert.ok(Buffer.isBuffer(idle) && idle.length > 0);
      const call = await sandbox.start(code(language, "total + fetch(1)", "total + fetch(1)"), { functions: ["fetch"] });
      const atCursor = await call.dump();
      assert.equal((await call.resume(2)).value, 42);

      const fromIdle = await Sandbox.restore(idle, language, sealed);
      assert.equal(await fromIdle.run("total + 1"), 41, label(language, options));
      fromIdle.close();
      const fromCursor = await Sandbox.restore(atCursor, language, sealed);
      const waiting = await fromCursor.pending();
      assert.ok(waiting instanceof FunctionCall && waiting.name === "fetch", label(language, options));
      assert.equal((await waiting.resume(60)).value, 100);
      fromCursor.close();

      // A fresh monty checkout takes a dump too (a journaled QuickJS or
      // CPython dump needs a worker seeded as its session was: restore).
      if (options.engine !== "monty") continue;
      const pool = new stockade.Pool(language, { ...sealed, size: 1 });
      const checkedOut = await pool.checkout();
      await checkedOut.restoreInto(idle);
      assert.equal(await checkedOut.run("total"), 40);
      checkedOut.close();
      pool.close();

      await assert.rejects(Sandbox.restore(idle, language, { ...sealed, dumpContext: "conversation-2" }), stockade.DumpRejected);
      await assert.rejects(Sandbox.restore(idle, language, { ...sealed, dumpKeys: [randomBytes(32)] }), stockade.DumpRejected);
      const tampered = Buffer.from(idle);
      tampered[tampered.length - 1] ^= 1;
      await assert.rejects(Sandbox.restore(tampered, language, sealed), stockade.DumpRejected);
    } finally {
      sandbox.close();
    }
  }
});

test("dumps need keys and a context, checked before any worker starts", async () => {
  const plain = new Sandbox("javascript");
  await assert.rejects(plain.dump(), stockade.ConfigurationError);
  plain.close();
  assert.throws(() => new Sandbox("javascript", { dumpKeys: randomBytes(32), dumpContext: "c" }), stockade.ConfigurationError);
  assert.throws(() => new Sandbox("javascript", { dumpKeys: [randomBytes(32)] }), stockade.ConfigurationError);
  await assert.rejects(Sandbox.restore(Buffer.from("not a dump"), "javascript"), stockade.ConfigurationError);
  await assert.rejects(
    Sandbox.restore(Buffer.from("not a dump"), "javascript", { dumpKeys: [randomBytes(32)], dumpContext: "c" }),
    stockade.DumpRejected,
  );
});
