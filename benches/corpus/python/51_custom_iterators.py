class Countdown:
    def __init__(self, start):
        self.start = start

    def __iter__(self):
        n = self.start
        while n > 0:
            yield n
            n -= 1

    def __reversed__(self):
        return iter(range(1, self.start + 1))

    def __len__(self):
        return self.start


class Range2D:
    def __init__(self, rows, cols):
        self.rows, self.cols = rows, cols
        self._r = self._c = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self._r >= self.rows:
            raise StopIteration
        cell = (self._r, self._c)
        self._c += 1
        if self._c == self.cols:
            self._r, self._c = self._r + 1, 0
        return cell


class Peekable:
    _sentinel = object()

    def __init__(self, iterable):
        self._it = iter(iterable)
        self._peeked = self._sentinel

    def __iter__(self):
        return self

    def __next__(self):
        if self._peeked is not self._sentinel:
            value, self._peeked = self._peeked, self._sentinel
            return value
        return next(self._it)

    def peek(self, default=None):
        if self._peeked is self._sentinel:
            self._peeked = next(self._it, self._sentinel)
        return default if self._peeked is self._sentinel else self._peeked


cd = Countdown(5)
print(list(cd), list(reversed(cd)), len(cd), 3 in cd, sum(cd))
grid = Range2D(2, 3)
print(list(grid))
print("exhausted:", list(grid))

p = Peekable([1, 1, 2, 3, 3, 3, 4])
groups = []
for x in p:
    run = [x]
    while p.peek() == x:
        run.append(next(p))
    groups.append(run)
print("groups:", groups)
print("peek on empty:", Peekable([]).peek("nothing"))
it = iter([10, 20, 30])
print(next(it), next(it), next(it), next(it, "end"))
print(dict(zip("abc", Countdown(3))), list(enumerate(Countdown(3), 1)))
print(list(map(lambda t: t[0] * t[1], Range2D(2, 2))))
