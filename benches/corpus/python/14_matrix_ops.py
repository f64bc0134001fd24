def matmul(a, b):
    return [[sum(x * y for x, y in zip(row, col)) for col in zip(*b)] for row in a]


def transpose(m):
    return [list(r) for r in zip(*m)]


def determinant(m):
    if len(m) == 1:
        return m[0][0]
    if len(m) == 2:
        return m[0][0] * m[1][1] - m[0][1] * m[1][0]
    return sum((-1) ** j * m[0][j] * determinant([row[:j] + row[j + 1:] for row in m[1:]])
               for j in range(len(m)))


def identity(n):
    return [[int(i == j) for j in range(n)] for i in range(n)]


def matpow(m, k):
    result = identity(len(m))
    while k:
        if k & 1:
            result = matmul(result, m)
        m = matmul(m, m)
        k >>= 1
    return result


def show(name, m):
    print(f"{name}:")
    for row in m:
        print("  " + " ".join(f"{v:>5}" for v in row))


A = [[2, -1, 0], [1, 3, 4], [0, 5, -2]]
B = [[1, 2], [0, 1], [4, -3]]
show("A", A)
show("A x B", matmul(A, B))
show("B^T", transpose(B))
print("det(A) =", determinant(A))
print("det(A^T) =", determinant(transpose(A)))
fib = matpow([[1, 1], [1, 0]], 30)
print("fib(30) via matrix power =", fib[0][1])
print("trace(A^3) =", sum(matpow(A, 3)[i][i] for i in range(3)))
