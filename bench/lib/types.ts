/** Shared shapes of the benchmark suite: a benchmark, its context and its report section. */

/** Knobs read from the environment (see `readSettings`). */
export interface Settings {
  /** Seconds of measured load per HTTP target (`BENCH_DURATION`, default 10). */
  durationSec: number;
  /** Concurrent connections of the load generator (`BENCH_CONNECTIONS`, default 50). */
  connections: number;
  /** Seconds of unmeasured warm-up load per HTTP target (`BENCH_WARMUP`, default 2). */
  warmupSec: number;
  /** autocannon worker threads; 0 runs the load generator on the main thread (`BENCH_WORKERS`, default 1). */
  workers: number;
  /** Measured fresh-process imports per module (`BENCH_IMPORT_RUNS`, default 5). */
  importRuns: number;
  /** Measured sequential calls per arm of in-process microbenchmarks (`BENCH_ITERATIONS`, default 5000). */
  iterations: number;
  /** Requests per target of fixed-count HTTP runs (`BENCH_REQUESTS`, default 20000). */
  requests: number;
}

/** What every benchmark receives. */
export interface BenchContext {
  /** Project root (holds api/, scripts/, docs/). */
  root: string;
  settings: Settings;
  /** Progress output (stderr), kept out of the Markdown on stdout. */
  log(line: string): void;
}

/** One benchmark's result, rendered as a section of docs/performance.md. */
export interface Section {
  /** Benchmark name, also the section's marker in docs/performance.md. */
  name: string;
  title: string;
  /** Command line that reproduces the numbers. */
  command: string;
  /** Markdown: tables, verdicts, interpretation. */
  body: string;
}

/** A runnable benchmark, registered by name in bench/run.ts. */
export interface Benchmark {
  name: string;
  title: string;
  /** One line for `npm run bench -- --help`. */
  description: string;
  run(ctx: BenchContext): Promise<Section>;
}
