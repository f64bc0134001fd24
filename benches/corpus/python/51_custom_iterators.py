class Countdown:  # iterable: each loop gets a fresh generator
    def __init__(self, start):
        self.start = start

    def __iter__(self):
        n = self.start
        while n > 0:
            yield n
            n -= 1


class Range2D:  # iterator: single pass, then exhausted
    def __init__(self, rows, cols):
        self.rows, self.cols = rows, cols
        self._i = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self._i >= self.rows * self.cols:
            raise StopIteration
        self._i += 1
        return divmod(self._i - 1, self.cols)


class Peekable:
    _sentinel = object()

    def __init__(self, iterable):
        self._it = iter(iterable)
        self._peeked = self._sentinel

    def __iter__(self):
        return self

    def __next__(self):
        if self._peeked is self._sentinel:
            return next(self._it)
        value, self._peeked = self._peeked, self._sentinel
        return value

    def peek(self, default=None):
        if self._peeked is self._sentinel:
            self._peeked = next(self._it, self._sentinel)
        return default if self._peeked is self._sentinel else self._peeked


cd = Countdown(5)
print(list(cd), 3 in cd, sum(cd), dict(zip("abc", cd)), list(enumerate(Countdown(3), 1)))
grid = Range2D(2, 3)
print(list(grid), "then exhausted:", list(grid))
p = Peekable([1, 1, 2, 3, 3, 3, 4])
groups = []
for x in p:
    run = [x]
    while p.peek() == x:
        run.append(next(p))
    groups.append(run)
print("groups:", groups, "| peek on empty:", Peekable([]).peek("nothing"))
