from datetime import datetime, timedelta
from collections import defaultdict

entries = """
alice 2024-05-06 09:00 17:30
bob   2024-05-06 08:15 12:00
bob   2024-05-06 13:00 18:45
alice 2024-05-07 09:10 18:20
carol 2024-05-07 22:00 06:30
bob   2024-05-08 07:55 16:05
alice 2024-05-08 10:00 14:00
"""

FMT = "%Y-%m-%d %H:%M"
hours = defaultdict(timedelta)
per_day = defaultdict(lambda: defaultdict(timedelta))
for line in entries.strip().splitlines():
    who, day, start, end = line.split()
    t0 = datetime.strptime(f"{day} {start}", FMT)
    t1 = datetime.strptime(f"{day} {end}", FMT)
    if t1 <= t0:
        t1 += timedelta(days=1)
    worked = t1 - t0
    hours[who] += worked
    per_day[who][t0.date()] += worked


def fmt(td):
    minutes = int(td.total_seconds() // 60)
    return f"{minutes // 60}:{minutes % 60:02d}"


RATE = {"alice": 42.0, "bob": 38.5, "carol": 51.0}
for who in sorted(hours):
    total_h = hours[who].total_seconds() / 3600
    overtime = sum((max(td - timedelta(hours=8), timedelta()) for td in per_day[who].values()),
                   timedelta())
    pay = total_h * RATE[who] + overtime.total_seconds() / 3600 * RATE[who] * 0.5
    print(f"{who:<6} {fmt(hours[who]):>6} h  overtime {fmt(overtime):>5}  pay ${pay:,.2f}")
    for d, td in sorted(per_day[who].items()):
        print(f"    {d:%a %d %b}: {fmt(td)}")
print("team total:", fmt(sum(hours.values(), timedelta())))
