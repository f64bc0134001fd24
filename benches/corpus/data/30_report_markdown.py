import pandas as pd

df = pd.read_csv("/data/sales.csv", parse_dates=["date"])
df["revenue"] = (df["units"] * df["price"]).round(2)
monthly = df.groupby(df["date"].dt.month)["revenue"].sum().round(2)
lines = ["| month | revenue |", "|---|---|"]
lines += [f"| {month} | {revenue:.2f} |" for month, revenue in monthly.items()]
with open("report.md", "w") as f:
    f.write("\n".join(lines) + "\n")
print(open("report.md").read(), end="")
change = (monthly.iloc[-1] - monthly.iloc[0]) / monthly.iloc[0] * 100
print(f"change from January to March: {change:+.1f}%")
