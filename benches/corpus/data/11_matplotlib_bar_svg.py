import matplotlib.pyplot as plt
import pandas as pd

df = pd.read_csv("/data/sales.csv")
totals = df.groupby("region")["units"].sum().sort_index()
fig, ax = plt.subplots()
ax.bar(totals.index, totals.values)
fig.savefig("/tmp/regions.svg")
svg = open("/tmp/regions.svg").read()
print(svg.startswith("<?xml"), "<svg" in svg)
print(totals.to_dict())
