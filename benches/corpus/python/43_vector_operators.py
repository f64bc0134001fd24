import math
from functools import total_ordering


@total_ordering
class Vector:
    __slots__ = ("x", "y")

    def __init__(self, x=0.0, y=0.0):
        self.x, self.y = x, y

    def __add__(self, other):
        return Vector(self.x + other.x, self.y + other.y)

    def __sub__(self, other):
        return Vector(self.x - other.x, self.y - other.y)

    def __mul__(self, k):
        return Vector(self.x * k, self.y * k)

    __rmul__ = __mul__

    def __abs__(self):
        return math.hypot(self.x, self.y)

    def __eq__(self, other):
        return (self.x, self.y) == (other.x, other.y)

    def __lt__(self, other):
        return abs(self) < abs(other)

    def __hash__(self):
        return hash((self.x, self.y))

    def __iter__(self):
        yield self.x
        yield self.y

    def __repr__(self):
        return f"Vector({self.x:g}, {self.y:g})"

    def dot(self, other):
        return self.x * other.x + self.y * other.y

    @classmethod
    def from_polar(cls, r, degrees):
        rad = math.radians(degrees)
        return cls(round(r * math.cos(rad), 10), round(r * math.sin(rad), 10))


a, b = Vector(3, 4), Vector(-1, 2)
print(a + b, a - b, 2 * a, a * 0.5)
print("|a| =", abs(a), " a.b =", a.dot(b), " has __dict__:", hasattr(a, "__dict__"))
x, y = a
print("unpacked:", x, y, "| a > b:", a > b, "| a <= a:", a <= a, "| a != b:", a != b)
print(sorted([Vector(5, 5), Vector(1, 0), Vector(0, 3), Vector(-2, -2)]))
print("unique:", len({Vector(1, 2), Vector(1, 2), Vector(2, 1)}))
print("polar:", Vector.from_polar(2, 90), Vector.from_polar(1, 45))
centroid = sum([Vector(0, 0), Vector(4, 0), Vector(4, 3)], Vector()) * (1 / 3)
print(f"centroid: ({centroid.x:.3f}, {centroid.y:.3f})")
