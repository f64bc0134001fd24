import pandas as pd

df = pd.read_csv("/data/sales.csv", parse_dates=["date"])
df["weekday"] = df["date"].dt.day_name()
by_day = df.groupby("weekday")["units"].sum()
order = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
print(by_day.reindex(order).to_string())
