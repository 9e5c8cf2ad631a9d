/**
 * The MCP tools of the task lifecycle: submit_task (an MCP task when called task-augmented),
 * check_task_status, cancel_task, dispute_task and list_my_tasks. Each a thin adapter over the same lib
 * functions as the HTTP endpoints; a keyless caller uses the task's `access_token`.
 * The workflows (submission, status read with sandbox progression, cancellation) are imported
 * by the call that needs them, so an MCP request that only initializes or lists tools does not
 * load them (cold start, docs/performance.md).
 */
import { z } from "zod";
import type { TaskDispute } from "../db/schema/index.js";
import { ApiError } from "../http/errors.js";
import { parseOrThrow } from "../http/validation.js";
import { hasScope } from "../keys/credentials.js";
import { openDisputeShape } from "../tasks/state/dispute-schemas.js";
import { MAX_TASK_PAGE, taskSubmissionSchema } from "../tasks/state/schemas.js";
import { rejectForeignToken } from "../tasks/state/task-access.js";
import { taskCreatedSchema } from "../tasks/state/view-schemas.js";
import { nextPollSeconds } from "../tasks/task-advice.js";
import { mcpTaskStatusSchema, protocolStatus, taskToolResult } from "./task-results.js";
import {
  accessTokenArgument,
  actingAs,
  apiKeyArgument,
  readOnly,
  requireCaller,
  resolveCaller,
  type ToolDefinition,
  toolResult,
  writeTool,
} from "./tool-kit.js";

/** The `task_id` argument. */
const taskIdArgument = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .meta({ description: "The task_id returned by submit_task." });

/**
 * `submit_task`'s result: the creation response and whether the call was forced into sandbox;
 * called as an MCP task, its tasks/result is the task's status (as check_task_status gives it).
 */
const submittedSchema = z.union([
  taskCreatedSchema.extend({ forced_sandbox: z.boolean().optional() }),
  mcpTaskStatusSchema,
]);

/** `list_my_tasks`'s result. */
const myTasksSchema = z.object({
  tasks: z.array(
    z.object({
      task_id: z.string(),
      status: z.string(),
      mcp_status: z.enum(["working", "input_required", "completed", "failed", "cancelled"]),
      service_type: z.string(),
      sandbox: z.boolean(),
      estimate_cad: z.number().nullable(),
      created_at: z.string(),
      updated_at: z.string(),
      next_poll_seconds: z.number().int().meta({ description: "Seconds until a useful status check." }),
    }),
  ),
  next_cursor: z.string().nullable().meta({ description: "Cursor of the next page; null on the last page." }),
});

/**
 * What dispute_task's result says to a person (issue 42 item 5): that dispute `dispute` of task
 * `taskId` was opened, its id, when the task's dispute window ends (`windowEnd`, ISO 8601 UTC) and
 * what happens next. Reasons and resolutions in words (lib/mail/labels.ts), never as codes.
 */
async function disputeOpenedText(
  dispute: Pick<TaskDispute, "id" | "reason">,
  taskId: string,
  windowEnd: Date | null,
): Promise<string> {
  const { DISPUTE_RESOLUTION_LABELS, disputeReasonLabel } = await import("../mail/labels.js");
  const words = DISPUTE_RESOLUTION_LABELS.en;
  const reason = disputeReasonLabel(dispute.reason, "en");
  return [
    `Dispute ${dispute.id} was opened on task ${taskId}${reason ? ` (reason: ${reason})` : ""}.`,
    windowEnd
      ? `The task's dispute window ends at ${windowEnd.toISOString()}.`
      : "The task's dispute window is open.",
    "What happens next: a person on our staff reviews your account of what went wrong and your evidence, then " +
      `resolves the dispute: ${words.redo} (a follow-up task), a ${words.partial_refund}, a ${words.full_refund}, ` +
      "or rejected with the reason. A refund of a task paid from a prepaid account is credited to the account at " +
      "once; of a task paid in USDC, it is sent to the paying wallet. You are told by e-mail and by the event " +
      "task.dispute_resolved (webhooks, event stream); check_task_status shows the dispute and its outcome. " +
      "A task is disputed once: it can be disputed again only if this dispute is resolved by redoing the task.",
  ].join("\n");
}

/** The task tools by name (lib/mcp/tools.ts lists them in order). */
export const TASK_TOOLS: Record<string, ToolDefinition> = {
  submit_task: {
    name: "submit_task",
    scope: "task_create",
    title: "Submit a task",
    description:
      "Submit a real-world task to be reviewed by a human operator and executed in Quebec. Returns task_id and " +
      "deadlines; poll check_task_status (or call it as an MCP task and poll tasks/get). Without an API key the task " +
      "is created in SANDBOX mode (simulated, free, advances one step per status check) and you get an access_token: " +
      "pass it to check_task_status and cancel_task. With a key (scope task_create), set sandbox=true to test anyway. " +
      "Prices are CAD; payment instructions (USDC) come after human approval.",
    input: {
      ...taskSubmissionSchema.shape,
      sandbox: z
        .boolean()
        .default(false)
        .meta({ description: "Create a simulated task (no payment, no e-mail)." }),
      api_key: apiKeyArgument,
    },
    output: submittedSchema,
    annotations: writeTool("Submit a task", true),
    taskSupport: "optional",
    async run(args, ctx) {
      const { api_key, sandbox, ...rest } = args as { api_key?: string; sandbox?: boolean } & Record<
        string,
        unknown
      >;
      const caller = await resolveCaller(ctx, api_key);
      if (caller && !hasScope(caller, "task_create")) {
        throw new ApiError("FORBIDDEN", "submit_task requires the task_create scope");
      }
      const body = parseOrThrow(taskSubmissionSchema, rest);
      const forced = !caller;
      const { submitTask } = await import("../tasks/submit-task.js");
      const created = await submitTask({ body, caller, agent: null, sandbox: forced || sandbox === true });
      const note = forced
        ? "No API key was given, so this task was created in SANDBOX mode (simulated, non-billable). Register a key with register_api_key to submit real tasks."
        : undefined;
      return toolResult({ ...created, ...(forced ? { forced_sandbox: true } : {}) }, note);
    },
  },
  check_task_status: {
    name: "check_task_status",
    scope: "audit_only",
    title: "Check a task's status",
    description:
      "Read a task's status, payment instructions (exact USDC amount, networks, wallet, expiry) once approved, " +
      "counter-offer, operator notes and proof files once completed (as resource links: read them with " +
      "resources/read; each carries its SHA-256), history and polling advice (_polling.next_poll_seconds). " +
      "Needs an API key, or the task's access_token for a task submitted without a key; a key that is not the task's " +
      "owner's (the submitting key or one linked to the same client account) or an admin's sees only the public part " +
      "(status, times, deadlines, history). Sandbox tasks advance one step per call.",
    input: {
      task_id: taskIdArgument,
      access_token: accessTokenArgument,
      api_key: apiKeyArgument,
    },
    output: mcpTaskStatusSchema,
    annotations: writeTool("Check a task's status"),
    async run(args, ctx) {
      const taskId = String(args.task_id);
      const accessToken = args.access_token as string | undefined;
      const { readTaskStatus } = await import("../tasks/read-task-status.js");
      // A key is needed unless the task's access_token is given (spec: the tool requires a key);
      // what the caller then sees follows the one task-access rule: a key that is not the
      // task's owner's reads only the public part.
      const caller = accessToken
        ? await resolveCaller(ctx, args.api_key as string | undefined)
        : await requireCaller(ctx, args.api_key as string | undefined, "audit_only");
      const { task, view, access } = await readTaskStatus(
        taskId,
        { caller, accessToken },
        { proofContent: false, authorize: (t) => rejectForeignToken(t, accessToken) },
      );
      return taskToolResult(task, view, access);
    },
  },
  cancel_task: {
    name: "cancel_task",
    scope: "task_cancel",
    title: "Cancel a task",
    description:
      "Cancel a task you submitted: free before payment; after payment the task is cancelled and a refund request " +
      "goes to the operator (full before dispatch, per the service's cancellation policy after). Needs the key that " +
      "submitted it with scope task_cancel (or an admin key), or the task's access_token. Finished tasks → CONFLICT.",
    input: {
      task_id: taskIdArgument,
      reason: z.string().trim().max(500).optional().meta({ description: "Why (kept with the task)." }),
      access_token: accessTokenArgument,
      api_key: apiKeyArgument,
    },
    output: mcpTaskStatusSchema,
    annotations: {
      readOnlyHint: false,
      idempotentHint: false,
      destructiveHint: true,
      openWorldHint: false,
      title: "Cancel a task",
    },
    async run(args, ctx) {
      const caller = await resolveCaller(ctx, args.api_key as string | undefined);
      const accessToken = args.access_token as string | undefined;
      if (!caller && !accessToken) {
        throw new ApiError(
          "UNAUTHORIZED",
          "cancel_task needs the key that submitted the task (x-api-key header or api_key) or its access_token",
        );
      }
      const { cancelTask } = await import("../tasks/cancel-task.js");
      const { task, access } = await actingAs(caller, () =>
        cancelTask(String(args.task_id), { caller, accessToken }, args.reason as string | undefined),
      );
      const { taskStatusView } = await import("../tasks/task-view.js");
      const view = await taskStatusView(task, access, undefined, { proofContent: false });
      return taskToolResult(task, view, access);
    },
  },
  dispute_task: {
    name: "dispute_task",
    scope: "task_create",
    title: "Dispute a completed task",
    description:
      "Contest a completed task within the dispute window (hours after completion: recourse.disputes.window_hours " +
      "of get_capabilities, default 72): reason not_done, incomplete, wrong_location, damaged, late or other, with " +
      "details and optional evidence_files (as proof files: filename, type, base64 content). The task keeps its " +
      "status; its status gains `dispute`, and staff resolve it (redo at no charge, partial or full refund, or " +
      "reject: event task.dispute_resolved). Needs the key that submitted the task (or one of the same account; " +
      "scope task_create), or its access_token. A task is disputed once, and again only after a dispute resolved " +
      "redo; a dispute already open or one resolved otherwise → CONFLICT; after the window → VALIDATION_ERROR.",
    input: {
      ...openDisputeShape,
      access_token: accessTokenArgument,
      api_key: apiKeyArgument,
    },
    output: mcpTaskStatusSchema,
    annotations: writeTool("Dispute a completed task"),
    async run(args, ctx) {
      const { api_key, access_token, ...rest } = args as { api_key?: string; access_token?: string } & Record<
        string,
        unknown
      >;
      const caller = await resolveCaller(ctx, api_key);
      if (!caller && !access_token) {
        throw new ApiError(
          "UNAUTHORIZED",
          "dispute_task needs the key that submitted the task (x-api-key header or api_key) or its access_token",
        );
      }
      // As pay_task: a key without task_create disputes only through the task's own access_token,
      // and does not lend its ownership to it (docs/decisions.md 38).
      const keyMayDispute = caller !== null && hasScope(caller, "task_create");
      if (caller && !keyMayDispute && !access_token) {
        throw new ApiError("FORBIDDEN", "dispute_task requires the task_create scope");
      }
      const { openDisputeBodySchema } = await import("../tasks/state/dispute-schemas.js");
      const body = parseOrThrow(openDisputeBodySchema, rest);
      const { openDispute, disputeWindowEnd } = await import("../tasks/open-dispute.js");
      const { dispute, task, access } = await actingAs(caller, () =>
        openDispute(body, { caller: keyMayDispute ? caller : null, accessToken: access_token }),
      );
      const { taskStatusView } = await import("../tasks/task-view.js");
      const view = await taskStatusView(task, access, undefined, { proofContent: false });
      const result = await taskToolResult(task, view, access);
      const text = await disputeOpenedText(dispute, task.id, disputeWindowEnd(task));
      return { ...result, content: [{ type: "text", text }, ...result.content] };
    },
  },
  list_my_tasks: {
    name: "list_my_tasks",
    scope: "audit_only",
    title: "List my tasks",
    description:
      "The tasks submitted with your API key, newest first, with their status and polling advice; pass next_cursor " +
      "back as cursor for the next page. Needs an API key (tasks submitted without a key: check_task_status with " +
      "their access_token).",
    input: {
      cursor: z.string().max(500).optional().meta({ description: "next_cursor of the previous page." }),
      limit: z
        .number()
        .int()
        .min(1)
        .max(MAX_TASK_PAGE)
        .default(20)
        .meta({ description: "Tasks per page (1-100)." }),
      api_key: apiKeyArgument,
    },
    output: myTasksSchema,
    annotations: { ...readOnly, title: "List my tasks" },
    async run(args, ctx) {
      const caller = await requireCaller(ctx, args.api_key as string | undefined, "audit_only");
      const { listKeyTasks } = await import("../tasks/caller-tasks.js");
      const page = await listKeyTasks(caller.keyId, {
        cursor: args.cursor as string | undefined,
        limit: Number(args.limit ?? 20),
      });
      const items = page.tasks.map((t) => ({
        task_id: t.id,
        status: t.status,
        mcp_status: protocolStatus(t),
        service_type: t.serviceType,
        sandbox: t.sandbox,
        estimate_cad: t.estimateCad,
        created_at: t.createdAt.toISOString(),
        updated_at: t.updatedAt.toISOString(),
        next_poll_seconds: nextPollSeconds(t),
      }));
      const result = { tasks: items, next_cursor: page.nextCursor ?? null };
      return {
        content: [
          {
            type: "text",
            text:
              items.length === 0
                ? "No tasks."
                : `${items.length} task(s): ${items.map((i) => `${i.task_id} ${i.status}`).join(", ")}` +
                  (page.nextCursor ? " (more: pass next_cursor as cursor)" : ""),
          },
        ],
        structuredContent: result,
      };
    },
  },
};
