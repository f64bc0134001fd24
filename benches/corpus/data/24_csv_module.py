import csv
from collections import Counter, defaultdict

units = defaultdict(int)
products = Counter()
with open("/data/sales.csv", newline="") as f:
    for row in csv.DictReader(f):
        units[row["region"]] += int(row["units"])
        products[row["product"]] += 1
print(dict(sorted(units.items())))
print(products.most_common())
