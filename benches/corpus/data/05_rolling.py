import pandas as pd

df = pd.read_csv("/data/sales.csv", parse_dates=["date"])
daily = df.groupby("date")["units"].sum()
rolling = daily.rolling(7).mean().dropna()
print(rolling.head(5).round(3).to_string())
print("max 7-day average:", round(rolling.max(), 3), "on", rolling.idxmax().date())
