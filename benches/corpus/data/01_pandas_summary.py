import pandas as pd

df = pd.read_csv("/data/sales.csv", parse_dates=["date"])
print(df.shape)
print(df.dtypes.to_string())
print(df.describe().round(2).to_string())
