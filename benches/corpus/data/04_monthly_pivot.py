import pandas as pd

df = pd.read_csv("/data/sales.csv", parse_dates=["date"])
df["month"] = df["date"].dt.strftime("%Y-%m")
pivot = df.pivot_table(index="month", columns="region", values="units", aggfunc="sum")
print(pivot.to_string())
