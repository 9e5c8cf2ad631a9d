/**
 * Billing tells an SLA credit from a dispute refund from a cancellation refund (issue 42 item 5;
 * lib/tasks/state/refund-reasons.ts): `refund_reason` on each refund of GET /api/billing and of the
 * dashboard, `refund_reasons` on each credit note (JSON, dashboard) and the reason in words on its
 * PDF. A prepaid account gets one refund of each kind (and a cancellation after dispatch settled by
 * finance); a USDC task whose one settlement closes a dispute's refund and an SLA credit gets one
 * credit note naming both.
 */
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as accountGet } from "../../api/client-account.js";
import { getDb } from "../../lib/db/client.js";
import { invoices, ledgerEntries, tasks } from "../../lib/db/schema/index.js";
import { creditLateTasks } from "../../lib/tasks/sla-credits.js";
import { accountAdmin, billing, openLinkedAccount, readAccount } from "../accounts/helpers.js";
import { completedTask, openDispute, resolve } from "../disputes/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { useLedgerCheck } from "../helpers/ledger.js";
import { BASE } from "../helpers/request.js";
import {
  cancelTask,
  completeTask,
  reviewTask,
  settleRefund,
  submitTask,
  validTask,
} from "../helpers/tasks.js";
import { pdfText } from "./pdf-text.js";

useTestDatabase();

useLedgerCheck();

const HOUR = 3600_000;
let admin: string;

beforeAll(async () => {
  admin = await makeKey(["admin"]);
});

/** Moves task `id`'s execution deadline to `hours` before its completion. */
async function makeLate(id: string, hours: number) {
  const db = await getDb();
  const [task] = await db.select().from(tasks).where(eq(tasks.id, id));
  await db
    .update(tasks)
    .set({ executionDeadline: new Date(task!.completedAt!.getTime() - hours * HOUR) })
    .where(eq(tasks.id, id));
}

/** Opens a dispute of `id` as `key` and resolves it with `resolution`. */
async function disputeAndResolve(id: string, key: string, resolution: Record<string, unknown>) {
  const opened = await openDispute(
    { task_id: id, reason: "incomplete", details: "Half done." },
    keyHeaders(key),
  );
  expect(opened.res.status).toBe(201);
  const resolved = await resolve(admin, { dispute_id: opened.body.dispute.dispute_id, ...resolution });
  expect(resolved.res.status).toBe(200);
}

/** The credit notes of task `id`. */
async function creditNotesOf(id: string) {
  return (await getDb())
    .select()
    .from(invoices)
    .where(and(eq(invoices.taskId, id), eq(invoices.kind, "refund")));
}

describe("refund reasons in billing", () => {
  it("a prepaid account's refunds: cancellation, dispute, SLA credit, settled cancellation; in the ledger, the dashboard, the credit notes and their PDF", async () => {
    const contact = "reasons@example.com";
    const key = await makeKey(["audit_only", "task_create", "task_cancel", "billing_read"], contact);
    const opened = await openLinkedAccount(key, { lang: "en" });
    await accountAdmin(admin, { action: "deposit", email: contact, amount_cad: 2000 });

    // Cancelled before dispatch: credited at once.
    const { body: created } = await submitTask(validTask, keyHeaders(key));
    const cancelled = created.task_id as string;
    expect(
      (await reviewTask(admin, { task_id: cancelled, action: "approve", price_cad: 100 })).body.status,
    ).toBe("paid");
    expect((await cancelTask(cancelled, keyHeaders(key))).body.refund_status).toBe("refunded");
    // Cancelled after dispatch: owed, then settled by finance (credited to the account then).
    const { body: created2 } = await submitTask(validTask, keyHeaders(key));
    const settled = created2.task_id as string;
    await reviewTask(admin, { task_id: settled, action: "approve", price_cad: 90 });
    await completeTask(admin, { task_id: settled, action: "dispatch" });
    expect((await cancelTask(settled, keyHeaders(key))).body.refund_status).toBe("pending");
    expect(
      (await settleRefund(admin, { task_id: settled, outcome: "refunded", amount_cad: 45 })).res.status,
    ).toBe(200);
    // Disputed: a partial refund.
    const disputed = await completedTask(admin, key, 200);
    await disputeAndResolve(disputed, key, { resolution: "partial_refund", amount_cad: 30 });
    // Late: the SLA credit (50 h: 20 % of 150).
    const late = await completedTask(admin, key, 150);
    await makeLate(late, 50);
    expect(await creditLateTasks()).toMatchObject({ credited: 1, credited_cad: 30 });

    const expected = new Map([
      [cancelled, "cancellation"],
      [settled, "cancellation"],
      [disputed, "dispute"],
      [late, "sla_credit"],
    ]);
    const page = await billing(key, `action=transactions&agent_id=${contact}`);
    expect(page.res.status).toBe(200);
    const txs = page.body.transactions as { kind: string; task_id: string; refund_reason: string | null }[];
    const refunds = txs.filter((t) => t.kind === "refund");
    expect(refunds).toHaveLength(4);
    for (const t of refunds) expect(t.refund_reason).toBe(expected.get(t.task_id));
    for (const t of txs.filter((t) => t.kind !== "refund")) expect(t.refund_reason).toBeNull();

    const auth = { authorization: `Bearer ${opened.jwt}` };
    const dashboard = (await readAccount(auth, "?include=dashboard")).body.dashboard as {
      transactions: { kind: string; task_id: string; refund_reason: string | null }[];
      invoices: { invoice_id: string; kind: string; task_id: string; refund_reasons: string[] }[];
    };
    for (const t of dashboard.transactions.filter((t) => t.kind === "refund")) {
      expect(t.refund_reason).toBe(expected.get(t.task_id));
    }
    const notes = dashboard.invoices.filter((i) => i.kind === "refund");
    expect(notes).toHaveLength(4);
    for (const i of notes) expect(i.refund_reasons).toEqual([expected.get(i.task_id)]);
    for (const i of dashboard.invoices.filter((i) => i.kind !== "refund"))
      expect(i.refund_reasons).toEqual([]);

    // The credit note of the SLA credit: JSON and PDF.
    const [slaNote] = await creditNotesOf(late);
    const json = await readAccount(auth, `?invoice_id=${slaNote!.id}`);
    expect(json.body.invoice).toMatchObject({ kind: "refund", refund_reasons: ["sla_credit"] });
    const pdf = await accountGet(
      new Request(`${BASE}/api/client-account?invoice_id=${slaNote!.id}&format=pdf`, { headers: auth }),
    );
    const text = await pdfText(new Uint8Array(await pdf.arrayBuffer()));
    expect(text).toContain("CREDIT NOTE");
    expect(text).toContain("Reason: SLA credit (task finished late)");
    const [disputeNote] = await creditNotesOf(disputed);
    const disputePdf = await accountGet(
      new Request(`${BASE}/api/client-account?invoice_id=${disputeNote!.id}&format=pdf`, { headers: auth }),
    );
    expect(await pdfText(new Uint8Array(await disputePdf.arrayBuffer()))).toContain(
      "Reason: refund granted on a dispute",
    );
    // Each ledger refund names its credit note, whose reasons the ledger reads.
    const ledger = await (await getDb())
      .select()
      .from(ledgerEntries)
      .where(
        and(eq(ledgerEntries.accountId, opened.body.account.account_id), eq(ledgerEntries.kind, "refund")),
      );
    expect(ledger.every((e) => e.invoiceId !== null)).toBe(true);
  });

  it("a USDC task's one settlement of a dispute refund and an SLA credit: one credit note naming both reasons", async () => {
    const key = await makeKey(["audit_only", "task_create"], "reasons-usdc@example.com");
    const id = await completedTask(admin, key, 200);
    await makeLate(id, 30);
    expect(await creditLateTasks()).toMatchObject({ credited: 1, credited_cad: 20 });
    await disputeAndResolve(id, key, { resolution: "partial_refund", amount_cad: 50 });
    const settled = await settleRefund(admin, {
      task_id: id,
      outcome: "refunded",
      tx_hash: `0x${"ab".repeat(32)}`,
    });
    expect(settled.res.status).toBe(200);
    const [note] = await creditNotesOf(id);
    expect(note!.amountCad).toBe(70);
    const json = await readAccount(keyHeaders(key), `?invoice_id=${note!.id}`);
    expect(json.body.invoice).toMatchObject({ kind: "refund", refund_reasons: ["dispute", "sla_credit"] });
    const pdf = await accountGet(
      new Request(`${BASE}/api/client-account?invoice_id=${note!.id}&format=pdf`, {
        headers: keyHeaders(key),
      }),
    );
    const text = await pdfText(new Uint8Array(await pdf.arrayBuffer()));
    // In the task's language (French by default), the reasons in REFUND_REASONS order.
    expect(text).toContain(
      "Motif: remboursement accordé à la suite d'un litige; crédit de niveau de service (tâche terminée en retard)",
    );
    // The receipt itself names no reason.
    const [task] = await (await getDb()).select().from(tasks).where(eq(tasks.id, id));
    const receipt = await readAccount(keyHeaders(key), `?invoice_id=${task!.receiptInvoiceId}`);
    expect(receipt.body.invoice).toMatchObject({ kind: "usdc_receipt", refund_reasons: [] });
  });
});
