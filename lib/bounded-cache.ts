/**
 * A `Map` for remembering the answers of a pure mapping with bounded memory: once it holds `max`
 * entries, adding another forgets them all first (no bookkeeping per read, unlike an LRU). Used for
 * place lookups (lib/geo/resolve-location.ts), rate-limit subjects (lib/ratelimit/limiter.ts) and
 * the local host's routes (scripts/local-host.ts).
 */
export class BoundedCache<K, V> extends Map<K, V> {
  /** @param max entries held at most (≥ 1) */
  constructor(readonly max: number) {
    super();
  }

  /** Adds `key`, first forgetting every entry when the cache is full and `key` is new. */
  override set(key: K, value: V): this {
    if (this.size >= this.max && !this.has(key)) this.clear();
    return super.set(key, value);
  }
}
