/**
 * First delivery right after a commit (issue 6 "First attempt right after the event is
 * committed"). `kickOutbox()` returns at once; the outbox pass runs in the background,
 * handed to Vercel's `waitUntil` (the function stays alive until it ends) or, on the local
 * host, as an in-process promise. Concurrent kicks coalesce: while a pass runs, further
 * kicks only ask for one more pass. A pass that dies loses nothing: the every-minute cron
 * finds the same rows (undispatched events, leased deliveries).
 *
 * Enabled by OUTBOX_KICK (default on, off under NODE_ENV=test unless set).
 *
 * Loading this module registers `kickOutbox` with the base layer's "events committed" hook
 * (lib/db/after-events.ts), which the task state layer calls after each commit that wrote events.
 */

import { getConfig } from "../config.js";
import { onEventsCommitted } from "../db/after-events.js";
import { afterCommit, ambientTransaction } from "../db/ambient.js";
import { describeError } from "../log-error.js";
import { waitUntil } from "../net/wait-until.js";
import { signalKick } from "./kick-signal.js";

let running: Promise<void> | undefined;
let again = false;

/** Budget of one background pass, ms (Vercel functions here may run 60 s). */
const KICK_BUDGET_MS = 25_000;

function enabled(): boolean {
  const config = getConfig();
  return config.OUTBOX_KICK ?? config.NODE_ENV !== "test";
}

/**
 * Starts (or re-arms) a background outbox pass; never throws, never blocks. Inside an
 * ambient transaction, deferred until it commits (dropped if it rolls back).
 */
export function kickOutbox(): void {
  // Inside a request's transaction (lib/db/ambient.ts) the events are not committed yet, and a
  // pass started here would run on that transaction: kick once it has committed.
  if (ambientTransaction()) {
    afterCommit(kickOutbox);
    return;
  }
  let on: boolean;
  try {
    on = enabled();
  } catch {
    return;
  }
  if (!on) return;
  if (running) {
    again = true;
    signalKick();
    waitUntil(running);
    return;
  }
  running = (async () => {
    try {
      const { processOutbox } = await import("./process-outbox.js");
      for (;;) {
        again = false;
        await processOutbox({ budgetMs: KICK_BUDGET_MS });
        // Checked and cleared in one synchronous step, so a kick arriving now is never lost.
        if (!again) return;
      }
    } catch (error) {
      console.error(`[outbox] background pass failed (the cron retries): ${describeError(error)}`);
    } finally {
      running = undefined;
    }
  })();
  waitUntil(running);
}

/** Resolves when no background pass is running (tests, graceful shutdown). */
export async function outboxIdle(): Promise<void> {
  while (running) await running;
}

onEventsCommitted(kickOutbox);
