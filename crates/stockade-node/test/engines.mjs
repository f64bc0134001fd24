// What the test files share: the engines each promise is tried in, and
// how a test names one and picks its code. No tests of its own.

/** Python's two engines. */
export const PYTHON = [["python", { engine: "cpython" }], ["python", { engine: "monty" }]];
/** Every engine: Python's two and QuickJS. */
export const ENGINES = [...PYTHON, ["javascript", {}]];

/** An engine's name in an assertion's message. */
export const label = (language, options) => `${language} ${options.engine ?? ""}`;

/** The Python or the JavaScript version of a snippet, for `language`. */
export const code = (language, python, javascript) => (language === "python" ? python : javascript);
