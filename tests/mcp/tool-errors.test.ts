/**
 * Every tool's error results, read the way agents call tools: `tools/list` first, then
 * `client.callTool`, with the official clients of both SDK lines: `@modelcontextprotocol/sdk` 1.x
 * and `@modelcontextprotocol/client` 2.x in its default (legacy handshake) mode, in `auto` mode (which
 * negotiates 2026-07-28 with us) and pinned to 2026-07-28.
 * A client that has listed the tools validates any `structuredContent` against the tool's
 * `outputSchema`, errors included: the v1 client then throws -32602 instead of returning the
 * result. So an error result carries no `structuredContent`; its error envelope is in `_meta` and,
 * as JSON, in its last text block (docs/decisions.md 29).
 *
 * The table has at least one error path for every tool `tools/list` names: a tool added without
 * one fails the first test.
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalHost } from "../../scripts/local-host.js";
import { useTestDatabase } from "../helpers/db.js";
import { startTestHost } from "../helpers/host.js";
import { makeKey } from "../helpers/keys.js";
import { validTask } from "../helpers/tasks.js";

useTestDatabase();

let host: LocalHost;
let key: string;
let auditKey: string;

beforeAll(async () => {
  host = await startTestHost();
  key = await makeKey(["task_create", "billing_read", "audit_only"]);
  auditKey = await makeKey(["audit_only"]);
});
afterAll(() => host.close());

/** What a test needs of a connected client of either line. */
interface ToolClient {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

type Credential = "key" | "none" | "audit";

/** The clients agents use, each connected to /api/mcp with `credential` in its headers. */
const CLIENTS: Record<string, (credential: Credential) => Promise<ToolClient>> = {
  "sdk 1.x": async (credential) => {
    const client = new ClientV1({ name: "tool-errors-v1", version: "1.0.0" });
    await client.connect(
      new TransportV1(new URL(`${host.url}/api/mcp`), { requestInit: { headers: headersOf(credential) } }),
    );
    return client as unknown as ToolClient;
  },
  "client 2.x (legacy)": async (credential) => connectV2(credential, "legacy"),
  "client 2.x (auto)": async (credential) => connectV2(credential, "auto"),
  "client 2.x (pinned 2026-07-28)": async (credential) => connectV2(credential, { pin: "2026-07-28" }),
};

async function connectV2(
  credential: Credential,
  mode: "legacy" | "auto" | { pin: string },
): Promise<ToolClient> {
  const client = new ClientV2(
    { name: `tool-errors-v2-${typeof mode === "string" ? mode : mode.pin}`, version: "1.0.0" },
    { versionNegotiation: { mode } },
  );
  await client.connect(
    new TransportV2(new URL(`${host.url}/api/mcp`), { requestInit: { headers: headersOf(credential) } }),
  );
  return client as unknown as ToolClient;
}

function headersOf(credential: Credential): Record<string, string> {
  if (credential === "none") return {};
  return { "x-api-key": credential === "key" ? key : auditKey };
}

/** One error path: the tool, its arguments, the credential in the headers, the code expected. */
interface ErrorCase {
  tool: string;
  label: string;
  args: Record<string, unknown>;
  credential: Credential;
  code: string;
}

const UNKNOWN_TASK = "TASK-20260101-ZZZZ";

const CASES: ErrorCase[] = [
  {
    tool: "list_services",
    label: "unknown id",
    args: { id: "SVC-99" },
    credential: "none",
    // The tool's input schema lists the ids (GET /api/services?id= answers 404 NOT_FOUND instead).
    code: "VALIDATION_ERROR",
  },
  {
    tool: "list_services",
    label: "wrong type",
    args: { include_contract: "yes" },
    credential: "none",
    code: "INVALID_FORMAT",
  },
  {
    tool: "get_estimate",
    label: "hours below 0.25",
    args: { hours: -1 },
    credential: "none",
    code: "VALIDATION_ERROR",
  },
  {
    tool: "get_estimate",
    label: "a service outside the catalog (as submit_task answers it)",
    args: { hours: 1, service_type: "SVC-99" },
    credential: "none",
    code: "VALIDATION_ERROR",
  },
  {
    tool: "get_estimate",
    label: "a place nobody knows",
    args: { hours: 1, location: "Qwxzq Plorbville" },
    credential: "none",
    code: "LOCATION_NOT_FOUND",
  },
  { tool: "submit_task", label: "nothing given", args: {}, credential: "key", code: "MISSING_FIELD" },
  {
    tool: "submit_task",
    label: "outside the zone",
    args: { ...validTask, location_address: "1 rue King, Sherbrooke" },
    credential: "key",
    code: "OUT_OF_SERVICE_ZONE",
  },
  {
    tool: "submit_task",
    label: "an audit-only key",
    args: { ...validTask },
    credential: "audit",
    code: "FORBIDDEN",
  },
  {
    tool: "check_task_status",
    label: "unknown task",
    args: { task_id: UNKNOWN_TASK },
    credential: "key",
    code: "NOT_FOUND",
  },
  {
    tool: "score_task",
    label: "rating out of range",
    args: { task_id: UNKNOWN_TASK, rating: 9 },
    credential: "key",
    code: "VALIDATION_ERROR",
  },
  {
    tool: "score_task",
    label: "unknown task",
    args: { task_id: UNKNOWN_TASK, rating: 5 },
    credential: "key",
    code: "NOT_FOUND",
  },
  {
    tool: "get_capabilities",
    label: "a NUL byte",
    args: { note: "a\u0000b" },
    credential: "none",
    code: "INVALID_FORMAT",
  },
  {
    tool: "register_api_key",
    label: "not an e-mail",
    args: { name: "agent", contact: "not-an-email" },
    credential: "none",
    code: "VALIDATION_ERROR",
  },
  {
    tool: "register_webhook",
    label: "no key",
    args: { url: "https://example.com/hook", events: ["task.completed"] },
    credential: "none",
    code: "UNAUTHORIZED",
  },
  {
    tool: "register_webhook",
    label: "unknown event",
    args: { url: "https://example.com/hook", events: ["task.nothing"] },
    credential: "key",
    code: "INVALID_FORMAT",
  },
  {
    tool: "get_reputation",
    label: "unknown service",
    args: { service_type: "SVC-99" },
    credential: "none",
    code: "VALIDATION_ERROR",
  },
  {
    tool: "check_balance",
    label: "no key",
    args: { agent_id: "a1" },
    credential: "none",
    code: "UNAUTHORIZED",
  },
  {
    tool: "check_balance",
    label: "an invalid api_key argument",
    args: { agent_id: "a1", api_key: `svc_${"Z".repeat(40)}` },
    credential: "none",
    code: "UNAUTHORIZED",
  },
  {
    tool: "pre_authorize_cost",
    label: "a negative amount",
    args: { agent_id: "a1", max_cost_cad: -5 },
    credential: "key",
    code: "INVALID_FORMAT",
  },
  {
    tool: "cancel_task",
    label: "unknown task",
    args: { task_id: UNKNOWN_TASK },
    credential: "key",
    code: "NOT_FOUND",
  },
  {
    tool: "dispute_task",
    label: "unknown task",
    args: { task_id: UNKNOWN_TASK, reason: "other", details: "The photos are of another building." },
    credential: "key",
    code: "NOT_FOUND",
  },
  {
    tool: "pay_task",
    label: "unknown task",
    args: { task_id: UNKNOWN_TASK },
    credential: "key",
    code: "NOT_FOUND",
  },
  {
    tool: "pay_task",
    label: "no key and no token",
    args: { task_id: UNKNOWN_TASK },
    credential: "none",
    code: "UNAUTHORIZED",
  },
  { tool: "list_my_tasks", label: "no key", args: {}, credential: "none", code: "UNAUTHORIZED" },
  // The task card's app-only helper (listed only to MCP Apps hosts, callable by any client).
  {
    tool: "task_card_refresh",
    label: "unknown task",
    args: { task_id: UNKNOWN_TASK },
    credential: "key",
    code: "NOT_FOUND",
  },
  {
    tool: "task_card_refresh",
    label: "no key",
    args: { task_id: UNKNOWN_TASK },
    credential: "none",
    code: "UNAUTHORIZED",
  },
  {
    tool: "list_my_tasks",
    label: "a cursor that is no cursor",
    args: { cursor: "not-a-cursor" },
    credential: "key",
    code: "VALIDATION_ERROR",
  },
];

describe("tool error results, read by the official clients after tools/list", () => {
  it("has an error path for every listed tool", async () => {
    const client = await CLIENTS["sdk 1.x"]!("none");
    const { tools } = await client.listTools();
    await client.close();
    const covered = new Set(CASES.map((c) => c.tool));
    expect(tools.map((t) => t.name).filter((name) => !covered.has(name))).toEqual([]);
  });

  for (const [clientName, connect] of Object.entries(CLIENTS)) {
    it(`${clientName}: every error path returns an isError result with the envelope`, async () => {
      const clients = new Map<Credential, ToolClient>();
      const failures: string[] = [];
      try {
        for (const c of CASES) {
          let client = clients.get(c.credential);
          if (!client) {
            client = await connect(c.credential);
            // As agents do: list first, so the client knows (and checks against) each outputSchema.
            await client.listTools();
            clients.set(c.credential, client);
          }
          const what = `${c.tool} [${c.label}]`;
          let result: Record<string, unknown>;
          try {
            result = await client.callTool({ name: c.tool, arguments: c.args });
          } catch (error) {
            failures.push(`${what}: the client threw instead of returning the result: ${String(error)}`);
            continue;
          }
          const meta = result._meta as { error?: { code?: string }; request_id?: string } | undefined;
          const content = result.content as { type: string; text: string }[];
          if (result.isError !== true) failures.push(`${what}: not isError`);
          if ("structuredContent" in result && result.structuredContent !== undefined)
            failures.push(`${what}: an error result with structuredContent`);
          if (meta?.error?.code !== c.code)
            failures.push(`${what}: _meta.error.code ${meta?.error?.code} ≠ ${c.code}`);
          if (!content[0]?.text.startsWith(`${c.code}: `))
            failures.push(`${what}: text "${content[0]?.text}"`);
          // Revision 2026-07-28 adds the server's identity to every result's _meta: the envelope is
          // its error and request_id.
          if (JSON.stringify({ error: meta?.error, request_id: meta?.request_id }) !== content.at(-1)?.text)
            failures.push(`${what}: last text block ≠ _meta's envelope`);
          if (!meta?.request_id?.startsWith("req_")) failures.push(`${what}: no request_id`);
        }
      } finally {
        for (const client of clients.values()) await client.close();
      }
      expect(failures, failures.join("\n")).toEqual([]);
    }, 120_000);
  }
});
