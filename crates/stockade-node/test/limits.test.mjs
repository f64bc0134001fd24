// Every limit, tripped through the Node package in each engine it applies
// to, with the error docs/limits.md promises and the sandbox alive after
// it where the limit keeps the session.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as stockade from "../index.mjs";
import { PYTHON, ENGINES, label, code } from "./engines.mjs";

const { Sandbox } = stockade;
const SPIN = { python: "while True:\n    pass", javascript: "while (true) {}" };

/** Runs `body(sandbox)` on a sandbox made with `options`, closed after. */
async function using(language, options, body) {
  const sandbox = new Sandbox(language, options);
  try {
    return await body(sandbox);
  } finally {
    sandbox.close();
  }
}

test("maxDuration ends a busy guest, even one that catches, and the sandbox lives", async () => {
  for (const [language, options] of ENGINES) {
    await using(language, { ...options, limits: { maxDuration: 0.3 } }, async (sandbox) => {
      const caught = code(language, "try:\n    while True:\n        pass\nexcept BaseException:\n    pass",
        "try { while (true) {} } catch (e) {}");
      await assert.rejects(sandbox.run(caught), (err) =>
        err instanceof stockade.TimeLimitError && err.limit === "max_duration" && !err.sessionLost, label(language, options));
    });
  }
});

test("requestTimeout kills a worker that does not answer, and the sandbox is lost", async () => {
  for (const [language, options] of ENGINES) {
    await using(language, { ...options, requestTimeout: 0.5 }, async (sandbox) => {
      await assert.rejects(sandbox.run(SPIN[language]), (err) =>
        err instanceof stockade.TimeLimitError && err.limit === "request_timeout" && err.sessionLost, label(language, options));
      await assert.rejects(sandbox.run("1"), stockade.StockadeError);
    });
  }
});

test("maxMemory stops a guest that allocates past it", async () => {
  for (const [language, options] of ENGINES) {
    await using(language, { ...options, limits: { maxMemory: 64 << 20 } }, async (sandbox) => {
      const grow = code(language, "x = [0] * (10 ** 8)", "const a = []; for (;;) a.push(new Array(1e5).fill(1))");
      await assert.rejects(sandbox.run(grow), stockade.MemoryLimitError, label(language, options));
    });
  }
});

test("maxRecursionDepth and maxStackBytes are catchable errors in the guest", async () => {
  for (const [language, options] of PYTHON) {
    await using(language, { ...options, limits: { maxRecursionDepth: 50 } }, async (sandbox) => {
      const deep = "def f(n):\n    return f(n + 1)\ntry:\n    f(0)\nexcept RecursionError:\n    r = 'caught'\nr";
      assert.equal(await sandbox.run(deep), "caught", label(language, options));
    });
  }
  await using("javascript", { limits: { maxStackBytes: 256 << 10 } }, async (sandbox) => {
    const deep = "function f(n) { return f(n + 1) + 1 } let r; try { f(0) } catch (e) { r = e.constructor.name } r";
    assert.equal(await sandbox.run(deep), "RangeError");
  });
});

test("maxBufferBytes is a catchable RangeError for JavaScript guests", async () => {
  await using("javascript", { limits: { maxBufferBytes: 1 << 20 } }, async (sandbox) => {
    const big = "let r; try { new ArrayBuffer(2 << 20) } catch (e) { r = e.constructor.name } r";
    assert.equal(await sandbox.run(big), "RangeError");
    assert.equal(await sandbox.run("new Uint8Array(1000).length"), 1000);
  });
});

test("maxOutputBytes cuts a run's output with a marker", async () => {
  for (const [language, options] of ENGINES) {
    await using(language, { ...options, limits: { maxOutputBytes: 1000 } }, async (sandbox) => {
      let out = "";
      await sandbox.run(code(language, "for i in range(1000):\n    print('x' * 50)", "for (let i = 0; i < 1000; i++) console.log('x'.repeat(50))"),
        { print: (_, text) => (out += text) });
      assert.ok(out.length < 2000, `${label(language, options)}: ${out.length} bytes came through`);
      assert.match(out, /\[stockade: output truncated after \d+ bytes\]/);
    });
  }
});

test("maxScratchBytes bounds a CPython guest's /tmp, and a full one is ENOSPC", async () => {
  await using("python", { engine: "cpython", sandbox: "require", limits: { maxScratchBytes: 1 << 20 } }, async (sandbox) => {
    const fill = "import errno, os\ntry:\n    open('big', 'wb').write(b'x' * (2 << 20))\n    r = 'written'\nexcept OSError as e:\n    r = errno.errorcode[e.errno]\n[os.getcwd(), r]";
    assert.deepEqual(await sandbox.run(fill), ["/tmp", "ENOSPC"]);
    assert.equal(await sandbox.run("open('small', 'w').write('ok')"), 2);
  });
});

test("maxScratchBytes bounds a JavaScript or monty guest's /tmp too, and a full one is ENOSPC", async () => {
  await using("javascript", { limits: { maxScratchBytes: 64 << 10 } }, async (sandbox) => {
    const fill = "import fs from 'fs';\nlet code;\ntry { fs.writeFileSync('big', 'x'.repeat(100000)); } catch (e) { code = e.code; }\nexport default [code, fs.readdirSync('/tmp')];";
    assert.deepEqual(await sandbox.run(fill), ["ENOSPC", []]);
    assert.equal(await sandbox.run("import fs from 'fs'; fs.writeFileSync('small', 'ok'); export default fs.readFileSync('/tmp/small', 'utf8');"), "ok");
  });
  await using("python", { engine: "monty", limits: { maxScratchBytes: 64 << 10 } }, async (sandbox) => {
    const fill = "from pathlib import Path\ntry:\n    Path('big').write_text('x' * 100000)\n    r = 'written'\nexcept OSError as e:\n    r = str(e)\nr";
    assert.match(await sandbox.run(fill), /No space left on device/);
    assert.equal(await sandbox.run("from pathlib import Path\nPath('small').write_text('ok')\nPath('/tmp/small').read_text()"), "ok");
  });
});

test("maxHostCalls ends the feed uncatchably and the sandbox lives", async () => {
  for (const [language, options] of ENGINES) {
    await using(language, { ...options, maxHostCalls: 5 }, async (sandbox) => {
      sandbox.bindFunction("ping", () => 1);
      const loop = code(language, "try:\n    for i in range(10):\n        ping()\nexcept BaseException:\n    pass",
        "try { for (let i = 0; i < 10; i++) ping() } catch (e) {}");
      await assert.rejects(sandbox.run(loop), (err) =>
        err instanceof stockade.GuestError && err.message.includes("max_host_calls"), label(language, options));
      assert.equal(await sandbox.run("ping() + 1"), 2);
    });
  }
});

test("maxInflightHostCalls ends a feed with too many async calls at once", async () => {
  for (const [language, options] of ENGINES) {
    await using(language, { ...options, maxInflightHostCalls: 2 }, async (sandbox) => {
      sandbox.bindFunction("wait", () => new Promise((resolve) => setTimeout(() => resolve(1), 50)), { async: true });
      const many = code(language,
        "import asyncio\nasync def main():\n    return await asyncio.gather(wait(), wait(), wait())\nawait main()",
        "await Promise.all([wait(), wait(), wait()])");
      await assert.rejects(sandbox.run(many), (err) =>
        err instanceof stockade.GuestError && err.message.includes("max_inflight_host_calls"), label(language, options));
      assert.equal(await sandbox.run(code(language, "await wait()", "await wait()")), 1);
    });
  }
});

test("maxHostWait gives the guest a TimeoutError for a host function that does not answer", async () => {
  for (const [language, options] of ENGINES) {
    await using(language, { ...options, maxHostWait: 0.3 }, async (sandbox) => {
      // A promise that never settles: the guest is not held past maxHostWait.
      sandbox.bindFunction("slow", () => new Promise(() => {}));
      const guarded = code(language, "try:\n    slow()\nexcept TimeoutError:\n    r = 'timed out'\nr",
        "let r; try { slow() } catch (e) { r = e.name === 'TimeoutError' || /max_host_wait/.test(e.message) ? 'timed out' : String(e) } r");
      assert.equal(await sandbox.run(guarded), "timed out", label(language, options));
    });
  }
});

test("maxResultBytes refuses a result too large and the sandbox lives", async () => {
  for (const [language, options] of ENGINES) {
    await using(language, { ...options, maxResultBytes: 1 << 20 }, async (sandbox) => {
      await assert.rejects(sandbox.run(code(language, "'x' * (4 * 1024 * 1024)", "'x'.repeat(4 * 1024 * 1024)")),
        stockade.ResultTooLarge, label(language, options));
      assert.equal(await sandbox.run("1 + 1"), 2);
    });
  }
});

test("execute() cuts each stream at maxStreamBytes", async () => {
  await using("python", { engine: "monty" }, async (sandbox) => {
    const result = await sandbox.execute("print('y' * 5000)", { maxStreamBytes: 100 });
    assert.equal(result.status, "ok");
    assert.equal(result.stdout.length, 100);
    assert.equal(result.truncated, true);
    // Bytes of UTF-8, cut between characters.
    const wide = await sandbox.execute("print('é' * 100)", { maxStreamBytes: 101 });
    assert.equal(wide.stdout, "é".repeat(50));
    assert.equal(wide.truncated, true);
    const fits = await sandbox.execute("print('é')", { maxStreamBytes: 3 });
    assert.deepEqual([fits.stdout, fits.truncated], ["é\n", false]);
  });
});

test("execute() refuses a result past maxResultBytes, 1 MiB unless told, and the sandbox lives", async () => {
  await using("javascript", {}, async (sandbox) => {
    const big = await sandbox.execute("console.log('made'); 'x'.repeat(2 * 1024 * 1024)");
    assert.deepEqual([big.status, big.errorType, big.stdout], ["error", "ResultTooLarge", "made\n"]);
    assert.ok(big.error.includes("max_result_bytes"), big.error);
    const roomy = await sandbox.execute("'x'.repeat(2 * 1024 * 1024).length", { maxResultBytes: 64 });
    assert.deepEqual([roomy.status, roomy.result], ["ok", 2 * 1024 * 1024]);
    const small = await sandbox.execute("'x'.repeat(100)", { maxResultBytes: 64 });
    assert.equal(small.errorType, "ResultTooLarge");
    await assert.rejects(sandbox.execute("1", { maxResultBytes: -1 }), stockade.ConfigurationError);
    assert.equal(await sandbox.run("1 + 1"), 2);
  });
});

test("inputs nested past the wire's depth are a ConversionError before anything runs", async () => {
  await using("javascript", {}, async (sandbox) => {
    let deep = 1;
    for (let i = 0; i < 100; i++) deep = [deep];
    await assert.rejects(sandbox.run("x", { inputs: { x: deep } }), stockade.ConversionError);
    assert.equal(await sandbox.run("2 + 2"), 4);
  });
});

test("out-of-range limits are a ConfigurationError naming the option", async () => {
  await assert.rejects(new Sandbox("javascript", { limits: { maxStackBytes: 1 } }).run("1"),
    (err) => err instanceof stockade.ConfigurationError && err.message.includes("max_stack_bytes"));
  await assert.rejects(new Sandbox("python", { maxResultBytes: 2 ** 40 }).run("1"),
    (err) => err instanceof stockade.ConfigurationError && err.message.includes("max_result_bytes"));
});
