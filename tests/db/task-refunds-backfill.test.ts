/**
 * Migration 0037_task_refunds (issue 42): the refunds already settled (the `refund.settle` audit
 * rows, every one of them, not only the last kept on the task) and the refunds still pending
 * become entries of `task_refunds`, so the running total counts them.
 */
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { afterAll, describe, expect, it } from "vitest";
import { MIGRATIONS_FOLDER } from "../../lib/db/client.js";
import { useMigrationsBefore } from "../helpers/migrations.js";

const migrationsBefore = useMigrationsBefore();

/**
 * The test migrates a fresh database through every migration: seconds idle, several times that on
 * a loaded 2-core machine. The limit only guards against a hang.
 */
const MIGRATE_MS = 180_000;

describe("task_refunds backfill", () => {
  const client = new PGlite({ extensions: { pg_trgm } });
  afterAll(async () => {
    await client.close();
  });

  it(
    "turns each settlement of the audit log and each pending refund into an entry",
    async () => {
      const db = drizzle(client);
      await migrate(db as never, { migrationsFolder: migrationsBefore("_task_refunds") });
      const task = (id: string, status: string, refund: string, amount: number | null) =>
        client.query(
          `insert into tasks (id, service_type, status, location_address, task_description, requester_contact,
           review_deadline, execution_deadline, price_cad, payment_method, paid_at, refund_status, refund_amount_cad)
         values ($1, 'SVC-01', $2, 'Laval', 'x', 'a@example.com', now(), now(), 379.67, 'manual', now(), $3, $4)`,
          [id, status, refund, amount],
        );
      const settled = (taskId: string, details: Record<string, unknown>) =>
        client.query(
          `insert into audit_log (actor_kind, action, task_id, details) values ('key', 'refund.settle', $1, $2)`,
          [taskId, JSON.stringify(details)],
        );
      // Settled 100, then 50 owed and pending (the task shows only the 50).
      await task("TASK-TWICE", "completed", "pending", 50);
      await settled("TASK-TWICE", { outcome: "refunded", amount_cad: 100, tx_hash: null });
      // Cancelled, then denied.
      await task("TASK-DENIED", "cancelled", "denied", null);
      await settled("TASK-DENIED", { outcome: "denied", amount_cad: null });
      await task("TASK-NONE", "completed", "none", null);

      await migrate(db as never, { migrationsFolder: MIGRATIONS_FOLDER });
      const { rows } = await client.query<{
        task_id: string;
        kind: string;
        source: string;
        amount_cad: string | null;
        outcome: string | null;
        settlement_id: string | null;
      }>(
        "select task_id, kind, source, amount_cad, outcome, settlement_id from task_refunds order by task_id, kind",
      );
      expect(rows).toEqual([
        {
          task_id: "TASK-DENIED",
          kind: "settlement",
          source: "settlement",
          amount_cad: "0.00",
          outcome: "denied",
          settlement_id: null,
        },
        {
          task_id: "TASK-TWICE",
          kind: "owed",
          source: "dispute",
          amount_cad: "50.00",
          outcome: null,
          settlement_id: null,
        },
        {
          task_id: "TASK-TWICE",
          kind: "settlement",
          source: "settlement",
          amount_cad: "100.00",
          outcome: "refunded",
          settlement_id: null,
        },
      ]);
    },
    MIGRATE_MS,
  );
});
