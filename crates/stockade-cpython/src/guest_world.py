"""stockade's Python half of the CPython engine, continued: the world the
host chose for the session, put in place before any guest code runs. The
environment and a frozen clock (`adopt_world`), and for a session the host
may dump, the journaled clock and seeded randomness (`journal`, `reseed`).
Run in guest.py's namespace, after it.
"""

#: The clocks a journaled session reads through the host's journal, by
#: kind (journal.rs: 0 the wall clock; 1 to 3 steady, never backwards
#: across a restore; 4 per thread): the `time` function for seconds, and
#: its nanosecond twin.
_CLOCKS = (("time", "time_ns"), ("monotonic", "monotonic_ns"),
           ("perf_counter", "perf_counter_ns"), ("process_time", "process_time_ns"),
           ("thread_time", "thread_time_ns"))

#: Set by `journal`: mixes a seed from the host into the session's stream.
_reseed = None


def _named_like(function, original, module):
    """`function`, named and documented as the built-in `original` it
    stands for, and like it not bound as a method when kept on a class."""
    return BuiltinLike(function, original, module)


def _method_like(function, original, module):
    """`function`, named and documented as the method `original` it
    replaces on a class (where it must bind, as the original does)."""
    function.__name__ = original.__name__
    function.__qualname__ = getattr(original, "__qualname__", original.__name__)
    function.__module__ = module
    function.__doc__ = original.__doc__
    return function



def _read_wall_clock_through(wall, replace_class_attribute):
    """Makes everything that reads the wall clock read `wall()` instead:
    `time.localtime`, `gmtime`, `ctime`, `asctime` and `strftime` when
    given no time, and `datetime.now`/`utcnow` (`date.today` asks
    `time.time`, which the caller has replaced)."""
    import datetime
    import gc
    import time

    # The functions that read the wall clock when given no time (or None).
    def now_unless_given(convert):
        def converted(secs=None):
            return convert(wall() if secs is None else secs)
        return _named_like(converted, convert, "time")

    for name in ("localtime", "gmtime", "ctime"):
        setattr(time, name, now_unless_given(getattr(time, name)))
    # These take a time tuple, which only leaving it out replaces (None is
    # a TypeError, as it is without the journal).
    missing = object()
    asctime, strftime, localtime = time.asctime, time.strftime, time.localtime

    def asctime_(t=missing):
        return asctime(localtime() if t is missing else t)

    def strftime_(format, t=missing):
        return strftime(format, localtime() if t is missing else t)

    time.asctime = _named_like(asctime_, asctime, "time")
    time.strftime = _named_like(strftime_, strftime, "time")

    # `date.today()` asks `time.time()` already; `now` and `utcnow` read
    # the system clock in C, so the class's own dict takes new ones.
    moment = datetime.datetime
    own = gc.get_referents(moment.__dict__)
    if len(own) != 1 or not isinstance(own[0], dict) or own[0].get("now") is not moment.__dict__["now"]:
        raise RuntimeError("cannot replace datetime.now on this interpreter")

    def now(cls, tz=None):
        return cls.fromtimestamp(wall(), tz)

    def utcnow(cls):
        return cls.utcfromtimestamp(wall())

    for function in (now, utcnow):
        original = getattr(moment, function.__name__)
        function.__qualname__ = "datetime." + function.__name__
        function.__module__ = "datetime"
        function.__doc__ = original.__doc__
        replace_class_attribute(moment, own[0], function.__name__, classmethod(function))


def journal(seed):
    """Makes a dumpable session's outside world replayable (the host keeps
    a journal of it): every clock the `time` and `datetime` modules read
    goes through the journal, and `os.urandom`, `os.getrandom` and every
    `random` generator seeded from the system draw from a SHAKE-256 stream
    keyed by `seed` instead. A replay in a fresh worker with the same seed
    and the journal's readings then sees what the session saw."""
    global _reseed
    import gc
    import itertools
    import operator
    import os
    import time
    import datetime
    import random
    import stockade_cpython
    from _sha3 import shake_256

    read_clock = stockade_cpython.read_clock
    replace_class_attribute = stockade_cpython.replace_class_attribute

    def clock_pair(kind, seconds_name, ns_name):
        live = getattr(time, seconds_name)

        def seconds():
            return read_clock(kind, live())

        def nanoseconds():
            return int(read_clock(kind, live()) * 1e9)

        setattr(time, seconds_name, _named_like(seconds, live, "time"))
        setattr(time, ns_name, _named_like(nanoseconds, getattr(time, ns_name), "time"))

    for kind, (seconds_name, ns_name) in enumerate(_CLOCKS):
        clock_pair(kind, seconds_name, ns_name)
    wall = time.time

    _read_wall_clock_through(wall, replace_class_attribute)

    # Randomness: SHAKE-256 over the key and a call counter (one call per
    # draw, whatever its size; the counter is atomic across threads).
    key = [shake_256(b"stockade urandom\0" + seed.to_bytes(8, "little")).digest(32)]
    calls = itertools.count()

    def urandom(size):
        size = operator.index(size)
        if size < 0:
            raise ValueError("negative argument not allowed")
        if size > sys.maxsize:
            raise OverflowError("Python int too large to convert to C ssize_t")
        return shake_256(key[0] + next(calls).to_bytes(8, "little")).digest(size)

    def getrandom(size, flags=0):
        operator.index(flags)
        return urandom(size)

    os.urandom = _named_like(urandom, os.urandom, "os")
    os.getrandom = _named_like(getrandom, os.getrandom, "os")
    random._urandom = os.urandom
    seed_from = random.Random.seed

    def seeded(self, a=None, version=2):
        if a is None:
            a = int.from_bytes(os.urandom(32), "little")
        return seed_from(self, a, version)

    random.Random.seed = _method_like(seeded, seed_from, "random")
    random.seed = random._inst.seed
    random._inst.seed()

    def reseed(more):
        key[0] = shake_256(key[0] + b"reseed\0" + more.to_bytes(8, "little")).digest(32)
        random._inst.seed()

    _reseed = reseed
    # The hash seed was for the interpreter's start; the guest's
    # environment is as empty as any session's.
    os.environ.pop("PYTHONHASHSEED", None)
    # The journal's own entry points stay with the closures above.
    del stockade_cpython.read_clock, stockade_cpython.replace_class_attribute


def reseed(more):
    """Mixes `more` (from the host, after a restore) into the session's
    random stream, and reseeds `random`'s generator from it."""
    if _reseed is None:
        raise RuntimeError("this session does not journal its randomness")
    _reseed(more)


def freeze_clock(at, replace_class_attribute):
    """The host froze the session's clock at `at` (seconds since the
    epoch): `time.time`, `time.time_ns` and everything that reads the wall
    clock give that instant. The steady clocks run on (timeouts work)."""
    import time

    def frozen():
        return at

    def frozen_ns():
        return int(at * 1e9)

    time.time = _named_like(frozen, time.time, "time")
    time.time_ns = _named_like(frozen_ns, time.time_ns, "time")
    _read_wall_clock_through(time.time, replace_class_attribute)


def adopt_world(environ, frozen_at, replace_class_attribute):
    """The world the host chose for the session, taken before any guest
    code runs: the environment (`os.environ` holds it and nothing else) and,
    when frozen, the clock (`frozen_at`, seconds since the epoch)."""
    import os

    os.environ.clear()
    os.environ.update(environ)
    if frozen_at is not None:
        freeze_clock(frozen_at, replace_class_attribute)
