/**
 * The shared authorization suite (architecture.md habit 8): every protected operation
 * in the OpenAPI index is called with no key, a wrong key and a key lacking its scope.
 * New endpoints join automatically.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import type { Operation } from "../../lib/http/operation.js";
import { allOperations } from "../../lib/openapi/operations.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { call, expectEnvelope, type WebHandler } from "../helpers/request.js";

useTestDatabase();

const protectedOps = allOperations().filter((op) => op.auth === "key" || op.auth === "admin");

async function handlerOf(op: Operation): Promise<WebHandler> {
  const file = op.path.replace(/\{(\w+)\}/g, "[$1]");
  const mod = await import(pathToFileURL(path.resolve(import.meta.dirname, `../..${file}.ts`)).href);
  return mod[op.method] as WebHandler;
}

function samplePath(op: Operation): string {
  return op.path.replace(/\{(\w+)\}/g, "sample");
}

describe.each(protectedOps.map((op) => [`${op.method} ${op.path}`, op] as const))("%s", (_, op) => {
  const init = (headers: Record<string, string>) => ({
    method: op.method,
    headers,
    ...(op.body ? { json: {} } : {}),
  });

  it("refuses a request without a key (401)", async () => {
    const { res, body } = await call(await handlerOf(op), samplePath(op), init({}));
    expectEnvelope(body, res, 401, "UNAUTHORIZED");
  });

  it("refuses a wrong key (401)", async () => {
    const { res, body } = await call(
      await handlerOf(op),
      samplePath(op),
      init({ "x-api-key": `svc_${"Z".repeat(40)}` }),
    );
    expectEnvelope(body, res, 401, "UNAUTHORIZED");
  });

  it("refuses a key without the required scope", async () => {
    const needed = op.auth === "admin" ? "admin" : op.scope!;
    const others = (["audit_only", "task_create", "task_cancel", "billing_read"] as const).filter(
      (s) => s !== needed,
    );
    const key = await makeKey([...others]);
    const { res, body } = await call(await handlerOf(op), samplePath(op), init({ "x-api-key": key }));
    if (needed === "billing_read") expectEnvelope(body, res, 401, "UNAUTHORIZED");
    else expectEnvelope(body, res, 403, "FORBIDDEN");
  });
});

it("covers at least the key endpoints", () => {
  expect(protectedOps.map((o) => `${o.method} ${o.path}`)).toEqual(
    expect.arrayContaining(["GET /api/api-keys", "DELETE /api/api-keys"]),
  );
});
