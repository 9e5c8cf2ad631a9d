/**
 * Human review (POST /api/task-review): approve, counter-offer or reject a `received`
 * task.
 *
 * - approve: the price is `price_cad` or the estimate. When it exceeds the task's
 *   `budget_limit`, the approval becomes a counter-offer at that price (the spec
 *   counter-offers tasks over budget).
 * - approve and counter_offer fix the exchange rate, the exact USDC amount (reserved for
 *   the task: lib/tasks/state/amount-reservations.ts) and the 48 h payment window.
 * - reject records the reason, shown to the requester.
 * - an approved task whose submitting key's account is active and funded is charged to
 *   it at once and goes to `paid` (lib/billing/charge-task.ts).
 *
 * - approving (or counter-offering) a task the policy screen sent to `review` records the
 *   operator's override with the task's policy record and in the event (`policy_override`).
 *
 * Approve (or counter-offer), the amount reservation, and the prepaid charge with its
 * ledger entry, invoice and events commit in ONE transaction: a failure anywhere leaves
 * the task `received` with nothing written, and the approval can simply be retried.
 */

import { payFromAccountIfFunded } from "../billing/charge-task.js";
import { getConfig } from "../config.js";
import { getDb } from "../db/client.js";
import { DomainError } from "../errors.js";
import { kickOutbox } from "../events/kick-outbox.js";
import { cadToMicroUsdc } from "../money.js";
import { currentCadUsdRate } from "../payments/exchange-rate.js";
import { policyOverride } from "../policy/override.js";
import { totalWithTaxes } from "../taxes.js";
import type { ReviewTaskBody } from "./state/admin-schemas.js";
import { reserveAmount } from "./state/amount-reservations.js";
import { applyTransition, getTaskOrThrow, type TransitionResult } from "./state/apply-transition.js";
import { paymentExpiry } from "./state/deadlines.js";

/**
 * Applies a review decision (see the module comment); `now` is the review time, also the
 * moment the USDC amount is assigned to the task.
 * @returns the last transition: `pay` when a prepaid account was charged, else the decision.
 * @throws DomainError NOT_FOUND, CONFLICT (not `received`), MISSING_FIELD (counter_offer without
 *   amount), EXCHANGE_RATE_UNAVAILABLE (stale live rate); the database's errors (nothing written).
 */
export async function reviewTask(body: ReviewTaskBody, now = new Date()): Promise<TransitionResult> {
  if (body.action === "reject") {
    return applyTransition(body.task_id, "reject", {
      changes: () => ({
        reviewReason: body.reason ?? "Rejected by the operator",
        operatorNotes: body.operator_notes ?? null,
        reviewedAt: now,
      }),
      payload: (t) => ({ reason: t.reviewReason }),
    });
  }
  const task = await getTaskOrThrow(body.task_id);
  let action: "approve" | "counter_offer" = body.action;
  let price: number;
  if (body.action === "counter_offer") {
    const amount = body.counter_offer_amount ?? body.price_cad;
    if (amount === undefined) {
      throw new DomainError("MISSING_FIELD", "counter_offer_amount is required to counter-offer", {
        field: "counter_offer_amount",
      });
    }
    price = amount;
  } else {
    price = body.price_cad ?? task.estimateCad!;
    if (task.budgetLimit !== null && price > task.budgetLimit) action = "counter_offer";
  }
  // Sandbox tasks never touch a chain: a stale live rate must not block them.
  const rate = await currentCadUsdRate({ allowFallback: task.sandbox });
  const reason =
    body.reason ??
    (action === "counter_offer" && body.action === "approve"
      ? `The price ${price.toFixed(2)} CAD exceeds your budget_limit of ${task.budgetLimit?.toFixed(2)} CAD`
      : null);
  const cooldownHours = getConfig().AMOUNT_REUSE_COOLDOWN_HOURS;
  const db = await getDb();
  const result = await db.transaction(async (tx) => {
    const decided = await applyTransition(
      body.task_id,
      action,
      {
        changes: async (locked, tx) => {
          // Registered for the sales taxes: the USDC amount pays the price with GST and QST (docs/taxes.md).
          const base = cadToMicroUsdc(
            totalWithTaxes(price, getConfig().TAX_REGISTERED, now),
            rate.rate_cad_usd,
          );
          // Sandbox tasks never touch a chain: their amount is not reserved.
          const micro = locked.sandbox ? base : await reserveAmount(tx, locked.id, base, now, cooldownHours);
          const overridden = policyOverride(locked.policy, action, body.operator_notes ?? null, now);
          return {
            ...(overridden ? { policy: overridden } : {}),
            priceCad: action === "approve" ? price : null,
            counterOfferAmount: action === "counter_offer" ? price : null,
            reviewReason: reason,
            operatorNotes: body.operator_notes ?? null,
            reviewedAt: now,
            exchangeRate: rate.rate_cad_usd,
            rateSource: rate.rate_source,
            rateAsOf: new Date(rate.as_of),
            paymentUsdcMicro: micro,
            paymentMethod: "usdc",
            paymentExpiresAt: paymentExpiry(now),
          };
        },
        payload: (t) => ({
          amount_cad: t.counterOfferAmount ?? t.priceCad,
          payment_usdc_micro: t.paymentUsdcMicro?.toString(),
          payment_expires_at: t.paymentExpiresAt?.toISOString(),
          ...(t.reviewReason ? { reason: t.reviewReason } : {}),
          ...(t.policy?.override?.at === now.toISOString() ? { policy_override: true } : {}),
        }),
      },
      tx,
    );
    // A requester with a funded prepaid account pays at approval, in this same transaction.
    return action === "approve" ? payFromAccountIfFunded(decided, tx, now) : decided;
  });
  kickOutbox(); // the committed events (lib/events)
  return result;
}
