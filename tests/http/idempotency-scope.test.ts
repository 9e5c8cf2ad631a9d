/**
 * Whose `Idempotency-Key` records a request reads (issue 25, item 3; docs/reliability.md
 * "Idempotency", docs/decisions.md "Idempotency records of anonymous callers"): the API key, else
 * the signed-in client account, else the IP; the fingerprint covers `X-Service-Mode`; a transient
 * failure (a DNS lookup that failed) is never kept; an anonymous caller's answer carrying a secret
 * shown once is never replayed.
 */
import { randomBytes } from "node:crypto";
import { promises as dns } from "node:dns";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { POST as privacyPost } from "../../api/privacy.js";
import { POST as webhooksPost } from "../../api/webhooks.js";
import { getDb } from "../../lib/db/client.js";
import { erasureRequests, idempotencyKeys, tasks, webhooks } from "../../lib/db/schema/index.js";
import { openLinkedAccount } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { call, expectEnvelope } from "../helpers/request.js";
import { submitTask, validTask } from "../helpers/tasks.js";

useTestDatabase();

afterEach(() => {
  vi.restoreAllMocks();
});

const ip = () => `203.0.113.${randomBytes(3).toString("hex")}`;
const newKey = () => `k-${randomBytes(8).toString("hex")}`;

describe("Idempotency-Key scope and fingerprint (issue 25)", () => {
  it("scopes a client session's records to its account: two accounts on one IP never share one", async () => {
    const from = ip();
    const idem = newKey();
    const a = await openLinkedAccount(
      await makeKey(["audit_only", "task_create"], "idem-scope-a@example.com"),
    );
    const c = await openLinkedAccount(
      await makeKey(["audit_only", "task_create"], "idem-scope-c@example.com"),
    );
    const request = (jwt: string) =>
      call(privacyPost, "/api/privacy", {
        method: "POST",
        headers: { authorization: `Bearer ${jwt}`, "idempotency-key": idem, "x-local-socket-ip": from },
        json: { action: "request_erasure" },
      });
    const first = await request(a.jwt);
    expect(first.res.status).toBe(200);
    expect(first.body.erasure_request.account_id).toBe(a.body.account.account_id);

    const second = await request(c.jwt);
    expect(second.res.status).toBe(200);
    expect(second.res.headers.get("idempotency-replayed")).toBeNull();
    expect(second.body.erasure_request.account_id).toBe(c.body.account.account_id);
    const db = await getDb();
    const requested = await db
      .select({ accountId: erasureRequests.accountId })
      .from(erasureRequests)
      .where(eq(erasureRequests.accountId, c.body.account.account_id));
    expect(requested).toHaveLength(1);

    // A's own retry still replays A's answer.
    const retry = await request(a.jwt);
    expect(retry.res.headers.get("idempotency-replayed")).toBe("true");
    expect(retry.body).toEqual(first.body);
  });

  it("never replays an anonymous caller's access_token: a second caller on the IP gets 409, one task exists", async () => {
    const from = ip();
    const idem = newKey();
    const body = { ...validTask, task_description: `Photograph the storefront ${idem}.` };
    const headers = { "idempotency-key": idem, "x-local-socket-ip": from };
    const first = await submitTask(body, headers);
    expect(first.res.status).toBe(201);
    expect(first.body.access_token).toMatch(/\S/);

    const second = await submitTask(body, headers);
    expect(expectEnvelope(second.body, second.res, 409, "CONFLICT").field).toBe("Idempotency-Key");
    expect(second.res.headers.get("retry-after")).toBeNull(); // not "still running": retrying will not help
    expect(JSON.stringify(second.body)).not.toContain(first.body.access_token);
    expect(JSON.stringify(second.body)).not.toContain(first.body.task_id);
    const db = await getDb();
    const made = await db
      .select({ id: tasks.id })
      .from(tasks)
      .where(eq(tasks.taskDescription, body.task_description));
    expect(made).toHaveLength(1);
  });

  it("still replays an anonymous answer without a secret (a refused submission)", async () => {
    const from = ip();
    const idem = newKey();
    const body = { ...validTask, location_address: "Toronto, ON M5V 2T6" };
    const headers = { "idempotency-key": idem, "x-local-socket-ip": from };
    const first = await submitTask(body, headers);
    expect(first.res.status).toBeGreaterThanOrEqual(400);
    expect(first.res.status).toBeLessThan(500);
    const second = await submitTask(body, headers);
    expect(second.res.status).toBe(first.res.status);
    expect(second.res.headers.get("idempotency-replayed")).toBe("true");
  });

  it("counts X-Service-Mode in the fingerprint: the same key and body in sandbox mode is 422, not the live task", async () => {
    const key = await makeKey(["audit_only", "task_create"]);
    const idem = newKey();
    const live = await submitTask(validTask, keyHeaders(key, { "idempotency-key": idem }));
    expect(live.res.status).toBe(201);
    expect(live.body.task_id).not.toMatch(/^SANDBOX-/);

    const sandbox = await submitTask(
      validTask,
      keyHeaders(key, { "idempotency-key": idem, "x-service-mode": "sandbox" }),
    );
    expect(expectEnvelope(sandbox.body, sandbox.res, 422, "IDEMPOTENCY_KEY_REUSED").field).toBe(
      "Idempotency-Key",
    );

    // Each mode with its own key; the sandbox key replays only in sandbox mode.
    const other = newKey();
    const s1 = await submitTask(
      validTask,
      keyHeaders(key, { "idempotency-key": other, "x-service-mode": "sandbox" }),
    );
    expect(s1.body.task_id).toMatch(/^SANDBOX-/);
    const s2 = await submitTask(
      validTask,
      keyHeaders(key, { "idempotency-key": other, "x-service-mode": "sandbox" }),
    );
    expect(s2.res.headers.get("idempotency-replayed")).toBe("true");
    expect(s2.body.task_id).toBe(s1.body.task_id);
    const s3 = await submitTask(validTask, keyHeaders(key, { "idempotency-key": other }));
    expect(s3.res.status).toBe(422);
  });

  it("does not keep an answer given because DNS failed: the retry with the key runs again", async () => {
    const key = await makeKey(["audit_only", "task_create"]);
    const idem = newKey();
    const host = `hooks-${randomBytes(4).toString("hex")}.example.com`;
    const lookup = vi.spyOn(dns, "lookup").mockImplementation((async () => {
      throw Object.assign(new Error(`getaddrinfo EAI_AGAIN ${host}`), { code: "EAI_AGAIN" });
    }) as unknown as typeof dns.lookup);
    const register = () =>
      call(webhooksPost, "/api/webhooks", {
        method: "POST",
        headers: keyHeaders(key, { "idempotency-key": idem }),
        json: { url: `https://${host}/hook`, events: ["task.completed"] },
      });
    const failed = await register();
    expect(expectEnvelope(failed.body, failed.res, 400, "INVALID_FORMAT").message).toMatch(
      /could not be resolved/,
    );
    expect(lookup).toHaveBeenCalled();
    const db = await getDb();
    expect(await db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, idem))).toEqual([]);

    // DNS answers again: the same request with the same key registers the webhook.
    lookup.mockImplementation((async () => [
      { address: "93.184.216.34", family: 4 },
    ]) as unknown as typeof dns.lookup);
    const ok = await register();
    expect(ok.res.status).toBe(201);
    expect(ok.res.headers.get("idempotency-replayed")).toBeNull();
    const [row] = await db.select().from(webhooks).where(eq(webhooks.id, ok.body.webhook_id));
    expect(row?.url).toBe(`https://${host}/hook`);
    const replay = await register();
    expect(replay.res.headers.get("idempotency-replayed")).toBe("true");
    expect(replay.body.webhook_id).toBe(ok.body.webhook_id);
  });
});
