/**
 * `npm run test:under-load [-- --runs N] [-- --hogs N] [vitest arguments…]`: runs the tests
 * (vitest, as `npm test` does after its static checks) while CPU hogs keep every core busy, the
 * way a newcomer's laptop compiling something else would (issue 40: `npm test` must pass on a busy
 * 2-core machine). A test that asserts a clock boundary, races a tight timeout or gives a
 * subprocess too little time fails here first.
 *
 * Options (after `--`):
 * - `--runs N`: run the suite N times in a row (default 1), stopping at the first failure;
 * - `--hogs N`: CPU hogs to start (default: one per core, `os.availableParallelism()`);
 * - anything else goes to `vitest run` (e.g. test files, `--reporter dot`).
 *
 * Each hog is a Node process spinning on one core at normal priority. It ends by itself when this
 * script's process is gone (it checks its parent's pid between 50 ms slices) or after 3 hours.
 * Exit status: 0 when every run passed, else the failing run's status.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { availableParallelism, loadavg } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const root = path.resolve(import.meta.dirname, "..");

/** The options of the command line: runs, hogs, and the arguments left for vitest. */
export function parseArgs(argv: string[]): { runs: number; hogs: number; vitestArgs: string[] } {
  let runs = 1;
  let hogs = availableParallelism();
  const vitestArgs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--runs" || arg === "--hogs") {
      const value = Number(argv[++i]);
      if (!Number.isInteger(value) || value < (arg === "--runs" ? 1 : 0)) {
        throw new Error(`${arg} takes a whole number (${arg === "--runs" ? "at least 1" : "0 or more"})`);
      }
      if (arg === "--runs") runs = value;
      else hogs = value;
    } else {
      vitestArgs.push(arg);
    }
  }
  return { runs, hogs, vitestArgs };
}

/** A hog's program: spin in 50 ms slices until the parent is gone or 3 hours have passed. */
const HOG = `
const parent = process.ppid;
const end = Date.now() + 3 * 3600 * 1000;
for (;;) {
  const slice = Date.now() + 50;
  while (Date.now() < slice) {}
  if (process.ppid !== parent || Date.now() > end) process.exit(0);
}`;

/** Starts `count` CPU hogs. */
function startHogs(count: number): ChildProcess[] {
  return Array.from({ length: count }, () =>
    spawn(process.execPath, ["-e", HOG], { stdio: "ignore", env: { PATH: process.env.PATH ?? "" } }),
  );
}

/** Runs `vitest run …args` in the project root; resolves with its exit status. */
function runVitest(args: string[]): Promise<number> {
  const child = spawn(path.join(root, "node_modules", ".bin", "vitest"), ["run", ...args], {
    cwd: root,
    stdio: "inherit",
  });
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

async function main(): Promise<number> {
  const { runs, hogs, vitestArgs } = parseArgs(process.argv.slice(2));
  const started = startHogs(hogs);
  const stop = () => {
    for (const hog of started) hog.kill("SIGKILL");
  };
  process.on("exit", stop);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      stop();
      process.exit(130);
    });
  }
  try {
    for (let run = 1; run <= runs; run++) {
      const began = Date.now();
      console.log(
        `== test:under-load run ${run}/${runs}: ${hogs} CPU hog(s) on ${availableParallelism()} core(s), ` +
          `load average ${loadavg()
            .map((l) => l.toFixed(1))
            .join(" ")}`,
      );
      const status = await runVitest(vitestArgs);
      const seconds = Math.round((Date.now() - began) / 1000);
      console.log(
        `== test:under-load run ${run}/${runs}: ${status === 0 ? "passed" : `failed (exit ${status})`} ` +
          `in ${seconds} s, load average ${loadavg()
            .map((l) => l.toFixed(1))
            .join(" ")}`,
      );
      if (status !== 0) return status;
    }
    return 0;
  } finally {
    stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    (status) => process.exit(status),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(2);
    },
  );
}
