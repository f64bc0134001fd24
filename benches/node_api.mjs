// Node-level figures for the stockade package against the host library's
// own, in one run: a warm round trip (`await sandbox.run("1 + 1")`) and a
// host call from a guest loop, in both guest languages, sandboxed. The
// Rust figures come from `stockade bench`, which measures the same two
// things the same way through the Rust API, in alternating rounds. Prints a
// markdown table of medians and p95 in µs, and the ratio of the medians
// (target: at most 2).
//
//   bash scripts/test                        # builds everything, once
//   node benches/node_api.mjs                # the figures
//   node benches/node_api.mjs --quick        # a smoke run
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { Sandbox } from "../crates/stockade-node/index.mjs";

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = process.env.STOCKADE_CLI ?? path.join(ROOT, "target/release/stockade");
const WORKER = path.join(ROOT, "crates/stockade-node/bin/stockade-worker");
const LOOP = {
  python: "for i in range(n):\n    tick(i)",
  javascript: "for (let i = 0; i < n; i++) tick(i)",
};

function summary(samples) {
  const ordered = [...samples].sort((a, b) => a - b);
  const at = (fraction) => ordered[Math.min(ordered.length - 1, Math.floor(ordered.length * fraction))];
  return { median: at(0.5), p95: at(0.95), count: ordered.length };
}

const micros = (from, to) => Number(to - from) / 1000;

async function roundTrips(language, warmup, samples) {
  const sandbox = new Sandbox(language, { spare: false });
  try {
    for (let i = 0; i < warmup; i++) await sandbox.run("1 + 1");
    const times = [];
    for (let i = 0; i < samples; i++) {
      const started = process.hrtime.bigint();
      await sandbox.run("1 + 1");
      times.push(micros(started, process.hrtime.bigint()));
    }
    return times;
  } finally {
    sandbox.close();
  }
}

async function hostCalls(language, samples) {
  const sandbox = new Sandbox(language, { spare: false, maxHostCalls: samples + 10 });
  try {
    const stamps = [];
    sandbox.bindFunction("tick", () => {
      stamps.push(process.hrtime.bigint());
    });
    await sandbox.run(LOOP[language], { inputs: { n: samples + 1 } });
    return stamps.slice(1).map((stamp, i) => micros(stamps[i], stamp));
  } finally {
    sandbox.close();
  }
}

/** `stockade bench`'s rows for `language`, by measurement. */
function rustFigures(language, samples) {
  const run = spawnSync(CLI, ["bench", "--lang", language, "--samples", String(samples), "--worker", WORKER], {
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`${CLI} bench failed: ${run.stderr}`);
  const rows = new Map();
  for (const line of run.stdout.split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    if (cells.length >= 5 && /^\d/.test(cells[2])) rows.set(cells[1], { median: Number(cells[2]), p95: Number(cells[3]) });
  }
  return rows;
}

/** The middle of `values`. */
const middle = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

// Rounds alternate the Node and Rust measurements, so that a spell of
// contention on a shared machine lands on both; each row is the middle of
// the rounds' medians and p95s.
const quick = process.argv.includes("--quick");
const [warmup, samples, rounds] = quick ? [20, 200, 1] : [1000, 5000, 3];
console.log("| measurement | Node median µs | Node p95 µs | Rust median µs | Rust p95 µs | samples | Node / Rust (median) |");
console.log("|---|---|---|---|---|---|---|");
for (const language of ["python", "javascript"]) {
  const names = ["warm round trip (`1 + 1`)", "host call from a guest loop"];
  const seen = new Map(names.map((name) => [name, { node: [], rust: [] }]));
  for (let round = 0; round < rounds; round++) {
    const rust = rustFigures(language, samples);
    const node = [await roundTrips(language, warmup, samples), await hostCalls(language, samples)];
    names.forEach((name, i) => {
      const reference = rust.get(name);
      if (reference === undefined) throw new Error(`stockade bench printed no row "${name}"`);
      seen.get(name).rust.push(reference);
      seen.get(name).node.push(summary(node[i]));
    });
  }
  for (const name of names) {
    const { node, rust } = seen.get(name);
    const nodeMedian = middle(node.map((row) => row.median));
    const rustMedian = middle(rust.map((row) => row.median));
    const cells = [`${language}: ${name}`, nodeMedian.toFixed(1), middle(node.map((row) => row.p95)).toFixed(1),
      rustMedian.toFixed(1), middle(rust.map((row) => row.p95)).toFixed(1), `${rounds} × ${samples}`,
      (nodeMedian / rustMedian).toFixed(2)];
    console.log(`| ${cells.join(" | ")} |`);
  }
}
