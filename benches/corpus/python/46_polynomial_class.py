class Polynomial:
    def __init__(self, *coeffs):
        coeffs = list(coeffs)
        while len(coeffs) > 1 and coeffs[-1] == 0:
            coeffs.pop()
        self.coeffs = coeffs or [0]

    @classmethod
    def from_roots(cls, *roots):
        p = cls(1)
        for r in roots:
            p = p * cls(-r, 1)
        return p

    @staticmethod
    def _term(c, power):
        if power == 0:
            return str(abs(c))
        mag = "" if abs(c) == 1 else str(abs(c))
        return f"{mag}x" + (f"^{power}" if power > 1 else "")

    @property
    def degree(self):
        return len(self.coeffs) - 1

    def __call__(self, x):
        return sum(c * x ** i for i, c in enumerate(self.coeffs))

    def __add__(self, other):
        n = max(len(self.coeffs), len(other.coeffs))
        a = self.coeffs + [0] * (n - len(self.coeffs))
        b = other.coeffs + [0] * (n - len(other.coeffs))
        return Polynomial(*(x + y for x, y in zip(a, b)))

    def __mul__(self, other):
        out = [0] * (len(self.coeffs) + len(other.coeffs) - 1)
        for i, a in enumerate(self.coeffs):
            for j, b in enumerate(other.coeffs):
                out[i + j] += a * b
        return Polynomial(*out)

    def derivative(self):
        return Polynomial(*(i * c for i, c in enumerate(self.coeffs) if i))

    def __str__(self):
        terms = [(c, i) for i, c in enumerate(self.coeffs) if c][::-1] or [(0, 0)]
        s = ("-" if terms[0][0] < 0 else "") + self._term(*terms[0])
        for c, i in terms[1:]:
            s += (" - " if c < 0 else " + ") + self._term(c, i)
        return s


p = Polynomial(1, -3, 0, 2)
q = Polynomial(-1, 1)
print("p(x) =", p, "| q(x) =", q, "| degree of p:", p.degree)
print("p + q =", p + q, "| p * q =", p * q)
print("p' =", p.derivative(), "| p'' =", p.derivative().derivative(), "| p(0..4) =", [p(x) for x in range(5)])
r = Polynomial.from_roots(1, -2, 3)
print("roots 1,-2,3 ->", r, "| r(3) =", r(3), "| r(-2) =", r(-2))
print((q * q).coeffs == [1, -2, 1], Polynomial(0, 0, 0), Polynomial(5).derivative())
