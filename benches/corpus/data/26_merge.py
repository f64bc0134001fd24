import pandas as pd

df = pd.read_csv("/data/sales.csv")
targets = pd.DataFrame({"region": ["north", "south", "east", "west"], "target": [2000, 2200, 1800, 2100]})
totals = df.groupby("region", as_index=False)["units"].sum()
merged = totals.merge(targets, on="region")
merged["met"] = merged["units"] >= merged["target"]
print(merged.sort_values("region").to_string(index=False))
