/**
 * Thin wrappers over autocannon, reduced to the numbers the reports use: its programmatic API
 * (load from this process, optionally in worker threads) and its CLI in a child process (so that
 * this process's CPU is the server's alone).
 */
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { promisify } from "node:util";
import autocannon from "autocannon";

const execFileAsync = promisify(execFile);

/** Options of one load run. */
export interface LoadOptions {
  url: string;
  /** Seconds of load; ignored when `amount` is set. */
  durationSec: number;
  /** Stop after this many requests instead of after `durationSec`. */
  amount?: number;
  connections: number;
  /** autocannon worker threads (0: generate load on the calling thread). */
  workers?: number;
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD";
  headers?: Record<string, string>;
  body?: string;
}

/** The summary of one load run. */
export interface LoadResult {
  url: string;
  /** Mean of the per-second request counts. */
  requestsPerSec: number;
  latencyMeanMs: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMaxMs: number;
  /** Responses received. */
  requests: number;
  non2xx: number;
  /** Connection errors, timeouts included. */
  errors: number;
  timeouts: number;
  durationSec: number;
}

/** The parts of autocannon's result (its API's object, or its CLI's `-j` JSON) a `LoadResult` reads. */
export interface AutocannonJson {
  requests: { total: number; average: number };
  latency: { average: number; p50: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  duration: number;
}

/** `result`, autocannon's summary of a run against `url`, as a `LoadResult`. */
export function loadResultOf(url: string, result: AutocannonJson): LoadResult {
  return {
    url,
    requestsPerSec: result.requests.average,
    latencyMeanMs: result.latency.average,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    latencyMaxMs: result.latency.max,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    durationSec: result.duration,
  };
}

/** Runs autocannon against `options.url` and resolves with its summary. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    duration: options.durationSec,
    ...(options.amount ? { amount: options.amount } : {}),
    connections: options.connections,
    workers: options.workers ?? 0,
    method: options.method ?? "GET",
    headers: options.headers,
    body: options.body,
  });
  return loadResultOf(options.url, result);
}

const autocannonCli = (() => {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve("autocannon/package.json")), "autocannon.js");
})();

/**
 * Runs autocannon's CLI in a child process against `options.url` (`amount` requests, or
 * `durationSec` seconds) and resolves with its summary; the load generator's CPU is not this
 * process's. `workers` is ignored (the child generates the load on its own thread).
 * @throws when the child fails or runs over 10 minutes
 */
export async function runLoadInChild(options: LoadOptions): Promise<LoadResult> {
  const args = [autocannonCli, "-j", "-c", String(options.connections), "-m", options.method ?? "GET"];
  if (options.amount) args.push("-a", String(options.amount));
  else args.push("-d", String(options.durationSec));
  for (const [k, v] of Object.entries(options.headers ?? {})) args.push("-H", `${k}=${v}`);
  if (options.body) args.push("-b", options.body);
  args.push(options.url);
  const { stdout } = await execFileAsync(process.execPath, args, {
    maxBuffer: 16 * 1024 * 1024,
    timeout: 600_000,
  });
  const result = JSON.parse(stdout) as AutocannonJson;
  return loadResultOf(options.url, result);
}
