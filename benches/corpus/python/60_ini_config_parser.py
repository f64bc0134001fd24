import re
from dataclasses import dataclass, field

CONFIG = """
; application settings
[server]
host = 127.0.0.1
port = 8080
debug = yes
workers = 4

[database]
url = postgres://localhost/app
timeout = 2.5
# retries before giving up
retries = 3

[features]
enabled = search, export , beta-ui
name = "My App"
"""


@dataclass
class Section:
    name: str
    values: dict = field(default_factory=dict)

    def get(self, key, default=None):
        raw = self.values.get(key)
        if raw is None:
            return default
        match raw.lower():
            case "yes" | "true" | "on":
                return True
            case "no" | "false" | "off":
                return False
        if re.fullmatch(r"-?\d+", raw):
            return int(raw)
        if re.fullmatch(r"-?\d*\.\d+", raw):
            return float(raw)
        if len(raw) >= 2 and raw[0] == raw[-1] == '"':
            return raw[1:-1]
        if "," in raw:
            return [part.strip() for part in raw.split(",")]
        return raw


def parse_ini(text):
    sections, current = {}, None
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line[0] in ";#":
            continue
        if m := re.fullmatch(r"\[(\w+)\]", line):
            current = sections.setdefault(m[1], Section(m[1]))
        elif "=" in line and current is not None:
            key, _, value = line.partition("=")
            current.values[key.strip()] = value.strip()
        else:
            raise ValueError(f"line {lineno}: cannot parse {line!r}")
    return sections


cfg = parse_ini(CONFIG)
for name, section in cfg.items():
    print(f"[{name}]")
    for key in section.values:
        value = section.get(key)
        print(f"  {key:<8} = {value!r:<30} ({type(value).__name__})")
print("missing with default:", cfg["server"].get("ssl", False))
print("total workers*retries:", cfg["server"].get("workers") * cfg["database"].get("retries"))
try:
    parse_ini("[ok]\nthis line is junk")
except ValueError as e:
    print("error:", e)
