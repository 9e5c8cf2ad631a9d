/**
 * Billing events (spec "Events": `billing.low_balance`, `billing.payment_required`),
 * written to the `task_events` outbox with no task: `api_key_id` names the key whose
 * webhooks receive it and `account_id` the account. Payload (webhook `data`):
 * `{ account_id, agent_id, available_balance_cad, spending_level, reason, … }`.
 */
import type { Tx } from "../db/client.js";
import type { BillingEventType } from "../db/schema/enums.js";
import { taskEvents } from "../db/schema/index.js";
import { prefixedId } from "../ids.js";

/** Writes one billing event in `tx`; returns its id. */
export async function emitBillingEvent(
  tx: Tx,
  type: BillingEventType,
  target: { accountId: string; apiKeyId: string | null },
  payload: Record<string, unknown>,
  now = new Date(),
): Promise<string> {
  const id = prefixedId("evt");
  await tx.insert(taskEvents).values({
    id,
    taskId: null,
    type,
    taskStatus: null,
    apiKeyId: target.apiKeyId,
    accountId: target.accountId,
    payload: { account_id: target.accountId, ...payload },
    createdAt: now,
  });
  return id;
}
