/**
 * Rate-limit windows in tests. The limiters (lib/ratelimit/limiter.ts, in-process and
 * @upstash/ratelimit alike) count in fixed windows aligned to the epoch and weigh the previous
 * window's count by the part of it still inside the sliding window, rounding down: a test that
 * spends a small budget across a window's edge sees one request more allowed than it counted.
 */

/**
 * Resolves at once when at least `needMs` (ms) remain in the current window of `windowSeconds`
 * (60 for the per-minute limits, 3600 for the per-hour ones); otherwise waits until the next
 * window has begun (plus 200 ms), at most `needMs` + 200 ms. Give the calling hook or test a
 * timeout above that.
 */
export async function startInsideWindow(windowSeconds: number, needMs: number): Promise<void> {
  const windowMs = windowSeconds * 1000;
  const left = windowMs - (Date.now() % windowMs);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 200));
}

/**
 * `startInsideWindow` for every window an environment override of limits touches: names ending
 * in `_PER_MIN` (60 s) or `_PER_HOUR` (3600 s), `needMs` each.
 */
export async function startInsideWindowsOf(env: Record<string, unknown>, needMs: number): Promise<void> {
  const names = Object.keys(env);
  if (names.some((n) => n.endsWith("_PER_HOUR"))) await startInsideWindow(3600, needMs);
  if (names.some((n) => n.endsWith("_PER_MIN"))) await startInsideWindow(60, needMs);
}
