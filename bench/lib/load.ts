/** A thin wrapper over autocannon's programmatic API, reduced to the numbers the reports use. */
import autocannon from "autocannon";

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
  return {
    url: options.url,
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
