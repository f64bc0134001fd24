import csv
import io

customers_csv = """id,name,city
1,Alice,Paris
2,Bob,Berlin
3,Chloe,Madrid
4,Dmitri,Oslo
"""

orders_csv = """order_id,customer_id,amount
100,1,25.50
101,2,12.00
102,1,7.25
103,3,99.90
104,2,3.10
105,1,40.00
"""

customers = {int(r["id"]): r for r in csv.DictReader(io.StringIO(customers_csv))}
orders = list(csv.DictReader(io.StringIO(orders_csv)))

joined = []
for o in orders:
    cust = customers.get(int(o["customer_id"]))
    joined.append({
        "order": int(o["order_id"]),
        "name": cust["name"] if cust else "?",
        "city": cust["city"] if cust else "?",
        "amount": float(o["amount"]),
    })

for row in joined:
    print(f"#{row['order']} {row['name']:<6} {row['city']:<7} {row['amount']:>7.2f}")

spent = {}
for row in joined:
    spent[row["name"]] = spent.get(row["name"], 0) + row["amount"]

print()
for c in customers.values():
    total = spent.get(c["name"], 0.0)
    flag = "" if total else "  (no orders)"
    print(f"{c['name']}: {total:.2f}{flag}")

out = io.StringIO()
writer = csv.writer(out, lineterminator="\n")
writer.writerow(["name", "total"])
for name, total in sorted(spent.items()):
    writer.writerow([name, f"{total:.2f}"])
print(out.getvalue(), end="")
