/**
 * An `npm` script started as a child process for the integration tests (npm start, npm run dev,
 * npm run admin:create-key): its own process group (detached, so a test can signal the whole
 * group), stdout and stderr collected together.
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");

/** A started npm script. */
export interface NpmProcess {
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output: () => string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

/**
 * Runs `npm <args>` in the project root with NODE_ENV=development and PORT=0 (any free port),
 * `env` on top of the test process's environment.
 */
export function spawnNpm(args: string[], env: Record<string, string>): NpmProcess {
  let output = "";
  const child = spawn("npm", args, {
    cwd: root,
    env: { ...process.env, NODE_ENV: "development", PORT: "0", ...env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (d) => {
    output += d;
  });
  child.stderr!.on("data", (d) => {
    output += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/**
 * Waits until the output of `started` matches `re`, polling every 100 ms.
 * @throws Error after `ms` milliseconds, or when the process exits first (with its output)
 */
export async function waitForOutput(started: NpmProcess, re: RegExp, ms: number): Promise<RegExpMatchArray> {
  const deadline = Date.now() + ms;
  for (;;) {
    const m = started.output().match(re);
    if (m) return m;
    if (Date.now() > deadline || started.child.exitCode !== null) {
      throw new Error(`timed out waiting for ${re}; output:\n${started.output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
