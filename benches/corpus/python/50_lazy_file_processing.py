import io
import csv
from collections import namedtuple

CSV_TEXT = """date,station,temp_c,rain_mm
2024-01-01,north,-2.5,0.0
2024-01-01,south,4.1,1.2
2024-01-02,north,-5.0,0.0
2024-01-02,south,3.3,0.0
2024-01-03,north,,3.1
2024-01-03,south,6.8,4.4
2024-01-04,north,-1.2,0.5
2024-01-04,south,bad,0.0
2024-01-05,north,0.4,0.0
2024-01-05,south,7.9,2.0
"""

Reading = namedtuple("Reading", "date station temp rain")


def rows(stream):
    yield from csv.DictReader(stream)


def to_readings(rows, errors):
    for lineno, row in enumerate(rows, start=2):
        try:
            yield Reading(row["date"], row["station"], float(row["temp_c"]), float(row["rain_mm"]))
        except ValueError:
            errors.append((lineno, row["temp_c"] or "<empty>"))


def window(iterable, size):
    buf = []
    for item in iterable:
        buf.append(item)
        if len(buf) > size:
            buf.pop(0)
        if len(buf) == size:
            yield tuple(buf)


errors = []
readings = list(to_readings(rows(io.StringIO(CSV_TEXT)), errors))
print(f"{len(readings)} good readings, skipped: {errors}")
for station in ("north", "south"):
    temps = [r.temp for r in readings if r.station == station]
    rain = sum(r.rain for r in readings if r.station == station)
    print(f"{station}: min {min(temps):5.1f}  max {max(temps):5.1f}  "
          f"mean {sum(temps) / len(temps):5.2f}  rain {rain:.1f}mm")
south = [r.temp for r in readings if r.station == "south"]
print("south 2-day moving avg:", [round(sum(w) / 2, 2) for w in window(south, 2)])
freezing = [r._replace(temp=round(r.temp * 9 / 5 + 32, 1)) for r in readings if r.temp < 0]
for r in freezing:
    print(f"  {r.date} {r.station}: {r.temp}°F")
print(readings[0]._asdict())
