/**
 * Event-stream slots of one credential (issue 25 item 9), counted across every instance (issue
 * 47, decision 41): a credential (`key:<api_key_id>`, or `token:<sha256 of an access token>`)
 * holds at most STREAM_MAX_PER_CREDENTIAL open streams in all, whichever instances serve them.
 *
 * Where they are counted (lib/ratelimit/shared-store.ts): with Upstash Redis (required by the
 * production profile), one sorted set per credential, `ptes:st:<credential>`, of slot ids scored
 * by the epoch ms their lease ends. A slot is taken by one Lua script (drop the lapsed slots,
 * count, add) so two instances never both take the last one; the stream's heartbeat timer renews
 * its lease (STREAM_SLOT_LEASE_SECONDS from now, at least twice STREAM_HEARTBEAT_SECONDS) and its
 * end gives it back. An instance that dies without closing its streams renews nothing: its slots
 * lapse within one lease. Without Upstash (the local profile: one process), a count in memory.
 *
 * Redis failing: taking a slot fails closed as the rate limits do (StorageError: the HTTP layer
 * answers 503 STORAGE_ERROR with Retry-After and logs the reason; never a 500); a renewal or a
 * release that fails is logged and the lease decides (the slot lapses; a later heartbeat that
 * reaches Redis counts it again).
 */
import { randomUUID } from "node:crypto";
import type { Config } from "../config.js";
import { DomainError, StorageError } from "../errors.js";
import { reportSharedStoreFailure, SHARED_KEY_PREFIX, sharedRedis } from "../ratelimit/shared-store.js";

/** One taken stream slot. */
export interface StreamSlot {
  /**
   * Extends the lease to STREAM_SLOT_LEASE_SECONDS from `now` (the heartbeat's timer). Never throws.
   * @param now epoch ms (default the current time; tests)
   */
  renew(now?: number): Promise<void>;
  /** Gives the slot back; later calls (and renewals) do nothing. Never throws. */
  release(): Promise<void>;
}

/** Who logs a store failure (lib/ratelimit/shared-store.ts). */
const USER = "stream slots";

/**
 * Drops the lapsed slots of KEYS[1], then adds slot ARGV[4] with lease end ARGV[3] (epoch ms)
 * unless ARGV[2] slots are held at ARGV[1] (epoch ms); the set expires ARGV[5] ms after.
 * @returns 1 when taken, 0 when all are held
 */
const TAKE_SCRIPT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`;

const slotsKey = (holder: string) => `${SHARED_KEY_PREFIX}st:${holder}`;

/** Streams open in this process per credential (the local profile's count). */
const localOpen = new Map<string, number>();

function tooMany(max: number): DomainError {
  return new DomainError(
    "RATE_LIMITED",
    `Too many open event streams for this credential (${max}, STREAM_MAX_PER_CREDENTIAL): close one, or poll the status`,
    { retryAfterSeconds: 5, extra: { limit: max, policy: "streams" } },
  );
}

function takeLocal(holder: string, max: number): StreamSlot {
  const open = localOpen.get(holder) ?? 0;
  if (open >= max) throw tooMany(max);
  localOpen.set(holder, open + 1);
  let given = false;
  return {
    renew: async () => {},
    release: async () => {
      if (given) return;
      given = true;
      const left = (localOpen.get(holder) ?? 1) - 1;
      if (left > 0) localOpen.set(holder, left);
      else localOpen.delete(holder);
    },
  };
}

/**
 * Takes one of the STREAM_MAX_PER_CREDENTIAL stream slots of `holder`, counted across every
 * instance (module comment).
 * @param holder the credential: `key:<api_key_id>` or `token:<sha256 hex of the access token>`
 * @param config STREAM_MAX_PER_CREDENTIAL, STREAM_SLOT_LEASE_SECONDS, the store settings
 * @param now epoch ms (tests: lapsed leases)
 * @returns the slot: renew it at each heartbeat, release it when the stream ends
 * @throws DomainError RATE_LIMITED (429, Retry-After 5 s) when all are held; StorageError when
 *   Redis fails (503 STORAGE_ERROR: fail closed, as the rate limits)
 */
export async function takeStreamSlot(holder: string, config: Config, now = Date.now()): Promise<StreamSlot> {
  const max = config.STREAM_MAX_PER_CREDENTIAL;
  const pending = sharedRedis(config);
  if (!pending) return takeLocal(holder, max);
  const leaseMs = config.STREAM_SLOT_LEASE_SECONDS * 1000;
  const key = slotsKey(holder);
  const id = randomUUID();
  let taken: unknown;
  try {
    const redis = await pending;
    taken = await redis.eval(TAKE_SCRIPT, [key], [now, max, now + leaseMs, id, leaseMs]);
  } catch (error) {
    throw new StorageError("stream-slot storage failed", { cause: error });
  }
  if (Number(taken) !== 1) throw tooMany(max);

  // Renewals and the release run one after the other, so a renewal never re-adds a released slot.
  let queue: Promise<void> = Promise.resolve();
  let given = false;
  const run = (step: () => Promise<void>, fallback: string) => {
    queue = queue.then(async () => {
      try {
        await step();
      } catch (error) {
        reportSharedStoreFailure(USER, fallback, error);
      }
    });
    return queue;
  };
  return {
    renew: (at = Date.now()) =>
      run(async () => {
        if (given) return;
        const redis = await pending;
        await redis
          .pipeline()
          .zadd(key, { score: at + leaseMs, member: id })
          .pexpire(key, leaseMs)
          .exec();
      }, "a stream's slot was not renewed: it lapses at the end of its lease unless a later heartbeat renews it"),
    release: () => {
      if (given) return queue;
      given = true;
      return run(async () => {
        await (await pending).zrem(key, id);
      }, "a closed stream's slot comes back at the end of its lease");
    },
  };
}

/** Forgets this process's stream counts (tests). */
export function resetStreamSlots(): void {
  localOpen.clear();
}
