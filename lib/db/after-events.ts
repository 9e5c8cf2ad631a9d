/**
 * The "events committed" hook of the base layer. Code that commits outbox rows (task events from
 * the state layer's `applyTransition`/batch and the workflows; account e-mails from registration
 * and password reset) calls `eventsCommitted()` once its transaction has committed; the outbox (lib/events/kick-outbox.ts) registers, when it is loaded, the function
 * that starts the first delivery pass. The state layer thereby wakes the outbox without importing
 * it (the layers only point down: docs/architecture.md).
 *
 * Every process that commits events loads the registering module through its entry: the HTTP
 * wrapper (lib/http/handler.ts), MCP (lib/mcp/server.ts), the job runner (lib/jobs/run-job.ts)
 * and the workflows of lib/tasks. With nothing registered, `eventsCommitted()` does nothing: the
 * every-minute outbox cron still delivers the events.
 */

const listeners: (() => void)[] = [];

/**
 * Registers `fn` to run after each commit that wrote events; registering the same function
 * twice keeps one entry. `fn` must return at once (start background work, never await it).
 */
export function onEventsCommitted(fn: () => void): void {
  if (!listeners.includes(fn)) listeners.push(fn);
}

/**
 * Tells the registered listeners that events were committed. Never throws: a failing listener
 * is logged and the rest still run (the outbox cron is the fallback).
 */
export function eventsCommitted(): void {
  for (const fn of listeners) {
    try {
      fn();
    } catch (error) {
      console.error("[db] events-committed listener failed:", error);
    }
  }
}

/** The registered listeners, in registration order (to check that a process entry registers). */
export function eventsCommittedListeners(): readonly (() => void)[] {
  return [...listeners];
}
