// Installs the addon: builds it with cargo from this checkout's workspace
// (one release build, shared with the workers) unless it is already in
// bin/, and copies the addon, the worker binary and the CPython engine
// module into bin/, where index.js finds them.
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const here = path.resolve(__dirname, "..");
const bin = path.join(here, "bin");
const root = path.resolve(here, "..", "..");
const target = process.env.CARGO_TARGET_DIR || path.join(root, "target");
const release = path.join(target, "release");

function build(args) {
  execFileSync("cargo", ["build", "--release", ...args], { cwd: root, stdio: "inherit" });
}

if (fs.existsSync(path.join(bin, "stockade.node")) && !process.env.STOCKADE_NODE_REBUILD) {
  process.exit(0);
}
if (!fs.existsSync(path.join(root, "Cargo.toml"))) {
  console.error("stockade: no prebuilt addon in bin/ and no source checkout above this package to build one");
  process.exit(1);
}
// The whole workspace, as the project's test command builds it, so that a
// checkout builds each crate once whichever comes first.
build(["--workspace"]);
build(["--manifest-path", "crates/stockade-cpython/Cargo.toml", "--target-dir", target]);
fs.mkdirSync(bin, { recursive: true });
const copy = (from, to, mode) => {
  fs.copyFileSync(path.join(release, from), path.join(bin, to));
  fs.chmodSync(path.join(bin, to), mode);
};
copy("libstockade_node.so", "stockade.node", 0o755);
copy("stockade-worker", "stockade-worker", 0o755);
copy("libstockade_cpython.so", "libstockade_cpython.so", 0o644);
