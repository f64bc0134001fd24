import json
import os
import tempfile
import pandas as pd

df = pd.read_csv("/data/sales.csv")
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "summary.json")
    with open(path, "w") as f:
        json.dump(df.groupby("region")["units"].sum().to_dict(), f, sort_keys=True)
    print(open(path).read())
    print(sorted(os.listdir(tmp)))
print(os.path.exists(tmp))
