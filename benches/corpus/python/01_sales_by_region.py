from collections import defaultdict

sales = [
    {"region": "North", "product": "Widget", "units": 12, "price": 2.50},
    {"region": "South", "product": "Gadget", "units": 5, "price": 10.00},
    {"region": "North", "product": "Gadget", "units": 3, "price": 10.00},
    {"region": "East", "product": "Widget", "units": 20, "price": 2.50},
    {"region": "South", "product": "Widget", "units": 7, "price": 2.50},
    {"region": "East", "product": "Doohickey", "units": 1, "price": 99.99},
    {"region": "North", "product": "Doohickey", "units": 2, "price": 99.99},
]

totals = defaultdict(float)
units = defaultdict(int)
for row in sales:
    totals[row["region"]] += row["units"] * row["price"]
    units[row["region"]] += row["units"]

print(f"{'Region':<8}{'Units':>6}{'Revenue':>12}")
print("-" * 26)
for region in sorted(totals, key=totals.get, reverse=True):
    print(f"{region:<8}{units[region]:>6}{totals[region]:>12,.2f}")
print("-" * 26)
print(f"{'Total':<8}{sum(units.values()):>6}{sum(totals.values()):>12,.2f}")

best = max(sales, key=lambda r: r["units"] * r["price"])
print(f"Largest line: {best['product']} in {best['region']} "
      f"({best['units'] * best['price']:.2f})")
