/**
 * A prepaid approval is one transaction (lib/tasks/review-task.ts): approve, amount
 * reservation, charge, ledger entry, invoice and both task events commit together or not
 * at all. The failure is injected in the database itself, between the approval and the
 * charge's ledger write (a trigger on `ledger_entries`): an error raised there, and on
 * PostgreSQL the connection killed there (`pg_terminate_backend` of its own session).
 * Afterwards nothing is half-done and the same approval, retried, succeeds.
 */
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type DatabaseHandle, setDatabase } from "../../lib/db/client.js";
import {
  invoices,
  ledgerEntries,
  paymentAmounts,
  preauthorizations,
  taskEvents,
  tasks,
} from "../../lib/db/schema/index.js";
import { accountAdmin, openLinkedAccount, preAuthorize } from "../accounts/helpers.js";
import { availableBackends, createTestDatabase, type TestBackend } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { reviewTask, submitTask, validTask } from "../helpers/tasks.js";

/** How the charge step is made to fail, per backend. */
const FAULTS: { name: string; body: string; status: number; backends: TestBackend[] }[] = [
  {
    name: "an error raised by the ledger write",
    body: "raise exception 'injected failure between approval and charge'",
    status: 500,
    backends: ["pglite", "pg", "neon"],
  },
  {
    name: "the connection killed during the ledger write",
    body: "perform pg_terminate_backend(pg_backend_pid())",
    status: 503,
    backends: ["pg"],
  },
];

describe.each(availableBackends())("prepaid approval on %s", (backend) => {
  let handle: DatabaseHandle;
  let admin: string;
  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    setDatabase(handle);
    admin = await makeKey(["admin"], "ops@example.com");
  });
  afterAll(async () => {
    setDatabase(undefined);
    await handle.close();
  });
  beforeEach(() => {
    setDatabase(handle);
  });

  async function injectFault(body: string) {
    await handle.db.execute(
      sql.raw(`create or replace function fail_charge() returns trigger language plpgsql as $$
        begin ${body}; return new; end $$`),
    );
    await handle.db.execute(
      sql.raw(
        "create trigger fail_charge before insert on ledger_entries for each row when (new.kind = 'charge') execute function fail_charge()",
      ),
    );
  }

  async function removeFault() {
    await handle.db.execute(sql.raw("drop trigger if exists fail_charge on ledger_entries"));
  }

  async function snapshot(taskId: string, accountId: string) {
    const [task] = await handle.db.select().from(tasks).where(eq(tasks.id, taskId));
    return {
      status: task!.status,
      version: task!.version,
      paymentUsdcMicro: task!.paymentUsdcMicro,
      events: (await handle.db.select().from(taskEvents).where(eq(taskEvents.taskId, taskId))).map(
        (e) => e.type,
      ),
      billingEvents: (
        await handle.db.select().from(taskEvents).where(eq(taskEvents.accountId, accountId))
      ).map((e) => e.type),
      ledger: (
        await handle.db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, accountId))
      ).map((l) => [l.kind, l.amountCad]),
      invoices: (await handle.db.select().from(invoices).where(eq(invoices.accountId, accountId))).map(
        (i) => i.kind,
      ),
      amounts: await handle.db.select().from(paymentAmounts).where(eq(paymentAmounts.taskId, taskId)),
      holds: (
        await handle.db.select().from(preauthorizations).where(eq(preauthorizations.accountId, accountId))
      ).map((p) => p.consumedByTaskId),
    };
  }

  const faults = FAULTS.filter((f) => f.backends.includes(backend));
  it.each(faults)(
    "leaves nothing half-done after $name, and the retried approval charges once",
    async (fault) => {
      const contact = `atomic-${backend}-${fault.status}@example.com`;
      const key = await makeKey(["audit_only", "task_create", "billing_read"], contact);
      const accountId = (await openLinkedAccount(key)).body.account.account_id as string;
      await accountAdmin(admin, { action: "deposit", email: contact, amount_cad: 1000 });
      // A live hold, consumed by the charge: it must not be consumed by a charge that rolled back.
      const hold = await preAuthorize(key, { agent_id: contact, max_cost_cad: 300 });
      expect(hold.res.status).toBe(200);
      const { body: created } = await submitTask(validTask, keyHeaders(key));
      const taskId = created.task_id as string;
      const before = await snapshot(taskId, accountId);
      expect(before.status).toBe("received");

      await injectFault(fault.body);
      try {
        const failed = await reviewTask(admin, { task_id: taskId, action: "approve", price_cad: 250 });
        expect(failed.res.status).toBe(fault.status);
        expect(await snapshot(taskId, accountId)).toEqual(before);
      } finally {
        await removeFault();
      }

      const retried = await reviewTask(admin, { task_id: taskId, action: "approve", price_cad: 250 });
      expect(retried.res.status).toBe(200);
      expect(retried.body).toMatchObject({ status: "paid" });
      const after = await snapshot(taskId, accountId);
      expect(after.status).toBe("paid");
      expect(after.events).toEqual(["task.created", "task.accepted", "task.paid"]);
      expect(after.ledger).toEqual([
        ["deposit", 1000],
        ["charge", -250],
      ]);
      expect(after.invoices.sort()).toEqual(["deposit", "task_charge"]);
      expect(after.holds).toEqual([taskId]);
      // The amount was reserved at approval and released by the payment, in the same transaction.
      expect(after.amounts).toHaveLength(1);
      expect(after.amounts[0]!.amountMicro).toBe(after.paymentUsdcMicro);
      expect(after.amounts[0]!.releasedAt).not.toBeNull();
    },
  );
});
