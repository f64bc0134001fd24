import calendar

cal = calendar.TextCalendar(firstweekday=calendar.MONDAY)
print(cal.formatmonth(2024, 2))

print("2024 is leap:", calendar.isleap(2024), "| leap days 2000-2100:", calendar.leapdays(2000, 2100))
print("Days in each month of 2023:")
print("  " + " ".join(f"{calendar.month_abbr[m]}={calendar.monthrange(2023, m)[1]}" for m in range(1, 13)))

fridays_13 = [(y, m) for y in (2023, 2024, 2025) for m in range(1, 13)
              if calendar.weekday(y, m, 13) == calendar.FRIDAY]
print("Friday the 13ths:", ", ".join(f"{calendar.month_name[m]} {y}" for y, m in fridays_13))


def nth_weekday(year, month, weekday, n):
    days = [d for d in calendar.Calendar().itermonthdates(year, month)
            if d.month == month and d.weekday() == weekday]
    return days[n] if n >= 0 else days[n]


print("US Thanksgiving 2024:", nth_weekday(2024, 11, calendar.THURSDAY, 3))
print("Last Monday of May 2024:", nth_weekday(2024, 5, calendar.MONDAY, -1))
weeks = calendar.monthcalendar(2024, 9)
print("Sept 2024 has", len(weeks), "calendar rows; first row:", weeks[0])
print("weekday names:", list(calendar.day_abbr))
