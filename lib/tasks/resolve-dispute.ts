/**
 * Resolving a dispute (POST /api/dispute-resolve, permission `disputes.resolve`; issue 27,
 * docs/tasks.md "Recourse: disputes and SLA credits"). Staff choose:
 *
 * - `redo`: a follow-up task, created paid at no charge (price 0, method `manual`), with its own
 *   lifecycle; it names the disputed task (`redo_of_task_id`) and the dispute names it
 *   (`follow_up_task_id`);
 * - `partial_refund` (`amount_cad`) or `full_refund` (what is left of what was paid), through the
 *   existing refund paths (lib/tasks/recourse-refund.ts): prepaid → credit note and balance back
 *   now; USDC → a refund owed that finance settles with POST /api/task-refund;
 * - `reject`, with the reason.
 *
 * Exactly once: the dispute row is locked (`SELECT … FOR UPDATE`) and must still be open, and the
 * operation is idempotent (`Idempotency-Key`), so retries and concurrent resolutions give one
 * resolution and one refund; the others get 409. The resolution, the money, the follow-up task,
 * the `task.dispute_resolved` event, the audit row and the operator's e-mail commit together.
 */
import { eq } from "drizzle-orm";
import { refundableCad } from "../billing/task-refunds.js";
import { getConfig } from "../config.js";
import { eventsCommitted } from "../db/after-events.js";
import { recordAudit } from "../db/audit.js";
import { getDb, type Tx } from "../db/client.js";
import { emails, type Task, type TaskDispute, taskDisputes, taskEvents, tasks } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { newTaskId, prefixedId } from "../ids.js";
import { formatUsdc, toCents } from "../money.js";
import { grantRefund } from "./recourse-refund.js";
import { getTaskOrThrow } from "./state/apply-transition.js";
import { executionDeadline } from "./state/deadlines.js";
import type { ResolveDisputeBody } from "./state/dispute-schemas.js";
import { emitTaskEvent, taskEventRow } from "./state/task-events.js";
import { taskLinks } from "./state/task-links.js";

/**
 * Resolves dispute `body.dispute_id` at `now`.
 * @returns the resolved dispute and its (disputed) task, as updated
 * @throws DomainError NOT_FOUND (unknown dispute), CONFLICT (already resolved: `current_resolution`),
 *   VALIDATION_ERROR (`amount_cad` above what is left, counting every refund given or owed:
 *   `max_amount_cad`; nothing left to refund)
 */
export async function resolveDispute(
  body: ResolveDisputeBody,
  now = new Date(),
): Promise<{ dispute: TaskDispute; task: Task }> {
  const db = await getDb();
  const result = await db.transaction(async (tx) => {
    const [dispute] = await tx
      .select()
      .from(taskDisputes)
      .where(eq(taskDisputes.id, body.dispute_id))
      .for("update");
    if (!dispute) {
      throw new DomainError("NOT_FOUND", `No dispute ${body.dispute_id}`, { field: "dispute_id" });
    }
    if (dispute.status !== "open") {
      throw new DomainError("CONFLICT", `Dispute ${dispute.id} is already resolved (${dispute.resolution})`, {
        extra: { current_resolution: dispute.resolution },
      });
    }
    let task = await getTaskOrThrow(dispute.taskId, tx, true);
    let refundAmountCad: number | null = null;
    let refundUsdcMicro: bigint | null = null;
    let followUpTaskId: string | null = null;
    if (body.resolution === "partial_refund" || body.resolution === "full_refund") {
      // What is left of what was paid, after every refund given or owed so far (issue 42).
      const { leftCad: left } = await refundableCad(tx, task);
      const amount = body.resolution === "full_refund" ? left : body.amount_cad!;
      if (left <= 0) {
        throw new DomainError("VALIDATION_ERROR", `Nothing of task ${task.id}'s payment is left to refund`, {
          field: "resolution",
          extra: { max_amount_cad: 0 },
        });
      }
      if (toCents(amount) > toCents(left)) {
        throw new DomainError(
          "VALIDATION_ERROR",
          `amount_cad is above what is left to refund of task ${task.id} (at most ${left} CAD)`,
          { field: "amount_cad", extra: { max_amount_cad: left } },
        );
      }
      const granted = await grantRefund(tx, task, amount, `dispute ${dispute.id} (${body.resolution})`, now, {
        source: "dispute",
        disputeId: dispute.id,
      });
      task = granted.task;
      refundAmountCad = granted.amountCad;
      refundUsdcMicro = granted.usdcMicro;
    } else if (body.resolution === "redo") {
      followUpTaskId = await createFollowUpTask(tx, task, dispute, now);
    }
    const [resolved] = await tx
      .update(taskDisputes)
      .set({
        status: "resolved",
        resolution: body.resolution,
        resolutionReason: body.reason ?? null,
        refundAmountCad,
        refundUsdcMicro,
        followUpTaskId,
        resolvedAt: now,
      })
      .where(eq(taskDisputes.id, dispute.id))
      .returning();
    const eventId = await emitTaskEvent(
      tx,
      task,
      "task.dispute_resolved",
      {
        dispute_id: dispute.id,
        resolution: body.resolution,
        reason: body.reason ?? null,
        refund_amount_cad: refundAmountCad,
        refund_usdc: refundUsdcMicro === null ? null : formatUsdc(refundUsdcMicro),
        refund_status: refundAmountCad === null ? null : task.refundStatus,
        follow_up_task_id: followUpTaskId,
      },
      now,
    );
    await recordAudit(tx, {
      action: "dispute.resolve",
      taskId: task.id,
      targetKind: "dispute",
      targetId: dispute.id,
      details: {
        resolution: body.resolution,
        refund_amount_cad: refundAmountCad,
        payment_method: task.paymentMethod,
        follow_up_task_id: followUpTaskId,
        event_id: eventId,
      },
    });
    if (!task.sandbox) {
      const config = getConfig();
      await tx.insert(emails).values({
        id: prefixedId("email"),
        toAddress: config.OPERATOR_EMAIL,
        subject: `Dispute ${dispute.id} on task ${task.id} resolved: ${body.resolution}`,
        textBody:
          `Dispute ${dispute.id} (${dispute.reason}) on task ${task.id} was resolved: ${body.resolution}.\n` +
          (refundAmountCad !== null
            ? `Refund: ${refundAmountCad} CAD (${task.paymentMethod === "account" ? "credited to the prepaid account" : "owed: send it, then POST /api/task-refund with its tx_hash"}).\n`
            : "") +
          (followUpTaskId ? `Follow-up task: ${followUpTaskId}\n` : "") +
          `Task: ${taskLinks(task.id).self}\n`,
        template: "dispute_operator",
        lang: "en",
        taskId: task.id,
        dedupeKey: `dispute-operator:${dispute.id}:resolved`,
      });
    }
    return { dispute: resolved!, task };
  });
  eventsCommitted();
  return result;
}

/**
 * Creates in `tx` the follow-up task of `dispute` on `task`: the same service, place, description,
 * contact and owner, paid at no charge (price 0, method `manual`) with a fresh execution deadline,
 * naming the disputed task in `redo_of_task_id`; its `task.created` and `task.paid` events are
 * written with it. Returns its id.
 */
async function createFollowUpTask(tx: Tx, task: Task, dispute: TaskDispute, now: Date): Promise<string> {
  const id = newTaskId(task.sandbox ? "SANDBOX" : getConfig().TASK_PREFIX, now);
  const deadline = executionDeadline(now, task.urgency);
  await tx.insert(tasks).values({
    id,
    sandbox: task.sandbox,
    serviceType: task.serviceType,
    status: "paid",
    locationAddress: task.locationAddress,
    taskDescription: task.taskDescription,
    requesterContact: task.requesterContact,
    urgency: task.urgency,
    specialInstructions: task.specialInstructions,
    preferredOutput: task.preferredOutput,
    callbackUrl: task.callbackUrl,
    lang: task.lang,
    apiKeyId: task.apiKeyId,
    accessTokenHash: task.accessTokenHash,
    agentIdentity: task.agentIdentity,
    orgId: task.orgId,
    accountId: task.accountId,
    location: task.location,
    estimateCad: 0,
    priceCad: 0,
    reviewDeadline: now,
    executionDeadline: deadline,
    reviewedAt: now,
    reviewReason: `Redo of task ${task.id} (dispute ${dispute.id}), at no charge`,
    policy: task.policy,
    paymentMethod: "manual",
    paidAt: now,
    redoOfTaskId: task.id,
    createdAt: now,
    updatedAt: now,
  });
  const redo = {
    id,
    status: "received" as const,
    apiKeyId: task.apiKeyId,
    serviceType: task.serviceType,
    sandbox: task.sandbox,
  };
  await tx.insert(taskEvents).values([
    taskEventRow(
      redo,
      "task.created",
      { redo_of_task_id: task.id, estimate_cad: 0, dispute_id: dispute.id },
      { taskStatus: "received", now },
    ),
    taskEventRow(
      redo,
      "task.paid",
      {
        status: "paid",
        previous_status: "received",
        redo_of_task_id: task.id,
        method: "manual",
        note: "no charge: redo of a disputed task",
        execution_deadline: deadline.toISOString(),
      },
      { taskStatus: "paid", now },
    ),
  ]);
  return id;
}
