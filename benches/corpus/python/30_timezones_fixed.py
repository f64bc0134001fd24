from datetime import datetime, timedelta, timezone

UTC = timezone.utc
zones = {
    "London (BST)": timezone(timedelta(hours=1), "BST"),
    "New York (EDT)": timezone(timedelta(hours=-4), "EDT"),
    "Tokyo (JST)": timezone(timedelta(hours=9), "JST"),
    "Mumbai (IST)": timezone(timedelta(hours=5, minutes=30), "IST"),
    "Adelaide (ACST)": timezone(timedelta(hours=9, minutes=30), "ACST"),
}

meeting = datetime(2024, 6, 14, 15, 0, tzinfo=UTC)
print("Meeting at", meeting.isoformat())
for label, tz in zones.items():
    local = meeting.astimezone(tz)
    marker = " (next day)" if local.date() > meeting.date() else ""
    ok = "ok " if 8 <= local.hour < 18 else "off"
    print(f"  {label:<16} {local:%Y-%m-%d %H:%M %Z} UTC{local:%z} [{ok}]{marker}")

stamp = "2024-06-14T09:30:00-07:00"
parsed = datetime.fromisoformat(stamp)
print(parsed.utcoffset(), "->", parsed.astimezone(UTC).strftime("%H:%M %Z"))

epoch = datetime(1970, 1, 1, tzinfo=UTC)
ts = 1718377200
print("timestamp", ts, "=", datetime.fromtimestamp(ts, tz=UTC).isoformat())
print("seconds since epoch:", int((meeting - epoch).total_seconds()))

flight_dep = datetime(2024, 6, 14, 22, 15, tzinfo=zones["New York (EDT)"])
flight_arr = datetime(2024, 6, 15, 10, 5, tzinfo=zones["London (BST)"])
dur = flight_arr - flight_dep
print(f"Flight duration: {dur} ({dur.total_seconds() / 3600:.2f} h)")
print(sorted(zones, key=lambda k: zones[k].utcoffset(None)))
