/**
 * The client dashboard's view of recourse (issue 27): each task of the account says whether it has
 * a dispute (`dispute_status`) and its SLA credit (`sla_credited_cad`), and the signed-in owner reads the task's `sla` and `dispute` and
 * may open the dispute with the client session itself.
 */
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../lib/db/client.js";
import { tasks } from "../../lib/db/schema/index.js";
import { creditLateTasks } from "../../lib/tasks/sla-credits.js";
import { openLinkedAccount, readAccount } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { useLedgerCheck } from "../helpers/ledger.js";
import { getStatus } from "../helpers/tasks.js";
import { completedTask, openDispute } from "./helpers.js";

useTestDatabase();

useLedgerCheck();

let admin: string;

beforeAll(async () => {
  admin = await makeKey(["admin"]);
});

describe("client dashboard", () => {
  it("lists the dispute status of each task; the signed-in owner opens and reads the dispute", async () => {
    const key = await makeKey(["audit_only", "task_create"], "dash-dispute@example.com");
    const { jwt } = await openLinkedAccount(key);
    const auth = { authorization: `Bearer ${jwt}` };
    const disputed = await completedTask(admin, key, 90);
    const plain = await completedTask(admin, key, 90);

    const opened = await openDispute({ task_id: disputed, reason: "other", details: "Wrong door." }, auth);
    expect(opened.res.status).toBe(201);

    const { body } = await readAccount(auth, "?include=dashboard");
    const byId = new Map(
      (
        body.dashboard.tasks as {
          task_id: string;
          dispute_status: string | null;
          sla_credited_cad: number | null;
        }[]
      ).map((t) => [t.task_id, t]),
    );
    expect(byId.get(disputed)!.dispute_status).toBe("open");
    expect(byId.get(plain)!.dispute_status).toBeNull();
    expect(byId.get(plain)!.sla_credited_cad).toBeNull();

    const status = await getStatus(disputed, auth);
    expect(status.body.dispute).toMatchObject({ status: "open", reason: "other" });
    expect(status.body.sla).toMatchObject({ credit_percent_per_day: 10, cap_percent: 50 });
  });

  it("lists the SLA credit given to a late task", async () => {
    const key = await makeKey(["audit_only", "task_create"], "dash-sla@example.com");
    const { jwt } = await openLinkedAccount(key);
    const auth = { authorization: `Bearer ${jwt}` };
    const late = await completedTask(admin, key, 100);
    const db = await getDb();
    const [row] = await db.select().from(tasks).where(eq(tasks.id, late));
    // 50 h late: two full days, 20 % of 100 CAD.
    await db
      .update(tasks)
      .set({ executionDeadline: new Date(row!.completedAt!.getTime() - 50 * 3600_000) })
      .where(eq(tasks.id, late));
    await creditLateTasks();
    const { body } = await readAccount(auth, "?include=dashboard");
    const listed = (body.dashboard.tasks as { task_id: string; sla_credited_cad: number | null }[]).find(
      (t) => t.task_id === late,
    );
    expect(listed!.sla_credited_cad).toBe(20);
  });
});
