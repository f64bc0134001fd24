from decimal import Decimal, ROUND_HALF_UP, getcontext

getcontext().prec = 28
CENT = Decimal("0.01")

items = [("Notebook", "3.99", 4), ("Pen", "0.35", 12), ("Backpack", "24.50", 1),
         ("Stapler", "7.15", 2)]
tax_rate = Decimal("0.0825")

subtotal = Decimal("0")
for name, price, qty in items:
    line = Decimal(price) * qty
    subtotal += line
    print(f"{name:<10}{qty:>3} x {price:>6} = {line:>8}")

discount = (subtotal * Decimal("0.10")).quantize(CENT, ROUND_HALF_UP) if subtotal > 50 else Decimal("0.00")
taxable = subtotal - discount
tax = (taxable * tax_rate).quantize(CENT, rounding=ROUND_HALF_UP)
total = taxable + tax
print(f"{'Subtotal':<22}{subtotal:>9}")
print(f"{'Discount (10%)':<22}{-discount:>9}")
print(f"{'Tax 8.25%':<22}{tax:>9}")
print(f"{'Total':<22}{total:>9}")

print(0.1 + 0.2 == 0.3, Decimal("0.1") + Decimal("0.2") == Decimal("0.3"))

people = 3
share = (total / people).quantize(CENT, rounding=ROUND_HALF_UP)
shares = [share] * (people - 1) + [total - share * (people - 1)]
print("split:", [str(s) for s in shares], "sum ok:", sum(shares) == total)

for value in ("2.675", "2.665", "-1.005"):
    d = Decimal(value)
    print(value, "->", d.quantize(CENT, ROUND_HALF_UP), "| float round:", round(float(value), 2))
