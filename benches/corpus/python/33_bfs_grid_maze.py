from collections import deque

MAZE = """\
S.#.......
.##.####.#
....#....#
#.#.#.##..
..#...#..#
.####.#.#.
......#..E"""

grid = [list(row) for row in MAZE.splitlines()]
rows, cols = len(grid), len(grid[0])
find = lambda ch: next((r, c) for r in range(rows) for c in range(cols) if grid[r][c] == ch)
start, goal = find("S"), find("E")


def bfs(start, goal):
    queue = deque([start])
    came_from = {start: None}
    while queue:
        cur = queue.popleft()
        if cur == goal:
            break
        r, c = cur
        for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            nr, nc = r + dr, c + dc
            if 0 <= nr < rows and 0 <= nc < cols and grid[nr][nc] != "#" and (nr, nc) not in came_from:
                came_from[(nr, nc)] = cur
                queue.append((nr, nc))
    if goal not in came_from:
        return None, len(came_from)
    path, node = [], goal
    while node is not None:
        path.append(node)
        node = came_from[node]
    return path[::-1], len(came_from)


path, explored = bfs(start, goal)
print(f"start={start} goal={goal} explored={explored}")
print(f"shortest path: {len(path) - 1} steps")
for r, c in path[1:-1]:
    grid[r][c] = "*"
print("\n".join("".join(row) for row in grid))
turns = sum(1 for a, b, c in zip(path, path[1:], path[2:])
            if (b[0] - a[0], b[1] - a[1]) != (c[0] - b[0], c[1] - b[1]))
print("turns:", turns)
