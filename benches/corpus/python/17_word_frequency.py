import re
from collections import Counter, OrderedDict

text = """
It was the best of times, it was the worst of times, it was the age of
wisdom, it was the age of foolishness, it was the epoch of belief, it was
the epoch of incredulity, it was the season of Light, it was the season of
Darkness, it was the spring of hope, it was the winter of despair.
"""

STOP = {"it", "was", "the", "of", "a", "and"}
words = re.findall(r"[a-z']+", text.lower())
counts = Counter(words)
content = Counter(w for w in words if w not in STOP)

print(f"{len(words)} words, {len(counts)} distinct, {len(content)} content words")
print("Top overall:", counts.most_common(4))
print("Top content words:")
for word, n in sorted(content.items(), key=lambda kv: (-kv[1], kv[0]))[:6]:
    print(f"  {word:<12} {n:>2} {'█' * n}")

lengths = Counter(len(w) for w in words)
print("length histogram:", dict(sorted(lengths.items())))
recent = OrderedDict()
for w in words:
    recent[w] = recent.pop(w, 0) + 1
    if len(recent) > 5:
        recent.popitem(last=False)
print("first distinct:", list(OrderedDict.fromkeys(words))[:6])
print("5 most recently seen:", list(recent))
longest = max(words, key=len)
print("longest word:", longest, len(longest))

bigrams = Counter(zip(words, words[1:]))
print("top bigrams:", [" ".join(b) for b, _ in bigrams.most_common(3)])
sentences = [s.strip() for s in re.split(r"[,.]", text) if s.strip()]
print(len(sentences), "clauses; first:", sentences[0])
