const buffer = new ArrayBuffer(16);
const view = new DataView(buffer);
view.setUint32(0, 0xdeadbeef);
view.setFloat32(4, 3.5, true);
view.setInt16(8, -2, true);
console.log(buffer);
console.log(new Uint8Array(buffer));
console.log(view.getUint32(0).toString(16), view.getFloat32(4, true), view.getInt16(8, true));

const bytes = new Uint8Array([72, 101, 108, 108, 111, 300, -1]);
console.log(bytes);
console.log(String.fromCharCode(...bytes.slice(0, 5)));
console.log(new Uint8ClampedArray([300, -5, 127.6]));

const floats = new Float64Array([1.5, -0, NaN, Infinity, 1 / 3]);
console.log(floats);
console.log(new Int32Array(10).fill(7, 2, 5));
console.log(new Float32Array([0.1, 0.2, 0.3]));

const samples = Int16Array.from({ length: 40 }, (_, i) => Math.round(1000 * Math.sin(i / 3)));
console.log(samples);
console.log("peak:", Math.max(...samples), "min:", Math.min(...samples));

const shared = new Uint16Array(buffer, 8, 4);
console.log(shared, shared.byteOffset, shared.length);
console.log([...new Uint8Array(buffer, 0, 4)].map((b) => b.toString(16).padStart(2, "0")).join(" "));
console.log(new BigInt64Array([5n, -5n]), new Uint8Array(200).length);
console.log({ kind: "frame", data: new Uint8Array([1, 2, 3]) });
console.log(Array.from(new Int8Array([127, 128, 255, 256])));
console.log(new Uint8Array(120));
