// The package installed the way a user installs it: into a fresh npm
// project from this folder, its install script approved as npm 11 asks,
// then used through require() and import.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function npm(cwd, ...args) {
  const done = spawnSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], { cwd, encoding: "utf8", timeout: 600000 });
  assert.equal(done.status, 0, `npm ${args.join(" ")}: ${done.stderr}`);
  return done;
}

test("installed into a fresh project, the package works through require and import", () => {
  const project = mkdtempSync(path.join(tmpdir(), "stockade-npm-"));
  try {
    writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "user-project", version: "1.0.0", private: true }));
    npm(project, "install", PACKAGE);
    npm(project, "install-scripts", "approve", "stockade");
    npm(project, "install");
    writeFileSync(path.join(project, "use.cjs"), 'require("stockade").run("python", "6 * 7").then((v) => console.log("cjs", v));');
    writeFileSync(path.join(project, "use.mjs"), 'import { run } from "stockade";\nconsole.log("esm", await run("javascript", "[1, 2].length"));');
    for (const [script, expected] of [["use.cjs", "cjs 42\n"], ["use.mjs", "esm 2\n"]]) {
      const ran = spawnSync(process.execPath, [script], { cwd: project, encoding: "utf8", timeout: 60000 });
      assert.equal(ran.status, 0, ran.stderr);
      assert.equal(ran.stdout, expected);
    }
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});
