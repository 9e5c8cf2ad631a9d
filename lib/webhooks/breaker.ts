/**
 * The per-process circuit breaker of webhook endpoints (issue 25 item 10). An endpoint is a
 * registered webhook, or the per-task callbacks of one task owner (claim-deliveries.ts
 * `endpointSql`): never a host, so a dead endpoint never stops its host's other endpoints.
 * An endpoint whose last WEBHOOK_BREAKER_FAILURES attempts all failed is "open" for
 * WEBHOOK_BREAKER_COOLDOWN_SECONDS: the delivery worker (deliver.ts) then does not claim its due
 * deliveries, which stay due with their attempts uncounted (an attempt never made is not a failed
 * attempt), so a dead receiver stops taking slots without walking to the dead-letter queue faster.
 */
import { BoundedCache } from "../bounded-cache.js";
import type { Config } from "../config.js";

/** Circuit-breaker state of one endpoint (per process). */
interface BreakerState {
  /** Consecutive failed attempts. */
  failures: number;
  /** Epoch ms until which the circuit is open (0: never opened). */
  openUntil: number;
}

/** Endpoints with failures, at most this many remembered (forgetting closes their circuits). */
const MAX_TRACKED_ENDPOINTS = 10_000;

const breakers = new BoundedCache<string, BreakerState>(MAX_TRACKED_ENDPOINTS);

/**
 * The endpoints whose circuit is open at `at` (epoch ms): opened by WEBHOOK_BREAKER_FAILURES
 * consecutive failed attempts, for WEBHOOK_BREAKER_COOLDOWN_SECONDS. After the cool-down an
 * endpoint is left out again (attempts are real; a success closes it, a failure re-opens it).
 * @returns endpoint keys (`claim-deliveries.ts` `endpointSql`); empty when the breaker is off
 */
export function openEndpoints(config: Config, at = Date.now()): string[] {
  if (config.WEBHOOK_BREAKER_FAILURES === 0) return [];
  const open: string[] = [];
  for (const [endpoint, state] of breakers) if (state.openUntil > at) open.push(endpoint);
  return open;
}

/**
 * Feeds one real attempt's outcome to its endpoint's breaker: a success closes the circuit and
 * forgets the failures; the WEBHOOK_BREAKER_FAILURES-th consecutive failure (and any later one)
 * opens it for WEBHOOK_BREAKER_COOLDOWN_SECONDS from now. Only attempts actually made are fed.
 * @param endpoint the delivery's endpoint key (`ClaimedDelivery.endpoint`)
 */
export function recordBreaker(endpoint: string, ok: boolean, config: Config, at = Date.now()): void {
  if (ok) {
    breakers.delete(endpoint);
    return;
  }
  const state = breakers.get(endpoint) ?? { failures: 0, openUntil: 0 };
  state.failures += 1;
  if (config.WEBHOOK_BREAKER_FAILURES > 0 && state.failures >= config.WEBHOOK_BREAKER_FAILURES) {
    state.openUntil = at + config.WEBHOOK_BREAKER_COOLDOWN_SECONDS * 1000;
  }
  breakers.set(endpoint, state);
}

/** Forgets every breaker (tests). */
export function resetBreakers(): void {
  breakers.clear();
}
