/**
 * The kick signal between a commit that wrote events (lib/events/kick-outbox.ts) and a running
 * outbox pass (lib/events/process-outbox.ts), in a module of its own so the two do not import
 * each other.
 */

let wake: (() => void) | undefined;
let kicked: Promise<void> | undefined;

/**
 * Resolves at the next kick (a commit wrote events): a running outbox pass that is waiting
 * on attempts in flight dispatches them at once instead of after its current wait.
 */
export function outboxKicked(): Promise<void> {
  kicked ??= new Promise<void>((resolve) => {
    wake = resolve;
  });
  return kicked;
}

/** Wakes whoever waits on {@link outboxKicked}; the next call waits for the kick after this one. */
export function signalKick(): void {
  const resolve = wake;
  wake = undefined;
  kicked = undefined;
  resolve?.();
}
