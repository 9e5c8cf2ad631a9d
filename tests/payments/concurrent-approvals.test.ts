/**
 * Concurrent approvals at one price (lib/tasks/state/amount-reservations.ts): 50 approvals of
 * tasks at `price_cad: 123.45` sent at once through POST /api/task-review, on every
 * backend available here (PGlite; real PostgreSQL with TEST_DATABASE_URL). None may
 * fail, and every task gets its own amount: the base amount and the next 49 micro-units.
 */
import { inArray, isNull } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type DatabaseHandle, setDatabase } from "../../lib/db/client.js";
import { paymentAmounts, tasks } from "../../lib/db/schema/index.js";
import { cadToMicroUsdc } from "../../lib/money.js";
import { availableBackends, createTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { reviewTask, submitTask, validTask } from "../helpers/tasks.js";

const RACERS = 50;
const PRICE = 123.45;

describe.each(availableBackends())("concurrent approvals on %s", (backend) => {
  let handle: DatabaseHandle;
  let admin: string;
  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    setDatabase(handle);
    admin = await makeKey(["admin"]);
  });
  afterAll(async () => {
    setDatabase(undefined);
    await handle.close();
  });
  beforeEach(() => {
    setDatabase(handle);
  });

  it(`gives ${RACERS} tasks approved at once at one price ${RACERS} distinct amounts, with no error`, async () => {
    const ids: string[] = [];
    for (let i = 0; i < RACERS; i++) {
      const { res, body } = await submitTask(validTask);
      expect(res.status).toBe(201);
      ids.push(body.task_id);
    }
    // Half approvals, half counter-offers: both allocate an amount the same way.
    const answers = await Promise.all(
      ids.map((task_id, i) =>
        reviewTask(
          admin,
          i % 2
            ? { task_id, action: "approve", price_cad: PRICE }
            : { task_id, action: "counter_offer", counter_offer_amount: PRICE },
        ),
      ),
    );
    const statuses = answers.map((a) => a.res.status);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);

    const rows = await handle.db
      .select({ id: tasks.id, micro: tasks.paymentUsdcMicro, rate: tasks.exchangeRate })
      .from(tasks)
      .where(inArray(tasks.id, ids));
    const base = cadToMicroUsdc(PRICE, rows[0]!.rate!);
    const amounts = rows.map((r) => r.micro!).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    // Distinct, and the fewest micro-units above the base: base, base + 1, …, base + 49.
    expect(amounts).toEqual(Array.from({ length: RACERS }, (_, i) => base + BigInt(i)));
    const held = await handle.db.select().from(paymentAmounts).where(inArray(paymentAmounts.taskId, ids));
    expect(held).toHaveLength(RACERS);
    expect(held.every((h) => h.releasedAt === null)).toBe(true);
    expect(new Map(held.map((h) => [h.taskId, h.amountMicro]))).toEqual(
      new Map(rows.map((r) => [r.id, r.micro])),
    );
    expect(
      await handle.db.select().from(paymentAmounts).where(isNull(paymentAmounts.releasedAt)),
    ).toHaveLength(RACERS);
    // 50 submissions, then 50 approvals contending for one amount: ~3 s idle; a guard sized for a
    // loaded 2-core machine, not a speed claim.
  }, 120_000);
});
