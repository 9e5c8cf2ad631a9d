/**
 * A pending erasure request puts the account on hold (docs/privacy.md "While a request is
 * pending"), through the real handlers: the account's keys are refused (403, reason
 * erasure_pending) for new tasks, pre-authorizations and reads; no deposit is taken; a task
 * approved meanwhile is not charged to the account; sign-in and the export still work; the
 * positive balance is recorded for the operator (visible in the erasure-request list); a
 * withdrawal ends the hold and the keys work again.
 */
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { POST as privacyPost } from "../../api/privacy.js";
import { GET as privacyAdminGet } from "../../api/privacy-admin.js";
import { GET as servicesGet } from "../../api/services.js";
import { getDb } from "../../lib/db/client.js";
import { privacyAudit, tasks } from "../../lib/db/schema/index.js";
import { buildOpenApiDocument } from "../../lib/openapi/document.js";
import { accountAdmin, openLinkedAccount, preAuthorize, readAccount, signIn } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { call, expectEnvelope } from "../helpers/request.js";
import { reviewTask, submitTask, validTask } from "../helpers/tasks.js";

useTestDatabase();

const EMAIL = "hold-owner@example.com";
let admin: string;
let key: string;
let jwt: string;

function privacy(action: string) {
  return call(privacyPost, "/api/privacy", {
    method: "POST",
    headers: { authorization: `Bearer ${jwt}` },
    json: { action },
  });
}

beforeAll(async () => {
  admin = await makeKey(["admin"], "ops-hold@example.com");
  key = await makeKey(["audit_only", "task_create", "billing_read"], EMAIL);
  jwt = (await openLinkedAccount(key)).jwt;
  await accountAdmin(admin, { action: "deposit", email: EMAIL, amount_cad: 250 });
});

describe("a pending erasure request suspends the account", () => {
  it("holds the account while pending and releases it on withdrawal", async () => {
    // A task submitted before the request, approved after it.
    const before = await submitTask(validTask, keyHeaders(key));
    expect(before.res.status).toBe(201);

    const asked = await privacy("request_erasure");
    expect(asked.res.status).toBe(200);
    expect(asked.body.erasure_request).toMatchObject({ status: "pending", balance_to_refund_cad: 250 });

    // The operator sees the balance to refund in the list of requests.
    const list = await call(privacyAdminGet, "/api/privacy-admin?list=erasure_requests", {
      headers: keyHeaders(admin),
    });
    expect(list.body.erasure_requests[0]).toMatchObject({
      request_id: asked.body.erasure_request.request_id,
      balance_to_refund_cad: 250,
    });

    // The account's key is refused everywhere, with the reason.
    const task = await submitTask(validTask, keyHeaders(key));
    const error = expectEnvelope(task.body, task.res, 403, "FORBIDDEN");
    expect(error.reason).toBe("erasure_pending");
    const hold = await preAuthorize(key, { amount_cad: 10, agent_id: "agent-1" });
    expect(expectEnvelope(hold.body, hold.res, 403, "FORBIDDEN").reason).toBe("erasure_pending");
    const read = await readAccount(keyHeaders(key));
    expectEnvelope(read.body, read.res, 403, "FORBIDDEN");
    // A public read (auth none) checks a key that is sent too, and /openapi.json says so.
    const services = await call(servicesGet, "/api/services", { headers: keyHeaders(key) });
    expect(expectEnvelope(services.body, services.res, 403, "FORBIDDEN").reason).toBe("erasure_pending");
    const documented = (buildOpenApiDocument() as any).paths["/api/services"].get.responses["403"];
    expect(
      documented.content["application/json"].schema.allOf[1].properties.error.properties.code.enum,
    ).toEqual(["FORBIDDEN"]);

    // No deposit is taken.
    const deposit = await accountAdmin(admin, { action: "deposit", email: EMAIL, amount_cad: 50 });
    expect(expectEnvelope(deposit.body, deposit.res, 409, "CONFLICT").reason).toBe("erasure_pending");

    // The earlier task, approved now, is not charged to the account: it awaits USDC.
    const approved = await reviewTask(admin, {
      task_id: before.body.task_id,
      action: "approve",
      price_cad: 40,
    });
    expect(approved.res.status).toBe(200);
    const db = await getDb();
    const [row] = await db.select().from(tasks).where(eq(tasks.id, before.body.task_id));
    expect(row).toMatchObject({ status: "accepted_pending_payment", paymentMethod: "usdc", accountId: null });

    // Sign-in and the export still work.
    jwt = await signIn(EMAIL, "owner password 123");
    const exported = await readAccount({ authorization: `Bearer ${jwt}` }, "?action=export");
    expect(exported.res.status).toBe(200);
    expect(exported.body.export.erasure_requests[0].status).toBe("pending");

    // Withdrawn: the hold ends, the key works again; a second withdrawal is a conflict.
    const withdrawn = await privacy("withdraw_erasure");
    expect(withdrawn.res.status).toBe(200);
    expect(withdrawn.body.erasure_request).toMatchObject({ status: "withdrawn" });
    expect(withdrawn.body.erasure_request.withdrawn_at).toEqual(expect.any(String));
    expect((await submitTask(validTask, keyHeaders(key))).res.status).toBe(201);
    const again = await privacy("withdraw_erasure");
    expectEnvelope(again.body, again.res, 409, "CONFLICT");
    const audit = await db.select().from(privacyAudit).where(eq(privacyAudit.action, "erasure_withdrawn"));
    expect(audit).toHaveLength(1);
  });

  it("records no balance to refund when there is none", async () => {
    const other = await makeKey(["audit_only", "task_create"], "hold-empty@example.com");
    const opened = await openLinkedAccount(other);
    const asked = await call(privacyPost, "/api/privacy", {
      method: "POST",
      headers: { authorization: `Bearer ${opened.jwt}` },
      json: { action: "request_erasure" },
    });
    expect(asked.body.erasure_request.balance_to_refund_cad).toBeNull();
  });
});
