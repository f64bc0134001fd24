import math
from abc import ABC, abstractmethod


class Shape(ABC):
    @abstractmethod
    def area(self): ...

    @abstractmethod
    def perimeter(self): ...

    def __lt__(self, other):
        return self.area() < other.area()

    def describe(self):
        return f"{type(self).__name__:<9} area={self.area():8.3f} perimeter={self.perimeter():7.3f}"


class Circle(Shape):
    def __init__(self, r):
        self.r = r

    def area(self):
        return math.pi * self.r ** 2

    def perimeter(self):
        return 2 * math.pi * self.r


class Rectangle(Shape):
    def __init__(self, w, h):
        self.w, self.h = w, h

    def area(self):
        return self.w * self.h

    def perimeter(self):
        return 2 * (self.w + self.h)


class Square(Rectangle):
    def __init__(self, side):
        super().__init__(side, side)


shapes = [Circle(1.5), Rectangle(3, 4.5), Square(2), Circle(0.5), Square(3.5)]
for s in sorted(shapes):
    print(s.describe())
print("largest:", type(max(shapes)).__name__)
print("total area: %.2f" % sum(s.area() for s in shapes))
print("squares are rectangles:", isinstance(Square(1), Rectangle), issubclass(Square, Shape))
print("MRO:", [c.__name__ for c in Square.__mro__])
try:
    Shape()
except TypeError as e:
    print("TypeError:", str(e).split(" with")[0])
