from datetime import datetime, timedelta

FIELDS = [("minute", 0, 59), ("hour", 0, 23), ("day", 1, 31), ("month", 1, 12), ("weekday", 0, 6)]


def parse_field(text, lo, hi):
    values = set()
    for part in text.split(","):
        rng, _, step = part.partition("/")
        step = int(step) if step else 1
        if rng == "*":
            start, end = lo, hi
        elif "-" in rng:
            start, end = map(int, rng.split("-"))
        else:
            start = int(rng)
            end = hi if step > 1 else start
        if not lo <= start <= end <= hi:
            raise ValueError(f"field {text!r} out of range {lo}-{hi}")
        values.update(range(start, end + 1, step))
    return sorted(values)


def parse_cron(expr):
    parts = expr.split()
    if len(parts) != 5:
        raise ValueError(f"expected 5 fields, got {len(parts)}")
    return {name: parse_field(p, lo, hi) for p, (name, lo, hi) in zip(parts, FIELDS)}


def next_runs(spec, after, count):
    """Simplified cron: day-of-month and weekday must both match."""
    t = after.replace(second=0, microsecond=0) + timedelta(minutes=1)
    runs = []
    while len(runs) < count:
        if t.month not in spec["month"] or t.day not in spec["day"] or t.isoweekday() % 7 not in spec["weekday"]:
            t = t.replace(hour=0, minute=0) + timedelta(days=1)
        elif t.hour not in spec["hour"]:
            t = t.replace(minute=0) + timedelta(hours=1)
        elif t.minute not in spec["minute"]:
            t += timedelta(minutes=1)
        else:
            runs.append(t)
            t += timedelta(minutes=1)
    return runs


now = datetime(2024, 3, 1, 10, 40)  # a Friday
for expr in ["*/15 9-10 * * 1-5", "0 0 1 * *", "30 8 * * 1,3,5", "0 12 29 2 *", "5 4 * * 0",
             "61 * * * *", "* * *"]:
    try:
        spec = parse_cron(expr)
    except ValueError as e:
        print(f"{expr:<18} invalid: {e}")
        continue
    summary = ", ".join(f"{k}={v if len(v) < 8 else f'{v[0]}..{v[-1]}'}" for k, v in spec.items())
    print(f"{expr:<18} {summary}")
    print("    next:", ", ".join(f"{t:%a %Y-%m-%d %H:%M}" for t in next_runs(spec, now, 3)))
