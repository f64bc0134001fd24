"""Short pooled sessions (checkout, three feeds, close) from two threads for
a few seconds; prints sessions per second. Made to run under a profiler:

    perf record -a -e cpu-clock -F 2000 -g -o /tmp/perf.data -- \\
        .venv/bin/python benches/short_sessions.py
    perf report -i /tmp/perf.data --children --sort sym --stdio -g none
"""

import sys
import threading
import time

import stockade


def sessions_per_second(pool, seconds=5.0, threads=2):
    """Short sessions of `pool` (checkout, three `1 + 1` feeds, close) per
    second, from `threads` threads for `seconds`."""
    count = 0
    lock = threading.Lock()
    pool.wait_ready(60)
    stop = time.perf_counter() + seconds

    def loop():
        nonlocal count
        while time.perf_counter() < stop:
            with pool.checkout() as sandbox:
                for _ in range(3):
                    sandbox.run("1 + 1")
            with lock:
                count += 1

    workers = [threading.Thread(target=loop) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return count / seconds


def main(language="python", seconds=5.0, threads=2):
    with stockade.Pool(language, size=4) as pool:
        rate = sessions_per_second(pool, seconds, threads)
    print(f"{language}: {rate:.0f} sessions per second")

if __name__ == "__main__":
    main(*sys.argv[1:2])
