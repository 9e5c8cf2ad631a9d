/**
 * Who can read what of a task (issue 25 item 1; docs/security.md "Who can read what"): one table of caller
 * kind × path × field group, over real HTTP (the local host): the status read, the MCP tool
 * check_task_status, the MCP task methods and resources, the event stream, cancellation, the
 * receipt and the score. Callers: nobody, a stranger's key (another tenant), the submitting key, a
 * key linked to the same client account, the task's access token (header, bearer or parameter),
 * a wrong access token, and an admin key.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  GetTaskResultSchema,
  McpError,
  ReadResourceResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "../../lib/config.js";
import type { LocalHost } from "../../scripts/local-host.js";
import { accountKeys, openLinkedAccount } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { startTestHost } from "../helpers/host.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { expectEnvelope } from "../helpers/request.js";
import {
  completeTask,
  pngProof,
  recordPayment,
  reviewTask,
  submitTask,
  validTask,
} from "../helpers/tasks.js";

useTestDatabase();

/** The members of the public status, and nothing else. */
const PUBLIC_MEMBERS = [
  "_links",
  "_polling",
  "created_at",
  "execution_deadline",
  "history",
  "review_deadline",
  "sandbox",
  "service_type",
  "status",
  "task_id",
  "updated_at",
  "urgency",
];
/** Members of the owner's view of a completed, USDC-paid task, by group. */
const CONTENT = [
  "location_address",
  "task_description",
  "requester_contact",
  "callback_url",
  "special_instructions",
];
const MONEY = ["payment", "payment_usdc", "estimate_cad", "budget_limit"];
const PROOF = ["proof_files", "operator_notes", "receipt"];
const SECRET_WORDS = ["Sherbrooke", "storefront", "agent@example.com", "secret-callback-token", "0xabab"];

let host: LocalHost;
let admin: string;
let owner: string;
let linked: string;
let linkedNoCancel: string;
let stranger: string;
/** The signed-in client session of the account `owner` is linked to (dashboard). */
let ownerJwt: string;
/** A task of `owner`, completed with a proof photo and paid in USDC (receipt). */
let keyed: string;
/** A keyless task with its access token, completed. */
let keyless: string;
let token: string;

async function finish(taskId: string): Promise<void> {
  const reviewed = await reviewTask(admin, { task_id: taskId, action: "approve" });
  expect(reviewed.res.status, JSON.stringify(reviewed.body)).toBe(200);
  const paid = await recordPayment(admin, {
    task_id: taskId,
    tx_hash: `0x${"ab".repeat(32)}`,
    network: "base",
  });
  expect(paid.res.status).toBe(200);
  expect((await completeTask(admin, { task_id: taskId, action: "dispatch" })).res.status).toBe(200);
  const done = await completeTask(admin, {
    task_id: taskId,
    action: "complete",
    no_visit_reason: "Test: completed without a site visit",
    operator_notes: "Storefront photographed.",
    proof_files: [pngProof("front.png")],
  });
  expect(done.res.status).toBe(200);
}

beforeAll(async () => {
  process.env.ALLOW_PRIVATE_CALLBACKS = "true";
  resetConfig();
  host = await startTestHost();
  admin = await makeKey(["admin"]);
  owner = await makeKey(["audit_only", "task_create", "task_cancel"], "owner-a@example.com");
  stranger = await makeKey(["audit_only", "task_create", "task_cancel"], "tenant-b@example.com");
  const { jwt } = await openLinkedAccount(owner);
  ownerJwt = jwt;
  const made = await accountKeys(jwt, {
    action: "create",
    name: "second agent",
    scopes: ["audit_only", "task_create", "task_cancel", "billing_read"],
  });
  expect(made.res.status).toBe(200);
  linked = made.body.api_key;
  linkedNoCancel = (await accountKeys(jwt, { action: "create", name: "reader", scopes: ["audit_only"] })).body
    .api_key;
  const body = {
    ...validTask,
    special_instructions: "Ring twice.",
    callback_url: "http://127.0.0.1:9/cb?token=secret-callback-token",
    budget_limit: 900,
  };
  const submitted = await submitTask(body, keyHeaders(owner));
  expect(submitted.res.status, JSON.stringify(submitted.body)).toBe(201);
  keyed = submitted.body.task_id;
  await finish(keyed);
  const anonymous = await submitTask(body);
  expect(anonymous.res.status, JSON.stringify(anonymous.body)).toBe(201);
  keyless = anonymous.body.task_id;
  token = anonymous.body.access_token;
  await finish(keyless);
});
afterAll(async () => {
  delete process.env.ALLOW_PRIVATE_CALLBACKS;
  resetConfig();
  await host?.close();
});

async function httpStatus(taskId: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${host.url}/api/submit-task?task_id=${taskId}`, { headers });
  return { res, body: (await res.json()) as any };
}

/** Asserts `view` is exactly the public part, with no word of the task's content. */
function expectPublic(view: Record<string, unknown>, extra: string[] = []): void {
  expect(Object.keys(view).sort()).toEqual([...PUBLIC_MEMBERS, ...extra].sort());
  for (const entry of view.history as Record<string, unknown>[])
    expect(Object.keys(entry).sort()).toEqual(["at", "status"]);
  const text = JSON.stringify(view);
  for (const word of SECRET_WORDS) expect(text).not.toContain(word);
}

/** Asserts `view` carries every owner group. */
function expectOwner(view: Record<string, unknown>, groups: string[][] = [CONTENT, MONEY, PROOF]): void {
  for (const member of groups.flat()) expect(view, member).toHaveProperty(member);
  expect((view.payment as { tx_hash: string }).tx_hash).toBe(`0x${"ab".repeat(32)}`);
  expect(view.requester_contact).toBe("agent@example.com");
}

describe("GET /api/submit-task: the status by caller", () => {
  const cases: [string, () => Record<string, string>, () => string, "public" | "owner"][] = [
    ["nobody", () => ({}), () => keyed, "public"],
    ["a stranger's key", () => keyHeaders(stranger), () => keyed, "public"],
    ["the submitting key", () => keyHeaders(owner), () => keyed, "owner"],
    ["a key of the same account", () => keyHeaders(linked), () => keyed, "owner"],
    ["an admin key", () => keyHeaders(admin), () => keyed, "owner"],
    [
      "the account's signed-in client (JWT)",
      () => ({ authorization: `Bearer ${ownerJwt}` }),
      () => keyed,
      "owner",
    ],
    [
      "the account's client on another's task",
      () => ({ authorization: `Bearer ${ownerJwt}` }),
      () => keyless,
      "public",
    ],
    ["nobody, keyless task", () => ({}), () => keyless, "public"],
    ["a stranger's key, keyless task", () => keyHeaders(stranger), () => keyless, "public"],
    ["X-Task-Access-Token", () => ({ "x-task-access-token": token }), () => keyless, "owner"],
    [
      "Authorization: Bearer <access_token>",
      () => ({ authorization: `Bearer ${token}` }),
      () => keyless,
      "owner",
    ],
  ];
  it.each(cases)("%s", async (_, headers, task, expected) => {
    const { res, body } = await httpStatus(task(), headers());
    expect(res.status).toBe(200);
    if (expected === "public") {
      expectPublic(body);
      expect(body.proof_files_data).toBeUndefined();
      expect(body._polling.recommended_action).not.toMatch(/USDC|proof_files_data|operator_notes/);
    } else {
      expectOwner(body);
      expect(body.proof_files_data).toHaveLength(1);
      expect(body.history[0].event).toBe("task.created");
    }
  });

  it("refuses a client token that is sent and invalid (401)", async () => {
    const [h, p] = ownerJwt.split(".");
    const { res, body } = await httpStatus(keyed, { authorization: `Bearer ${h}.${p}.forged` });
    expectEnvelope(body, res, 401, "UNAUTHORIZED");
  });

  it("refuses an access token that is not the task's (403 FORBIDDEN naming access_token)", async () => {
    for (const headers of <Record<string, string>[]>[
      { "x-task-access-token": "tok_wrong" },
      { authorization: `Bearer tok_${"x".repeat(40)}` },
    ]) {
      const { res, body } = await httpStatus(keyless, headers);
      expect(expectEnvelope(body, res, 403, "FORBIDDEN").field).toBe("access_token");
    }
    // Another task's token too: a token opens one task.
    const { res, body } = await httpStatus(keyed, { "x-task-access-token": token });
    expectEnvelope(body, res, 403, "FORBIDDEN");
  });
});

async function mcp(headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "access-table", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${host.url}/api/mcp`), { requestInit: { headers } }),
  );
  return client;
}

async function rejection(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe("MCP check_task_status by caller", () => {
  it.each([
    ["a stranger's key", () => ({ api_key: stranger, task_id: keyed }), "public"],
    ["the submitting key", () => ({ api_key: owner, task_id: keyed }), "owner"],
    ["a key of the same account", () => ({ api_key: linked, task_id: keyed }), "owner"],
    ["an admin key", () => ({ api_key: admin, task_id: keyed }), "owner"],
    ["the access token", () => ({ access_token: token, task_id: keyless }), "owner"],
    ["a stranger's key on a keyless task", () => ({ api_key: stranger, task_id: keyless }), "public"],
  ] as const)("%s", async (_, args, expected) => {
    const client = await mcp();
    const result = await client.request(
      { method: "tools/call", params: { name: "check_task_status", arguments: args() } },
      CallToolResultSchema,
    );
    const data = result.structuredContent as Record<string, unknown>;
    expect(result.isError).toBeFalsy();
    if (expected === "public") {
      expectPublic(data, ["mcp_status", "owned_by_caller"]);
      expect(data.owned_by_caller).toBe(false);
      expect(result.content.filter((c) => c.type === "resource_link")).toHaveLength(0);
    } else {
      expectOwner(data);
      expect(data.owned_by_caller).toBe(true);
      expect(result.content.filter((c) => c.type === "resource_link")).toHaveLength(1);
    }
    await client.close();
  });

  it("refuses another task's access token as a tool error naming the token", async () => {
    const client = await mcp();
    const result = await client.request(
      {
        method: "tools/call",
        params: { name: "check_task_status", arguments: { task_id: keyed, access_token: token } },
      },
      CallToolResultSchema,
    );
    expect(result.isError).toBe(true);
    expect((result._meta as any)?.error?.code).toBe("FORBIDDEN");
    await client.close();
  });
});

describe("MCP task methods and resources: the owner or an admin, else not found", () => {
  const readers: [
    string,
    () => Record<string, string>,
    () => Record<string, unknown>,
    () => string,
    boolean,
  ][] = [
    ["a stranger's header key", () => keyHeaders(stranger), () => ({}), () => keyed, false],
    ["a stranger's api_key param", () => ({}), () => ({ api_key: stranger }), () => keyed, false],
    ["nobody", () => ({}), () => ({}), () => keyed, false],
    ["a wrong access token", () => ({}), () => ({ access_token: "tok_wrong" }), () => keyless, false],
    ["the submitting key", () => keyHeaders(owner), () => ({}), () => keyed, true],
    ["a key of the same account", () => keyHeaders(linked), () => ({}), () => keyed, true],
    ["an admin key", () => keyHeaders(admin), () => ({}), () => keyed, true],
    ["the access token", () => ({}), () => ({ access_token: token }), () => keyless, true],
  ];
  it.each(readers)("%s", async (_, headers, params, task, allowed) => {
    const client = await mcp(headers());
    const taskId = task();
    const calls = [
      client.request({ method: "tasks/get", params: { taskId, ...params() } }, GetTaskResultSchema),
      client.request({ method: "tasks/result", params: { taskId, ...params() } }, CallToolResultSchema),
      client.request(
        { method: "resources/read", params: { uri: `task://${taskId}/proof/1`, ...params() } },
        ReadResourceResultSchema,
      ),
      client.request(
        { method: "resources/read", params: { uri: `task://${taskId}/receipt`, ...params() } },
        ReadResourceResultSchema,
      ),
    ];
    if (allowed) {
      const [got, result, proof, receipt] = await Promise.all(calls);
      expect(got).toMatchObject({ taskId, status: "completed" });
      expect((result as { structuredContent: Record<string, unknown> }).structuredContent).toHaveProperty(
        "location_address",
      );
      expect((proof as { contents: { mimeType: string }[] }).contents[0]!.mimeType).toBe("image/png");
      expect((receipt as { contents: { mimeType: string }[] }).contents.map((c) => c.mimeType)).toEqual([
        "application/json",
        "application/pdf",
      ]);
    } else {
      const codes = await Promise.all(calls.map(async (p) => (await rejection(p)).code));
      expect(codes).toEqual([-32602, -32602, -32002, -32002]);
    }
    await client.close();
  });
});

describe("the event stream: the owner or an admin, else 403", () => {
  const cases: [string, () => Record<string, string>, () => string, string, number][] = [
    ["nobody", () => ({}), () => keyed, "", 403],
    ["a stranger's key", () => keyHeaders(stranger), () => keyed, "", 403],
    ["another task's access token", () => ({}), () => keyed, "token", 403],
    ["the submitting key", () => keyHeaders(owner), () => keyed, "", 200],
    ["a key of the same account", () => keyHeaders(linked), () => keyed, "", 200],
    ["an admin key", () => keyHeaders(admin), () => keyed, "", 200],
    ["the access token parameter", () => ({}), () => keyless, "token", 200],
    ["the access token header", () => ({ "x-task-access-token": token }), () => keyless, "", 200],
  ];
  it.each(cases)("%s → %i", async (_, headers, task, query, status) => {
    const extra = query === "token" ? `&access_token=${token}` : "";
    const res = await fetch(`${host.url}/api/tasks/stream?task_id=${task()}${extra}`, {
      headers: { ...headers(), "x-stream-timeout": "1" },
    });
    expect(res.status).toBe(status);
    if (status === 200) expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    else expectEnvelope(await res.json(), res, 403, "FORBIDDEN");
    await res.body?.cancel().catch(() => {});
  });
});

describe("cancellation, receipt and score follow the same rule", () => {
  it("lets a key of the same account cancel (with task_cancel) and refuses a stranger", async () => {
    const fresh = (await submitTask(validTask, keyHeaders(owner))).body.task_id;
    const del = (headers: Record<string, string>) =>
      fetch(`${host.url}/api/submit-task?task_id=${fresh}`, { method: "DELETE", headers });
    let res = await del(keyHeaders(stranger));
    expectEnvelope(await res.json(), res, 403, "FORBIDDEN");
    res = await del(keyHeaders(linkedNoCancel));
    expect(expectEnvelope(await res.json(), res, 403, "FORBIDDEN").message).toMatch(/task_cancel/);
    res = await del(keyHeaders(linked));
    const body = (await res.json()) as Record<string, unknown>;
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ status: "cancelled", task_description: validTask.task_description });
  });

  it("lets a keyless requester cancel with the access token as a header", async () => {
    const created = (await submitTask(validTask)).body;
    const res = await fetch(`${host.url}/api/submit-task?task_id=${created.task_id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${created.access_token}` },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe("cancelled");
  });

  it("serves the USDC receipt to a key of the same account, not to a stranger", async () => {
    const receiptId = (await httpStatus(keyed, keyHeaders(owner))).body.payment.receipt_invoice_id;
    expect(receiptId).toMatch(/^inv_/);
    const read = (key: string) =>
      fetch(`${host.url}/api/client-account?invoice_id=${receiptId}`, { headers: keyHeaders(key) });
    expect((await read(linked)).status).toBe(200);
    const refused = await read(stranger);
    expectEnvelope(await refused.json(), refused, 404, "NOT_FOUND");
  });

  it("lets a key of the same account score the task; its feedback is the owner's to read", async () => {
    const post = await fetch(`${host.url}/api/task-score`, {
      method: "POST",
      headers: { ...keyHeaders(linked), "content-type": "application/json" },
      body: JSON.stringify({ task_id: keyed, rating: 4, feedback: "Late but thorough" }),
    });
    expect(post.status).toBe(201);
    const strangerScore = await fetch(`${host.url}/api/task-score`, {
      method: "POST",
      headers: { ...keyHeaders(stranger), "content-type": "application/json" },
      body: JSON.stringify({ task_id: keyless, rating: 1 }),
    });
    expectEnvelope(await strangerScore.json(), strangerScore, 403, "FORBIDDEN");
    const read = async (headers: Record<string, string>) =>
      (await (await fetch(`${host.url}/api/task-score?task_id=${keyed}`, { headers })).json()) as Record<
        string,
        unknown
      >;
    expect(await read(keyHeaders(stranger))).not.toHaveProperty("feedback");
    expect(await read(keyHeaders(owner))).toMatchObject({ feedback: "Late but thorough" });
  });
});
