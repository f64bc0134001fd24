# The first program to run in stockade: plain Python, in a sandboxed worker.
def greet(name):
    return f"Hello, {name}!"

for name in ["world", "stockade"]:
    print(greet(name))

squares = {n: n * n for n in range(1, 6)}
print("squares:", squares)

sum(squares.values())
