import os
import pandas as pd

df = pd.read_csv("/data/sales.csv")
top = df.nlargest(5, "units")[["date", "region", "units"]]
top.to_csv("/tmp/top.csv", index=False)
print(open("/tmp/top.csv").read())
print(os.path.getsize("/tmp/top.csv"))
