const sparse = [1, , 3];
console.log(sparse, sparse.length);
console.log(1 in sparse, sparse[1]);

const holes = [, , 5, , ,];
console.log(holes, holes.length);

const big = [];
big[0] = "first";
big[9] = "tenth";
console.log(big);
big[50] = "fifty-first";
console.log(big, big.length);

console.log(sparse.map((x) => x * 10));
console.log(sparse.filter(() => true));
const visited = [];
sparse.forEach((x, i) => visited.push(i));
console.log("forEach visited indices", visited);
console.log([...sparse], Array.from(sparse), Object.keys(sparse));
console.log(sparse.includes(undefined), sparse.indexOf(undefined), sparse.join("-"));
console.log(JSON.stringify(sparse), sparse.flat(), [1, , 3].concat([, 5]));

const arr = [1, 2, 3, 4, 5];
delete arr[2];
console.log(arr, arr.length);
arr.length = 2;
console.log(arr);
arr.length = 4;
console.log(arr);

const withUndef = [1, undefined, 3];
console.log(withUndef, 1 in withUndef);
console.log(new Array(5), new Array(5).fill(), Array.from({ length: 3 }));
const grid = new Array(3).fill(null).map(() => new Array(3));
grid[1][1] = "X";
console.log(grid);
const mixedHoles = ["a", , , , "e", , { k: 1 }];
console.log(mixedHoles, mixedHoles.reduce((n) => n + 1, 0), "defined elements");
console.log([, "b", , "d"].sort(), [3, , 1, undefined, 2].sort());
