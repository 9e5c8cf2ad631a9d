/**
 * MCP revision 2026-07-28 served by two instances on one database (issue 41, "Tests and measures"):
 * two `scripts/serve.ts` processes on one PostgreSQL database take alternate requests of one client,
 * as a load balancer would spread them, and answer as one server:
 * - the official v2 client pinned to 2026-07-28 runs estimate → sandbox task → completed → proof
 *   read as a resource, each request on the other instance than the one before;
 * - a pay_task multi-round-trip: the `requestState` minted by one instance is verified by the other
 *   (it travels sealed with the client, nothing stays in either process);
 * - the Tasks extension across a kill: submit_task answers a task handle on one instance, that
 *   instance is killed (SIGKILL), the other follows the task to `completed` with `tasks/get`, and
 *   a restarted instance answers the same.
 * PGlite is one process's database, so this needs TEST_DATABASE_URL (the CI's PostgreSQL run).
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openPg, setDatabase } from "../../lib/db/client.js";
import { createScratchDatabase, type ScratchDatabase } from "../../lib/db/scratch-database.js";
import { POSTGRES_ONLY } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { REVISION_2026, rpc2026, TASKS_EXTENSION } from "../helpers/mcp-2026.js";
import { type ServeProcess, startServeProcess } from "../helpers/serve-process.js";
import { validTask } from "../helpers/tasks.js";

const ADMIN_URL = process.env.TEST_DATABASE_URL;

type Instance = ServeProcess;

/** Starts an instance on `databaseUrl`. */
function startInstance(databaseUrl: string): Promise<Instance> {
  return startServeProcess({
    DATABASE_URL: databaseUrl,
    RATE_LIMIT_KEY_PER_MIN: "100000",
    OUTBOX_KICK: "false",
  });
}

describe.skipIf(!ADMIN_URL)(`MCP 2026-07-28 on two instances of one database${POSTGRES_ONLY}`, () => {
  let scratch: ScratchDatabase;
  let handle: DatabaseHandle;
  const instances: Instance[] = [];
  let key: string;
  let admin: string;

  beforeAll(async () => {
    scratch = await createScratchDatabase(ADMIN_URL!, "ptes_test");
    handle = await openPg(scratch.url, 2);
    setDatabase(handle);
    instances.push(...(await Promise.all([startInstance(scratch.url), startInstance(scratch.url)])));
    key = await makeKey(["task_create", "audit_only", "task_cancel"]);
    admin = await makeKey(["admin"]);
  }, 240_000);

  afterAll(async () => {
    for (const s of instances) if (s.child.exitCode === null) s.child.kill("SIGKILL");
    setDatabase(undefined);
    await handle?.close();
    await scratch?.drop();
  });

  /** A fetch that sends each request to the other instance than the one before (a load balancer). */
  function alternating(): { fetch: typeof fetch; served: string[] } {
    const served: string[] = [];
    let turn = 0;
    const balanced = ((input: string | URL | Request, init?: RequestInit) => {
      const target = instances[turn++ % 2]!.url;
      const url = new URL(input instanceof Request ? input.url : input.toString());
      served.push(target);
      return fetch(`${target}${url.pathname}${url.search}`, init);
    }) as typeof fetch;
    return { fetch: balanced, served };
  }

  it("a pinned v2 client, its requests alternating between the instances, runs a sandbox task to its proof", async () => {
    const balancer = alternating();
    const client = new ClientV2(
      { name: "balanced-agent", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: REVISION_2026 } } },
    );
    await client.connect(
      new TransportV2(new URL("http://balancer.invalid/api/mcp"), {
        fetch: balancer.fetch,
        requestInit: { headers: { "x-api-key": key } },
      }),
    );
    await client.listTools();
    const estimate = await client.callTool({
      name: "get_estimate",
      arguments: { service_type: "SVC-01", hours: 1 },
    });
    expect(estimate.isError).toBeFalsy();
    const submitted = await client.callTool({
      name: "submit_task",
      arguments: { ...validTask, sandbox: true },
    });
    const taskId = (submitted.structuredContent as { task_id: string }).task_id;
    let last: any;
    for (let i = 0; i < 12; i++) {
      last = await client.callTool({ name: "check_task_status", arguments: { task_id: taskId } });
      if (last.structuredContent.status === "completed") break;
    }
    expect(last.structuredContent.status).toBe("completed");
    const read = await client.readResource({ uri: last.structuredContent.proof_files[0].uri });
    expect(read.contents).toHaveLength(1);
    expect(new Set(balancer.served).size).toBe(2);
    await client.close();
  });

  it("a requestState minted by one instance is honoured by the other", async () => {
    const [a, b] = instances as [Instance, Instance];
    const submitted = await rpc2026(
      `${a.url}/api/mcp`,
      "tools/call",
      { name: "submit_task", arguments: { ...validTask } },
      { headers: { "x-api-key": key } },
    );
    const taskId = submitted.body.result.structuredContent.task_id as string;
    const review = await fetch(`${b.url}/api/task-review`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": admin },
      body: JSON.stringify({ task_id: taskId, action: "approve" }),
    });
    expect(review.status).toBe(200);
    const pay = (url: string, extra: Record<string, unknown> = {}) =>
      rpc2026(
        `${url}/api/mcp`,
        "tools/call",
        { name: "pay_task", arguments: { task_id: taskId }, ...extra },
        { capabilities: { elicitation: { url: {} } }, headers: { "x-api-key": key } },
      );
    const first = await pay(a.url);
    expect(first.body.result.resultType).toBe("input_required");
    const [inputKey] = Object.keys(first.body.result.inputRequests);
    const retry = await pay(b.url, {
      inputResponses: { [inputKey!]: { action: "accept" } },
      requestState: first.body.result.requestState,
    });
    // Not paid yet: the other instance verified the state and answers the task's state (x402 is
    // off on these instances: its payment instructions).
    expect(retry.body.error).toBeUndefined();
    expect(retry.body.result.structuredContent).toMatchObject({
      task_id: taskId,
      status: "accepted_pending_payment",
    });
    const forged = await pay(b.url, {
      inputResponses: { [inputKey!]: { action: "accept" } },
      requestState: `${first.body.result.requestState}x`,
    });
    expect(forged.body.error.code).toBe(-32602);
  });

  it("a task handle survives the instance that made it: the other follows the task to completed", async () => {
    const [a, b] = instances as [Instance, Instance];
    const tasks = { capabilities: { extensions: { [TASKS_EXTENSION]: {} } }, headers: { "x-api-key": key } };
    const created = await rpc2026(
      `${a.url}/api/mcp`,
      "tools/call",
      { name: "submit_task", arguments: { ...validTask, sandbox: true } },
      tasks,
    );
    expect(created.body.result.resultType).toBe("task");
    const taskId = created.body.result.taskId as string;
    a.child.kill("SIGKILL");
    let task: any;
    for (let i = 0; i < 12; i++) {
      task = (await rpc2026(`${b.url}/api/mcp`, "tasks/get", { taskId }, tasks)).body.result;
      if (task.status === "completed") break;
    }
    expect(task.status).toBe("completed");
    const restarted = await startInstance(scratch.url);
    instances[0] = restarted;
    const again = (await rpc2026(`${restarted.url}/api/mcp`, "tasks/get", { taskId }, tasks)).body.result;
    expect(again).toMatchObject({ taskId, status: "completed" });
    // The same task, as each instance writes it (links name the origin a request came to).
    const { _links: _a, ...restarted_ } = again.result.structuredContent;
    const { _links: _b, ...first_ } = task.result.structuredContent;
    expect(restarted_).toEqual(first_);
  }, 180_000);
});
