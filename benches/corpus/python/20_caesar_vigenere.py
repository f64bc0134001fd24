import string

ALPHA = string.ascii_lowercase


def caesar(text, shift):
    table = str.maketrans(
        ALPHA + ALPHA.upper(),
        ALPHA[shift:] + ALPHA[:shift] + ALPHA.upper()[shift:] + ALPHA.upper()[:shift],
    )
    return text.translate(table)


def vigenere(text, key, decrypt=False):
    out = []
    i = 0
    for ch in text:
        if ch.lower() in ALPHA:
            k = ALPHA.index(key[i % len(key)])
            k = -k if decrypt else k
            base = ord("A") if ch.isupper() else ord("a")
            out.append(chr((ord(ch) - base + k) % 26 + base))
            i += 1
        else:
            out.append(ch)
    return "".join(out)


def crack_caesar(cipher):
    freq_order = "etaoinshrdlu"
    def score(candidate):
        return sum(12 - freq_order.index(c) for c in candidate.lower() if c in freq_order)
    return max(range(26), key=lambda s: score(caesar(cipher, s)))


msg = "Attack at dawn! Meet me by the old oak tree."
enc = caesar(msg, 3)
print("caesar+3:", enc)
print("decoded :", caesar(enc, -3 % 26))
shift = crack_caesar(enc)
print("cracked shift:", (26 - shift) % 26, "->", caesar(enc, shift))
v = vigenere(msg, "lemon")
print("vigenere:", v)
print("back    :", vigenere(v, "lemon", decrypt=True))
print("rot13 twice is identity:", caesar(caesar(msg, 13), 13) == msg)
print(sorted(set(string.punctuation) & set(msg)))
