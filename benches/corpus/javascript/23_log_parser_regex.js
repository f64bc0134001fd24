const logText = `
2024-03-01 08:15:02 INFO  [auth] user=alice action=login ip=10.0.0.5
2024-03-01 08:16:45 WARN  [db] slow query took 1532ms table=orders
2024-03-01 08:17:10 ERROR [auth] user=bob action=login reason="bad password" ip=10.0.0.9
2024-03-01 08:20:00 INFO  [api] GET /orders/42 200 35ms
2024-03-01 08:20:03 INFO  [api] POST /orders 201 120ms
2024-03-01 08:21:30 ERROR [api] GET /orders/99 500 2011ms
2024-03-01 08:22:00 INFO  [auth] user=alice action=logout ip=10.0.0.5
malformed line here
`;

const lineRe = /^(?<date>\d{4}-\d{2}-\d{2}) (?<time>[\d:]{8}) (?<level>[A-Z]+)\s+\[(?<svc>\w+)\] (?<msg>.*)$/;
const entries = [];
const bad = [];
for (const line of logText.trim().split("\n")) {
  const m = line.match(lineRe);
  if (m) entries.push({ ...m.groups });
  else bad.push(line);
}
console.log(entries.length, "entries,", bad.length, "unparsed:", bad);
console.log(entries[2]);

const levels = entries.reduce((acc, e) => ({ ...acc, [e.level]: (acc[e.level] ?? 0) + 1 }), {});
console.log(levels);

const durations = [...logText.matchAll(/(\d+)ms/g)].map((m) => Number(m[1]));
console.log("durations:", durations, "max:", Math.max(...durations));

const requests = [...logText.matchAll(/(GET|POST) (\S+) (\d{3})/g)].map(([, method, path, status]) => ({ method, path, status: +status }));
console.log(requests);

const kv = (msg) => Object.fromEntries([...msg.matchAll(/(\w+)=("[^"]*"|\S+)/g)].map(([, k, v]) => [k, v.replace(/^"|"$/g, "")]));
for (const e of entries.filter((e) => e.svc === "auth")) console.log(e.time, kv(e.msg));

const ips = new Set(logText.match(/\b\d{1,3}(?:\.\d{1,3}){3}\b/g));
console.log(ips);
console.log(logText.replace(/ip=\d+\.\d+\.\d+\.\d+/g, "ip=<redacted>").split("\n")[1]);
console.log(/error/i.test(logText), /CRITICAL/.test(logText), lineRe.flags === "", /a/gi.flags);
