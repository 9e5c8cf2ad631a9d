/**
 * The ledger check run after every billing and recourse test file (issue 27, "Tests and
 * measures"): whatever the file did, the money adds up.
 * - Each prepaid account's balance (lib/billing/balance.ts, as GET /api/billing reports it) is the
 *   sum of its ledger entries, to the cent.
 * - Every deposit, charge and refund entry with an invoice matches the invoice's amount.
 * - Per task, what went back (ledger refunds of a prepaid task; refund credit notes of a USDC
 *   receipt) is at most what was charged, and so is the task's running total of refunds given and
 *   owed (`task_refunds`, issue 42).
 * - The task roll-ups the dashboard reads (revenue, clients, outcomes; docs/decisions.md 23) equal a
 *   recount of the tasks and their charges.
 */
import { eq } from "drizzle-orm";
import { afterAll, expect } from "vitest";
import { accountBalance } from "../../lib/billing/balance.js";
import { getDb } from "../../lib/db/client.js";
import { clientAccounts, invoices, ledgerEntries, taskRefunds, tasks } from "../../lib/db/schema/index.js";
import { toCents } from "../../lib/money.js";
import { taskRollupDiff } from "./rollups.js";

/** Checks the invariants above on the current test database. */
export async function expectLedgerConsistent(): Promise<void> {
  const db = await getDb();
  const entries = await db.select().from(ledgerEntries);
  const bills = new Map((await db.select().from(invoices)).map((i) => [i.id, i]));
  for (const account of await db.select({ id: clientAccounts.id }).from(clientAccounts)) {
    const sum = entries
      .filter((e) => e.accountId === account.id)
      .reduce((a, e) => a + toCents(e.amountCad), 0);
    expect(toCents((await accountBalance(account.id)).balance_cad), `balance of ${account.id}`).toBe(sum);
  }
  const charged = new Map<string, number>();
  const returned = new Map<string, number>();
  for (const e of entries) {
    const invoice = e.invoiceId ? bills.get(e.invoiceId) : undefined;
    if (invoice && e.kind !== "adjustment") {
      expect(Math.abs(toCents(e.amountCad)), `ledger entry ${e.id} vs invoice ${invoice.id}`).toBe(
        Math.abs(toCents(invoice.amountCad)),
      );
    }
    if (!e.taskId) continue;
    if (e.kind === "charge") charged.set(e.taskId, (charged.get(e.taskId) ?? 0) - toCents(e.amountCad));
    if (e.kind === "refund") returned.set(e.taskId, (returned.get(e.taskId) ?? 0) + toCents(e.amountCad));
  }
  for (const i of bills.values()) {
    if (!i.taskId) continue;
    if (i.kind === "usdc_receipt") charged.set(i.taskId, (charged.get(i.taskId) ?? 0) + toCents(i.amountCad));
    if (i.kind === "refund" && !entries.some((e) => e.invoiceId === i.id)) {
      returned.set(i.taskId, (returned.get(i.taskId) ?? 0) + Math.abs(toCents(i.amountCad)));
    }
  }
  for (const [task, back] of returned) {
    expect(back, `given back on ${task} vs charged`).toBeLessThanOrEqual(charged.get(task) ?? 0);
  }
  // Per task, the running total of refunds (given and owed, every path; lib/billing/task-refunds.ts)
  // is at most what was paid: the charge or receipt, else the price of a task paid out of band.
  const promised = new Map<string, number>();
  for (const r of await db.select().from(taskRefunds)) {
    if (r.kind === "owed" && r.settlementId !== null) continue;
    promised.set(r.taskId, (promised.get(r.taskId) ?? 0) + toCents(r.amountCad ?? 0));
  }
  for (const [taskId, back] of promised) {
    const [task] = await db.select().from(tasks).where(eq(tasks.id, taskId));
    const paid = charged.get(taskId) ?? (task?.paidAt ? toCents(task.priceCad ?? 0) : 0);
    expect(back, `refunds of ${taskId} vs paid`).toBeLessThanOrEqual(paid);
  }
  expect(await taskRollupDiff()).toMatchObject({ paid: 0, clients: 0, weeks: 0, created: 0, org: 0 });
}

/** Registers the check after the file's tests (before its database closes). */
export function useLedgerCheck(): void {
  afterAll(expectLedgerConsistent);
}
