from concurrent.futures import ThreadPoolExecutor
import pandas as pd

df = pd.read_csv("/data/sales.csv")

def total(region):
    return region, int(df[df["region"] == region]["units"].sum())

with ThreadPoolExecutor(max_workers=4) as pool:
    print(sorted(pool.map(total, ["north", "south", "east", "west"])))
