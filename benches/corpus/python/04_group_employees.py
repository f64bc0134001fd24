from itertools import groupby
from operator import itemgetter

employees = [
    {"name": "Ann", "dept": "Engineering", "salary": 120000, "years": 5},
    {"name": "Ben", "dept": "Sales", "salary": 70000, "years": 2},
    {"name": "Cara", "dept": "Engineering", "salary": 135000, "years": 8},
    {"name": "Dan", "dept": "Support", "salary": 55000, "years": 1},
    {"name": "Eve", "dept": "Sales", "salary": 82000, "years": 6},
    {"name": "Finn", "dept": "Engineering", "salary": 98000, "years": 2},
    {"name": "Gus", "dept": "Support", "salary": 61000, "years": 4},
]

employees.sort(key=itemgetter("dept", "name"))
for dept, group in groupby(employees, key=itemgetter("dept")):
    members = list(group)
    avg = sum(m["salary"] for m in members) / len(members)
    senior = sum(m["years"] >= 5 for m in members)
    names = ", ".join(m["name"] for m in members)
    print(f"{dept} ({len(members)}): avg ${avg:,.0f}, senior={senior}")
    print(f"  {names}")

top = sorted(employees, key=itemgetter("salary"), reverse=True)[:3]
print("Top earners:", [e["name"] for e in top])

raises = {e["name"]: round(e["salary"] * (1.05 if e["years"] >= 5 else 1.03))
          for e in employees}
for name in sorted(raises):
    print(f"{name:>5} -> {raises[name]}")
