// A tool-calling agent step, from Node.js: the model wrote the guest code
// below, which calls two host functions (tools), prints its progress and
// returns an object. The host runs it in a sandbox, in Python and in
// JavaScript. After the test command (which builds crates/stockade-node):
//
//   node examples/agent_tools.mjs            # both languages
//   node examples/agent_tools.mjs javascript
import { Sandbox } from "../crates/stockade-node/index.mjs";

// The tools the host offers. They run in the host, with its privileges:
// the guest only sees their results. One answers at once, one later (as a
// database or an API would).
const INVENTORY = { apple: 12, pear: 0, plum: 7 };
const PRICES = { apple: 0.5, pear: 0.75, plum: 1.25 };

function stock_level(item) {
  if (!(item in INVENTORY)) throw new RangeError(`unknown item ${item}`);
  return INVENTORY[item];
}

async function price(item, quantity = 1) {
  await new Promise((resolve) => setTimeout(resolve, 5));
  return Math.round(PRICES[item] * quantity * 100) / 100;
}

// What a model might write for "which fruit can I order 5 of, and at what cost?"
const GUEST = {
  python: `
order = {}
for item in items:
    level = stock_level(item)
    print(f"{item}: {level} in stock")
    if level >= wanted:
        order[item] = price(item, wanted)
{"can_order": sorted(order), "total": round(sum(order.values()), 2)}
`,
  javascript: `
const order = {};
for (const item of items) {
  const level = stock_level(item);
  console.log(\`\${item}: \${level} in stock\`);
  if (level >= wanted) order[item] = price(item, wanted);
}
({can_order: Object.keys(order).sort(), total: Object.values(order).reduce((a, b) => a + b, 0)})
`,
};

for (const language of process.argv.slice(2).length ? process.argv.slice(2) : ["python", "javascript"]) {
  const sandbox = new Sandbox(language, { limits: { maxDuration: 5, maxMemory: 256 * 1024 * 1024 } });
  try {
    sandbox.bindFunction("stock_level", stock_level);
    sandbox.bindFunction("price", price);
    const result = await sandbox.run(GUEST[language], {
      inputs: { items: ["apple", "pear", "plum"], wanted: 5 },
      print: (stream, text) => process.stdout.write(`  [${language}] ${text}`),
    });
    console.log(`${language} result: ${JSON.stringify(result)}`);
  } finally {
    sandbox.close();
  }
}
