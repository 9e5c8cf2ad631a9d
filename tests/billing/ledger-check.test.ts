/**
 * The ledger check itself (tests/helpers/ledger.ts) can fail: a refund beyond what a task was
 * charged, or a ledger entry that disagrees with its invoice, is caught.
 */
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../lib/db/client.js";
import { ledgerEntries } from "../../lib/db/schema/index.js";
import { prefixedId } from "../../lib/ids.js";
import { accountAdmin, openLinkedAccount } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { expectLedgerConsistent } from "../helpers/ledger.js";
import { reviewTask, submitTask, validTask } from "../helpers/tasks.js";

useTestDatabase();

let accountId: string;
let taskId: string;

beforeAll(async () => {
  const admin = await makeKey(["admin"]);
  const contact = "ledger-check@example.com";
  const key = await makeKey(["audit_only", "task_create", "task_cancel", "billing_read"], contact);
  accountId = (await openLinkedAccount(key)).body.account.account_id as string;
  await accountAdmin(admin, { action: "deposit", email: contact, amount_cad: 1000 });
  taskId = (await submitTask(validTask, keyHeaders(key))).body.task_id as string;
  expect((await reviewTask(admin, { task_id: taskId, action: "approve", price_cad: 100 })).body.status).toBe(
    "paid",
  );
});

describe("the ledger check", () => {
  it("passes on a consistent ledger", async () => {
    await expectLedgerConsistent();
  });

  it("fails when more goes back on a task than it was charged", async () => {
    const db = await getDb();
    const id = prefixedId("le");
    await db.insert(ledgerEntries).values({ id, accountId, kind: "refund", amountCad: 150, taskId });
    await expect(expectLedgerConsistent()).rejects.toThrow(/given back on/);
    await db.delete(ledgerEntries).where(eq(ledgerEntries.id, id));
    await expectLedgerConsistent();
  });

  it("fails when a ledger entry disagrees with its invoice", async () => {
    const db = await getDb();
    const [charge] = await db.select().from(ledgerEntries).where(eq(ledgerEntries.taskId, taskId));
    await db
      .update(ledgerEntries)
      .set({ amountCad: charge!.amountCad - 1 })
      .where(eq(ledgerEntries.id, charge!.id));
    await expect(expectLedgerConsistent()).rejects.toThrow(/vs invoice/);
    await db
      .update(ledgerEntries)
      .set({ amountCad: charge!.amountCad })
      .where(eq(ledgerEntries.id, charge!.id));
  });
});
