/**
 * The task card, our MCP App (issue 43; docs/mcp.md "In the conversation"), at the protocol level
 * over real HTTP against the local host, in both revisions:
 * - 2025-11-25 (the v1 client): the card resource and its per-task template are always listed;
 *   tools that show it carry `_meta.ui.resourceUri`; the app-only helper is listed, with
 *   `visibility: ["app"]`, only to a client that declared the extension at `initialize`;
 * - 2026-07-28: the card, its template and the helper are listed only to a request declaring the
 *   extension; a client without it gets exactly the lists and results it got before;
 * - the read: `text/html;profile=mcp-app`, `_meta.ui.csp` allowing no origin, no inline event
 *   handler; the card opened on a task for its owner, and for anyone else the very not-found of a
 *   task that does not exist (both revisions);
 * - `task_card_refresh` runs a sandbox task to completed and verifies its signed receipt;
 * - a task on site: `task_card_refresh` lists the photo a field person uploaded so far, with its
 *   capture time and place, to the owner only; `check_task_status` does not (proof once completed);
 *   once completed, every proof link and the resource read carry the capture metadata;
 * - our constants are the extension's (ext-apps' own exports).
 */

import { readFileSync } from "node:fs";
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import * as extApps from "@modelcontextprotocol/ext-apps/server";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxIdle } from "../../lib/events/kick-outbox.js";
import {
  APP_MIME_TYPE,
  LEGACY_RESOURCE_URI_KEY,
  TASK_CARD_URI,
  UI_EXTENSION,
} from "../../lib/mcp/app/task-card.js";
import type { LocalHost } from "../../scripts/local-host.js";
import { assign, near, paidTask, uploadProof, visit } from "../field/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { startTestHost } from "../helpers/host.js";
import { makeKey } from "../helpers/keys.js";
import { rpc2026 } from "../helpers/mcp-2026.js";
import { createStaff, staffHeaders } from "../helpers/staff.js";
import { completeTask, pngProof, validTask } from "../helpers/tasks.js";

useTestDatabase();

const UI = { extensions: { [UI_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } };
let host: LocalHost;
let key: string;
let otherKey: string;

beforeAll(async () => {
  host = await startTestHost();
  key = await makeKey(["task_create", "audit_only", "task_cancel"]);
  otherKey = await makeKey(["task_create", "audit_only", "task_cancel"]);
}, 120_000);

afterAll(async () => {
  await host?.close();
  await outboxIdle();
});

async function v1(apiKey: string, capabilities: Record<string, unknown> = {}) {
  const client = new ClientV1({ name: "host-2025", version: "1.0.0" }, { capabilities });
  await client.connect(
    new TransportV1(new URL(`${host.url}/api/mcp`), { requestInit: { headers: { "x-api-key": apiKey } } }),
  );
  return client;
}

function rpc(
  method: string,
  params: Record<string, unknown>,
  options: { apiKey?: string; ui?: boolean } = {},
) {
  return rpc2026(`${host.url}/api/mcp`, method, params, {
    capabilities: options.ui ? UI : {},
    headers: { "x-api-key": options.apiKey ?? key },
  });
}

/** Submits a sandbox task with `client` and returns its id. */
async function sandboxTask(client: ClientV1): Promise<string> {
  const submitted = await client.callTool({
    name: "submit_task",
    arguments: { ...validTask, sandbox: true },
  });
  return (submitted.structuredContent as { task_id: string }).task_id;
}

describe("constants", () => {
  it("are the extension's own", () => {
    expect(UI_EXTENSION).toBe(extApps.EXTENSION_ID);
    expect(APP_MIME_TYPE).toBe(extApps.RESOURCE_MIME_TYPE);
    expect(LEGACY_RESOURCE_URI_KEY).toBe(extApps.RESOURCE_URI_META_KEY);
  });
});

describe("revision 2025-11-25", () => {
  it("lists the card and its template always; tools name it; the helper only with the extension", async () => {
    const plain = await v1(key);
    const { resources } = await plain.listResources();
    expect(resources).toEqual([expect.objectContaining({ uri: TASK_CARD_URI, mimeType: APP_MIME_TYPE })]);
    const { resourceTemplates } = await plain.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain("ui://physical-tasks/task/{task_id}");
    const plainTools = (await plain.listTools()).tools;
    expect(plainTools.map((t) => t.name)).not.toContain("task_card_refresh");
    const estimate = plainTools.find((t) => t.name === "get_estimate")!;
    expect(estimate._meta).toEqual({ ui: { resourceUri: TASK_CARD_URI }, "ui/resourceUri": TASK_CARD_URI });
    expect(plainTools.find((t) => t.name === "register_api_key")!._meta).toBeUndefined();
    // A result is what it was: text and structuredContent, nothing of the card.
    const result = await plain.callTool({ name: "get_estimate", arguments: { hours: 1 } });
    expect(Object.keys(result).sort()).toEqual(["content", "structuredContent"]);
    await plain.close();

    const hostClient = await v1(key, UI);
    const tools = (await hostClient.listTools()).tools;
    const helper = tools.find((t) => t.name === "task_card_refresh");
    expect(helper?._meta).toMatchObject({ ui: { resourceUri: TASK_CARD_URI, visibility: ["app"] } });
    await hostClient.close();
  });

  it("reads the card: mcp-app HTML, a CSP with no origin, no inline handler", async () => {
    const client = await v1(key);
    const read = await client.readResource({ uri: TASK_CARD_URI });
    const [content] = read.contents as { uri: string; mimeType: string; text: string; _meta: any }[];
    expect(content!.mimeType).toBe(APP_MIME_TYPE);
    expect(content!.text.startsWith("<!doctype html>")).toBe(true);
    expect(content!._meta.ui.csp).toEqual({ connectDomains: [], resourceDomains: [] });
    expect(content!.text).not.toMatch(/<[a-z]+[^>]*\son[a-z]+\s*=/i);
    expect(content!.text).not.toMatch(/<script[^>]+src=/i);
    await client.close();
  });

  it("the card of a task: its owner's; anyone else gets the not-found of a task that does not exist", async () => {
    const owner = await v1(key);
    const taskId = await sandboxTask(owner);
    const uri = `ui://physical-tasks/task/${taskId}`;
    const read = await owner.readResource({ uri });
    expect((read.contents[0] as { text: string }).text).toContain(
      `<meta name="task-id" content="${taskId}">`,
    );
    await owner.close();

    const other = await v1(otherKey);
    const foreign = await other.readResource({ uri }).catch((e: { code: number; message: string }) => e);
    const missingUri = "ui://physical-tasks/task/TASK-00000000-nope";
    const missing = await other
      .readResource({ uri: missingUri })
      .catch((e: { code: number; message: string }) => e);
    expect(foreign).toMatchObject({ code: -32002 });
    expect(missing).toMatchObject({ code: -32002 });
    expect((foreign as { message: string }).message.replace(uri, "URI")).toBe(
      (missing as { message: string }).message.replace(missingUri, "URI"),
    );
    await other.close();
  });

  it("task_card_refresh runs a sandbox task to completed and verifies its receipt", async () => {
    const client = await v1(key, UI);
    const taskId = await sandboxTask(client);
    let data: any;
    for (let i = 0; i < 12; i++) {
      const result = await client.callTool({ name: "task_card_refresh", arguments: { task_id: taskId } });
      expect(result.isError).toBeFalsy();
      data = result.structuredContent;
      if (data.task.status === "completed") break;
    }
    expect(data.task.status).toBe("completed");
    expect(data.task.receipt).toEqual(expect.any(String));
    expect(data.receipt_check).toMatchObject({
      valid: true,
      status: "completed",
      sandbox: true,
      proof_matches: true,
      error: null,
    });
    expect(data.pay_url).toBeNull();
    await client.close();
  });
});

describe("revision 2026-07-28", () => {
  it("lists the card, its template and the helper only to a request declaring the extension", async () => {
    const without = await rpc("resources/list", {});
    expect(without.body.result.resources).toEqual([]);
    const templates = await rpc("resources/templates/list", {});
    expect(templates.body.result.resourceTemplates.map((t: any) => t.uriTemplate)).not.toContain(
      "ui://physical-tasks/task/{task_id}",
    );
    const tools = await rpc("tools/list", {});
    expect(tools.body.result.tools.map((t: any) => t.name)).not.toContain("task_card_refresh");

    const withUi = await rpc("resources/list", {}, { ui: true });
    expect(withUi.body.result.resources).toEqual([
      expect.objectContaining({ uri: TASK_CARD_URI, mimeType: APP_MIME_TYPE }),
    ]);
    const uiTemplates = await rpc("resources/templates/list", {}, { ui: true });
    expect(uiTemplates.body.result.resourceTemplates.map((t: any) => t.uriTemplate)).toContain(
      "ui://physical-tasks/task/{task_id}",
    );
    const uiTools = await rpc("tools/list", {}, { ui: true });
    const helper = uiTools.body.result.tools.find((t: any) => t.name === "task_card_refresh");
    expect(helper._meta.ui).toEqual({ resourceUri: TASK_CARD_URI, visibility: ["app"] });
  });

  it("the three lists vary with the extension, so no shared cache may keep them (cacheScope private)", async () => {
    for (const method of ["tools/list", "resources/list", "resources/templates/list"]) {
      for (const ui of [false, true]) {
        const { body } = await rpc(method, {}, { ui });
        expect(body.result, `${method} ui=${ui}`).toMatchObject({ cacheScope: "private", ttlMs: 3_600_000 });
      }
    }
    // Discovery does not vary: still shareable.
    expect((await rpc("server/discover", {})).body.result).toMatchObject({ cacheScope: "public" });
  });

  it("reads the card and the card of a task; a task the caller cannot see is not found as an unknown one", async () => {
    const card = await rpc("resources/read", { uri: TASK_CARD_URI }, { ui: true });
    expect(card.body.result.contents[0]).toMatchObject({
      mimeType: APP_MIME_TYPE,
      _meta: { ui: { csp: {} } },
    });

    const client = new ClientV2(
      { name: "host-2026", version: "1.0.0" },
      { versionNegotiation: { mode: "auto" } },
    );
    await client.connect(
      new TransportV2(new URL(`${host.url}/api/mcp`), { requestInit: { headers: { "x-api-key": key } } }),
    );
    const submitted = await client.callTool({
      name: "submit_task",
      arguments: { ...validTask, sandbox: true },
    });
    const taskId = (submitted.structuredContent as { task_id: string }).task_id;
    await client.close();
    const uri = `ui://physical-tasks/task/${taskId}`;
    const own = await rpc("resources/read", { uri }, { ui: true });
    expect(own.body.result.contents[0].text).toContain(`content="${taskId}"`);
    const foreign = await rpc("resources/read", { uri }, { ui: true, apiKey: otherKey });
    const missingUri = "ui://physical-tasks/task/TASK-00000000-nope";
    const missing = await rpc("resources/read", { uri: missingUri }, { ui: true, apiKey: otherKey });
    expect(foreign.body.error).toBeDefined();
    expect(foreign.body.error.code).toBe(missing.body.error.code);
    expect(foreign.body.error.message.replace(uri, "URI")).toBe(
      missing.body.error.message.replace(missingUri, "URI"),
    );
    expect(foreign.body.error.data).toEqual({ uri });
  });
});

describe("proof photos", () => {
  it("under way: the card's helper lists what the field person sent, with capture time and place; completed: every link", async () => {
    const admin = await makeKey(["admin"]);
    const dispatcher = await createStaff("dispatcher");
    const field = await createStaff("field", "Sam");
    const { taskId, place } = await paidTask(admin, key);
    await assign(staffHeaders(dispatcher), { task_id: taskId, staff_id: field.staffId });
    expect(
      (await visit(staffHeaders(field), { task_id: taskId, action: "check_in", ...near(place, 20) })).res
        .status,
    ).toBe(200);
    const jpeg = readFileSync(`${import.meta.dirname}/../fixtures/capture/with-gps.jpg`).toString("base64");
    const upload = await uploadProof(staffHeaders(field), {
      task_id: taskId,
      file: { filename: "storefront.jpg", type: "image/jpeg", content: jpeg },
    });
    expect(upload.res.status, JSON.stringify(upload.body)).toBeLessThan(300);
    const capture = {
      captured_at: "2026-11-20T15:30:00.000Z",
      gps: { latitude: 45.5048, longitude: -73.5772 },
    };

    const call = (name: string, apiKey = key) =>
      rpc("tools/call", { name, arguments: { task_id: taskId } }, { ui: true, apiKey });
    const refreshed = (await call("task_card_refresh")).body.result.structuredContent.task;
    expect(refreshed.status).toBe("on_site");
    expect(refreshed.proof_files).toEqual([
      {
        uri: `task://${taskId}/proof/1`,
        filename: "storefront.jpg",
        mime_type: "image/jpeg",
        size_bytes: Buffer.from(jpeg, "base64").length,
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        capture: expect.objectContaining(capture),
      },
    ]);
    // The agent's own status lists proof once the task is completed, as before.
    expect((await call("check_task_status")).body.result.structuredContent.proof_files).toBeUndefined();
    // Whoever may not see the task's content gets no files from the helper either.
    const foreign = (await call("task_card_refresh", otherKey)).body;
    expect(foreign.result?.structuredContent?.task?.proof_files).toBeUndefined();

    const done = await completeTask(admin, {
      task_id: taskId,
      action: "complete",
      operator_notes: "Done.",
      proof_files: [pngProof()],
    });
    expect(done.res.status, JSON.stringify(done.body)).toBe(200);
    const status = (await call("check_task_status")).body.result;
    const files = status.structuredContent.proof_files;
    expect(files.map((f: { filename: string }) => f.filename)).toEqual(["storefront.jpg", "storefront.png"]);
    expect(files[0].capture).toMatchObject(capture);
    const links = status.content.filter((c: { type: string }) => c.type === "resource_link");
    expect(links[0]._meta.capture).toMatchObject(capture);
    // The generated PNG has no capture time or place: its record says so (and its flags why).
    expect(links[1]._meta.capture).toMatchObject({ captured_at: null, gps: null });
    const read = (await rpc("resources/read", { uri: files[0].uri })).body.result;
    expect(read.contents[0]._meta.capture).toMatchObject(capture);
  });
});
