from fractions import Fraction
import math

harmonic = sum(Fraction(1, k) for k in range(1, 11))
print("H(10) =", harmonic, "≈", float(harmonic))

egyptian = []
x = Fraction(7, 15)
while x:
    d = math.ceil(1 / x)
    egyptian.append(Fraction(1, d))
    x -= Fraction(1, d)
print("7/15 =", " + ".join(str(f) for f in egyptian))

approx = Fraction(math.pi).limit_denominator(1000)
print("pi ≈", approx, "error", abs(float(approx) - math.pi))
for max_den in (10, 100, 10000):
    f = Fraction(math.sqrt(2)).limit_denominator(max_den)
    print(f"sqrt(2) ≈ {f.numerator}/{f.denominator}")


def continued_fraction(fr, terms=10):
    out = []
    for _ in range(terms):
        whole = math.floor(fr)
        out.append(whole)
        fr -= whole
        if fr == 0:
            break
        fr = 1 / fr
    return out


print("cf(415/93) =", continued_fraction(Fraction(415, 93)))
mix = Fraction(3, 4) * Fraction(8, 9) - Fraction(1, 6)
print("3/4 * 8/9 - 1/6 =", mix, "=", f"{float(mix):.4f}")
print(Fraction("0.125"), Fraction("-2.5e-2"), Fraction(1, 3) ** 3)
