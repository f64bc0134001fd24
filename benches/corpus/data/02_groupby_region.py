import pandas as pd

df = pd.read_csv("/data/sales.csv")
df["revenue"] = df["units"] * df["price"]
summary = df.groupby("region")["revenue"].agg(["sum", "mean", "count"]).round(2)
print(summary.sort_values("sum", ascending=False).to_string())
