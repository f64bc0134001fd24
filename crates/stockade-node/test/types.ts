// Compiled (not run) by `npm run typecheck`: the declarations describe
// what a user writes.
import {
  Sandbox, Pool, run, GuestError, TimeLimitError, Float, FunctionCall, Complete, type ExecutionResult, type GuestValue,
  type Progress, type Output,
} from "../index.js";

async function main(): Promise<void> {
  const sandbox = new Sandbox("python", { limits: { maxDuration: 5, maxMemory: 256 << 20 }, sandbox: "require" });
  const value: GuestValue = await sandbox.run("x = 40\nx + 2", { inputs: { rows: [1, 2n, "a", new Map([[1, 2]])] } });
  const result: ExecutionResult = await sandbox.execute("1 / 0");
  if (result.status === "error") console.log(result.errorType, result.error);
  for (const output of result.outputs) console.log(output.mimeType, output.data.length, output.text);
  await sandbox.run("display(1)", { onOutput: (output: Output) => output.data.byteLength });
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
  const sealed = new Sandbox("python", { dumpKeys: [Buffer.alloc(32)], dumpContext: "chat-1" });
  sealed.bindFunction("fetch", async (url: string) => url.length, { async: true });
  let step: Progress = await sealed.start("fetch('a') + x", { inputs: { x: new Float(1) }, functions: ["fetch"] });
  if (step instanceof FunctionCall) {
    const saved: Buffer = await step.dump();
    step = await step.resume(step.args.length);
    const back = await Sandbox.restore(saved, "python", { dumpKeys: [Buffer.alloc(32)], dumpContext: "chat-1" });
    console.log((await back.sandboxReport()).applied, await back.workerPid());
  }
  if (step instanceof Complete) console.log(step.value);
}

void main;
