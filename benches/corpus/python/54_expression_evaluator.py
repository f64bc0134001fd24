import re

TOKEN_RE = re.compile(r"(\d+\.?\d*)|(\*\*|[-+*/%()])")


def tokenize(src):
    pos, tokens = 0, []
    while pos < len(src):
        if src[pos].isspace():
            pos += 1
            continue
        m = TOKEN_RE.match(src, pos)
        if not m:
            raise SyntaxError(f"unexpected character {src[pos]!r} at {pos}")
        num, op = m.groups()
        tokens.append(("NUM", float(num)) if num else ("OP", op))
        pos = m.end()
    return tokens


class Parser:
    def __init__(self, tokens):
        self.tokens, self.i = tokens, 0

    def peek(self):
        return self.tokens[self.i] if self.i < len(self.tokens) else ("EOF", None)

    def take(self):
        tok = self.peek()
        self.i += 1
        return tok

    def expr(self):
        value = self.term()
        while self.peek() in (("OP", "+"), ("OP", "-")):
            op = self.take()[1]
            value = value + self.term() if op == "+" else value - self.term()
        return value

    def term(self):
        value = self.unary()
        while self.peek()[1] in ("*", "/", "%"):
            op = self.take()[1]
            rhs = self.unary()
            if op != "*" and rhs == 0:
                raise ZeroDivisionError("division by zero")
            value = value * rhs if op == "*" else value / rhs if op == "/" else value % rhs
        return value

    def unary(self):
        if self.peek() == ("OP", "-"):
            self.take()
            return -self.unary()
        return self.power()

    def power(self):
        base = self.atom()
        if self.peek() == ("OP", "**"):
            self.take()
            return base ** self.unary()
        return base

    def atom(self):
        kind, val = self.take()
        if kind == "NUM":
            return val
        if val == "(":
            v = self.expr()
            if self.take() != ("OP", ")"):
                raise SyntaxError("expected ')'")
            return v
        raise SyntaxError(f"unexpected token {val!r}")


def evaluate(src):
    parser = Parser(tokenize(src))
    result = parser.expr()
    if parser.peek()[0] != "EOF":
        raise SyntaxError(f"trailing input at token {parser.i}")
    return result


for src in ["1 + 2 * 3", "(1 + 2) * 3", "2 ** 3 ** 2", "-2 ** 2", "10 / 4 - 0.5",
            "17 % 5 + 2 * (3 - (4 - 5))", "1 / 0", "2 * (3 + 4", "3 $ 4", "1 2"]:
    try:
        print(f"{src:<28} = {evaluate(src):g}")
    except (SyntaxError, ZeroDivisionError) as e:
        print(f"{src:<28} ! {type(e).__name__}: {e}")
