records = [
    ("2023-Q1", "apples", 120), ("2023-Q1", "pears", 80),
    ("2023-Q2", "apples", 150), ("2023-Q2", "plums", 40),
    ("2023-Q3", "pears", 95), ("2023-Q3", "apples", 110),
    ("2023-Q3", "plums", 60), ("2023-Q4", "apples", 170),
    ("2023-Q4", "pears", 70), ("2023-Q1", "plums", 25),
]

quarters = sorted({q for q, _, _ in records})
fruits = sorted({f for _, f, _ in records})

pivot = {f: {q: 0 for q in quarters} for f in fruits}
for q, f, n in records:
    pivot[f][q] += n

width = max(len(f) for f in fruits) + 2
header = "".ljust(width) + "".join(q.rjust(9) for q in quarters) + "    Total"
print(header)
for f in fruits:
    row = pivot[f]
    cells = "".join(str(row[q]).rjust(9) for q in quarters)
    print(f.ljust(width) + cells + str(sum(row.values())).rjust(9))

col_totals = [sum(pivot[f][q] for f in fruits) for q in quarters]
print("Total".ljust(width) + "".join(str(t).rjust(9) for t in col_totals)
      + str(sum(col_totals)).rjust(9))

share = {f: sum(pivot[f].values()) / sum(col_totals) for f in fruits}
for f, s in sorted(share.items(), key=lambda kv: -kv[1]):
    print(f"{f:>8}: {s:6.1%}")
