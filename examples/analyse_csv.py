"""The data job agents are given most: "here is a CSV, what happened in
March, draw it". The host mounts the CSV read only at /data and names the
packages the guest may import (installed on the host by uv, wheels only,
cached); the model's code runs on real CPython with pandas and matplotlib
inside the sandbox, and its chart comes back as a PNG output, which the
host writes to disk.

    python examples/analyse_csv.py [OUT_DIR]     # default: ./analyse_csv_out
"""

import sys
import tempfile
from pathlib import Path

import stockade

# What a model might write for "which region sold most in March? Chart it."
GUEST = """
import pandas as pd
import matplotlib.pyplot as plt

df = pd.read_csv("/data/sales.csv", parse_dates=["date"])
df["revenue"] = df["units"] * df["price"]
march = df[df["date"].dt.month == 3]
by_region = march.groupby("region")["revenue"].sum().sort_values(ascending=False)
print("March revenue by region:")
print(by_region.round(2).to_string())

fig, ax = plt.subplots(figsize=(6, 3.5))
by_region.plot.bar(ax=ax, color="#4c72b0")
ax.set_title("Revenue by region, March 2026")
ax.set_ylabel("revenue")
plt.tight_layout()
plt.show()
by_region.index[0]
"""


def sales_csv() -> str:
    """A quarter of daily sales: four regions, two products."""
    rows = ["date,region,product,units,price"]
    for month, days in ((1, 31), (2, 28), (3, 31)):
        for day in range(1, days + 1):
            for i, region in enumerate(("north", "south", "east", "west")):
                units = (day * (i + 3) + month * 7) % 40 + 1
                product, price = ("widget", 9.99) if (day + i) % 2 else ("gadget", 19.5)
                rows.append(f"2026-{month:02d}-{day:02d},{region},{product},{units},{price}")
    return "\n".join(rows) + "\n"


def main() -> None:
    out_dir = Path(sys.argv[1] if len(sys.argv) > 1 else "analyse_csv_out")
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as upload:
        Path(upload, "sales.csv").write_text(sales_csv())
        with stockade.Sandbox(
            "python",
            engine="cpython",
            sandbox="require",
            packages=stockade.Packages(["pandas==3.1.1", "matplotlib==3.11.2"]),
            mounts=[stockade.Mount("/data", upload, mode="ro")],
            limits=stockade.Limits(max_duration=60),
        ) as sandbox:
            result = sandbox.execute(GUEST)
    if not result.ok:
        sys.exit(f"the guest failed: {result.error}\n{result.stderr}")
    print(result.stdout, end="")
    print("top region:", result.result)
    for number, output in enumerate(result.outputs, 1):
        path = output.save(out_dir / f"chart-{number}.{output.extension}")
        print(f"output {number}: {output.mime_type}, {len(output.data)} bytes -> {path}")


if __name__ == "__main__":
    main()
