import base64
import hashlib
import json

raw = """
{
  "users": [
    {"id": 1, "name": "ada", "tags": ["admin", "dev"], "active": true},
    {"id": 2, "name": "grace", "tags": ["dev"], "active": false},
    {"id": 3, "name": "linus", "tags": [], "active": true},
    {"id": 4, "name": "barbara", "tags": ["ops", "dev"], "active": true}
  ],
  "meta": {"version": 3, "source": "export"}
}
"""

data = json.loads(raw)
active = [u for u in data["users"] if u["active"]]
print(f"{len(active)} of {len(data['users'])} users active")

by_tag = {}
for user in data["users"]:
    for tag in user["tags"]:
        by_tag.setdefault(tag, []).append(user["name"])

summary = {
    "version": data["meta"]["version"] + 1,
    "active_names": sorted(u["name"].title() for u in active),
    "tags": {t: sorted(names) for t, names in sorted(by_tag.items())},
    "untagged": [u["id"] for u in data["users"] if not u["tags"]],
}
print(json.dumps(summary, indent=2))
print(json.dumps(summary, separators=(",", ":"), sort_keys=True))

canonical = json.dumps(summary, separators=(",", ":"), sort_keys=True).encode()
digest = hashlib.sha256(canonical).hexdigest()
print("sha256:", digest[:16], "| md5:", hashlib.md5(canonical).hexdigest())
token = base64.urlsafe_b64encode(canonical[:24]).decode()
print("base64:", token, "->", base64.urlsafe_b64decode(token).decode())
roundtrip = json.loads(json.dumps(summary))
print(roundtrip == summary, type(roundtrip["untagged"]).__name__)
