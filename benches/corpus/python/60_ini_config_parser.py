import re

CONFIG = """
; application settings
[server]
host = 127.0.0.1
port = 8080
debug = yes

[database]
url = postgres://localhost/app
timeout = 2.5
retries = 3  # before giving up

[features]
enabled = search, export , beta-ui
name = "My App"
"""


def convert(raw):
    match raw.lower():
        case "yes" | "true" | "on" | "no" | "false" | "off" as word:
            return word in ("yes", "true", "on")
        case s if re.fullmatch(r"-?\d+(\.\d+)?", s):
            return float(s) if "." in s else int(s)
        case s if len(s) >= 2 and s[0] == s[-1] == '"':
            return raw[1:-1]
        case s if "," in s:
            return [part.strip() for part in raw.split(",")]
    return raw


def parse_ini(text):
    sections, current = {}, None
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.split(" #")[0].strip()
        if not line or line[0] in ";#":
            continue
        if m := re.fullmatch(r"\[(\w+)\]", line):
            current = sections.setdefault(m[1], {})
        elif "=" in line and current is not None:
            key, _, value = line.partition("=")
            current[key.strip()] = value.strip()
        else:
            raise ValueError(f"line {lineno}: cannot parse {line!r}")
    return sections


cfg = parse_ini(CONFIG)
for name, section in cfg.items():
    print(f"[{name}]")
    for key, value in ((k, convert(v)) for k, v in section.items()):
        print(f"  {key:<8} = {value!r:<34} ({type(value).__name__})")
print("ssl (default off):", convert(cfg["server"].get("ssl", "off")),
      "| port + retries:", convert(cfg["server"]["port"]) + convert(cfg["database"]["retries"]))
try:
    parse_ini("[ok]\nthis line is junk")
except ValueError as e:
    print("error:", e)
