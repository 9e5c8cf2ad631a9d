/**
 * The ambient transaction: a database transaction that code running inside
 * `withAmbientTransaction` receives from `getDb()` (lib/db/client.ts) instead of the pool.
 * The `Idempotency-Key` wrapper (lib/http/idempotency.ts) runs a handler this way, so every
 * write the handler makes — including the domain's own `db.transaction(...)` calls, which
 * become savepoints inside it — commits together with the idempotency record, or not at all
 * (docs/reliability.md, "Idempotency").
 *
 * Work that must not see uncommitted rows or must not hold the transaction's connection
 * (background outbox passes, cache invalidation) is handed to `afterCommit`: it runs once the
 * outer transaction has committed, outside the ambient context, and never when it rolls back.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Tx } from "./types.js";

interface AmbientState {
  tx: Tx;
  /** Callbacks to run after COMMIT, in order. */
  afterCommit: (() => void)[];
  /** False once the transaction has ended: late callers get the pool again. */
  open: boolean;
}

const storage = new AsyncLocalStorage<AmbientState>();

/** The ambient transaction of the current async context, or undefined outside one (or once it ended). */
export function ambientTransaction(): Tx | undefined {
  const state = storage.getStore();
  return state?.open ? state.tx : undefined;
}

/**
 * Runs `fn` with `tx` as the ambient transaction. Returns what `fn` returns, and the
 * callbacks registered with `afterCommit` meanwhile, which the caller runs (`runAfterCommit`)
 * once `tx` has committed and drops if it rolls back.
 * @throws whatever `fn` throws.
 */
export async function withAmbientTransaction<T>(
  tx: Tx,
  fn: () => Promise<T>,
): Promise<{ result: T; afterCommit: (() => void)[] }> {
  const state: AmbientState = { tx, afterCommit: [], open: true };
  try {
    const result = await storage.run(state, fn);
    return { result, afterCommit: state.afterCommit };
  } finally {
    state.open = false;
  }
}

/**
 * Runs `fn` after the ambient transaction commits; with none, at once. `fn` must not throw
 * (errors are logged).
 * @returns true when `fn` was deferred, false when it ran now.
 */
export function afterCommit(fn: () => void): boolean {
  const state = storage.getStore();
  if (state?.open) {
    state.afterCommit.push(fn);
    return true;
  }
  fn();
  return false;
}

/**
 * Runs callbacks collected by `withAmbientTransaction`, outside any ambient context (so that
 * background work they start uses the pool), each guarded: one failing does not stop the rest.
 */
export function runAfterCommit(callbacks: (() => void)[]): void {
  storage.exit(() => {
    for (const fn of callbacks) {
      try {
        fn();
      } catch (error) {
        console.error("[db] after-commit callback failed:", error);
      }
    }
  });
}
