def match_brackets(code):
    jumps, stack = {}, []
    for i, ch in enumerate(code):
        if ch == "[":
            stack.append(i)
        elif ch == "]":
            if not stack:
                raise SyntaxError(f"unmatched ']' at {i}")
            j = stack.pop()
            jumps[i], jumps[j] = j, i
    if stack:
        raise SyntaxError(f"unmatched '[' at {stack[-1]}")
    return jumps


def run(code, data="", tape_size=300, max_steps=1_000_000):
    code = "".join(ch for ch in code if ch in "+-<>[].,")
    jumps = match_brackets(code)
    tape, ptr, pc, steps = bytearray(tape_size), 0, 0, 0
    inp, out = iter(data.encode()), []
    while pc < len(code) and steps < max_steps:
        match code[pc]:
            case "+":
                tape[ptr] = (tape[ptr] + 1) % 256
            case "-":
                tape[ptr] = (tape[ptr] - 1) % 256
            case ">":
                ptr += 1
            case "<":
                ptr -= 1
            case ".":
                out.append(chr(tape[ptr]))
            case ",":
                tape[ptr] = next(inp, 0)
            case "[" if tape[ptr] == 0:
                pc = jumps[pc]
            case "]" if tape[ptr] != 0:
                pc = jumps[pc]
        pc += 1
        steps += 1
    return "".join(out), steps


HELLO = """++++++++[>++++[>++>+++>+++>+<<<<-]>+>+>->>+[<]<-]
           >>.>---.+++++++..+++.>>.<-.<.+++.------.--------.>>+.>++."""
programs = [("hello", HELLO, ""), ("reverse", ">,[>,]<[.<]", "stressed"),
            ("add digits", ",>,[<+>-]<------------------------------------------------.", "34"),
            ("upper", ",[--------------------------------.,]", "shout"), ("broken", "+[>+", "")]
for name, code, data in programs:
    try:
        output, steps = run(code, data)
        print(f"{name:<10} {output!r:<18} ({steps} steps)")
    except SyntaxError as e:
        print(f"{name:<10} error: {e}")
