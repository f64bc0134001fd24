"""Data work on CPython in the sandbox, against the host's own interpreter:
a pooled checkout that runs a pandas groupby and closes, with pandas
preloaded in the pool's template and without, beside the host's own
`python -c "import pandas"` with the same packages; and the memory of such
a worker, split into what it shares with the template and what is its own.
Prints a markdown table (median and p95) and writes it into
docs/performance.md.

    .venv/bin/python benches/data.py      # after scripts/test built the package

`--quick` takes few samples; `--no-write` leaves the docs alone. The
packages come through the package layer (uv; `STOCKADE_UV`, or the uv
beside this interpreter), cached where the machine keeps them.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import stockade

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare import descendants, timed  # noqa: E402  (the other benchmark's helpers)

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "performance.md"
START, END = "<!-- data:start -->", "<!-- data:end -->"
PACKAGES = ["numpy==2.4.6", "pandas==3.1.1"]
GROUPBY = ("import pandas as pd\n"
           "df = pd.DataFrame({'region': ['n', 's', 'n', 'e'] * 25, 'units': range(100)})\n"
           "int(df.groupby('region')['units'].sum()['n'])")
EXPECTED = sum(i for i in range(100) if i % 4 in (0, 2))


def summary(samples):
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return statistics.median(ordered), p95


def memory_kib(pid: int) -> dict:
    """Rss, and its shared and private parts, from smaps_rollup."""
    fields = {}
    for line in open(f"/proc/{pid}/smaps_rollup"):
        parts = line.split()
        if len(parts) >= 2 and parts[1].isdigit():
            fields[parts[0].rstrip(":")] = int(parts[1])
    return {
        "rss": fields.get("Rss", 0),
        "shared": fields.get("Shared_Clean", 0) + fields.get("Shared_Dirty", 0),
        "private": fields.get("Private_Clean", 0) + fields.get("Private_Dirty", 0),
    }


def pooled(preload, samples):
    """Checkout + groupby + close, timed; and one idle worker's memory."""
    options = dict(engine="cpython", sandbox="require", packages=PACKAGES, size=4)
    if preload:
        options["preload"] = ["pandas"]
    with stockade.Pool("python", **options) as pool:
        pool.wait_ready(300)

        def one():
            with pool.checkout() as sandbox:
                assert sandbox.run(GROUPBY) == EXPECTED

        one()  # the first checkout after start pays nothing the rest do not
        times = timed(one, samples, prepare=lambda: pool.wait_ready(60))
        before = descendants()
        sandbox = pool.checkout()
        sandbox.run(GROUPBY)
        time.sleep(0.3)
        worker = max(descendants() - before, default=None)
        rss = memory_kib(worker) if worker else None
        site = sandbox.run("import os, pandas\nos.path.dirname(os.path.dirname(pandas.__file__))")
        sandbox.close()
    return times, rss, site


def host_import(site, samples):
    """The host's own interpreter importing pandas from the same packages."""
    code = f"import sys; sys.path.append({site!r}); import pandas"
    return timed(lambda: subprocess.run([sys.executable, "-I", "-S", "-c", code], check=True),
                 samples)


def ms(seconds):
    return f"{seconds * 1e3:.1f} ms"


def main():
    quick = "--quick" in sys.argv
    n = 8 if quick else 60
    with_preload, rss, site = pooled(True, n)
    without, _, _ = pooled(False, max(4, n // 4))
    host = host_import(site, max(4, n // 4))
    rows = [
        ("pooled checkout + pandas groupby + close, pandas preloaded", with_preload),
        ("pooled checkout + pandas groupby + close, no preload", without),
        ("host: `python -I -S -c \"import pandas\"`, the same packages", host),
    ]
    lines = ["| data work (CPython) | median | p95 | samples |", "|---|---|---|---|"]
    for name, samples in rows:
        median, p95 = summary(samples)
        lines.append(f"| {name} | {ms(median)} | {ms(p95)} | {len(samples)} |")
    if rss:
        lines.append("")
        lines.append(
            f"An idle worker of that pool, after one groupby: {rss['rss'] / 1024:.1f} MiB "
            f"resident, {rss['shared'] / 1024:.1f} MiB of it shared with other processes (the "
            f"template, sibling workers, the libraries' file pages) and "
            f"{rss['private'] / 1024:.1f} MiB its own. With a scratch (the default), each "
            "worker imports the preloaded modules itself once its sandbox is whole, as the "
            "pool refills, off the checkout's path (docs/data.md).")
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                if line.startswith("model name")), platform.machine())
    report = (f"Measured {time.strftime('%Y-%m-%d')} on {os.cpu_count()} cores ({cpu}), Linux "
              f"{platform.release()}, CPython {platform.python_version()}, with "
              f"`.venv/bin/python benches/data.py`{' --quick' if quick else ''}: "
              f"{', '.join(PACKAGES)} from the package layer, every worker under "
              "`sandbox=\"require\"`, a pool of 4.\n\n" + "\n".join(lines) + "\n")
    print(report)
    if "--no-write" not in sys.argv:
        text = DOC.read_text()
        if START not in text or END not in text:
            raise SystemExit(f"{DOC} has no {START} ... {END} block to replace")
        head, rest = text.split(START, 1)
        _, tail = rest.split(END, 1)
        DOC.write_text(f"{head}{START}\n{report}{END}{tail}")


if __name__ == "__main__":
    main()
