import pandas as pd

df = pd.read_csv("/data/sales.csv")
counts = df["product"].value_counts().sort_index()
counts.to_json("counts.json")
with open("report.txt", "w") as report:
    for product, count in counts.items():
        report.write(f"{product}: {count}\n")
print(open("report.txt").read(), end="")
print(pd.read_json("counts.json", typ="series").sort_index().to_dict())
