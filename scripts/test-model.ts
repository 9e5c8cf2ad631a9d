/**
 * `npm run test:model -- [--runs N] [--commands N] [--seed S] [--path P] [--replay-path R]
 * [--property all|recourse] [--log]`: the model-based
 * test of the money (tests/model/money.test.ts; docs/payments.md "The model test of the money"),
 * longer than the run inside `npm test`, or replaying a failure.
 *
 * - `--runs N`: random command sequences to try (default 200; `npm test` tries 6);
 * - `--commands N`: at most N commands a sequence (default 40; `npm test`: 25);
 * - `--seed S`, `--path P` and `--replay-path R`: replay what a failure printed (fast-check's seed,
 *   path and the counterexample's `replayPath="…"`: together they go straight to the shrunk
 *   counterexample);
 * - `--property all|recourse`: run only the property over every path ("all paths") or only the
 *   recourse subset (default: both; a replay names the one that failed);
 * - `--log`: print each passing run's executed sequence.
 *
 * PGlite by default, PostgreSQL when TEST_DATABASE_URL is set (as every database test). The
 * options become MODEL_RUNS, MODEL_COMMANDS, MODEL_SEED, MODEL_PATH, MODEL_REPLAY_PATH, MODEL_LOG for vitest, with a
 * time limit (a guard against a hang, not a measure) of 10 s a sequence, at least 10 minutes.
 * Exit status: vitest's.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";

const root = path.resolve(import.meta.dirname, "..");

/** The environment of the vitest run for the command line `argv`. */
export function modelEnv(argv: string[]): Record<string, string> {
  const env: Record<string, string> = { MODEL_RUNS: "200", MODEL_COMMANDS: "40" };
  const names: Record<string, string> = {
    "--runs": "MODEL_RUNS",
    "--commands": "MODEL_COMMANDS",
    "--seed": "MODEL_SEED",
    "--path": "MODEL_PATH",
    "--replay-path": "MODEL_REPLAY_PATH",
    "--property": "MODEL_PROPERTY",
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--log") {
      env.MODEL_LOG = "1";
      continue;
    }
    const name = names[arg];
    const value = argv[++i];
    if (!name || value === undefined) {
      throw new Error(
        `unknown option ${arg}: use --runs N, --commands N, --seed S, --path P, --replay-path R, --property all|recourse, --log`,
      );
    }
    if (name === "MODEL_PROPERTY" && value !== "all" && value !== "recourse") {
      throw new Error("--property takes all or recourse");
    }
    if (!["MODEL_PATH", "MODEL_REPLAY_PATH", "MODEL_PROPERTY"].includes(name) && !/^-?\d+$/.test(value))
      throw new Error(`${arg} takes a whole number`);
    env[name] = value;
  }
  env.MODEL_TIMEOUT_MS = String(Math.max(600_000, Number(env.MODEL_RUNS) * 10_000));
  return env;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const env = modelEnv(process.argv.slice(2));
  const child = spawn(
    path.join(root, "node_modules", ".bin", "vitest"),
    [
      "run",
      "tests/model/money.test.ts",
      ...(env.MODEL_PROPERTY ? ["-t", env.MODEL_PROPERTY === "all" ? "all paths:" : "recourse:"] : []),
    ],
    { cwd: root, stdio: "inherit", env: { ...process.env, ...env } },
  );
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
