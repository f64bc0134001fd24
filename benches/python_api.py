"""Python-level figures for the stockade package: warm round trip
(`sandbox.run("1 + 1")`) and a host call from a guest loop, in both guest
languages, sandboxed. Prints a markdown table of medians and p95 in µs.

    .venv/bin/python benches/python_api.py            # the figures
    .venv/bin/python benches/python_api.py --quick    # a smoke run
"""

import statistics
import sys
import time

import stockade

LOOP = {
    "python": "for i in range(n):\n    tick(i)",
    "javascript": "for (let i = 0; i < n; i++) tick(i)",
}


def percentile(samples, fraction):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def round_trips(language, warmup, samples):
    with stockade.Sandbox(language) as sandbox:
        for _ in range(warmup):
            sandbox.run("1 + 1")
        times = []
        for _ in range(samples):
            started = time.perf_counter_ns()
            sandbox.run("1 + 1")
            times.append((time.perf_counter_ns() - started) / 1000)
    return times


def host_calls(language, samples):
    stamps = []
    with stockade.Sandbox(language, max_host_calls=samples + 10) as sandbox:
        sandbox.bind_function("tick", lambda i: stamps.append(time.perf_counter_ns()))
        sandbox.run(LOOP[language], inputs={"n": samples + 1})
    return [(b - a) / 1000 for a, b in zip(stamps, stamps[1:])]


def main():
    quick = "--quick" in sys.argv
    warmup, samples = (20, 200) if quick else (1000, 10000)
    rows = []
    for language in ("python", "javascript"):
        rows.append((f"{language}: warm round trip (`sandbox.run(\"1 + 1\")`)",
                     round_trips(language, warmup, samples), "≤ 40"))
        rows.append((f"{language}: host call from a guest loop",
                     host_calls(language, samples), "≤ 30"))
    print("| measurement | median µs | p95 µs | samples | target |")
    print("|---|---|---|---|---|")
    for name, times, target in rows:
        print(f"| {name} | {statistics.median(times):.1f} | {percentile(times, 0.95):.1f} "
              f"| {len(times)} | {target} |")


if __name__ == "__main__":
    main()
