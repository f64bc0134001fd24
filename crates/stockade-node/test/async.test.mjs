// Host functions and Node's event loop: async host functions several in
// flight at once, the loop free while a guest runs, close() ending a run
// at once, a run keeping Node alive, a killed worker leaving Node intact.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as stockade from "../index.mjs";
import { ENGINES, label, code } from "./engines.mjs";

const { Sandbox } = stockade;
const INDEX = JSON.stringify(new URL("../index.js", import.meta.url).pathname);

/** Three calls of `gate` that each wait until all three have started. */
function gate() {
  let release;
  const allStarted = new Promise((resolve) => (release = resolve));
  let started = 0;
  let most = 0;
  let running = 0;
  const fn = async (key) => {
    started += 1;
    running += 1;
    most = Math.max(most, running);
    if (started === 3) release();
    await allStarted;
    running -= 1;
    return `value of ${key}`;
  };
  return { fn, most: () => most };
}

test("async host functions are awaited by the guest, several in flight at once", async () => {
  for (const [language, options] of ENGINES) {
    // Calls answered one at a time would never pass the gate: the guest
    // would get a TimeoutError at maxHostWait instead.
    const sandbox = new Sandbox(language, { ...options, maxHostWait: 10, redactHostErrors: false });
    try {
      const { fn, most } = gate();
      sandbox.bindFunction("fetch", fn, { async: true });
      const code = language === "python"
        ? "import asyncio\nasync def main():\n    return await asyncio.gather(fetch('a'), fetch('b'), fetch('c'))\nawait main()"
        : "await Promise.all([fetch('a'), fetch('b'), fetch('c')])";
      assert.deepEqual(await sandbox.run(code), ["value of a", "value of b", "value of c"], label(language, options));
      assert.equal(most(), 3, `${label(language, options)}: the three calls were in flight together`);
      // An async function's error is the guest's to catch.
      sandbox.bindFunction("fails", async () => {
        throw new RangeError("no such key");
      }, { async: true });
      const caught = language === "python"
        ? "try:\n    await fails()\nexcept Exception as e:\n    r = str(e)\nr"
        : "let r; try { await fails() } catch (e) { r = e.message } r";
      assert.equal(await sandbox.run(caught), "no such key", label(language, options));
    } finally {
      sandbox.close();
    }
  }
});

test("bindFunction refuses an async option that is not a boolean", () => {
  const sandbox = new Sandbox("javascript");
  assert.throws(() => sandbox.bindFunction("f", () => 1, { async: "yes" }), stockade.ConfigurationError);
});

test("the event loop runs while a guest computes", async () => {
  for (const [language, options] of ENGINES) {
    const sandbox = new Sandbox(language, options);
    try {
      await sandbox.run("1");
      let ticks = 0;
      const timer = setInterval(() => ticks++, 5);
      const code = language === "python"
        ? "n = 0\nfor i in range(3000000):\n    n += i\nn > 0"
        : "let n = 0; for (let i = 0; i < 60000000; i++) n += i; n > 0";
      assert.equal(await sandbox.run(code), true);
      clearInterval(timer);
      assert.ok(ticks > 0, `${label(language, options)}: no timer ran while the guest computed`);
    } finally {
      sandbox.close();
    }
  }
});

test("a guest calling a host function in a tight loop leaves the event loop free", async () => {
  for (const [language, options] of ENGINES) {
    const sandbox = new Sandbox(language, { ...options, maxHostCalls: 100000 });
    try {
      let calls = 0;
      sandbox.bindFunction("tick", () => ++calls);
      let ticks = 0;
      const timer = setInterval(() => ticks++, 1);
      const loop = language === "python"
        ? "for i in range(30000):\n    tick()"
        : "for (let i = 0; i < 30000; i++) tick()";
      await sandbox.run(loop);
      clearInterval(timer);
      assert.equal(calls, 30000);
      assert.ok(ticks > 0, `${label(language, options)}: no timer ran during 30000 host calls`);
    } finally {
      sandbox.close();
    }
  }
});

test("close() ends a running run at once, even one waiting on a host function", { timeout: 30000 }, async () => {
  for (const [language, options] of ENGINES) {
    // A busy guest: without close() this run would last until requestTimeout (60 s).
    const busy = new Sandbox(language, options);
    await busy.ready();
    const spinning = busy.run(language === "python" ? "while True:\n    pass" : "while (true) {}");
    await new Promise((resolve) => setTimeout(resolve, 200));
    busy.close();
    await assert.rejects(spinning, stockade.SandboxClosed, label(language, options));
    await assert.rejects(busy.run("1"), stockade.SandboxClosed);

    // A guest waiting on a host function whose promise never settles,
    // plain or async (without close() it would wait maxHostWait, 600 s).
    for (const async of [false, true]) {
      const waiting = new Sandbox(language, options);
      waiting.bindFunction("never", () => new Promise(() => {}), { async });
      const stuck = waiting.run(async ? code(language, "await never()", "await never()") : "never()");
      await new Promise((resolve) => setTimeout(resolve, 300));
      waiting.close();
      await assert.rejects(stuck, stockade.SandboxClosed, `${label(language, options)} async: ${async}`);
    }
  }
});

test("a run in progress keeps Node alive until it ends", () => {
  const script = `
    const { Sandbox } = require(${INDEX});
    const s = new Sandbox("python", { engine: "cpython" });
    // Nothing else holds the event loop: only the run in progress.
    s.run("import time\\ntime.sleep(0.5)\\n42").then((v) => console.log("result", v));
  `;
  const child = spawnSync(process.execPath, ["-e", script], { timeout: 20000, encoding: "utf8" });
  assert.equal(child.status, 0, child.stderr);
  assert.equal(child.stdout, "result 42\n");
});

test("a worker killed from outside is a WorkerCrashed, and Node and other sandboxes go on", async () => {
  for (const [language, options] of ENGINES) {
    const doomed = new Sandbox(language, options);
    const other = new Sandbox(language, options);
    try {
      const pid = await doomed.workerPid();
      assert.ok(Number.isInteger(pid) && pid > 0);
      const spinning = doomed.run(language === "python" ? "while True:\n    pass" : "while (true) {}");
      await new Promise((resolve) => setTimeout(resolve, 200));
      process.kill(pid, "SIGKILL");
      await assert.rejects(spinning, (err) => err instanceof stockade.WorkerCrashed && err.sessionLost && err.signal === 9);
      await assert.rejects(doomed.run("1"), stockade.WorkerCrashed);
      assert.equal(await other.run("6 * 7"), 42, label(language, options));
    } finally {
      doomed.close();
      other.close();
    }
  }
});

test("runs on one sandbox take turns, each with its own output", async () => {
  const sandbox = new Sandbox("python", { engine: "monty" });
  try {
    const out = { a: "", b: "" };
    const [a, b] = await Promise.all([
      sandbox.run("print('from a')\nx = 1\nx", { print: (_, text) => (out.a += text) }),
      sandbox.run("print('from b')\nx + 1", { print: (_, text) => (out.b += text) }),
    ]);
    assert.deepEqual([a, b, out.a, out.b], [1, 2, "from a\n", "from b\n"]);
  } finally {
    sandbox.close();
  }
});

test("the sandbox report says which layers are in force", async () => {
  const sandbox = new Sandbox("javascript");
  try {
    const report = await sandbox.sandboxReport();
    assert.equal(report.mode, "auto");
    assert.ok(report.applied.includes("seccomp"), JSON.stringify(report));
  } finally {
    sandbox.close();
  }
});

test("a closed or forgotten sandbox leaves no thread behind", () => {
  // In a child with the garbage collector exposed: 8 sandboxes closed,
  // 8 forgotten unclosed, then the session threads counted.
  const script = `
    const fs = require("node:fs");
    const { Sandbox } = require(${INDEX});
    // A thread may end between the listing and the read: it is gone, not counted.
    const named = (task) => {
      try {
        return fs.readFileSync("/proc/self/task/" + task + "/comm", "utf8").trim();
      } catch {
        return null;
      }
    };
    const threads = () => fs.readdirSync("/proc/self/task").filter((task) => named(task) === "stockade-node").length;
    const settle = () => new Promise((resolve) => setTimeout(resolve, 200));
    (async () => {
      for (let i = 0; i < 8; i++) {
        const closed = new Sandbox("python", { engine: "monty" });
        await closed.run("1");
        closed.close();
        await new Sandbox("javascript").run("1");
      }
      for (let i = 0; i < 10 && threads() > 0; i++) {
        global.gc();
        await settle();
      }
      console.log(threads());
    })();
  `;
  const child = spawnSync(process.execPath, ["--expose-gc", "-e", script], { timeout: 60000, encoding: "utf8" });
  assert.equal(child.status, 0, child.stderr);
  assert.equal(child.stdout, "0\n");
});

test("a run resolves only after the host calls its guest made have run", async () => {
  for (const [language, options] of ENGINES) {
    const sandbox = new Sandbox(language, options);
    try {
      let ran = 0;
      sandbox.bindFunction("notify", () => {
        ran += 1;
      }, { async: true });
      // The guest does not await its call: the run still ends after it ran.
      const fireAndForget = code(language, "notify()\n1", "notify(); 1");
      for (let i = 1; i <= 50; i++) {
        await sandbox.run(fireAndForget);
        assert.equal(ran, i, label(language, options));
      }
    } finally {
      sandbox.close();
    }
  }
});
