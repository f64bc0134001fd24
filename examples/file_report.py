"""A file-processing agent step: a user uploaded a CSV, and the model wrote
code that reads it and writes a report for the user to download. The host
mounts the upload read only and an output directory read-write; the guest
sees those two directories and nothing else of the host's. In Python and
in JavaScript.

    python examples/file_report.py            # both languages
    python examples/file_report.py javascript
"""

import sys
import tempfile
from pathlib import Path

import stockade

UPLOAD = """region,product,amount
north,apple,120
south,pear,80
north,plum,30
east,apple,55
"""

# What a model might write for "summarise sales by region into report.md".
GUEST = {
    "python": """
from pathlib import Path
totals = {}
for line in Path('/data/sales.csv').read_text().splitlines()[1:]:
    region, product, amount = line.split(',')
    totals[region] = totals.get(region, 0) + int(amount)
lines = ['# Sales by region', ''] + [f'- {r}: {t}' for r, t in sorted(totals.items())]
Path('/out/report.md').write_text('\\n'.join(lines) + '\\n')
print('wrote', len(totals), 'regions')
totals
""",
    "javascript": """
const fs = require('fs');
const totals = {};
for (const line of fs.readFileSync('/data/sales.csv', 'utf8').trim().split('\\n').slice(1)) {
  const [region, , amount] = line.split(',');
  totals[region] = (totals[region] ?? 0) + Number(amount);
}
const regions = Object.keys(totals).sort();
const lines = ['# Sales by region', '', ...regions.map((r) => `- ${r}: ${totals[r]}`)];
fs.writeFileSync('/out/report.md', lines.join('\\n') + '\\n');
console.log('wrote', regions.length, 'regions');
totals
""",
}


def step(language: str, uploads: Path, reports: Path) -> None:
    mounts = [stockade.Mount("/data", uploads, mode="ro"),
              stockade.Mount("/out", reports, mode="rw")]
    with stockade.Sandbox(language, mounts=mounts) as sandbox:
        totals = sandbox.run(GUEST[language], print=lambda stream, text: print(f"[{language}] {text}", end=""))
    report = (reports / "report.md").read_text()
    print(f"{language} result: {dict(sorted(totals.items()))}")
    print(f"{language} report:\n{report}")


def main() -> None:
    languages = sys.argv[1:] or ["python", "javascript"]
    with tempfile.TemporaryDirectory() as scratch:
        for language in languages:
            uploads = Path(scratch, language, "uploads")
            reports = Path(scratch, language, "reports")
            uploads.mkdir(parents=True)
            reports.mkdir()
            (uploads / "sales.csv").write_text(UPLOAD)
            step(language, uploads, reports)
            # The upload is as the user sent it.
            assert (uploads / "sales.csv").read_text() == UPLOAD


if __name__ == "__main__":
    main()
