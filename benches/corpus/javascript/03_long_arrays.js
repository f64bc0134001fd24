const squares = Array.from({ length: 30 }, (_, i) => i * i);
console.log(squares);

const small = [3, 1, 4, 1, 5, 9];
console.log(small);

const words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
  "india", "juliett", "kilo", "lima", "mike", "november", "oscar", "papa"];
console.log(words);

const big = Array.from({ length: 150 }, (_, i) => i * 3);
console.log(big);
console.log("length:", big.length, "last:", big.at(-1));

const mixed = [1, "two", 3.5, true, null, undefined, { x: 1 }, [8, 9]];
console.log(mixed);

const matrix = Array.from({ length: 4 }, (_, r) => Array.from({ length: 8 }, (_, c) => r * 8 + c));
console.log(matrix);

const nested = [[1, [2, [3, [4, [5]]]]]];
console.log(nested);
console.log(nested.flat(Infinity));
