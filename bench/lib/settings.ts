/** Reads the benchmark knobs from the environment. */
import type { Settings } from "./types.js";

function positiveNumber(name: string, fallback: number, { integer = false, min = 1 } = {}): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    throw new Error(`${name}: expected ${integer ? "an integer" : "a number"} >= ${min}, got "${raw}"`);
  }
  return value;
}

/** Parses `BENCH_DURATION`, `BENCH_CONNECTIONS`, `BENCH_WARMUP`, `BENCH_WORKERS`, `BENCH_IMPORT_RUNS`,
 * `BENCH_ITERATIONS`, `BENCH_REQUESTS`. */
export function readSettings(): Settings {
  return {
    durationSec: positiveNumber("BENCH_DURATION", 10),
    connections: positiveNumber("BENCH_CONNECTIONS", 50, { integer: true }),
    warmupSec: positiveNumber("BENCH_WARMUP", 2, { min: 0 }),
    workers: positiveNumber("BENCH_WORKERS", 1, { integer: true, min: 0 }),
    importRuns: positiveNumber("BENCH_IMPORT_RUNS", 5, { integer: true }),
    iterations: positiveNumber("BENCH_ITERATIONS", 5000, { integer: true }),
    requests: positiveNumber("BENCH_REQUESTS", 20_000, { integer: true }),
  };
}

/** The `BENCH_*` assignments that reproduce `settings`, for a section's command line. */
export function settingsEnv(settings: Settings, keys: (keyof Settings)[]): string {
  const names: Record<keyof Settings, string> = {
    durationSec: "BENCH_DURATION",
    connections: "BENCH_CONNECTIONS",
    warmupSec: "BENCH_WARMUP",
    workers: "BENCH_WORKERS",
    importRuns: "BENCH_IMPORT_RUNS",
    iterations: "BENCH_ITERATIONS",
    requests: "BENCH_REQUESTS",
  };
  return keys.map((k) => `${names[k]}=${settings[k]}`).join(" ");
}
