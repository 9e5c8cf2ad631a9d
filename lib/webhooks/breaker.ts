/**
 * The circuit breaker of webhook endpoints (issue 25 item 10), one state for every instance
 * (issue 47, decision 40). An endpoint is a registered webhook, or the per-task callbacks of one
 * task owner (claim-deliveries.ts `endpointSql`): never a host, so a dead endpoint never stops its
 * host's other endpoints.
 *
 * - Closed: every attempt is made. The WEBHOOK_BREAKER_FAILURES-th consecutive failed attempt,
 *   made by any instance, opens the circuit for WEBHOOK_BREAKER_COOLDOWN_SECONDS.
 * - Open: no worker claims the endpoint's due deliveries (deliver.ts). They stay due with their
 *   attempts uncounted: an attempt never made is not a failed attempt, whichever instance skipped
 *   it, so a dead receiver stops taking slots without walking to the dead-letter queue faster.
 * - Half-open (the cool-down is over): one worker, of all instances, takes the probe and claims one
 *   delivery of the endpoint; the others keep skipping it. The probe's success closes the
 *   circuit (failures forgotten); its failure re-opens it for another cool-down. A probe whose
 *   worker died lapses with its delivery's lease (claim-deliveries.ts `leaseMs`).
 *
 * Where the state lives (lib/ratelimit/shared-store.ts): Upstash Redis when configured, which the
 * production profile requires: `ptes:wb:open` (sorted set: endpoint → open-until, epoch ms),
 * `ptes:wb:fail:<endpoint>` (consecutive failures) and `ptes:wb:probe:<endpoint>:<open-until>`
 * (the probe, SET NX PX); an endpoint without an attempt for 24 h is forgotten. Without Upstash
 * (the local profile: one process), this process's memory. Redis failing (unreachable, an error,
 * past RATE_LIMIT_TIMEOUT_MS): the call falls back to this process's own breaker, the
 * reason is logged, and deliveries go on; nothing is thrown (decision 40).
 */
import type { Redis } from "@upstash/redis";
import { BoundedCache } from "../bounded-cache.js";
import type { Config } from "../config.js";
import { reportSharedStoreFailure, SHARED_KEY_PREFIX, sharedRedis } from "../ratelimit/shared-store.js";
import { leaseMs } from "./claim-deliveries.js";

/** What a worker may claim of the endpoints the breaker knows, at one moment. */
export interface BreakerAdmission {
  /** Endpoints not to claim now: open, or half-open with another worker's probe out. */
  skip: string[];
  /** Half-open endpoints whose probe this worker holds: at most one delivery each in its claim. */
  probe: string[];
  /**
   * Gives back the probes the claim did not use (no delivery of theirs was claimed), so another
   * worker may probe at once. Never throws.
   * @param used the endpoints of the deliveries claimed
   */
  release(used: ReadonlySet<string>): Promise<void>;
}

/** An admission that leaves nothing out (breaker off, nothing known). */
const NOTHING: BreakerAdmission = { skip: [], probe: [], release: async () => {} };

/** An endpoint without a failure for this long is forgotten (its counter, its open entry), ms. */
const FORGET_MS = 24 * 3600_000;

/** Who logs a store failure (lib/ratelimit/shared-store.ts). */
const USER = "webhook breaker";
const FALLBACK = "this process's own breaker decides meanwhile";

// ---------------------------------------------------------------------------------------------
// In-process state: the local profile's store, and the fallback when Redis fails.

/** Circuit-breaker state of one endpoint in this process. */
interface LocalState {
  /** Consecutive failed attempts. */
  failures: number;
  /** Epoch ms until which the circuit is open (0: never opened). */
  openUntil: number;
  /** Epoch ms until which this process's probe of the half-open circuit is out (0: none). */
  probeUntil: number;
}

/** Endpoints with failures, at most this many remembered (forgetting closes their circuits). */
const MAX_TRACKED_ENDPOINTS = 10_000;

const local = new BoundedCache<string, LocalState>(MAX_TRACKED_ENDPOINTS);

function admitLocal(config: Config, at: number): BreakerAdmission {
  const skip: string[] = [];
  const probe: string[] = [];
  for (const [endpoint, state] of local) {
    if (state.openUntil === 0) continue;
    if (state.openUntil > at || state.probeUntil > at) skip.push(endpoint);
    else {
      state.probeUntil = at + leaseMs(config);
      probe.push(endpoint);
    }
  }
  if (skip.length === 0 && probe.length === 0) return NOTHING;
  return {
    skip,
    probe,
    release: async (used) => {
      for (const endpoint of probe) {
        const state = local.get(endpoint);
        if (state && !used.has(endpoint)) state.probeUntil = 0;
      }
    },
  };
}

function recordLocal(endpoint: string, ok: boolean, config: Config, at: number): void {
  if (ok) {
    local.delete(endpoint);
    return;
  }
  const state = local.get(endpoint) ?? { failures: 0, openUntil: 0, probeUntil: 0 };
  state.failures += 1;
  if (state.failures >= config.WEBHOOK_BREAKER_FAILURES) {
    state.openUntil = at + config.WEBHOOK_BREAKER_COOLDOWN_SECONDS * 1000;
    state.probeUntil = 0;
  }
  local.set(endpoint, state);
}

// ---------------------------------------------------------------------------------------------
// Shared state in Redis.

const OPEN_KEY = `${SHARED_KEY_PREFIX}wb:open`;
const failKey = (endpoint: string) => `${SHARED_KEY_PREFIX}wb:fail:${endpoint}`;
const probeKey = (endpoint: string, openUntil: number) =>
  `${SHARED_KEY_PREFIX}wb:probe:${endpoint}:${openUntil}`;

async function admitShared(redis: Redis, config: Config, at: number): Promise<BreakerAdmission> {
  const [, rows] = await redis
    .pipeline()
    .zremrangebyscore(OPEN_KEY, "-inf", at - FORGET_MS)
    .zrange<unknown[]>(OPEN_KEY, 0, -1, { withScores: true })
    .exec<[number, unknown[]]>();
  const skip: string[] = [];
  const halfOpen: { endpoint: string; key: string }[] = [];
  for (let i = 0; i + 1 < rows.length; i += 2) {
    const endpoint = String(rows[i]);
    const openUntil = Number(rows[i + 1]);
    if (openUntil > at) skip.push(endpoint);
    else halfOpen.push({ endpoint, key: probeKey(endpoint, openUntil) });
  }
  const probes: typeof halfOpen = [];
  if (halfOpen.length) {
    // The probe key names the open period it ends: a probe that failed re-opened the circuit
    // with a new open-until, so a worker that read the old one takes no second probe of it.
    const taking = redis.pipeline();
    for (const h of halfOpen) taking.set(h.key, "1", { nx: true, px: leaseMs(config) });
    const taken = await taking.exec<unknown[]>();
    halfOpen.forEach((h, i) => {
      if (taken[i] === "OK") probes.push(h);
      else skip.push(h.endpoint);
    });
  }
  if (skip.length === 0 && probes.length === 0) return NOTHING;
  return {
    skip,
    probe: probes.map((p) => p.endpoint),
    release: async (used) => {
      const unused = probes.filter((p) => !used.has(p.endpoint)).map((p) => p.key);
      if (unused.length === 0) return;
      try {
        await redis.del(...unused);
      } catch (error) {
        // The probe lapses with its lease: the endpoint waits that long for its probe.
        reportSharedStoreFailure(USER, "an unused probe lapses with its lease", error);
      }
    },
  };
}

async function recordShared(
  redis: Redis,
  endpoint: string,
  ok: boolean,
  config: Config,
  at: number,
): Promise<void> {
  if (ok) {
    await redis.pipeline().del(failKey(endpoint)).zrem(OPEN_KEY, endpoint).exec();
    return;
  }
  const [failures] = await redis
    .pipeline()
    .incr(failKey(endpoint))
    .pexpire(failKey(endpoint), FORGET_MS)
    .exec<[number, number]>();
  if (failures >= config.WEBHOOK_BREAKER_FAILURES) {
    await redis.zadd(OPEN_KEY, {
      score: at + config.WEBHOOK_BREAKER_COOLDOWN_SECONDS * 1000,
      member: endpoint,
    });
  }
}

// ---------------------------------------------------------------------------------------------

/**
 * Which endpoints a worker leaves out of its next claim at `at`, and which half-open ones it
 * probes (module comment). Read from the shared store (every instance's failures count); Redis
 * failing: this process's own breaker answers, the reason logged.
 * @param config WEBHOOK_BREAKER_FAILURES (0: off, nothing left out), the store settings
 * @param at epoch ms
 * @returns endpoint keys (claim-deliveries.ts `endpointSql`); never throws
 */
export async function admitEndpoints(config: Config, at = Date.now()): Promise<BreakerAdmission> {
  if (config.WEBHOOK_BREAKER_FAILURES === 0) return NOTHING;
  const redis = sharedRedis(config);
  if (!redis) return admitLocal(config, at);
  try {
    return await admitShared(await redis, config, at);
  } catch (error) {
    reportSharedStoreFailure(USER, FALLBACK, error);
    return admitLocal(config, at);
  }
}

/**
 * Of `endpoints`, whose deliveries a worker has just claimed, those whose circuit opened since its
 * admission (another worker's failure, recorded before that worker freed its endpoint slot): the
 * worker gives those deliveries back unattempted (deliver.ts), so no attempt is made while open.
 * Redis failing: this process's own breaker answers, the reason logged.
 * @param at epoch ms of the admission
 * @returns the endpoints open at `at`; never throws
 */
export async function openedSince(endpoints: string[], config: Config, at = Date.now()): Promise<string[]> {
  if (config.WEBHOOK_BREAKER_FAILURES === 0 || endpoints.length === 0) return [];
  const openLocally = () => endpoints.filter((e) => (local.get(e)?.openUntil ?? 0) > at);
  const redis = sharedRedis(config);
  if (!redis) return openLocally();
  try {
    const scores = (await (await redis).zmscore(OPEN_KEY, endpoints)) ?? [];
    return endpoints.filter((_, i) => scores[i] !== null && Number(scores[i]) > at);
  } catch (error) {
    reportSharedStoreFailure(USER, FALLBACK, error);
    return openLocally();
  }
}

/**
 * Feeds one real attempt's outcome to its endpoint's breaker: a success closes the circuit and
 * forgets the failures; the WEBHOOK_BREAKER_FAILURES-th consecutive failure (and any later one)
 * opens it for WEBHOOK_BREAKER_COOLDOWN_SECONDS from `at`. Only attempts actually made are fed.
 * Redis failing: this process's own breaker records it, the reason logged.
 * @param endpoint the delivery's endpoint key (`ClaimedDelivery.endpoint`)
 * @param ok whether the attempt succeeded (a 2xx)
 * @param at epoch ms of the outcome
 * @returns when recorded; never throws
 */
export async function recordBreaker(
  endpoint: string,
  ok: boolean,
  config: Config,
  at = Date.now(),
): Promise<void> {
  if (config.WEBHOOK_BREAKER_FAILURES === 0) return;
  const redis = sharedRedis(config);
  if (!redis) return recordLocal(endpoint, ok, config, at);
  try {
    await recordShared(await redis, endpoint, ok, config, at);
  } catch (error) {
    reportSharedStoreFailure(USER, FALLBACK, error);
    recordLocal(endpoint, ok, config, at);
  }
}

/** Forgets this process's breakers (tests; the shared state keys on endpoint ids, unique per test). */
export function resetBreakers(): void {
  local.clear();
}
