import re

doc = """# Release Notes

Version **2.4** brings *many* improvements. See [the docs](https://example.com/docs).

## Added
- Support for `async` handlers
- New [CLI flag](https://example.com/cli) `--dry-run`

## Fixed
1. Crash when config was empty
2. **Memory leak** in the cache layer
"""

headings = []
toc_lines = []
out = []
for line in doc.splitlines():
    if m := re.match(r"^(#+)\s+(.*)", line):
        level, title = len(m[1]), m[2]
        headings.append((level, title))
        out.append(title.upper() if level == 1 else title)
        out.append(("=" if level == 1 else "-") * len(title))
        continue
    line = re.sub(r"\*\*(.+?)\*\*", r"\1", line)
    line = re.sub(r"\*(.+?)\*", r"_\1_", line)
    line = re.sub(r"`([^`]+)`", r"'\1'", line)
    line = re.sub(r"\[([^\]]+)\]\(([^)]+)\)", r"\1 <\2>", line)
    line = re.sub(r"^- ", "  • ", line)
    line = re.sub(r"^(\d+)\. ", r"  \1) ", line)
    out.append(line)

print("\n".join(out).strip())
print()
print("Table of contents:")
for level, title in headings:
    anchor = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    print(f"{'  ' * (level - 1)}- {title} (#{anchor})")
links = re.findall(r"\]\((https?://[^)]+)\)", doc)
print("links:", links)
print("code spans:", re.findall(r"`([^`]+)`", doc))
