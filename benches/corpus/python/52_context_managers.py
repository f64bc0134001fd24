from contextlib import contextmanager, suppress


class Timer:
    """Fake timer that counts steps instead of wall time so output is deterministic."""
    def __init__(self, name):
        self.name = name
        self.steps = 0

    def tick(self, n=1):
        self.steps += n

    def __enter__(self):
        print(f"[{self.name}] start")
        return self

    def __exit__(self, exc_type, exc, tb):
        status = "failed: " + exc_type.__name__ if exc_type else "ok"
        print(f"[{self.name}] end after {self.steps} steps ({status})")
        return exc_type is KeyError


@contextmanager
def transaction(store):
    snapshot = dict(store)
    try:
        yield store
        print("  commit", sorted(store.items()))
    except Exception as e:
        store.clear()
        store.update(snapshot)
        print(f"  rollback ({e})")


with Timer("load") as t:
    for _ in range(3):
        t.tick(2)

with Timer("lookup") as t:
    t.tick()
    {}["missing"]
print("KeyError was swallowed by Timer")

accounts = {"alice": 100, "bob": 50}
with transaction(accounts) as s:
    s["alice"] -= 30
    s["bob"] += 30
with transaction(accounts) as s:
    s["alice"] -= 500
    if s["alice"] < 0:
        raise ValueError("negative balance")
print("after:", accounts)

with suppress(ZeroDivisionError):
    print("before")
    1 / 0
    print("never printed")
print("suppressed division error")
