import pandas as pd

df = pd.read_csv("/data/sales.csv")
summary = df.groupby("product")["units"].sum().reset_index()
summary.to_excel("summary.xlsx", index=False)
back = pd.read_excel("summary.xlsx")
print(back.to_string(index=False))
