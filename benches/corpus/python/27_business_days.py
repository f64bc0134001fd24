from datetime import date, timedelta

HOLIDAYS = {
    date(2024, 1, 1), date(2024, 1, 15), date(2024, 2, 19), date(2024, 5, 27),
    date(2024, 7, 4), date(2024, 9, 2), date(2024, 11, 28), date(2024, 12, 25),
}


def is_business_day(d):
    return d.weekday() < 5 and d not in HOLIDAYS


def add_business_days(d, n):
    step = 1 if n >= 0 else -1
    remaining = abs(n)
    while remaining:
        d += timedelta(days=step)
        if is_business_day(d):
            remaining -= 1
    return d


def business_days_between(a, b):
    return sum(is_business_day(a + timedelta(days=i)) for i in range((b - a).days))


for start, n in ((date(2024, 7, 1), 5), (date(2024, 11, 25), 3), (date(2024, 12, 20), 4),
                 (date(2024, 1, 3), -3)):
    result = add_business_days(start, n)
    print(f"{start:%a %Y-%m-%d} {n:+d} business days -> {result:%a %Y-%m-%d}")

for month in (1, 7, 11, 12):
    first = date(2024, month, 1)
    nxt = date(2024 + month // 12, month % 12 + 1, 1)
    print(f"{first:%B}: {business_days_between(first, nxt)} business days")

year_total = business_days_between(date(2024, 1, 1), date(2025, 1, 1))
print("2024 business days:", year_total)
weekend_holidays = sorted(h for h in HOLIDAYS if h.weekday() >= 5)
print("holidays on weekends:", weekend_holidays)
print("next holiday after 2024-08-01:", min(h for h in HOLIDAYS if h > date(2024, 8, 1)))
