const fileTree = {
  name: "project",
  children: [
    { name: "src", children: [{ name: "index.js", size: 1200 }, { name: "util.js", size: 340 },
      { name: "lib", children: [{ name: "parser.js", size: 5100 }] }] },
    { name: "test", children: [{ name: "index.test.js", size: 800 }] },
    { name: "package.json", size: 410 },
    { name: "README.md", size: 2300 },
  ],
};

function totalSize(node) {
  return node.children ? node.children.reduce((s, c) => s + totalSize(c), 0) : node.size;
}

function show(node) {
  if (node.children) {
    console.group(`${node.name}/ (${totalSize(node)} bytes)`);
    for (const child of node.children) show(child);
    console.groupEnd();
  } else {
    console.log(`${node.name} - ${node.size} bytes`);
  }
}
show(fileTree);

console.group("Build report");
console.info("compiled 5 files");
console.group("Warnings");
console.log("unused variable 'tmp' in util.js");
console.log({ file: "parser.js", line: 88, rule: "no-shadow", details: { severity: 1 } });
console.log("multi-line\nmessage is indented too");
console.groupEnd();
console.table([{ step: "lint", ms: 120 }, { step: "bundle", ms: 480 }]);
console.groupCollapsed("Timings");
console.log(["lint", "bundle", "minify"]);
console.groupEnd();
console.groupEnd();
console.log("back at top level");
console.groupEnd();
console.log("extra groupEnd is harmless");
