PROGRAM = """
    ; compute factorial(10) and sum of 1..100 on a tiny stack machine
    push 10
    store n
    push 1
    store acc
loop:
    load n
    jz done
    load acc
    load n
    mul
    store acc
    load n
    push 1
    sub
    store n
    jmp loop
done:
    load acc
    print
    push 0
    store s
    push 100
    store i
sum:
    load i
    jz end
    load s
    load i
    add
    store s
    load i
    push 1
    sub
    store i
    jmp sum
end:
    load s
    print
    halt
"""


def assemble(source):
    code, labels = [], {}
    for raw in source.splitlines():
        line = raw.split(";")[0].strip()
        if not line:
            continue
        if line.endswith(":"):
            labels[line[:-1]] = len(code)
            continue
        op, *args = line.split()
        code.append((op, args[0] if args else None))
    return code, labels


def run(code, labels, max_steps=100_000):
    stack, memory, pc, steps, output = [], {}, 0, 0, []
    ops = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b}
    while pc < len(code) and steps < max_steps:
        op, arg = code[pc]
        pc += 1
        steps += 1
        match op:
            case "push":
                stack.append(int(arg))
            case "load":
                stack.append(memory[arg])
            case "store":
                memory[arg] = stack.pop()
            case "add" | "sub" | "mul":
                b, a = stack.pop(), stack.pop()
                stack.append(ops[op](a, b))
            case "jmp":
                pc = labels[arg]
            case "jz":
                if stack.pop() == 0:
                    pc = labels[arg]
            case "print":
                output.append(stack.pop())
            case "halt":
                break
            case _:
                raise ValueError(f"unknown op {op}")
    return output, steps, memory


code, labels = assemble(PROGRAM)
print(f"{len(code)} instructions, labels: {labels}")
output, steps, memory = run(code, labels)
print("output:", output)
print("steps executed:", steps)
print("final memory:", dict(sorted(memory.items())))
