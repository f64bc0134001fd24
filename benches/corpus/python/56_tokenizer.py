import re
from collections import Counter
from typing import NamedTuple


class Token(NamedTuple):
    kind: str
    value: str
    line: int
    column: int


KEYWORDS = {"if", "else", "while", "return", "let", "fn"}
SPEC = [
    ("SKIP", r"[ \t]+|//[^\n]*"),
    ("NUMBER", r"\d+(?:\.\d+)?"),
    ("STRING", r'"(?:\\.|[^"\\])*"'),
    ("ID", r"[A-Za-z_]\w*"),
    ("OP", r"==|!=|<=|>=|&&|\|\||[+\-*/=<>!]"),
    ("PUNCT", r"[(){};,]"),
    ("NEWLINE", r"\n"),
    ("MISMATCH", r"."),
]
MASTER = re.compile("|".join(f"(?P<{name}>{pattern})" for name, pattern in SPEC))


def tokenize(code):
    line, line_start = 1, 0
    for m in MASTER.finditer(code):
        kind, value = m.lastgroup, m.group()
        column = m.start() - line_start + 1
        if kind == "NEWLINE":
            line, line_start = line + 1, m.end()
        elif kind == "MISMATCH":
            raise SyntaxError(f"unexpected {value!r} at {line}:{column}")
        elif kind != "SKIP":
            kind = "KEYWORD" if kind == "ID" and value in KEYWORDS else kind
            yield Token(kind, value, line, column)


source = '''fn max(a, b) {
    // pick the larger value
    if (a >= b) { return a; } else { return b; }
}
let greeting = "say \\"hi\\"";
let total = max(3.5, 12) * 2;
'''

tokens = list(tokenize(source))
for tok in tokens[:12]:
    print(f"{tok.line}:{tok.column:<3} {tok.kind:<8} {tok.value}")
print("... token count:", len(tokens))
print("by kind:", dict(sorted(Counter(t.kind for t in tokens).items())))
print("strings:", [t.value for t in tokens if t.kind == "STRING"])
print("identifiers:", sorted({t.value for t in tokens if t.kind == "ID"}))
try:
    list(tokenize("let x = 5 @ 3;"))
except SyntaxError as e:
    print("error:", e)
