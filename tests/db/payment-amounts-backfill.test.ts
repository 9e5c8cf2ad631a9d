import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { afterAll, describe, expect, it } from "vitest";
import { MIGRATIONS_FOLDER } from "../../lib/db/client.js";
import { useMigrationsBefore } from "../helpers/migrations.js";

const migrationsBefore = useMigrationsBefore();

describe("payment_amounts backfill", () => {
  const client = new PGlite({ extensions: { pg_trgm } });
  afterAll(async () => {
    await client.close();
  });

  it("holds the amounts of open tasks and releases the others at payment, cancellation or last change", async () => {
    const db = drizzle(client);
    const before = migrationsBefore("_payment_amounts");
    await migrate(db as never, { migrationsFolder: before });
    const insert = (
      id: string,
      status: string,
      amount: number | null,
      times: { reviewed?: string; paid?: string; cancelled?: string; sandbox?: boolean } = {},
    ) =>
      client.query(
        `insert into tasks (id, service_type, status, location_address, task_description, requester_contact,
           review_deadline, execution_deadline, payment_usdc_micro, sandbox, reviewed_at, paid_at, cancelled_at, updated_at)
         values ($1, 'SVC-01', $2, 'Laval', 'x', 'a@example.com', now(), now(), $3, $4, $5, $6, $7, '2026-01-05T00:00:00Z')`,
        [
          id,
          status,
          amount,
          times.sandbox ?? false,
          times.reviewed ?? "2026-01-01T00:00:00Z",
          times.paid ?? null,
          times.cancelled ?? null,
        ],
      );
    await insert("TASK-OPEN", "counter_offered", 100);
    await insert("TASK-PAID", "paid", 101, { paid: "2026-01-02T00:00:00Z" });
    await insert("TASK-CANCELLED", "cancelled", 100, { cancelled: "2026-01-03T00:00:00Z" });
    await insert("TASK-EXPIRED", "payment_expired", 102);
    await insert("SANDBOX-OPEN", "accepted_pending_payment", 103, { sandbox: true });
    await insert("TASK-RECEIVED", "received", null);

    await migrate(db as never, { migrationsFolder: MIGRATIONS_FOLDER });
    const { rows } = await client.query<{
      task_id: string;
      amount_micro: string;
      assigned_at: Date;
      released_at: Date | null;
    }>("select task_id, amount_micro::text, assigned_at, released_at from payment_amounts order by task_id");
    const iso = (d: Date | null) => d?.toISOString() ?? null;
    expect(rows.map((r) => [r.task_id, r.amount_micro, iso(r.assigned_at), iso(r.released_at)])).toEqual([
      ["TASK-CANCELLED", "100", "2026-01-01T00:00:00.000Z", "2026-01-03T00:00:00.000Z"],
      ["TASK-EXPIRED", "102", "2026-01-01T00:00:00.000Z", "2026-01-05T00:00:00.000Z"],
      ["TASK-OPEN", "100", "2026-01-01T00:00:00.000Z", null],
      ["TASK-PAID", "101", "2026-01-01T00:00:00.000Z", "2026-01-02T00:00:00.000Z"],
    ]);
  });
});
