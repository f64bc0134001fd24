"""stockade against the systems users would otherwise pick, in one run on
one machine: pydeno (JavaScript on V8 in a sandboxed worker) for the
JavaScript rows, pydantic-monty (Python on monty in worker subprocesses)
for the Python rows. Prints a markdown table of medians and p95 with the
ratio stockade / other, and writes it into docs/performance.md.

    python3 benches/compare.py          # after ./scripts/test built the worker

It makes its own virtual environment (benches/.venv-compare) with pydeno,
pydantic-monty and this checkout's stockade package, then re-runs itself
there. `--quick` takes few samples (a smoke run); `--no-write` leaves the
docs alone.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import threading
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / "benches" / ".venv-compare"
PINS = ["pydeno==0.13.2", "pydantic-monty==1.4.0"]
DOC = ROOT / "docs" / "performance.md"
START, END = "<!-- compare:start -->", "<!-- compare:end -->"


def bootstrap() -> None:
    """Creates the venv on first use and re-runs this script inside it."""
    python = VENV / "bin" / "python"
    if Path(sys.prefix).resolve() == VENV.resolve():
        return
    if not python.exists():
        venv.create(VENV, with_pip=True)
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run(pip + PINS, check=True)
    # The package from the test command's release build when it is there
    # (the wheel scripts/dist made), else built from source.
    wheels = sorted((ROOT / "dist").glob("stockade-*.whl"))
    subprocess.run(pip + ["--force-reinstall", "--no-deps", str(wheels[-1] if wheels else ROOT)],
                   check=True)
    os.execv(str(python), [str(python), __file__, *sys.argv[1:]])


# --- measurement helpers ---------------------------------------------------

def timed(action, samples, warmup=0, prepare=None):
    """Times `action`; `prepare` runs before each sample, untimed."""
    for _ in range(warmup):
        action()
    out = []
    for _ in range(samples):
        if prepare is not None:
            prepare()
        started = time.perf_counter()
        action()
        out.append(time.perf_counter() - started)
    return out


def pooled_times(checkout, first, close, prepare, samples, with_close=False):
    """Checkout plus the first evaluation, timed, and the close too when
    `with_close` (the user's `with` block); refilling is not (a pool between
    bursts has caught up)."""
    out = []
    for _ in range(samples):
        prepare()
        started = time.perf_counter()
        session = checkout()
        first(session)
        if with_close:
            close(session)
            out.append(time.perf_counter() - started)
        else:
            out.append(time.perf_counter() - started)
            close(session)
    return out


def children_rss_kib(before: set) -> int:
    """Resident KiB of this process's descendants that did not exist before."""
    total = 0
    for pid in descendants() - before:
        try:
            for line in open(f"/proc/{pid}/status"):
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total


def descendants() -> set:
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
                parents[int(entry)] = int(fields[1])
            except (OSError, IndexError, ValueError):
                pass
    found, frontier = set(), {os.getpid()}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def idle_rss(make):
    """RSS of the worker(s) one idle runtime holds, after a first eval."""
    before = descendants()
    runtime, run, close = make()
    run("1 + 1")
    time.sleep(0.5)
    kib = children_rss_kib(before)
    close()
    return [kib * 1024]


def short_session(checkout, feed):
    """One short session: a checkout, three `1 + 1` feeds, the close."""
    def one():
        with checkout() as session:
            for _ in range(3):
                feed(session, "1 + 1")
    return one


def sessions_per_second(one_session, seconds, threads=2):
    """Short sessions per second from `threads` threads."""
    count = 0
    lock = threading.Lock()
    stop = time.perf_counter() + seconds

    def loop():
        nonlocal count
        while time.perf_counter() < stop:
            one_session()
            with lock:
                count += 1

    workers = [threading.Thread(target=loop) for _ in range(threads)]
    started = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return [count / (time.perf_counter() - started)]


FIB = {
    "python": "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\nfib(25)",
    "javascript": "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) } fib(25)",
}
LOOP = {
    "python": "for i in range(n):\n    tick(i)",
    "javascript": "for (let i = 0; i < n; i++) tick(i)",
}


def host_call_gaps(run_loop, calls):
    stamps = []

    def tick(i):
        stamps.append(time.perf_counter())

    run_loop(tick, calls)
    return [b - a for a, b in zip(stamps, stamps[1:])]


# --- the systems ------------------------------------------------------------

def stockade_rows(language, n):
    import stockade

    rows = {}
    rows["cold start + first `1 + 1`"] = timed(lambda: _stockade_cold(stockade, language),
                                               n["cold"])
    with stockade.Pool(language, size=4, sandbox="require") as pool:
        pool.wait_ready(60)

        rows["pooled checkout + first `1 + 1`"] = pooled_times(
            pool.checkout, lambda s: s.run("1 + 1"), lambda s: s.close(),
            lambda: pool.wait_ready(30), n["pooled"])
        rows["pooled checkout + first `1 + 1` + close"] = pooled_times(
            pool.checkout, lambda s: s.run("1 + 1"), lambda s: s.close(),
            lambda: pool.wait_ready(30), n["pooled"], with_close=True)
    with stockade.Sandbox(language, sandbox="require", max_host_calls=10**9) as sandbox:
        rows["warm round trip (`1 + 1`)"] = timed(lambda: sandbox.run("1 + 1"), n["warm"], 200)

        def run_loop(tick, calls):
            sandbox.run(LOOP[language], inputs={"n": calls}, functions={"tick": tick})

        rows["host call from a guest loop"] = host_call_gaps(run_loop, n["calls"])
        rows["fib(25)"] = timed(lambda: sandbox.run(FIB[language]), n["fib"])

    def make():
        sandbox = stockade.Sandbox(language, sandbox="require", spare=False)
        return sandbox, sandbox.run, sandbox.close

    rows["RSS of one idle worker (bytes)"] = idle_rss(make)
    with stockade.Pool(language, size=4, sandbox="require") as pool:
        pool.wait_ready(60)

        rows["short sessions per second, 2 threads (higher is better)"] = sessions_per_second(
            short_session(pool.checkout, lambda s, code: s.run(code)), n["seconds"])
    if language == "python":
        # The same two rows on the monty engine (`engine="monty"`), the
        # engine pydantic-monty runs.
        with stockade.Pool(language, size=4, sandbox="require", engine="monty") as pool:
            pool.wait_ready(60)
            rows["pooled checkout + first `1 + 1` + close" + MONTY] = pooled_times(
                pool.checkout, lambda s: s.run("1 + 1"), lambda s: s.close(),
                lambda: pool.wait_ready(30), n["pooled"], with_close=True)
            rows["short sessions per second, 2 threads (higher is better)" + MONTY] = (
                sessions_per_second(short_session(pool.checkout, lambda s, code: s.run(code)),
                                    n["seconds"]))
    return rows


# A row measured on stockade's monty engine, against the reference's row
# of the same name without this suffix.
MONTY = ", monty engine"


def _stockade_cold(stockade, language):
    with stockade.Sandbox(language, sandbox="require", spare=False) as sandbox:
        sandbox.run("1 + 1")


def pydeno_rows(n):
    import pydeno

    rows = {}

    def cold():
        with pydeno.IsolatedRuntime(sandbox="require") as rt:
            rt.eval("1 + 1")

    rows["cold start + first `1 + 1`"] = timed(cold, max(3, n["cold"] // 4))
    with pydeno.SandboxPool(size=4, sandbox="require") as pool:
        pool.wait_ready(120)

        rows["pooled checkout + first `1 + 1`"] = pooled_times(
            pool.checkout, lambda rt: rt.eval("1 + 1"), lambda rt: rt.close(),
            lambda: pool.wait_ready(60), max(5, n["pooled"] // 4))
        rows["pooled checkout + first `1 + 1` + close"] = pooled_times(
            pool.checkout, lambda rt: rt.eval("1 + 1"), lambda rt: rt.close(),
            lambda: pool.wait_ready(60), max(5, n["pooled"] // 4), with_close=True)
    with pydeno.IsolatedRuntime(sandbox="require", max_host_calls=10**9) as rt:
        rows["warm round trip (`1 + 1`)"] = timed(lambda: rt.eval("1 + 1"), n["warm"], 200)
        stamps = []
        rt.bind_function("tick", lambda i: stamps.append(time.perf_counter()))
        rt.eval(f"for (let i = 0; i < {n['calls']}; i++) tick(i)")
        rows["host call from a guest loop"] = [b - a for a, b in zip(stamps, stamps[1:])]
        rows["fib(25)"] = timed(lambda: rt.eval(FIB["javascript"]), n["fib"])

    def make():
        rt = pydeno.IsolatedRuntime(sandbox="require")
        return rt, rt.eval, rt.close

    rows["RSS of one idle worker (bytes)"] = idle_rss(make)
    with pydeno.SandboxPool(size=4, sandbox="require") as pool:
        pool.wait_ready(120)

        rows["short sessions per second, 2 threads (higher is better)"] = sessions_per_second(
            short_session(pool.checkout, lambda rt, code: rt.eval(code)), n["seconds"])
    return rows


def monty_rows(n):
    import pydantic_monty as monty

    rows = {}

    def cold():
        with monty.Monty(min_processes=1) as pool:
            with pool.checkout() as session:
                session.feed_run("1 + 1")

    rows["cold start + first `1 + 1`"] = timed(cold, n["cold"])
    with monty.Monty(min_processes=4, max_processes=4) as pool:
        time.sleep(0.5)

        def enter():
            session = pool.checkout()
            session.__enter__()
            return session

        rows["pooled checkout + first `1 + 1`"] = pooled_times(
            enter, lambda s: s.feed_run("1 + 1"), lambda s: s.__exit__(None, None, None),
            lambda: time.sleep(0.002), n["pooled"])
        rows["pooled checkout + first `1 + 1` + close"] = pooled_times(
            enter, lambda s: s.feed_run("1 + 1"), lambda s: s.__exit__(None, None, None),
            lambda: time.sleep(0.002), n["pooled"], with_close=True)
        with pool.checkout() as session:
            rows["warm round trip (`1 + 1`)"] = timed(lambda: session.feed_run("1 + 1"),
                                                       n["warm"], 200)

            def run_loop(tick, calls):
                session.feed_run(LOOP["python"], inputs={"n": calls},
                                 external_lookup={"tick": tick})

            rows["host call from a guest loop"] = host_call_gaps(run_loop, n["calls"])
            rows["fib(25)"] = timed(lambda: session.feed_run(FIB["python"]), n["fib"])

    def make():
        pool = monty.Monty(min_processes=1)
        pool.__enter__()
        session = pool.checkout()
        session.__enter__()

        def close():
            session.__exit__(None, None, None)
            pool.__exit__(None, None, None)

        return pool, session.feed_run, close

    rows["RSS of one idle worker (bytes)"] = idle_rss(make)
    with monty.Monty(min_processes=4, max_processes=4) as pool:
        time.sleep(0.5)

        rows["short sessions per second, 2 threads (higher is better)"] = sessions_per_second(
            short_session(pool.checkout, lambda s, code: s.feed_run(code)), n["seconds"])
    return rows


# --- the report -------------------------------------------------------------

def fmt(name, samples):
    median = statistics.median(samples)
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    if "bytes" in name:
        return f"{median / 2**20:.1f} MiB", f"{p95 / 2**20:.1f} MiB", median
    if "per second" in name:
        return f"{median:.0f}", "—", median
    if median >= 1e-3:
        return f"{median * 1e3:.2f} ms", f"{p95 * 1e3:.2f} ms", median
    return f"{median * 1e6:.1f} µs", f"{p95 * 1e6:.1f} µs", median


def table(language, other_name, ours, theirs):
    lines = [f"| {language} | stockade median | p95 | {other_name} median | p95 | stockade / {other_name} |",
             "|---|---|---|---|---|---|"]
    for name in ours:
        m1, p1, v1 = fmt(name, ours[name])
        m2, p2, v2 = fmt(name, theirs[name.removesuffix(MONTY)])
        ratio = v1 / v2 if v2 else float("nan")
        lines.append(f"| {name} | {m1} | {p1} | {m2} | {p2} | {ratio:.2f} |")
    return "\n".join(lines)


def main():
    bootstrap()
    quick = "--quick" in sys.argv
    n = ({"cold": 4, "pooled": 10, "warm": 100, "calls": 200, "fib": 2, "seconds": 1}
         if quick else
         {"cold": 40, "pooled": 200, "warm": 5000, "calls": 900, "fib": 10, "seconds": 5})
    # pydantic-monty allows 1,000 suspensions per feed by default; every
    # system gets the same host-call loop.
    import platform
    import pydeno  # noqa: F401
    import pydantic_monty  # noqa: F401
    javascript = table("JavaScript", "pydeno", stockade_rows("javascript", n), pydeno_rows(n))
    python = table("Python", "pydantic-monty", stockade_rows("python", n), monty_rows(n))
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                if line.startswith("model name")), platform.machine())
    report = (f"Measured {time.strftime('%Y-%m-%d')} on {os.cpu_count()} cores ({cpu}), "
              f"Linux {platform.release()}, with `python3 benches/compare.py`"
              f"{' --quick' if quick else ''}: pydeno 0.13.2 and pydantic-monty 1.4.0 from "
              "PyPI, every worker with its OS sandbox where it has one (`sandbox=\"require\"`; "
              "pydantic-monty has none). stockade's Python rows run on the package's default "
              "engine, CPython, except those marked monty engine. Ratios under 1 favour stockade, except for sessions "
              "per second, where higher is better.\n\n"
              f"{javascript}\n\n{python}\n")
    print(report)
    if "--no-write" not in sys.argv:
        text = DOC.read_text()
        if START in text and END in text:
            head, rest = text.split(START, 1)
            _, tail = rest.split(END, 1)
            text = f"{head}{START}\n{report}{END}{tail}"
        else:
            raise SystemExit(f"{DOC} has no {START} ... {END} block to replace")
        DOC.write_text(text)


if __name__ == "__main__":
    main()
