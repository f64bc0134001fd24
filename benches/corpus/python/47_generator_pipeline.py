import re

ACCESS_LOG = """\
192.168.1.10 - - [10/Oct/2023:13:55:36] "GET /index.html HTTP/1.1" 200 2326
192.168.1.11 - - [10/Oct/2023:13:55:40] "GET /about.html HTTP/1.1" 200 1530
10.0.0.7 - - [10/Oct/2023:13:56:01] "POST /login HTTP/1.1" 302 -
192.168.1.10 - - [10/Oct/2023:13:56:12] "GET /missing.png HTTP/1.1" 404 209
10.0.0.7 - - [10/Oct/2023:13:57:30] "GET /dashboard HTTP/1.1" 200 10450
# comment line that should be skipped
172.16.0.3 - - [10/Oct/2023:13:58:02] "GET /index.html HTTP/1.1" 200 2326
192.168.1.11 - - [10/Oct/2023:13:59:59] "GET /api/data HTTP/1.1" 500 67
"""

PATTERN = re.compile(r'(\S+) .*?\[(.*?)\] "(\w+) (\S+) [^"]*" (\d{3}) (\S+)')


def read_lines(text):
    for line in text.splitlines():
        yield line


def skip_comments(lines):
    return (ln for ln in lines if ln and not ln.startswith("#"))


def parse(lines):
    for ln in lines:
        m = PATTERN.match(ln)
        if m:
            ip, ts, method, path, status, size = m.groups()
            yield {"ip": ip, "ts": ts, "method": method, "path": path,
                   "status": int(status), "bytes": 0 if size == "-" else int(size)}


def only(records, **criteria):
    for r in records:
        if all(r[k] == v for k, v in criteria.items()):
            yield r


pipeline = parse(skip_comments(read_lines(ACCESS_LOG)))
records = list(pipeline)
print("parsed:", len(records))
print("bytes served (200):", sum(r["bytes"] for r in only(records, status=200)))
print("GETs by 192.168.1.10:", [r["path"] for r in only(records, method="GET", ip="192.168.1.10")])
errors = (f"{r['ts'][-8:]} {r['status']} {r['path']}" for r in records if r["status"] >= 400)
for e in errors:
    print("  error:", e)
gen = parse(read_lines(ACCESS_LOG))
print("first via next():", next(gen)["path"], "| second:", next(gen)["path"])
print("remaining in generator:", sum(1 for _ in gen))
print("unique ips:", sorted({r["ip"] for r in records}))
