import re
from collections import defaultdict


def is_palindrome(s):
    cleaned = re.sub(r"[^a-z0-9]", "", s.lower())
    return cleaned == cleaned[::-1]


def longest_palindrome(s):
    best = ""
    for center in range(len(s)):
        for lo, hi in ((center, center), (center, center + 1)):
            while lo >= 0 and hi < len(s) and s[lo] == s[hi]:
                lo -= 1
                hi += 1
            if hi - lo - 1 > len(best):
                best = s[lo + 1:hi]
    return best


phrases = ["A man, a plan, a canal: Panama", "Hello, world", "Was it a car or a cat I saw?",
           "No 'x' in Nixon", "palindrome"]
for p in phrases:
    print(f"{p!r:<36} -> {is_palindrome(p)}")

for s in ("babad", "forgeeksskeegfor", "abacdfgdcaba", "x"):
    print(f"longest palindrome in {s}: {longest_palindrome(s)}")

words = ["listen", "silent", "enlist", "google", "gooegl", "cat", "act", "tac",
         "dog", "god", "odg", "bird"]
groups = defaultdict(list)
for w in words:
    groups["".join(sorted(w))].append(w)
for key, group in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
    if len(group) > 1:
        print(f"{key}: {', '.join(sorted(group))}")
print("singletons:", [g[0] for g in groups.values() if len(g) == 1])
