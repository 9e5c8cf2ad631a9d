/**
 * `Operation.readOnly` (lib/descriptors/operation.ts): public GETs that change nothing the audit
 * trail records run without an actor context, so that an instance serving only them never turns on
 * Node's async hooks. The flag is only allowed where that is safe, and it does what it says.
 */
import { count } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as capabilities } from "../../api/capabilities.js";
import { GET as estimate } from "../../api/estimate.js";
import { GET as jwks } from "../../api/jwks.js";
import { GET as llms } from "../../api/llms.js";
import { GET as protectedResource } from "../../api/oauth-protected-resource.js";
import { GET as openapi } from "../../api/openapi.js";
import { GET as services } from "../../api/services.js";
import { GET as status } from "../../api/status.js";
import { currentActor } from "../../lib/db/actor.js";
import { getDb } from "../../lib/db/client.js";
import { auditLog } from "../../lib/db/schema/index.js";
import { endpoint, route } from "../../lib/http/handler.js";
import { defineOperation } from "../../lib/http/operation.js";
import { allOperations } from "../../lib/openapi/operations.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { call, type WebHandler } from "../helpers/request.js";

useTestDatabase();

/** Every read-only operation's route, with a request that succeeds. */
const ROUTES: Record<string, [WebHandler, string]> = {
  getEstimate: [estimate, "/api/estimate?hours=2&location=Laval"],
  listServices: [services, "/api/services"],
  getCapabilities: [capabilities, "/api/capabilities"],
  getStatus: [status, "/api/status"],
  getOpenApi: [openapi, "/api/openapi"],
  getLlmsTxt: [llms, "/api/llms"],
  getReceiptKeys: [jwks, "/api/jwks"],
  getProtectedResourceMetadata: [protectedResource, "/api/oauth-protected-resource"],
};

describe("read-only operations", () => {
  it("are public GETs without Idempotency-Key, each listed here", () => {
    const readOnly = allOperations().filter((op) => op.readOnly);
    for (const op of readOnly) {
      expect(op.method, op.id).toBe("GET");
      expect(op.idempotent, op.id).toBeFalsy();
      expect(["none", "optional"], op.id).toContain(op.auth);
    }
    expect(readOnly.map((op) => op.id).sort()).toEqual(Object.keys(ROUTES).sort());
  });

  it("run without an actor context; other operations run as their caller", async () => {
    const op = (readOnly: boolean) =>
      defineOperation({
        id: "whoAmI",
        method: "GET",
        path: "/api/who-am-i",
        summary: "who",
        tags: ["test"],
        auth: "none",
        readOnly,
      });
    const answer = (readOnly: boolean) =>
      route({ GET: endpoint(op(readOnly), () => ({ actor: currentActor().actor })) }).GET;
    expect((await call(answer(true), "/api/who-am-i")).body).toEqual({
      actor: { kind: "system", id: "unattributed", role: null },
    });
    expect((await call(answer(false), "/api/who-am-i")).body.actor).toMatchObject({ kind: "anonymous" });
  });

  it("answer with and without a key, and write nothing to the audit trail", async () => {
    const key = await makeKey();
    const audited = async () => (await (await getDb()).select({ n: count() }).from(auditLog))[0]!.n;
    const before = await audited();
    for (const [id, [handler, path]] of Object.entries(ROUTES)) {
      for (const headers of [{}, keyHeaders(key)]) {
        const { res } = await call(handler, path, { headers });
        expect(res.status, `${id} ${JSON.stringify(headers)}`).toBe(200);
      }
    }
    expect(await audited()).toBe(before);
  });
});
