"""The CPython engine on each interpreter from 3.9 to 3.13 this machine has, side
by side in one run (docs/performance.md, "CPython versions"): short pooled
sessions per second (checkout, three `1 + 1` feeds, close, from two
threads) and a pooled checkout with its first `1 + 1` and close, median
and p95. Guests run on each interpreter through `python=`; the host is the
interpreter running this script.

    .venv/bin/python benches/interpreters.py            # after ./scripts/test
    .venv/bin/python benches/interpreters.py --quick    # a smoke run
"""

import glob
import os
import statistics
import sys
import time

import stockade

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import short_sessions  # noqa: E402  (beside this file)


def interpreters():
    """(version, path) of the newest pyenv CPython of each minor version from 3.9 to 3.13."""
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    found = {}
    for path in sorted(glob.glob(os.path.join(root, "versions", "3.*", "bin", "python3"))):
        version = path.split(os.sep)[-3]
        parts = version.split(".")
        if len(parts) != 3 or not all(part.isdigit() for part in parts):
            continue
        minor = (int(parts[0]), int(parts[1]))
        if (3, 9) <= minor <= (3, 13):
            found[minor] = (version, path)
    return [found[minor] for minor in sorted(found)]


def sessions_per_second(python, seconds):
    with stockade.Pool("python", size=4, python=python, sandbox="require") as pool:
        return short_sessions.sessions_per_second(pool, seconds)


def pooled_checkout(python, samples):
    """µs for each of `samples` checkouts, its first `1 + 1` and its close,
    with the pool refilled (20 ms idle) before each, as a pool between
    requests is."""
    times = []
    with stockade.Pool("python", size=4, python=python, sandbox="require") as pool:
        pool.wait_ready(60)
        for _ in range(samples):
            time.sleep(0.02)
            started = time.perf_counter()
            with pool.checkout() as sandbox:
                sandbox.run("1 + 1")
            times.append((time.perf_counter() - started) * 1e6)
    return times


def main(quick):
    # Rounds that visit every interpreter in turn, so that the machine's
    # drift during the run (which moves these figures by a fifth between
    # runs) falls on each of them alike.
    rounds, seconds, samples = (1, 1.0, 20) if quick else (5, 3.0, 100)
    found = interpreters()
    rates = {version: [] for version, _ in found}
    times = {version: [] for version, _ in found}
    for _ in range(rounds):
        for version, python in found:
            rates[version].append(sessions_per_second(python, seconds))
            times[version].extend(pooled_checkout(python, samples))
    print(f"host: CPython {sys.version.split()[0]}; guests under require, a pool of 4; "
          f"{rounds} rounds through every interpreter")
    print("| guest interpreter | short sessions per second, 2 threads (median of rounds; lowest, highest) "
          "| pooled checkout + first `1 + 1` + close, median / p95 µs |")
    print("|---|---|---|")
    for version, _ in found:
        rate = statistics.median(rates[version])
        ordered = sorted(times[version])
        median, p95 = statistics.median(ordered), ordered[int(len(ordered) * 0.95) - 1]
        print(f"| CPython {version} | {rate:.0f} ({min(rates[version]):.0f}; {max(rates[version]):.0f}) "
              f"| {median:.0f} / {p95:.0f} ({len(ordered)}) |")


if __name__ == "__main__":
    main("--quick" in sys.argv[1:])
