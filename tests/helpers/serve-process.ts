/**
 * An instance of the service as its own process: `scripts/serve.ts` (the local host) started with
 * `node --import tsx`, for the tests that run several instances on one database or kill one
 * (tests/integration/*-two-instances.test.ts, idempotency-kill.test.ts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A started instance. */
export interface ServeProcess {
  child: ChildProcess;
  /** Its base URL (`http://127.0.0.1:PORT`). */
  url: string;
  /** Everything it wrote to stdout and stderr so far. */
  output: () => string;
}

/**
 * Starts `scripts/serve.ts` with NODE_ENV=development on a free loopback port, `env` on top of the
 * test process's environment; resolves once it prints that it listens.
 * @throws Error with its output when it exits or has not listened within 120 s (a guard only: tsx
 *   compiles the service at start, seconds of CPU on a loaded 2-core machine)
 */
export async function startServeProcess(env: Record<string, string>): Promise<ServeProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/serve.ts"], {
    cwd: root,
    env: { ...process.env, NODE_ENV: "development", PORT: "0", HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => {
    output += d;
  });
  child.stderr!.on("data", (d) => {
    output += d;
  });
  const deadline = Date.now() + 120_000;
  for (;;) {
    const m = /listening on (http:\/\/[\d.:]+)/.exec(output);
    if (m) return { child, url: m[1]!, output: () => output };
    if (Date.now() > deadline || child.exitCode !== null) {
      throw new Error(`scripts/serve.ts did not start:\n${output}`);
    }
    await sleep(100);
  }
}
