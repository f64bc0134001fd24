from datetime import date, timedelta
from dataclasses import dataclass


@dataclass
class Recurrence:
    name: str
    start: date
    every_days: int = 0
    monthly_day: int = 0

    def occurrences(self, until):
        if self.every_days:
            d = self.start
            while d <= until:
                yield d
                d += timedelta(days=self.every_days)
        elif self.monthly_day:
            y, m = self.start.year, self.start.month
            while True:
                try:
                    d = date(y, m, self.monthly_day)
                except ValueError:
                    d = None
                if d and d > until:
                    return
                if d and d >= self.start:
                    yield d
                y, m = (y + 1, 1) if m == 12 else (y, m + 1)


events = [
    Recurrence("Standup review", date(2024, 1, 2), every_days=14),
    Recurrence("Rent", date(2024, 1, 1), monthly_day=1),
    Recurrence("Payroll", date(2024, 1, 1), monthly_day=31),
    Recurrence("Plants", date(2024, 1, 2), every_days=10),
]
until = date(2024, 4, 30)
agenda = sorted((d, e.name) for e in events for d in e.occurrences(until))
current_month = None
for d, name in agenda:
    if d.month != current_month:
        current_month = d.month
        print(d.strftime("== %B %Y =="))
    print(f"  {d:%d %a}  {name}")
print("total occurrences:", len(agenda))
clashes = sorted({d for d, _ in agenda if sum(x == d for x, _ in agenda) > 1})
print("days with >1 event:", [c.isoformat() for c in clashes])
