from collections import Counter

warehouse_log = """
IN apple 50
IN banana 30
OUT apple 12
IN cherry 100
OUT banana 30
OUT cherry 45
IN apple 5
OUT apple 20
IN durian 3
"""

stock = Counter()
moves = Counter()
for line in warehouse_log.strip().splitlines():
    kind, item, qty = line.split()
    qty = int(qty)
    stock[item] += qty if kind == "IN" else -qty
    moves[kind] += qty

print("Current stock:")
for item, qty in sorted(stock.items()):
    status = "OUT OF STOCK" if qty == 0 else ("low" if qty < 10 else "ok")
    print(f"  {item:<8}{qty:>5}  {status}")

print("Most stocked:", stock.most_common(2))
print("Total in/out:", dict(sorted(moves.items())))
positive = +stock
print("Items with stock:", sorted(positive))

order = Counter(apple=10, cherry=60, durian=1)
shortfall = order - stock
print("Can fulfil order:", not shortfall)
print("Shortfall:", dict(shortfall))
