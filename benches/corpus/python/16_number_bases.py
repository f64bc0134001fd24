import struct
from array import array


def to_base(n, base):
    digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    if n == 0:
        return "0"
    sign = "-" if n < 0 else ""
    n = abs(n)
    out = []
    while n:
        n, r = divmod(n, base)
        out.append(digits[r])
    return sign + "".join(reversed(out))


def to_roman(n):
    table = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
             (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
    result = []
    for value, sym in table:
        count, n = divmod(n, value)
        result.append(sym * count)
    return "".join(result)


for n in (0, 7, 255, 1000, -42, 2024):
    print(f"{n:>6}: bin={bin(n):>12} oct={oct(n):>7} hex={hex(n):>6} "
          f"b3={to_base(n, 3):>8} b36={to_base(n, 36)}")

for s, b in (("ff", 16), ("777", 8), ("101101", 2), ("zz", 36)):
    print(f"int({s!r}, {b}) = {int(s, b)}")

print([to_roman(y) for y in (1987, 2024, 3999, 44)])
print(f"{1234567.891:,.2f} | {0.000123:.2e} | {42:08b} | {255:#x} | {3.14159:+.3f}")
print((255).bit_length(), (1023).bit_count(), 17 & 5, 17 | 5, 17 ^ 5, ~17, 1 << 10)
print(int.from_bytes(b"\x01\x00", "big"), (258).to_bytes(2, "little"))

header = struct.pack("<4sHHI", b"PKT1", 7, 512, 0xDEADBEEF)
print(len(header), header.hex(" "), struct.unpack("<4sHHI", header))
print(struct.pack(">f", 1.5).hex(), struct.unpack(">d", struct.pack(">d", 0.1))[0], struct.calcsize("<iqd"))
samples = array("h", [-3, 100, 32767, -32768])
print(samples.tolist(), samples.itemsize, samples.tobytes().hex(), sum(samples) / len(samples))
