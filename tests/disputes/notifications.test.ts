/**
 * Dispute and SLA-credit events through the existing outbox (issue 27): a registered webhook
 * subscribed to task.disputed / task.dispute_resolved receives them, and the requester gets the
 * `recourse` e-mail for each (lib/events/dispatch-events.ts, lib/mail/compose-task-email.ts).
 */
import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as createWebhook } from "../../api/webhooks.js";
import { resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { deliveries, emails } from "../../lib/db/schema/index.js";
import { dispatchEvents } from "../../lib/events/dispatch-events.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { useLedgerCheck } from "../helpers/ledger.js";
import { call } from "../helpers/request.js";
import { validTask } from "../helpers/tasks.js";
import { verifyAddresses } from "../helpers/verified.js";
import { completedTask, openDispute, resolve } from "./helpers.js";

useTestDatabase();

useLedgerCheck();

let admin: string;
let owner: string;

beforeAll(async () => {
  process.env.ALLOW_PRIVATE_CALLBACKS = "true";
  resetConfig();
  admin = await makeKey(["admin"]);
  owner = await makeKey(["audit_only", "task_create"], "notify-owner@example.com");
  await verifyAddresses(validTask.requester_contact);
});
afterAll(() => {
  delete process.env.ALLOW_PRIVATE_CALLBACKS;
  resetConfig();
});

async function drain() {
  while ((await dispatchEvents()).events > 0) {
    // until every committed event is dispatched
  }
}

describe("dispute events", () => {
  it("reach the owner's webhook and the requester's inbox", async () => {
    const hook = await call(createWebhook, "/api/webhooks", {
      method: "POST",
      headers: keyHeaders(owner),
      json: { url: "http://127.0.0.1:9/hook", events: ["task.disputed", "task.dispute_resolved"] },
    });
    expect(hook.res.status).toBe(201);
    const id = await completedTask(admin, owner, 80);
    await drain();
    const opened = await openDispute(
      { task_id: id, reason: "late", details: "Two days late." },
      keyHeaders(owner),
    );
    const disputeId = opened.body.dispute.dispute_id as string;
    await resolve(admin, { dispute_id: disputeId, resolution: "partial_refund", amount_cad: 20 });
    await drain();

    const db = await getDb();
    const sent = await db
      .select()
      .from(deliveries)
      .where(
        and(eq(deliveries.taskId, id), inArray(deliveries.event, ["task.disputed", "task.dispute_resolved"])),
      );
    expect(sent.map((d) => d.event).sort()).toEqual(["task.dispute_resolved", "task.disputed"]);
    const mails = await db
      .select()
      .from(emails)
      .where(and(eq(emails.taskId, id), eq(emails.template, "recourse")));
    expect(mails.map((m) => m.subject).sort()).toEqual([
      `Litige reçu pour la tâche ${id}`,
      `Litige résolu pour la tâche ${id}`,
    ]);
    const resolvedMail = mails.find((m) => m.subject.startsWith("Litige résolu"))!;
    // Words in the requester's language, never the code or template text (lib/mail/labels.ts).
    const openedMail = mails.find((m) => m.subject.startsWith("Litige reçu"))!;
    expect(openedMail.textBody).toContain(") : en retard.");
    expect(resolvedMail.textBody).toContain("est résolue : remboursement partiel.");
    expect(resolvedMail.textBody).not.toContain("partial_refund");
    expect(resolvedMail.textBody).toMatch(
      /Remboursement : 20,00\s\$ CAD, envoyé sous peu au portefeuille payeur\.\n/,
    );
    for (const mail of mails) expect(mail.subject + mail.textBody).not.toMatch(/\{\{|\}\}/);
  });
});
