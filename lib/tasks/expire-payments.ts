/**
 * Payment expiry (api/cron/expire-payments): tasks awaiting payment whose 48 h window
 * has closed become `payment_expired`, each through the state machine with its event.
 * Safe to run concurrently and repeatedly: a task another run already moved is skipped.
 */
import { and, inArray, lt } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { tasks } from "../db/schema/index.js";
import { DomainError, isDomainError } from "../errors.js";
import { applyTransition } from "./state/apply-transition.js";

/** Expires every overdue task; returns how many this run expired. */
export async function expireOverduePayments(
  now = new Date(),
  batch = 500,
): Promise<{ expired: number; checked: number }> {
  const db = await getDb();
  const due = await db
    .select({ id: tasks.id })
    .from(tasks)
    .where(
      and(
        inArray(tasks.status, ["accepted_pending_payment", "counter_offered"]),
        lt(tasks.paymentExpiresAt, now),
      ),
    )
    .limit(batch);
  let expired = 0;
  for (const { id } of due) {
    try {
      await applyTransition(id, "expire", {
        changes: (t) => {
          // Re-checked under the row lock: a payment may have landed since the scan.
          if (!t.paymentExpiresAt || t.paymentExpiresAt >= now) {
            throw new DomainError("CONFLICT", "not overdue any more");
          }
          return {};
        },
        payload: (t) => ({ payment_expires_at: t.paymentExpiresAt?.toISOString() }),
      });
      expired++;
    } catch (error) {
      if (!isDomainError(error, "CONFLICT")) throw error;
    }
  }
  return { expired, checked: due.length };
}
