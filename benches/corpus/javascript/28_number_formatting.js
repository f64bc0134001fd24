const values = [0, 1, -1.5, 3.14159, 1234.5678, 0.000123, 98765432.1, 1e21, 2 / 3];
for (const v of values) {
  console.log(String(v).padEnd(22), v.toFixed(2).padStart(14), v.toPrecision(4).padStart(12), v.toExponential(2));
}

console.log((1.005).toFixed(2), (1.255).toFixed(2), (2.5).toFixed(0), (-2.5).toFixed(0));
console.log(Math.round(2.5), Math.round(-2.5), Math.round(1.005 * 100) / 100, Math.trunc(-4.7), Math.floor(-4.7));
console.log(0.1 + 0.2, 0.1 + 0.2 === 0.3, Math.abs(0.1 + 0.2 - 0.3) < Number.EPSILON);
console.log((255).toString(2), (255).toString(16).toUpperCase(), (255).toString(8), (35).toString(36));
console.log(parseInt("ff", 16), parseInt("0b101"), Number("0b101"), parseFloat("3.14abc"), Number("3.14abc"));
console.log(Number.MAX_SAFE_INTEGER, Number.MIN_VALUE, Number.MAX_VALUE, Number.EPSILON);
console.log(1e21, 1e-7, 123456789012345680000, 0.000001, 100 / 3);
console.log([1.0, 2.50, 3.125, -0.0, 1e300 * 10]);

const formatBytes = (n) => {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n.toFixed(i === 0 ? 0 : 1)} ${units[i]}`;
};
console.log([512, 2048, 1536000, 5368709120, 2 ** 50].map(formatBytes));

const withCommas = (n) => n.toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
console.log(withCommas(1234567.891), withCommas(999.5), withCommas(-1000000));
console.log(Number.isInteger(5.0), Number.isSafeInteger(2 ** 53), Number.isFinite("5"), isFinite("5"));
console.log((12.3456).toFixed(10), (0.1).toFixed(20), (123.456).toPrecision(2), (0.00001234).toPrecision(2));
console.log(Math.hypot(3, 4), Math.cbrt(27), Math.sign(-3), Math.log10(1000), Math.max(), Math.min());
