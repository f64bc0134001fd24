// Compiled (not run) by `npm run typecheck`: the declarations describe
// what a user writes.
import { Sandbox, Pool, run, GuestError, TimeLimitError, type ExecutionResult, type GuestValue } from "../index.js";

async function main(): Promise<void> {
  const sandbox = new Sandbox("python", { limits: { maxDuration: 5, maxMemory: 256 << 20 }, sandbox: "require" });
  const value: GuestValue = await sandbox.run("x = 40\nx + 2", { inputs: { rows: [1, 2n, "a", new Map([[1, 2]])] } });
  const result: ExecutionResult = await sandbox.execute("1 / 0");
  if (result.status === "error") console.log(result.errorType, result.error);
  try {
    await sandbox.run("raise ValueError('no')");
  } catch (err) {
    if (err instanceof GuestError) console.log(err.type, err.traceback);
    if (err instanceof TimeLimitError) console.log(err.limit, err.seconds);
  }
  sandbox.close();
  const pool = new Pool("javascript", { size: 2 });
  const checked: Sandbox = await pool.checkout();
  checked.bindFunction("f", async (n: number) => n + 1);
  console.log(await checked.run("f(1)"), await pool.run("1"));
  pool.close();
  console.log(value, await run("javascript", "6 * 7"));
}

void main;
