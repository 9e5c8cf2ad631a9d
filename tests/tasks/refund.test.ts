/**
 * Settling refund requests (POST /api/task-refund, lib/tasks/settle-refund.ts): USDC and
 * out-of-band refunds recorded with their transaction, refunds credited to a prepaid
 * account, denials with a reason, the requester's e-mail, and what is refused.
 */
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../lib/db/client.js";
import { invoices, ledgerEntries, tasks } from "../../lib/db/schema/index.js";
import { accountAdmin, openLinkedAccount } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { expectEnvelope } from "../helpers/request.js";
import {
  cancelTask,
  completeTask,
  getStatus,
  recordPayment,
  refundSettledEmails,
  reviewTask,
  settleRefund,
  submitTask,
  validTask,
} from "../helpers/tasks.js";
import { verifyAddresses } from "../helpers/verified.js";

useTestDatabase();

let admin: string;
let agent: string;
const TX = `0x${"AB".repeat(32)}`;

beforeAll(async () => {
  admin = await makeKey(["admin"]);
  agent = await makeKey(["audit_only", "task_create", "task_cancel"], "owner@example.com");
  // Full-text e-mails go to verified addresses only (lib/mail/unverified-recipients.ts).
  await verifyAddresses(validTask.requester_contact);
});

const settle = (body: Record<string, unknown>, key = admin) => settleRefund(key, body);

/** A task paid out of band, then cancelled: after dispatch when `dispatched`. */
async function pendingRefund(dispatched: boolean, body: Record<string, unknown> = {}) {
  const { body: created } = await submitTask({ ...validTask, ...body }, keyHeaders(agent));
  const id = created.task_id as string;
  await reviewTask(admin, { task_id: id, action: "approve", price_cad: 240 });
  await recordPayment(admin, { task_id: id, tx_hash: `0x${"12".repeat(32)}`, network: "base" });
  if (dispatched) await completeTask(admin, { task_id: id, action: "dispatch" });
  const cancelled = await cancelTask(id, keyHeaders(agent));
  expect(cancelled.body.refund_status).toBe("pending");
  return id;
}

describe("POST /api/task-refund", () => {
  it("records a USDC refund with its transaction, shows it in the status and e-mails the requester", async () => {
    const id = await pendingRefund(false);
    const pending = await getStatus(id, keyHeaders(agent));
    expect(pending.body.refund).toEqual({
      status: "pending",
      amount_cad: 240,
      settled_at: null,
      tx_hash: null,
      note: null,
    });

    const { res, body } = await settle({
      task_id: id,
      outcome: "refunded",
      tx_hash: TX,
      note: "Sent on Base.",
    });
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ status: "cancelled", refund_status: "refunded" });
    expect(body.refund).toMatchObject({ status: "refunded", amount_cad: 240, tx_hash: TX.toLowerCase() });
    expect(Date.parse(body.refund.settled_at)).not.toBeNaN();
    expect(body._polling.recommended_action).toBe("Cancelled and refunded; see refund.");

    const [mail] = await refundSettledEmails(id);
    expect(mail).toMatchObject({ toAddress: validTask.requester_contact, lang: "fr" });
    expect(mail!.subject).toBe(`Remboursement envoyé pour la tâche ${id}`);
    expect(mail!.textBody).toContain(TX.toLowerCase());
    expect(mail!.textBody).toContain("Sent on Base.");
    expect(mail!.textBody).toMatch(/240,00\s\$/);
    expect(mail!.textBody).not.toContain("compte prépayé");

    // Settled once: a second settlement is a conflict that names the refund status.
    const again = await settle({ task_id: id, outcome: "denied", note: "Changed my mind" });
    const error = expectEnvelope(again.body, again.res, 409, "CONFLICT");
    expect(error.current_refund_status).toBe("refunded");
    expect(await refundSettledEmails(id)).toHaveLength(1);
  });

  it("records a partial refund after dispatch, in English for an English task", async () => {
    const id = await pendingRefund(true, { lang: "en" });
    const over = await settle({ task_id: id, outcome: "refunded", amount_cad: 240.01 });
    expect(expectEnvelope(over.body, over.res, 422, "VALIDATION_ERROR").field).toBe("amount_cad");
    const { body } = await settle({ task_id: id, outcome: "refunded", amount_cad: 90.5 });
    expect(body.refund).toMatchObject({ status: "refunded", amount_cad: 90.5, tx_hash: null, note: null });
    const [mail] = await refundSettledEmails(id);
    expect(mail!.subject).toBe(`Refund sent for task ${id}`);
    expect(mail!.textBody).toContain("$90.50");
    expect(mail!.textBody).not.toContain("USDC transaction");
  });

  it("denies a refund with the reason, which is required", async () => {
    const id = await pendingRefund(true);
    const bare = await settle({ task_id: id, outcome: "denied" });
    expect(expectEnvelope(bare.body, bare.res, 422, "VALIDATION_ERROR").field).toBe("note");
    const withAmount = await settle({ task_id: id, outcome: "denied", note: "x", amount_cad: 10 });
    expect(expectEnvelope(withAmount.body, withAmount.res, 422, "VALIDATION_ERROR").field).toBe("amount_cad");
    const reason = "The auction had already been attended (non-refundable).";
    const { body } = await settle({ task_id: id, outcome: "denied", note: reason });
    expect(body).toMatchObject({ refund_status: "denied" });
    expect(body.refund).toMatchObject({ status: "denied", amount_cad: null, note: reason });
    const [mail] = await refundSettledEmails(id);
    expect(mail!.subject).toBe(`Aucun remboursement pour la tâche ${id}`);
    expect(mail!.textBody).toContain(reason);
  });

  it("credits an account-paid task's refund to the account, with a refund invoice", async () => {
    const contact = "refund-settle@example.com";
    const key = await makeKey(["audit_only", "task_create", "task_cancel", "billing_read"], contact);
    const accountId = (await openLinkedAccount(key)).body.account.account_id as string;
    await accountAdmin(admin, { action: "deposit", email: contact, amount_cad: 1000 });
    const { body: created } = await submitTask(validTask, keyHeaders(key));
    const id = created.task_id as string;
    expect((await reviewTask(admin, { task_id: id, action: "approve", price_cad: 150 })).body.status).toBe(
      "paid",
    );
    await completeTask(admin, { task_id: id, action: "dispatch" });
    expect((await cancelTask(id, keyHeaders(key))).body.refund_status).toBe("pending");

    const withTx = await settle({ task_id: id, outcome: "refunded", tx_hash: TX });
    expect(expectEnvelope(withTx.body, withTx.res, 422, "VALIDATION_ERROR").field).toBe("tx_hash");
    const { body } = await settle({ task_id: id, outcome: "refunded", amount_cad: 60 });
    expect(body.refund).toMatchObject({ status: "refunded", amount_cad: 60 });
    const db = await getDb();
    const rows = await db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, accountId));
    const refund = rows.find((r) => r.kind === "refund");
    expect(refund).toMatchObject({ amountCad: 60, taskId: id });
    expect(rows.reduce((sum, r) => sum + r.amountCad, 0)).toBeCloseTo(910, 2);
    const [invoice] = await db.select().from(invoices).where(eq(invoices.id, refund!.invoiceId!));
    expect(invoice!.kind).toBe("refund");
    const [mail] = await refundSettledEmails(id);
    expect(mail!.textBody).toContain("compte prépayé");
  });

  it("refuses tasks without a pending refund, unknown tasks and non-admin keys; writes nothing then", async () => {
    const { body: created } = await submitTask(validTask, keyHeaders(agent));
    const free = created.task_id as string;
    await cancelTask(free, keyHeaders(agent));
    const notPending = await settle({ task_id: free, outcome: "refunded" });
    expect(expectEnvelope(notPending.body, notPending.res, 409, "CONFLICT").current_refund_status).toBe(
      "none",
    );
    const unknown = await settle({ task_id: "TASK-NOPE-NOPE", outcome: "refunded" });
    expectEnvelope(unknown.body, unknown.res, 404, "NOT_FOUND");
    const id = await pendingRefund(false);
    const forbidden = await settle({ task_id: id, outcome: "refunded" }, agent);
    expectEnvelope(forbidden.body, forbidden.res, 403, "FORBIDDEN");
    const badHash = await settle({ task_id: id, outcome: "refunded", tx_hash: "0x123" });
    expect(expectEnvelope(badHash.body, badHash.res, 422, "VALIDATION_ERROR").field).toBe("tx_hash");
    const [row] = await (await getDb()).select().from(tasks).where(eq(tasks.id, id));
    expect(row).toMatchObject({ refundStatus: "pending", refundSettledAt: null });
    expect(await refundSettledEmails(id)).toHaveLength(0);
  });
});
