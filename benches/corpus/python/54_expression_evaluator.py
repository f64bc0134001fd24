import operator
import re

TOKEN_RE = re.compile(r"\s*(?:(\d+\.?\d*)|(\*\*|[-+*/%()])|(\S))")
BINOPS = {"+": (1, operator.add), "-": (1, operator.sub), "*": (2, operator.mul),
          "/": (2, operator.truediv), "%": (2, operator.mod), "**": (4, operator.pow)}
UNARY_MINUS_PREC = 3  # binds tighter than * but looser than **, as in Python


def tokenize(src):
    tokens = []
    for num, op, bad in TOKEN_RE.findall(src):
        if bad:
            raise SyntaxError(f"unexpected character {bad!r}")
        tokens.append(float(num) if num else op)
    return tokens


def parse_expr(tokens, min_prec=1):
    """Precedence climbing: consume tokens from the front, return the value."""
    lhs = parse_atom(tokens)
    while tokens and tokens[0] in BINOPS and BINOPS[tokens[0]][0] >= min_prec:
        op = tokens.pop(0)
        prec, fn = BINOPS[op]
        rhs = parse_expr(tokens, prec if op == "**" else prec + 1)
        lhs = fn(lhs, rhs)
    return lhs


def parse_atom(tokens):
    if not tokens:
        raise SyntaxError("unexpected end of input")
    tok = tokens.pop(0)
    if tok == "-":
        return -parse_expr(tokens, UNARY_MINUS_PREC)
    if tok == "(":
        value = parse_expr(tokens)
        if not tokens or tokens.pop(0) != ")":
            raise SyntaxError("expected ')'")
        return value
    if isinstance(tok, float):
        return tok
    raise SyntaxError(f"unexpected token {tok!r}")


def evaluate(src):
    tokens = tokenize(src)
    result = parse_expr(tokens)
    if tokens:
        raise SyntaxError(f"trailing input starting at {tokens[0]!r}")
    return result


for src in ["1 + 2 * 3", "(1 + 2) * 3", "2 ** 3 ** 2", "-2 ** 2", "10 / 4 - 0.5", "2 * -3 + 1",
            "17 % 5 + 2 * (3 - (4 - 5))", "1 / 0", "2 * (3 + 4", "3 $ 4", "1 2", "4 +"]:
    try:
        print(f"{src:<28} = {evaluate(src):g}")
    except (SyntaxError, ZeroDivisionError) as e:
        print(f"{src:<28} ! {type(e).__name__}: {e}")
