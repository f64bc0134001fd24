import pandas as pd

df = pd.read_csv("/data/sales.csv", parse_dates=["date"])
march = df[df["date"].dt.month == 3]
print(f"March rows: {len(march)}")
print(f"March units: {march['units'].sum()}")
best = march.groupby("product")["units"].sum().idxmax()
print(f"Best product in March: {best}")
