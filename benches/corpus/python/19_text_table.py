rows = [
    ("Mercury", 0.387, 0.055, 0, 87.97),
    ("Venus", 0.723, 0.815, 0, 224.70),
    ("Earth", 1.000, 1.000, 1, 365.26),
    ("Mars", 1.524, 0.107, 2, 686.98),
    ("Jupiter", 5.203, 317.8, 95, 4332.59),
    ("Saturn", 9.537, 95.2, 146, 10759.22),
]
headers = ("Planet", "AU", "Mass (Earth)", "Moons", "Year (days)")


def fmt(value):
    if isinstance(value, float):
        return f"{value:,.3f}" if value < 100 else f"{value:,.1f}"
    return str(value)


cells = [[fmt(v) for v in row] for row in rows]
widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]


def line(left, mid, right, fill="─"):
    return left + mid.join(fill * (w + 2) for w in widths) + right


print(line("┌", "┬", "┐"))
print("│" + "│".join(f" {h:^{w}} " for h, w in zip(headers, widths)) + "│")
print(line("├", "┼", "┤"))
for row in cells:
    parts = [f" {row[0]:<{widths[0]}} "] + [f" {c:>{w}} " for c, w in zip(row[1:], widths[1:])]
    print("│" + "│".join(parts) + "│")
print(line("└", "┴", "┘"))

print()
print("%-8s|%8s|%6s" % ("name", "au", "moons"))
for name, au, _, moons, _ in rows:
    print("%-8s|%8.2f|%6d" % (name, au, moons))
print(f"Total moons: {sum(r[3] for r in rows)}; planets with moons: {sum(r[3] > 0 for r in rows)}")
