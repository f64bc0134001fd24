from datetime import date, datetime, timedelta

start = date(2024, 1, 31)
print("start:", start.isoformat(), start.strftime("%A, %d %B %Y"))
print("leap year 2024:", start.year % 4 == 0 and (start.year % 100 != 0 or start.year % 400 == 0))

deadline = start + timedelta(days=45)
print("45 days later:", deadline, deadline.strftime("%a"))
print("weeks between:", (deadline - start).days // 7, "remaining days:", (deadline - start).days % 7)


def add_months(d, months):
    m = d.month - 1 + months
    year, month = d.year + m // 12, m % 12 + 1
    for day in range(d.day, 0, -1):
        try:
            return d.replace(year=year, month=month, day=day)
        except ValueError:
            continue


for k in (1, 2, 12, -2):
    print(f"{start} + {k:>2} months = {add_months(start, k)}")

birthday = date(1990, 7, 15)
on = date(2024, 6, 1)
age = on.year - birthday.year - ((on.month, on.day) < (birthday.month, birthday.day))
print("age on", on, "=", age)
next_bd = birthday.replace(year=on.year)
if next_bd < on:
    next_bd = next_bd.replace(year=on.year + 1)
print("days to next birthday:", (next_bd - on).days)

t1 = datetime(2024, 3, 10, 8, 45, 30)
t2 = datetime.fromisoformat("2024-03-12T17:05:00")
delta = t2 - t1
hours, rem = divmod(delta.seconds, 3600)
print(f"elapsed: {delta.days}d {hours}h {rem // 60}m {rem % 60}s ({delta.total_seconds():.0f}s)")
print(datetime.strptime("07/04/2023 14:30", "%m/%d/%Y %H:%M").isoformat(timespec="minutes"))
print("ISO week of", on, "->", on.isocalendar())
print("day of year:", on.timetuple().tm_yday, "| ordinal:", on.toordinal())
