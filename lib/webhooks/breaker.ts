/**
 * The per-process circuit breaker of webhook destinations: a destination whose last
 * WEBHOOK_BREAKER_FAILURES attempts all failed is "open" for WEBHOOK_BREAKER_COOLDOWN_SECONDS;
 * the delivery worker (deliver.ts) then records its due deliveries as failed attempts without a
 * request (same retry schedule, same dead letter), so a dead receiver stops taking slots.
 */
import { type Config, getConfig } from "../config.js";

/** Circuit-breaker state of one destination (per process). */
interface BreakerState {
  failures: number;
  openUntil: number;
}

const breakers = new Map<string, BreakerState>();

/**
 * Why a destination's circuit is open, or null when an attempt may be made. Open after
 * WEBHOOK_BREAKER_FAILURES consecutive failed attempts, for WEBHOOK_BREAKER_COOLDOWN_SECONDS;
 * after that, attempts are real again (a success closes it, a failure re-opens it).
 */
export function breakerOpen(
  destination: string,
  config: Config = getConfig(),
  at = Date.now(),
): string | null {
  const state = breakers.get(destination);
  if (!state || config.WEBHOOK_BREAKER_FAILURES === 0 || state.openUntil <= at) return null;
  return `not attempted: ${destination} failed ${state.failures} times in a row; circuit open until ${new Date(state.openUntil).toISOString()}`;
}

/** Feeds one real attempt's outcome to its destination's breaker. */
export function recordBreaker(destination: string, ok: boolean, config: Config): void {
  if (ok) {
    breakers.delete(destination);
    return;
  }
  const state = breakers.get(destination) ?? { failures: 0, openUntil: 0 };
  state.failures += 1;
  if (config.WEBHOOK_BREAKER_FAILURES > 0 && state.failures >= config.WEBHOOK_BREAKER_FAILURES) {
    state.openUntil = Date.now() + config.WEBHOOK_BREAKER_COOLDOWN_SECONDS * 1000;
  }
  breakers.set(destination, state);
}

/** Forgets every breaker (tests). */
export function resetBreakers(): void {
  breakers.clear();
}
