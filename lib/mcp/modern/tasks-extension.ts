/**
 * The MCP Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) over service tasks, for
 * clients of revision 2026-07-28 that declare it in their per-request capabilities
 * (docs/mcp.md "Tasks extension"). The SDK (v2) has no runtime for it: this is ours.
 *
 * - `submit_task` called by such a client answers a task handle (`resultType: "task"`, the
 *   {@link extensionTask} of the service task, stored before it is returned: our tasks table is the
 *   store); a client without the extension gets the ordinary tool result, never an error.
 * - `tasks/get` answers the task's current state ({@link detailedTask}): our statuses map onto
 *   `working` (review, work in progress; a sandbox task awaiting its simulated payment),
 *   `input_required` (a real task awaiting its payment: `inputRequests` holds a URL elicitation
 *   of the task's pay page, and `_meta.x402` the x402 payment when x402 is on), `completed` (the
 *   tool result inlined; a failed, rejected or expired task is `completed` with an `isError` result,
 *   since the extension keeps `failed` for JSON-RPC errors) and `cancelled`; `pollIntervalMs`
 *   comes from the polling guidance (`_polling.next_poll_seconds`). A sandbox task advances one step
 *   per read, as with check_task_status.
 * - `tasks/update` takes the `inputResponses` (acknowledged; the payment itself is seen on chain or
 *   through x402, after which the task leaves `input_required`).
 * - `tasks/cancel` cancels under the rules of DELETE /api/submit-task (fees, refunds).
 *
 * Every method authorizes with the one task-access rule (lib/tasks/state/task-access.ts): only the
 * task's owner or an admin sees it; for anyone else an existing task is unknown (-32602), as an
 * unknown id is. Credentials: the header key, or `api_key` / `access_token` members of the params.
 */
import { ProtocolError, type Server } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { Task } from "../../db/schema/index.js";
import { isTerminal } from "../../tasks/state/transitions.js";
import { nextPollSeconds, recommendedAction } from "../../tasks/task-advice.js";
import { answer, assertFollows, credentialOf, credentialParams, taskNotFound } from "../task-methods.js";
import { protocolStatus, taskToolResult, x402Pointer } from "../task-results.js";
import { actingAs, type ToolContext } from "../tool-kit.js";
import { asProtocolError } from "./errors.js";

/** The extension's identifier, in capabilities. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** Whether per-request client capabilities declare the Tasks extension. */
export function declaresTasksExtension(capabilities: unknown): boolean {
  const extensions = (capabilities as { extensions?: unknown } | undefined)?.extensions;
  return Boolean(extensions && typeof extensions === "object" && TASKS_EXTENSION in extensions);
}

/** A task's status in the extension (see the module comment). */
export type ExtensionStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** The extension status of `task`: the protocol status, a physical failure being a completed call. */
export function extensionStatus(task: Pick<Task, "status" | "sandbox">): ExtensionStatus {
  const status = protocolStatus(task);
  return status === "failed" ? "completed" : status;
}

/**
 * The extension's `Task` of service task `task`: `ttlMs` null (results stay with the task),
 * `pollIntervalMs` (ms) while it can change, `statusMessage` the recommended action.
 */
export function extensionTask(task: Task) {
  const status = extensionStatus(task);
  const statusMessage =
    task.status === "completed"
      ? "Done: the result holds the operator notes and links the proof files (resources/read)."
      : `${task.status}: ${recommendedAction(task)}`;
  return {
    taskId: task.id,
    status,
    statusMessage,
    createdAt: task.createdAt.toISOString(),
    lastUpdatedAt: task.updatedAt.toISOString(),
    ttlMs: null,
    ...(isTerminal(task.status) ? {} : { pollIntervalMs: nextPollSeconds(task) * 1000 }),
  };
}

/**
 * The task handle `submit_task` answers to a client with the extension (`resultType: "task"`);
 * an anonymous caller's access token rides in `_meta.access_token`.
 */
export function createTaskResult(task: Task, accessToken?: string) {
  return {
    resultType: "task" as const,
    ...extensionTask(task),
    ...(accessToken ? { _meta: { access_token: accessToken } } : {}),
  };
}

/**
 * The key of the payment input request of `task`: the same on every poll of one payment window, a
 * new one when the window changes (a counter-offer), as keys must be unique over a task's life.
 */
export function paymentInputKey(task: Pick<Task, "id" | "status" | "paymentExpiresAt">): string {
  const window = task.paymentExpiresAt ? Math.floor(task.paymentExpiresAt.getTime() / 1000) : 0;
  return `pay-${task.id}-${task.status}-${window}`;
}

/**
 * The URL elicitation that asks the task's owner to pay (the task's pay page, lib/tasks/pay-page.ts),
 * as an embedded `elicitation/create` request.
 */
export async function paymentElicitation(task: Task) {
  const { payPageUrl } = await import("../../payments/pay-link.js");
  const { url, expiresAt } = await payPageUrl(task);
  const usdc = (Number(task.paymentUsdcMicro ?? 0) / 1e6).toFixed(2);
  const key = paymentInputKey(task);
  const message =
    `Task ${task.id} was approved and waits for its payment of ${usdc} USDC. Open the page to pay (a USDC ` +
    `transfer of the exact amount, or x402 where offered) before ${expiresAt.toISOString()}.`;
  return {
    key,
    request: {
      method: "elicitation/create" as const,
      params: { mode: "url" as const, message, url, elicitationId: key },
    },
  };
}

/**
 * `tasks/get`'s answer for `task` as `access` sees it (`view`: its status view without proof
 * bodies): the extension task plus `inputRequests` (awaiting payment) or `result` (completed).
 */
export async function detailedTask(
  task: Task,
  view: Record<string, unknown>,
  access: Parameters<typeof taskToolResult>[2],
) {
  const base = extensionTask(task);
  if (base.status === "input_required") {
    const { key, request } = await paymentElicitation(task);
    const x402 = await x402Pointer(task);
    return { ...base, inputRequests: { [key]: request }, ...(x402 ? { _meta: { x402 } } : {}) };
  }
  if (base.status === "completed") {
    const result = await taskToolResult(task, view, access, { flagFailure: true });
    return { ...base, result };
  }
  return base;
}

/** Params of the extension's methods: the task id, and the credential members. */
const taskParams = z.looseObject({ taskId: z.string().min(1).max(64), ...credentialParams });

/** Installs `tasks/get`, `tasks/update` and `tasks/cancel` on `server`, bound to `ctx`. */
export function registerTasksExtension(server: Server, ctx: ToolContext): void {
  const guarded = <T>(taskId: string, fn: () => Promise<T>) =>
    asProtocolError(() => answer(ctx, taskId, fn), ctx.requestId);
  server.setRequestHandler("tasks/get", { params: taskParams }, async (params) =>
    guarded(params.taskId, async () => {
      const credential = await credentialOf(ctx, params);
      const { readTaskStatus } = await import("../../tasks/read-task-status.js");
      const { task, view, access } = await readTaskStatus(params.taskId, credential, {
        proofContent: false,
        authorize: (t, a) => {
          if (a === "public") throw taskNotFound(t.id);
        },
      });
      return detailedTask(task, view, access);
    }),
  );

  server.setRequestHandler(
    "tasks/update",
    { params: taskParams.extend({ inputResponses: z.record(z.string(), z.unknown()).optional() }) },
    async (params, sctx) =>
      guarded(params.taskId, async () => {
        // The SDK lifts `inputResponses` off the params (multi-round-trip material) into the context.
        const responses = sctx.mcpReq.inputResponses ?? params.inputResponses;
        if (!responses || typeof responses !== "object") {
          throw new ProtocolError(-32602, "tasks/update needs params.inputResponses (an object)");
        }
        const credential = await credentialOf(ctx, params);
        const { readTaskWithHistory } = await import("../../tasks/read-task-status.js");
        const { task } = await readTaskWithHistory(params.taskId);
        await assertFollows(task, credential);
        // Responses to keys not outstanding are ignored (the extension's rule); the payment's own
        // confirmation is the chain or x402, so an answered elicitation changes no state here.
        return {};
      }),
  );

  server.setRequestHandler(
    "tasks/cancel",
    { params: taskParams.extend({ reason: z.string().max(500).optional() }) },
    async (params) =>
      guarded(params.taskId, async () => {
        const credential = await credentialOf(ctx, params);
        const { readTaskWithHistory } = await import("../../tasks/read-task-status.js");
        const { cancelTask } = await import("../../tasks/cancel-task.js");
        const { task } = await readTaskWithHistory(params.taskId);
        await assertFollows(task, credential);
        await actingAs(credential.caller, () =>
          cancelTask(params.taskId, credential, params.reason ?? "Cancelled through tasks/cancel"),
        );
        return {};
      }),
  );
}
