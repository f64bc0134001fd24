import math
import operator

BINARY = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
          "^": operator.pow, "max": max, "min": min}
UNARY = {"neg": operator.neg, "sqrt": math.sqrt, "abs": abs}
PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "^": 3}


def rpn(expression):
    stack = []
    for token in expression.split():
        if token in BINARY:
            b, a = stack.pop(), stack.pop()
            stack.append(BINARY[token](a, b))
        elif token in UNARY:
            stack.append(UNARY[token](stack.pop()))
        elif token == "dup":
            stack.append(stack[-1])
        elif token == "swap":
            stack[-1], stack[-2] = stack[-2], stack[-1]
        else:
            stack.append(float(token) if "." in token else int(token))
    if len(stack) != 1:
        raise ValueError(f"malformed expression, stack={stack}")
    return stack[0]


def to_rpn(infix):
    output, ops = [], []
    for tok in infix.replace("(", " ( ").replace(")", " ) ").split():
        if tok in PRECEDENCE:
            while (ops and ops[-1] in PRECEDENCE and
                   (PRECEDENCE[ops[-1]] > PRECEDENCE[tok] or
                    (PRECEDENCE[ops[-1]] == PRECEDENCE[tok] and tok != "^"))):
                output.append(ops.pop())
            ops.append(tok)
        elif tok == "(":
            ops.append(tok)
        elif tok == ")":
            while ops[-1] != "(":
                output.append(ops.pop())
            ops.pop()
        else:
            output.append(tok)
    return " ".join(output + ops[::-1])


for expr in ["3 4 +", "5 1 2 + 4 * + 3 -", "2 3 ^ neg", "9 sqrt dup *", "1 2 swap -",
             "4 7 max 2 min", "2.5 4 *", "1 2 3 +"]:
    try:
        print(f"{expr:<22} => {rpn(expr)}")
    except (ValueError, IndexError) as e:
        print(f"{expr:<22} => error: {e}")

for infix in ["3 + 4 * 2 / ( 1 - 5 ) ^ 2 ^ 3", "(1 + 2) * (3 + 4)", "10 - 4 - 3", "2 ^ 3 ^ 2"]:
    postfix = to_rpn(infix)
    print(f"{infix:<32} -> {postfix:<30} = {rpn(postfix)}")
