/**
 * The protocol methods over service tasks (MCP revision 2025-11-25, "Tasks" and "Resources"),
 * answered from the database on every request (the endpoint is stateless: any instance answers):
 *
 * - `tasks/get`: the MCP task of a service task (lib/mcp/task-results.ts); a sandbox task
 *   advances one step per read, as with check_task_status.
 * - `tasks/result`: the tool result of a terminal task (status, operator notes, proof links;
 *   `isError` when it failed); of a task awaiting payment (`input_required`), its current result
 *   with the payment instructions, or, to a client that declared URL elicitation, -32042 with
 *   the task's pay page (lib/tasks/pay-page.ts). A task still `working` is refused at once (-32602, with
 *   `data.poll_interval_ms`): a serverless function cannot hold a request open for the hours
 *   physical work takes, so callers poll `tasks/get` and ask for the result once it is terminal.
 * - `tasks/cancel`: the rules of DELETE /api/submit-task (lib/tasks/cancel-task.ts).
 * - `tasks/list`: the caller's tasks, newest first, paginated by `cursor`/`nextCursor`: those
 *   of its key, or the one task of an `access_token`.
 * - `resources/templates/list`, `resources/list` (the task card only, lib/mcp/app/task-card.ts:
 *   proof files are found through task results, the receipt through
 *   `payment.receipt_invoice_id`), `resources/read` of
 *   `task://{task_id}/proof/{n}` (the file) and of `task://{task_id}/receipt` (the USDC receipt of
 *   a paid task: its invoice as JSON and as a PDF in the invoice's language, the one way a keyless
 *   requester reads it).
 *
 * Credentials: the header key, or `api_key` and `access_token` members of the request's params
 * (for clients that cannot set headers; anonymous tasks have only their access token). Only the
 * task's owner or an admin (the one task-access rule, lib/tasks/state/task-access.ts) may see it
 * through these methods; to anyone else an existing task is "not found", as an unknown one (-32602).
 * The status read (with its sandbox progression) and the cancellation are imported by the
 * method that needs them (cold start of api/mcp, docs/performance.md).
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type CallToolResult,
  CancelTaskRequestSchema,
  type ClientCapabilities,
  ErrorCode,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListTasksRequestSchema,
  McpError,
  RELATED_TASK_META_KEY,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { Task } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { ApiError } from "../http/errors.js";
import { chargeFailedAuthentication } from "../http/handler.js";
import type { Caller } from "../keys/credentials.js";
import { type TaskOwnership, taskAccess } from "../tasks/state/task-access.js";
import { awaitsPayment } from "../tasks/state/transitions.js";
import { nextPollSeconds } from "../tasks/task-advice.js";
import { parseAppUri, TASK_CARD_RESOURCE, TASK_CARD_TEMPLATE, taskCardContents } from "./app/task-card.js";
import { takesUrlElicitation } from "./session.js";
import {
  PROOF_URI_TEMPLATE,
  protocolStatus,
  protocolTask,
  RECEIPT_URI_TEMPLATE,
  taskToolResult,
} from "./task-results.js";

/** Who asks about a task: a key (header or `api_key` member) and/or a keyless task's access token. */
export interface TaskCredential {
  caller: Caller | null;
  accessToken?: string | undefined;
}

import { actingAs, chargeDeferredLimit, protocolError, resolveCaller, type ToolContext } from "./tool-kit.js";

/** Credential members accepted in the params of the task and resource methods. */
export const credentialParams = {
  api_key: z.string().max(200).optional(),
  access_token: z.string().max(200).optional(),
};

const getTaskRequest = GetTaskRequestSchema.extend({
  params: GetTaskRequestSchema.shape.params.extend(credentialParams),
});
const taskResultRequest = GetTaskPayloadRequestSchema.extend({
  params: GetTaskPayloadRequestSchema.shape.params.extend(credentialParams),
});
const cancelTaskRequest = CancelTaskRequestSchema.extend({
  params: CancelTaskRequestSchema.shape.params.extend({
    ...credentialParams,
    reason: z.string().max(500).optional(),
  }),
});
const listTasksRequest = ListTasksRequestSchema.extend({
  params: z
    .object({ cursor: z.string().max(500).optional(), _meta: z.record(z.string(), z.unknown()).optional() })
    .extend(credentialParams)
    .optional(),
});
const readResourceRequest = ReadResourceRequestSchema.extend({
  params: ReadResourceRequestSchema.shape.params.extend(credentialParams),
});

/** Page size of tasks/list. */
const TASK_LIST_PAGE = 50;

/** The credential of a request's params (the `api_key` member wins over the header key). */
export async function credentialOf(
  ctx: ToolContext,
  params: { api_key?: string | undefined; access_token?: string | undefined } | undefined,
): Promise<TaskCredential> {
  await chargeDeferredLimit(ctx, params?.api_key);
  const caller = await resolveCaller(ctx, params?.api_key);
  return { caller, accessToken: params?.access_token || undefined };
}

/** -32602 "Task not found", the answer for an unknown task and for one the caller may not see. */
export function taskNotFound(taskId: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
}

/** True when `credential` is `task`'s owner or an admin (lib/tasks/state/task-access.ts). */
async function follows(task: TaskOwnership, credential: TaskCredential): Promise<boolean> {
  return (await taskAccess(task, credential)) !== "public";
}

/** Throws {@link taskNotFound} unless `credential` follows `task`. */
export async function assertFollows(task: Task, credential: TaskCredential): Promise<void> {
  if (!(await follows(task, credential))) throw taskNotFound(task.id);
}

/**
 * Runs `fn`, turning a missing task into -32602 and other failures into JSON-RPC errors. A
 * refused key costs the IP like any failed authentication (lib/http/limits.ts), as in the tools.
 */
export async function answer<T>(
  ctx: ToolContext,
  taskId: string | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (
      taskId !== undefined &&
      (error instanceof ApiError || error instanceof DomainError) &&
      error.code === "NOT_FOUND" &&
      error.field === "task_id"
    ) {
      throw taskNotFound(taskId);
    }
    if ((error instanceof ApiError || error instanceof DomainError) && error.code === "UNAUTHORIZED") {
      try {
        await chargeFailedAuthentication(ctx.ip);
      } catch (limited) {
        throw protocolError(limited, ctx.requestId);
      }
    }
    throw protocolError(error, ctx.requestId);
  }
}

/**
 * The URL elicitation of `task`, a real task awaiting its owner's payment, for a client that takes
 * URL elicitation: JSON-RPC -32042 (MCP 2025-11-25, "URLElicitationRequiredError") whose one
 * elicitation opens the task's pay page (lib/tasks/pay-page.ts). Its data also carries the task
 * id, the amount and, x402 on, the pay_task pointer, so an agent that pays by itself still can.
 */
async function paymentElicitation(task: Task, result: CallToolResult): Promise<McpError> {
  const { payPageUrl } = await import("../payments/pay-link.js");
  const { url, expiresAt } = await payPageUrl(task);
  const data = result.structuredContent as Record<string, unknown> | undefined;
  const amount = (data?.payment as { payment_usdc?: string } | undefined)?.payment_usdc;
  const message =
    `Task ${task.id} was approved and waits for its payment of ${amount} USDC. Open the page to pay ` +
    `(a USDC transfer of the exact amount, or x402 where offered) before ${expiresAt.toISOString()}; then ask for the result again.`;
  return new McpError(ErrorCode.UrlElicitationRequired, message, {
    elicitations: [{ mode: "url", elicitationId: `pay-${task.id}`, url, message }],
    task_id: task.id,
    status: task.status,
    payment_usdc: amount ?? null,
    ...(data?.x402 ? { x402: data.x402 } : {}),
  });
}

/**
 * `tasks/result` of `task` (see the module comment). A real task awaiting its owner's payment,
 * asked by a client that takes URL elicitation (`capabilities`), is answered with the pay page's
 * URL elicitation instead of its result ({@link paymentElicitation}).
 */
async function taskResult(
  taskId: string,
  credential: TaskCredential,
  capabilities?: ClientCapabilities,
): Promise<CallToolResult> {
  const { readTaskWithHistory } = await import("../tasks/read-task-status.js");
  const { task, history } = await readTaskWithHistory(taskId);
  const access = await taskAccess(task, credential);
  if (access === "public") throw taskNotFound(taskId);
  const status = protocolStatus(task);
  if (status === "working") {
    const pollMs = nextPollSeconds(task) * 1000;
    throw new McpError(
      ErrorCode.InvalidParams,
      `Task ${taskId} is still working (${task.status}): poll tasks/get every ${pollMs / 1000} s and call ` +
        "tasks/result once it is completed, failed or cancelled",
      { task_id: taskId, status: task.status, mcp_status: status, poll_interval_ms: pollMs },
    );
  }
  const { taskStatusView } = await import("../tasks/task-view.js");
  const view = await taskStatusView(task, access, history, { proofContent: false });
  const result = await taskToolResult(task, view, access, { flagFailure: true });
  if (status === "input_required" && takesUrlElicitation(capabilities)) {
    if (awaitsPayment(task)) throw await paymentElicitation(task, result);
  }
  return { ...result, _meta: { [RELATED_TASK_META_KEY]: { taskId } } };
}

/** A resource URI this server answers: proof file `n` of a task, or its USDC receipt. */
type TaskResource = { taskId: string; kind: "proof"; n: number } | { taskId: string; kind: "receipt" };

/** Parses `task://{task_id}/proof/{n}` and `task://{task_id}/receipt`. */
function parseTaskUri(uri: string): TaskResource | undefined {
  const match = /^task:\/\/([^/?#]+)\/(?:proof\/([1-9]\d{0,3})|(receipt))$/.exec(uri);
  if (!match) return undefined;
  let taskId: string;
  try {
    taskId = decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
  return match[3] ? { taskId, kind: "receipt" } : { taskId, kind: "proof", n: Number(match[2]) };
}

/** The contents of proof file `n` of `task` (its bytes, base64), or undefined when it has none. */
async function proofContents(uri: string, task: Task, n: number) {
  const { readProofFile } = await import("../tasks/caller-tasks.js");
  const file = await readProofFile(task.id, n).catch(() => undefined);
  if (!file) return undefined;
  return [
    {
      uri,
      mimeType: file.mimeType,
      blob: Buffer.from(file.content).toString("base64"),
      _meta: {
        filename: file.filename,
        size: file.sizeBytes,
        sha256: file.sha256,
        ...(file.capture ? { capture: file.capture } : {}),
      },
    },
  ];
}

/**
 * The contents of `task`'s USDC receipt: the invoice as JSON (the `invoice` of GET
 * /api/client-account?invoice_id=…) and as a PDF in its language; undefined when the task has
 * no receipt (not paid, paid otherwise than in USDC, or a sandbox task).
 */
async function receiptContents(uri: string, task: Task) {
  if (!task.receiptInvoiceId) return undefined;
  const { readInvoiceOrThrow } = await import("../billing/invoices.js");
  const { renderInvoicePdf } = await import("../billing/invoice-pdf.js");
  const read = await readInvoiceOrThrow({ followerOfTask: task.id }, task.receiptInvoiceId).catch((error) => {
    if (error instanceof DomainError && error.code === "NOT_FOUND") return undefined;
    throw error;
  });
  if (!read) return undefined;
  const { invoice } = read;
  const pdf = await renderInvoicePdf(invoice, invoice.lang);
  const meta = { invoice_id: invoice.invoice_id, number: invoice.number, total_cad: invoice.total_cad };
  return [
    { uri, mimeType: "application/json", text: JSON.stringify(invoice), _meta: meta },
    { uri, mimeType: "application/pdf", blob: Buffer.from(pdf).toString("base64"), _meta: meta },
  ];
}

/** -32002 "Resource not found" (the MCP specification's code), for an unknown or unreadable proof. */
function resourceNotFound(uri: string): McpError {
  return new McpError(-32002, `Resource not found: ${uri}`, { uri });
}

/** The resource templates of the task resources: proof files and the USDC receipt. */
export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: PROOF_URI_TEMPLATE,
    name: "task-proof-file",
    title: "Proof file of a completed task",
    description:
      "Proof file n (from 1, upload order) of a completed task: a photo, PDF, video or text the operator " +
      "uploaded. Readable by the key that submitted the task, an admin key, or the task's access_token " +
      "(params.access_token). Tool results link each file with its mimeType, size and SHA-256.",
  },
  {
    uriTemplate: RECEIPT_URI_TEMPLATE,
    name: "task-receipt",
    title: "USDC receipt of a paid task",
    description:
      "The receipt issued with a task's USDC payment (GST and QST when charged): the invoice as " +
      "application/json and as application/pdf in the task's language. Readable by the key that " +
      "submitted the task, an admin key, or the task's access_token (params.access_token); the task " +
      "status names it in payment.receipt_invoice_id.",
  },
];

/**
 * `resources/read` of `task://{task_id}/proof/{n}`, `task://{task_id}/receipt`, the task card
 * `ui://physical-tasks/task-card.html` (anyone) or `ui://physical-tasks/task/{task_id}` (the card
 * opened on a task; lib/mcp/app/task-card.ts), with the credential of `params` (or the header
 * key): the contents, or -32002 for a URI that is unknown, unreadable by this caller, or has
 * nothing yet (no such proof file, no receipt).
 * @throws McpError -32002, or a JSON-RPC error of `answer`
 */
export async function readTaskResource(
  ctx: ToolContext,
  params: { uri: string; api_key?: string | undefined; access_token?: string | undefined },
) {
  const { uri } = params;
  const app = parseAppUri(uri);
  if (app?.kind === "card") return { contents: await taskCardContents(uri) };
  const parsed = app ? { taskId: app.taskId, kind: "card" as const } : parseTaskUri(uri);
  if (!parsed) throw resourceNotFound(uri);
  return answer(ctx, undefined, async () => {
    const credential = await credentialOf(ctx, params);
    const { getTaskOrThrow } = await import("../tasks/state/apply-transition.js");
    let task: Task;
    try {
      task = await getTaskOrThrow(parsed.taskId);
    } catch (error) {
      if ((error instanceof ApiError || error instanceof DomainError) && error.code === "NOT_FOUND") {
        throw resourceNotFound(uri);
      }
      throw error;
    }
    // A task the caller may not see is answered as one that does not exist (same code and words).
    if (!(await follows(task, credential))) throw resourceNotFound(uri);
    const contents =
      parsed.kind === "card"
        ? await taskCardContents(uri, task.id)
        : parsed.kind === "proof"
          ? await proofContents(uri, task, parsed.n)
          : await receiptContents(uri, task);
    if (!contents) throw resourceNotFound(uri);
    return { contents };
  });
}

/** Installs the task and resource methods on `server`, bound to `ctx`. */
export function registerTaskMethods(server: Server, ctx: ToolContext, options: { tasks: boolean }): void {
  // Revision 2025-11-25 lists the task card always (the MCP Apps extension's rule for that revision).
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [...RESOURCE_TEMPLATES, TASK_CARD_TEMPLATE],
  }));
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [TASK_CARD_RESOURCE] }));
  server.setRequestHandler(readResourceRequest, (request) => readTaskResource(ctx, request.params));

  if (!options.tasks) return;

  server.setRequestHandler(getTaskRequest, async (request) => {
    const { taskId } = request.params;
    return answer(ctx, taskId, async () => {
      const credential = await credentialOf(ctx, request.params);
      const { readTaskStatus } = await import("../tasks/read-task-status.js");
      const { task } = await readTaskStatus(taskId, credential, {
        proofContent: false,
        authorize: (t, access) => {
          if (access === "public") throw taskNotFound(t.id);
        },
      });
      return { ...protocolTask(task) };
    });
  });

  server.setRequestHandler(taskResultRequest, async (request) => {
    const { taskId } = request.params;
    return answer(ctx, taskId, async () =>
      taskResult(taskId, await credentialOf(ctx, request.params), ctx.clientCapabilities),
    );
  });

  server.setRequestHandler(cancelTaskRequest, async (request) => {
    const { taskId } = request.params;
    return answer(ctx, taskId, async () => {
      const credential = await credentialOf(ctx, request.params);
      const { readTaskWithHistory } = await import("../tasks/read-task-status.js");
      const { cancelTask } = await import("../tasks/cancel-task.js");
      const { task: current } = await readTaskWithHistory(taskId);
      await assertFollows(current, credential);
      const { task } = await actingAs(credential.caller, () =>
        cancelTask(taskId, credential, request.params.reason ?? "Cancelled through tasks/cancel"),
      );
      return { ...protocolTask(task) };
    });
  });

  server.setRequestHandler(listTasksRequest, async (request) => {
    return answer(ctx, undefined, async () => {
      const credential = await credentialOf(ctx, request.params);
      if (credential.caller) {
        const { listKeyTasks } = await import("../tasks/caller-tasks.js");
        const page = await listKeyTasks(credential.caller.keyId, {
          cursor: request.params?.cursor,
          limit: TASK_LIST_PAGE,
        });
        return {
          tasks: page.tasks.map(protocolTask),
          ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
        };
      }
      if (credential.accessToken) {
        const { taskOfAccessToken } = await import("../tasks/caller-tasks.js");
        const task = await taskOfAccessToken(credential.accessToken);
        return { tasks: task ? [protocolTask(task)] : [] };
      }
      throw new ApiError(
        "UNAUTHORIZED",
        "tasks/list needs an API key (x-api-key header or params.api_key) or params.access_token",
      );
    });
  });
}
