// Values both ways in every engine: JavaScript's own types in, the same
// types back; ints and floats kept apart as a Python guest sees them;
// guest values with no JavaScript twin.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as stockade from "../index.mjs";
import { ENGINES, label } from "./engines.mjs";

const { Sandbox, Float, Tuple, Repr } = stockade;

test("values cross both ways as JavaScript's own types in every engine", async () => {
  const when = new Date("2026-12-01T05:48:19.250Z");
  const inputs = {
    n: 7,
    real: 2.5,
    big: 2n ** 70n,
    negative: -(2n ** 64n),
    text: "naïve ☃ 𝄞",
    blob: Buffer.from([0, 255]),
    view: new Uint8Array([1, 2, 3]),
    items: [1, "two", null, [true, false]],
    plain: { a: 1, "key with space": [2] },
    mapping: new Map([[1, "one"], ["two", 2]]),
    members: new Set(["a"]),
    when,
    flag: true,
    nothing: null,
  };
  const expected = [7, 2.5, 2n ** 70n, -(2n ** 64n), "naïve ☃ 𝄞", Buffer.from([0, 255]), Buffer.from([1, 2, 3]),
    [1, "two", null, [true, false]], { a: 1, "key with space": [2] }, new Map([[1, "one"], ["two", 2]]),
    new Set(["a"]), when, true, null];
  for (const [language, options] of ENGINES) {
    const sandbox = new Sandbox(language, options);
    try {
      const back = await sandbox.run(
        "[n, real, big, negative, text, blob, view, items, plain, mapping, members, when, flag, nothing]", { inputs });
      assert.deepEqual(back, expected, label(language, options));
      assert.equal(await sandbox.run("2 ** 53 + 1"), language === "python" ? 2n ** 53n + 1n : 2 ** 53 + 1);
    } finally {
      sandbox.close();
    }
  }
});

test("ints and floats stay apart as a Python guest sees them", async () => {
  for (const [language, options] of ENGINES.slice(0, 2)) {
    const sandbox = new Sandbox(language, options);
    try {
      sandbox.bindFunction("forced", () => new Float(3));
      sandbox.bindFunction("seen", (value) => [value, Number.isInteger(value)]);
      const kinds = await sandbox.run(
        "[type(v).__name__ for v in (whole, half, as_float, negative_zero, forced(), 2 ** 53)]",
        { inputs: { whole: 2, half: 2.5, as_float: new Float(2), negative_zero: -0 } },
      );
      assert.deepEqual(kinds, ["int", "float", "float", "float", "float", "int"], label(language, options));
      // A guest float that is whole arrives as a plain number.
      assert.deepEqual(await sandbox.run("[2.0, 2, 0.5]"), [2, 2, 0.5]);
      assert.deepEqual(await sandbox.run("seen(4.0)"), [4, true]);
      assert.deepEqual(await sandbox.run("[float('nan') != float('nan'), float('inf')]"), [true, Infinity]);
      assert.ok(Number.isNaN(await sandbox.run("float('nan')")));
    } finally {
      sandbox.close();
    }
  }
});

test("a JavaScript guest sees numbers, BigInts and Floats as numbers", async () => {
  const sandbox = new Sandbox("javascript");
  try {
    const types = await sandbox.run("[typeof a, typeof b, typeof c, Number.isInteger(c)]",
      { inputs: { a: 2, b: 2n ** 70n, c: new Float(2) } });
    assert.deepEqual(types, ["number", "bigint", "number", true]);
    assert.equal(await sandbox.run("undefined"), undefined);
  } finally {
    sandbox.close();
  }
});

test("guest values with no JavaScript twin arrive as Tuple, Repr and cycle markers", async () => {
  const sandbox = new Sandbox("python", { engine: "monty" });
  try {
    const tuple = await sandbox.run("(1, 'a')");
    assert.ok(tuple instanceof Tuple);
    assert.deepEqual([...tuple], [1, "a"]);
    // A Tuple goes back as a tuple.
    assert.equal(await sandbox.run("type(t).__name__", { inputs: { t: Tuple.from([1, 2]) } }), "tuple");
    const cyclic = await sandbox.run("x = [1]\nx.append(x)\nx");
    assert.equal(cyclic[0], 1);
    assert.ok(cyclic[1] instanceof stockade.Cycle);
    const fn = await sandbox.run("def f():\n    pass\nf");
    assert.ok(fn instanceof Repr && String(fn).includes("f"), String(fn));
  } finally {
    sandbox.close();
  }
});

test("large and deeply nested values cross both ways, as results, inputs and host-call arguments", async () => {
  for (const [language, options] of ENGINES) {
    const sandbox = new Sandbox(language, options);
    try {
      let seen;
      sandbox.bindFunction("take", (value) => {
        seen = value;
        return value.length ?? 0;
      });
      const many = await sandbox.run(language === "python" ? "list(range(600000))" : "Array.from({ length: 600000 }, (_, i) => i)");
      assert.equal(many.length, 600000, label(language, options));
      assert.equal(many[599999], 599999);
      assert.equal(await sandbox.run("take(big)", { inputs: { big: many } }), 600000);
      assert.equal(seen.length, 600000);
      let deep = { leaf: true };
      for (let i = 0; i < 60; i++) deep = { inner: deep };
      const back = await sandbox.run("deep", { inputs: { deep } });
      assert.deepEqual(back, deep, label(language, options));
    } finally {
      sandbox.close();
    }
  }
});
