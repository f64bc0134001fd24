"""A tool-calling agent step: the model wrote the guest code below, which
calls two host functions (tools), prints its progress and returns a dict.
The host runs it in a sandbox, in Python and in JavaScript.

    python examples/agent_tools.py            # both languages
    python examples/agent_tools.py javascript
"""

import sys

import stockade

# The tools the host offers. They run in the host, with its privileges:
# the guest only sees their results.
INVENTORY = {"apple": 12, "pear": 0, "plum": 7}
PRICES = {"apple": 0.5, "pear": 0.75, "plum": 1.25}


def stock_level(item):
    if item not in INVENTORY:
        raise KeyError(f"unknown item {item!r}")
    return INVENTORY[item]


def price(item, quantity=1):
    return round(PRICES[item] * quantity, 2)


# What a model might write for "which fruit can I order 5 of, and at what cost?"
GUEST = {
    "python": """
order = {}
for item in items:
    level = stock_level(item)
    print(f"{item}: {level} in stock")
    if level >= wanted:
        order[item] = price(item, quantity=wanted)
{"can_order": sorted(order), "total": round(sum(order.values()), 2)}
""",
    "javascript": """
const order = {};
for (const item of items) {
  const level = stock_level(item);
  console.log(`${item}: ${level} in stock`);
  if (level >= wanted) order[item] = price(item, wanted);
}
({can_order: Object.keys(order).sort(), total: Object.values(order).reduce((a, b) => a + b, 0)})
""",
}


def main(languages):
    for language in languages:
        limits = stockade.Limits(max_duration=5, max_memory=256 * 1024 * 1024)
        with stockade.Sandbox(language, limits=limits) as sandbox:
            sandbox.bind_function("stock_level", stock_level)
            sandbox.bind_function("price", price)
            result = sandbox.run(
                GUEST[language],
                inputs={"items": ["apple", "pear", "plum"], "wanted": 5},
                print=lambda stream, text: print(f"  [{language}] {text}", end=""),
            )
            print(f"{language} result: {result}")


if __name__ == "__main__":
    main(sys.argv[1:] or ["python", "javascript"])
