/**
 * The client dashboard's view of recourse (issue 27): each task of the account says whether it has
 * a dispute (`dispute_status`), and the signed-in owner reads the task's `sla` and `dispute` and
 * may open the dispute with the client session itself.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openLinkedAccount, readAccount } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { getStatus } from "../helpers/tasks.js";
import { completedTask, openDispute } from "./helpers.js";

useTestDatabase();

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
      (body.dashboard.tasks as { task_id: string; dispute_status: string | null }[]).map((t) => [
        t.task_id,
        t,
      ]),
    );
    expect(byId.get(disputed)!.dispute_status).toBe("open");
    expect(byId.get(plain)!.dispute_status).toBeNull();

    const status = await getStatus(disputed, auth);
    expect(status.body.dispute).toMatchObject({ status: "open", reason: "other" });
    expect(status.body.sla).toMatchObject({ credit_percent_per_day: 10, cap_percent: 50 });
  });
});
