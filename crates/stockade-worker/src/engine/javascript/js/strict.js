// Strict eval: no code from strings. eval and every function constructor
// (Function, AsyncFunction, GeneratorFunction, AsyncGeneratorFunction) are
// replaced wherever guest code can reach them (the globals and each
// prototype's `constructor`) by functions that throw EvalError, and those
// places are locked so the guest cannot put the originals back. The worker's
// own evaluation of a snippet or a registered module does not go through
// them. Runs last, after every other part of the prelude.
() => {
  const refuse = () => {
    throw new EvalError('Code generation from strings disallowed for this context');
  };
  const lock = (object, name, value) => {
    Object.defineProperty(object, name, { value, writable: false, configurable: false });
  };
  const prototypes = [
    Function.prototype,
    Object.getPrototypeOf(async function () {}),
    Object.getPrototypeOf(function* () {}),
    Object.getPrototypeOf(async function* () {}),
  ];
  for (const prototype of prototypes) {
    // A function (not an arrow) so `new` and `class extends` reach it and throw.
    const Refused = function Function() { refuse(); };
    Refused.prototype = prototype;
    lock(prototype, 'constructor', Refused);
    if (prototype === Function.prototype) lock(globalThis, 'Function', Refused);
  }
  // A method, because strict code cannot name a function `eval`.
  lock(globalThis, 'eval', { eval() { refuse(); } }.eval);
}
