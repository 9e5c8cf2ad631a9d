/**
 * Receipts and proof digests end to end, over real HTTP (the local host): a completed task's
 * status, webhook and callback carry the same signed receipt and the files' SHA-256; the receipt
 * verifies against GET /.well-known/jwks.json (also with examples/verify-receipt.ts in a child
 * process) and names exactly the files served; failed and sandbox tasks get receipts too.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { compactVerify, createLocalJWKSet } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "../../lib/config.js";
import { processOutbox } from "../../lib/events/process-outbox.js";
import { proofMatches, type ReceiptClaims } from "../../lib/receipts/receipt.js";
import type { LocalHost } from "../../scripts/local-host.js";
import { useTestDatabase } from "../helpers/db.js";
import { ROOT, startTestHost } from "../helpers/host.js";
import { makeKey } from "../helpers/keys.js";
import { pngProof, validTask } from "../helpers/tasks.js";
import { type Receiver, startReceiver } from "../notifications/receiver.js";

useTestDatabase();

let host: LocalHost;
let receiver: Receiver;
let admin: string;
let agent: string;

beforeAll(async () => {
  process.env.ALLOW_PRIVATE_CALLBACKS = "true";
  resetConfig();
  host = await startTestHost();
  receiver = await startReceiver();
  admin = await makeKey(["admin"]);
  agent = await makeKey(["audit_only", "task_create"]);
  const hook = await api("POST", "/api/webhooks", agent, {
    url: `${receiver.url}/hooks`,
    events: ["task.completed", "task.failed"],
  });
  expect(hook.status).toBe(201);
});
afterAll(async () => {
  await host.close();
  await receiver.close();
  delete process.env.ALLOW_PRIVATE_CALLBACKS;
  resetConfig();
});

async function api(
  method: string,
  url: string,
  key?: string,
  json?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${host.url}${url}`, {
    method,
    headers: {
      ...(key ? { "x-api-key": key } : {}),
      ...(json === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** Submits, approves, pays and dispatches a task; returns its id. */
async function dispatchedTask(extra: Record<string, unknown> = {}): Promise<string> {
  const created = await api("POST", "/api/submit-task", agent, { ...validTask, ...extra });
  expect(created.status).toBe(201);
  const id = created.body.task_id as string;
  expect(
    (await api("POST", "/api/task-review", admin, { task_id: id, action: "approve", price_cad: 210 })).status,
  ).toBe(200);
  expect((await api("POST", "/api/task-payment", admin, { task_id: id, note: "e-transfer" })).status).toBe(
    200,
  );
  expect((await api("POST", "/api/task-complete", admin, { task_id: id, action: "dispatch" })).status).toBe(
    200,
  );
  return id;
}

/** Runs the outbox (events → webhooks and callbacks) as the delivery job does; tests do not kick it. */
async function deliver() {
  const before = receiver.requests.length;
  await processOutbox();
  await receiver.waitFor(before + 1);
}

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

async function jwks() {
  const res = await api("GET", "/.well-known/jwks.json");
  expect(res.status).toBe(200);
  return res;
}

async function verify(receipt: string): Promise<ReceiptClaims> {
  const { body } = await jwks();
  const { payload, protectedHeader } = await compactVerify(receipt, createLocalJWKSet(body), {
    algorithms: ["EdDSA"],
  });
  expect(protectedHeader).toMatchObject({ alg: "EdDSA", typ: "task-receipt+jws", kid: body.keys[0].kid });
  return JSON.parse(new TextDecoder().decode(payload));
}

function receivedFor(taskId: string, event: string) {
  return receiver.requests
    .map((r) => ({ path: r.path, body: JSON.parse(r.rawBody) }))
    .find(
      (r) =>
        (r.body.data?.task_id ?? r.body.task_id) === taskId && r.body.event === event && r.path === "/hooks",
    );
}

describe("the keys", () => {
  it("serves the public JWK Set at /.well-known/jwks.json without private members", async () => {
    const res = await jwks();
    expect(res.headers.get("content-type")).toBe("application/jwk-set+json");
    expect(res.body.keys[0]).toEqual({
      kty: "OKP",
      crv: "Ed25519",
      x: expect.any(String),
      kid: expect.any(String),
      alg: "EdDSA",
      use: "sig",
    });
  });
});

describe("a completed task", () => {
  it("carries the same verifiable receipt and file digests in the status, the webhook and the callback", async () => {
    const report = {
      filename: "report.json",
      type: "application/json",
      content: Buffer.from('{"hours":"9-17"}').toString("base64"),
    };
    const photo = pngProof("front.png");
    const id = await dispatchedTask({ callback_url: `${receiver.url}/cb` });
    const done = await api("POST", "/api/task-complete", admin, {
      task_id: id,
      action: "complete",
      no_visit_reason: "Test: completed without a site visit",
      operator_notes: "Storefront photographed.",
      proof_files: [photo, report],
    });
    expect(done.status).toBe(200);

    const status = await api("GET", `/api/submit-task?task_id=${id}`, agent);
    const files = [photo, report].map((f) => ({ bytes: Buffer.from(f.content, "base64"), type: f.type }));
    expect(status.body.proof_files.map(({ capture: _c, ...f }: any) => f)).toEqual(
      [photo, report].map((f, i) => ({
        filename: f.filename,
        type: f.type,
        size: files[i]!.bytes.length,
        sha256: sha256(files[i]!.bytes),
      })),
    );
    expect(status.body._links.receipt_keys).toMatch(/\/\.well-known\/jwks\.json$/);
    const claims = await verify(status.body.receipt);
    expect(claims).toMatchObject({
      task_id: id,
      status: "completed",
      sandbox: false,
      service_type: "SVC-01",
      price_cad: 210,
      paid: { method: "manual", network: null, tx_hash: null },
      completed_at: status.body.completed_at,
      operator_notes_sha256: sha256(Buffer.from("Storefront photographed.")),
    });
    expect(claims.location.matched).toBe("Montreal");
    expect(Date.parse(claims.dispatched_at!)).toBeLessThanOrEqual(Date.parse(claims.completed_at!));
    const served = status.body.proof_files_data.map((f: any) => ({
      bytes: Buffer.from(f.content, "base64"),
      type: f.type,
    }));
    expect(proofMatches(claims, served)).toBe(true);
    const swapped = [...served].reverse();
    expect(proofMatches(claims, swapped)).toBe(false);

    await deliver();
    const hook = receivedFor(id, "task.completed");
    expect(hook?.body.data.receipt).toBe(status.body.receipt);
    expect(hook?.body.data.proof_files).toEqual(
      status.body.proof_files.map(({ capture: _c, ...f }: any) => f),
    );
    const callback = receiver.requests
      .map((r) => JSON.parse(r.rawBody))
      .find((b) => b.task_id === id && !b.data);
    expect(callback.receipt).toBe(status.body.receipt);
    expect(callback.proof_file_details).toEqual(hook?.body.data.proof_files);
  });

  it("is verified by examples/verify-receipt.ts against the served keys", async () => {
    const id = await dispatchedTask();
    await api("POST", "/api/task-complete", admin, {
      task_id: id,
      action: "complete",
      no_visit_reason: "Test: completed without a site visit",
      proof_files: [pngProof()],
    });
    const { body } = await api("GET", `/api/submit-task?task_id=${id}`, agent);
    const run = promisify(execFile);
    const tsx = path.join(ROOT, "node_modules", ".bin", "tsx");
    const script = path.join(ROOT, "examples", "verify-receipt.ts");
    const { stdout } = await run(tsx, [script, body.receipt, `${host.url}/.well-known/jwks.json`], {
      cwd: ROOT,
    });
    expect(JSON.parse(stdout)).toMatchObject({
      task_id: id,
      status: "completed",
      proof: [{ type: "image/png" }],
    });

    const [h, p, s] = body.receipt.split(".");
    const forged = Buffer.from(p, "base64url")
      .toString()
      .replace('"status":"completed"', '"status":"failed"');
    await expect(
      run(
        tsx,
        [
          script,
          [h, Buffer.from(forged).toString("base64url"), s].join("."),
          `${host.url}/.well-known/jwks.json`,
        ],
        { cwd: ROOT },
      ),
    ).rejects.toThrow(/signature verification failed/);
    // Two tsx child processes (each compiles and loads the script): a few seconds alone, several
    // times that on a busy 2-core machine; the limit only guards against a hang.
  }, 120_000);
});

describe("capture metadata", () => {
  it("stores each photo's capture time and place, flagged but never refused", async () => {
    const jpeg = (name: string) => ({
      filename: name,
      type: "image/jpeg",
      content: readFileSync(path.join(ROOT, "tests", "fixtures", "capture", name)).toString("base64"),
    });
    const id = await dispatchedTask();
    const done = await api("POST", "/api/task-complete", admin, {
      task_id: id,
      action: "complete",
      no_visit_reason: "Test: completed without a site visit",
      proof_files: [jpeg("far-gps.jpg"), jpeg("no-exif.jpg")],
    });
    expect(done.status).toBe(200);
    const { body } = await api("GET", `/api/submit-task?task_id=${id}`, agent);
    expect(body.status).toBe("completed");
    // far-gps.jpg: Quebec City on 2026-11-20, long before this task was dispatched
    expect(body.proof_files[0].capture).toMatchObject({
      captured_at: "2026-11-20T15:30:00.000Z",
      gps: { latitude: 46.8139, longitude: -71.208 },
      within_execution_window: false,
      flags: ["OUTSIDE_EXECUTION_WINDOW", "FAR_FROM_LOCATION"],
    });
    expect(body.proof_files[0].capture.distance_km).toBeGreaterThan(200);
    expect(body.proof_files[1].capture).toMatchObject({
      captured_at: null,
      flags: ["NO_CAPTURE_TIME", "NO_GPS"],
    });
  });
});

describe("failed and sandbox tasks", () => {
  it("signs a receipt for a failed task, carried by the task.failed webhook", async () => {
    const id = await dispatchedTask();
    const failed = await api("POST", "/api/task-complete", admin, {
      task_id: id,
      action: "fail",
      reason: "Store closed",
    });
    expect(failed.status).toBe(200);
    const status = await api("GET", `/api/submit-task?task_id=${id}`, agent);
    const claims = await verify(status.body.receipt);
    expect(claims).toMatchObject({ task_id: id, status: "failed", completed_at: null, proof: [] });
    expect(status.body.proof_files).toBeUndefined();
    await deliver();
    expect(receivedFor(id, "task.failed")?.body.data.receipt).toBe(status.body.receipt);
  });

  it("marks the receipt of a sandbox task as sandbox", async () => {
    const created = await api("POST", "/api/submit-task", undefined, validTask, {
      "x-service-mode": "sandbox",
    });
    let status: any;
    for (let i = 0; i < 6; i++)
      status = (
        await api("GET", `/api/submit-task?task_id=${created.body.task_id}`, undefined, undefined, {
          "x-task-access-token": created.body.access_token,
        })
      ).body;
    expect(status.status).toBe("completed");
    expect(await verify(status.receipt)).toMatchObject({ sandbox: true, status: "completed" });
  });
});
