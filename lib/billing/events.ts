/**
 * Billing events (spec "Events": `billing.low_balance`, `billing.payment_required`),
 * written to the `task_events` outbox with no task: `api_key_id` names the key whose
 * webhooks receive it and `account_id` the account. Payload (webhook `data`):
 * `{ account_id, agent_id, available_balance_cad, spending_level, reason, … }`.
 */
import type { Tx } from "../db/client.js";
import type { AccountStatus } from "../db/schema/enums.js";
import type { BillingEventType } from "../db/schema/event-registry.js";
import { fromCents, toCents } from "../money.js";
import { insertOutboxEvent } from "../tasks/state/task-events.js";
import { isWorse, type SpendingLevel, spendingLevel } from "./balance.js";

/** Writes one billing event in `tx`; returns its id. */
export async function emitBillingEvent(
  tx: Tx,
  type: BillingEventType,
  target: { accountId: string; apiKeyId: string | null },
  payload: Record<string, unknown>,
  now = new Date(),
): Promise<string> {
  return insertOutboxEvent(
    tx,
    {
      taskId: null,
      type,
      taskStatus: null,
      apiKeyId: target.apiKeyId,
      accountId: target.accountId,
      payload: { account_id: target.accountId, ...payload },
    },
    now,
  );
}

/**
 * Emits `billing.low_balance` in `tx` when spending `spentCad` (CAD) of `availableBeforeCad`
 * (the available balance before, CAD) moves the account to a worse spending level
 * (ok → alert → blocked). `cause` completes the payload (`reason` and the id of what spent it);
 * the payload also carries `agent_id` (the account e-mail), the new available balance and both levels.
 * @returns the available balance after the spending (CAD, exact cents) and its spending level
 */
export async function emitLowBalanceIfWorse(
  tx: Tx,
  account: { id: string; email: string; status: AccountStatus },
  apiKeyId: string | null,
  availableBeforeCad: number,
  spentCad: number,
  cause: Record<string, unknown>,
  now: Date,
): Promise<{ availableCad: number; level: SpendingLevel }> {
  const available = fromCents(toCents(availableBeforeCad) - toCents(spentCad));
  const levelBefore = spendingLevel(account.status, availableBeforeCad);
  const levelAfter = spendingLevel(account.status, available);
  if (!isWorse(levelAfter, levelBefore)) return { availableCad: available, level: levelAfter };
  await emitBillingEvent(
    tx,
    "billing.low_balance",
    { accountId: account.id, apiKeyId },
    {
      agent_id: account.email,
      available_balance_cad: available,
      spending_level: levelAfter,
      previous_spending_level: levelBefore,
      ...cause,
    },
    now,
  );
  return { availableCad: available, level: levelAfter };
}
