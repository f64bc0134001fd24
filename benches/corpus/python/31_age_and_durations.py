from datetime import date, timedelta
import calendar


def exact_age(born, today):
    years = today.year - born.year
    months = today.month - born.month
    days = today.day - born.day
    if days < 0:
        months -= 1
        prev_month = today.month - 1 or 12
        prev_year = today.year if today.month > 1 else today.year - 1
        days += calendar.monthrange(prev_year, prev_month)[1]
    if months < 0:
        years -= 1
        months += 12
    return years, months, days


def humanize(td):
    seconds = int(td.total_seconds())
    parts = []
    for unit, size in (("week", 604800), ("day", 86400), ("hour", 3600), ("minute", 60)):
        n, seconds = divmod(seconds, size)
        if n:
            parts.append(f"{n} {unit}{'s' if n != 1 else ''}")
    return ", ".join(parts) or "less than a minute"


today = date(2024, 3, 15)
people = {"Ana": date(1988, 11, 30), "Bo": date(2000, 2, 29), "Cy": date(2015, 3, 15),
          "Di": date(1972, 3, 16)}
for name, born in sorted(people.items(), key=lambda kv: kv[1]):
    y, m, d = exact_age(born, today)
    print(f"{name:<3} born {born:%d %b %Y}: {y}y {m}m {d}d, {(today - born).days:,} days old")

for td in (timedelta(seconds=45), timedelta(minutes=61), timedelta(days=1, hours=2),
           timedelta(days=17, hours=5, minutes=1), timedelta(weeks=3)):
    print(f"{str(td):>18} -> {humanize(td)}")

decades = {}
for name, born in people.items():
    decades.setdefault(born.year // 10 * 10, []).append(name)
print({f"{k}s": v for k, v in sorted(decades.items())})
