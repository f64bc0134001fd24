import functools


def call_counter(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        wrapper.calls += 1
        return func(*args, **kwargs)
    wrapper.calls = 0
    return wrapper


def retry(times, exceptions=(Exception,)):
    def decorator(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            for attempt in range(1, times + 1):
                try:
                    return func(*args, **kwargs)
                except exceptions as e:
                    print(f"  attempt {attempt} failed: {e}")
            raise RuntimeError(f"{func.__name__} failed after {times} attempts")
        return wrapper
    return decorator


def make_accumulator():
    total = 0
    def add(x):
        nonlocal total
        total += x
        return total
    return add


@call_counter
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


print("fib(15) =", fib(15), "calls:", fib.calls, "name:", fib.__name__)

state = {"n": 0}


@retry(times=4, exceptions=(ConnectionError,))
def flaky():
    state["n"] += 1
    if state["n"] < 3:
        raise ConnectionError(f"timeout #{state['n']}")
    return "connected"


print(flaky())
acc = make_accumulator()
print([acc(x) for x in (5, 10, -3)])
adders = [lambda x, i=i: x + i for i in range(3)]
print([f(10) for f in adders])
pow2 = functools.partial(pow, 2)
print([pow2(e) for e in range(8)], functools.reduce(lambda a, b: a * b, range(1, 6)))
