import copy

config = {
    "server": {"host": "0.0.0.0", "port": 8080,
               "tls": {"enabled": True, "cert": "/etc/cert.pem"}},
    "database": {"url": "postgres://db/app", "pool": {"min": 2, "max": 10}},
    "features": ["search", "export"],
    "debug": False,
}


def flatten(obj, prefix=""):
    items = {}
    if isinstance(obj, dict):
        for key, value in obj.items():
            items.update(flatten(value, f"{prefix}{key}."))
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            items.update(flatten(value, f"{prefix}{i}."))
    else:
        items[prefix.rstrip(".")] = obj
    return items


def unflatten(flat):
    root = {}
    for dotted, value in flat.items():
        parts = dotted.split(".")
        node = root
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return root


flat = flatten(config)
for key in sorted(flat):
    print(f"{key} = {flat[key]!r}")

back = unflatten(flat)
print(back["server"]["tls"])
print(back["features"])
print(back["database"] == config["database"])

shallow, deep = copy.copy(config), copy.deepcopy(config)
config["server"]["port"] = 9090
config["features"].append("audit")
print("shallow sees change:", shallow["server"]["port"], shallow["features"])
print("deep unaffected:   ", deep["server"]["port"], deep["features"])
print(shallow["server"] is config["server"], deep["server"] is config["server"])
