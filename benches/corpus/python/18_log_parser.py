import re
from collections import Counter, defaultdict

LOG = """\
2024-03-01 12:00:01 INFO  [auth] user=alice action=login ip=10.0.0.5
2024-03-01 12:00:07 WARN  [db] slow query took 1532ms table=orders
2024-03-01 12:01:15 ERROR [auth] user=bob action=login reason="bad password"
2024-03-01 12:02:44 INFO  [api] GET /v1/items 200 35ms
2024-03-01 12:02:45 INFO  [api] POST /v1/items 201 120ms
2024-03-01 12:03:10 ERROR [api] GET /v1/items/99 404 8ms
2024-03-01 12:04:00 INFO  [auth] user=alice action=logout ip=10.0.0.5
2024-03-01 12:05:30 WARN  [db] slow query took 2210ms table=users
2024-03-01 12:06:02 INFO  [api] GET /v1/users 200 41ms
"""

LINE_RE = re.compile(r"^(?P<date>\S+) (?P<time>\S+) (?P<level>\w+)\s+\[(?P<comp>\w+)\] (?P<msg>.*)$")
KV_RE = re.compile(r'(\w+)=("[^"]*"|\S+)')
HTTP_RE = re.compile(r"(GET|POST|PUT|DELETE) (\S+) (\d{3}) (\d+)ms")

levels = Counter()
by_component = defaultdict(list)
latencies = []
for line in LOG.splitlines():
    m = LINE_RE.match(line)
    if not m:
        continue
    levels[m["level"]] += 1
    by_component[m["comp"]].append(m["time"])
    if h := HTTP_RE.search(m["msg"]):
        method, path, status, ms = h.groups()
        latencies.append((int(ms), method, path, int(status)))
    kv = {k: v.strip('"') for k, v in KV_RE.findall(m["msg"])}
    if m["level"] == "ERROR":
        print(f"ERROR at {m['time']} in {m['comp']}: {kv or m['msg']}")

print("levels:", dict(sorted(levels.items())))
for comp, times in sorted(by_component.items()):
    print(f"  {comp:<5} {len(times)} lines, first {times[0]}, last {times[-1]}")
latencies.sort(reverse=True)
print("slowest request:", latencies[0])
print("error rate: %.1f%%" % (100 * sum(s >= 400 for *_, s in latencies) / len(latencies)))
slow = [int(x) for x in re.findall(r"took (\d+)ms", LOG)]
print("slow queries ms:", slow, "avg", sum(slow) / len(slow))
