/**
 * A service task as MCP sees it (protocol revision 2025-11-25, "Tasks"): the MCP task whose id
 * is the service's task id, its protocol status, and the tool result of a
 * task (a short summary line, `resource_link` items for the proof files, the data in
 * `structuredContent`). Proof bodies never travel in a tool result: they are resources
 * (`task://{task_id}/proof/{n}`; the USDC receipt `task://{task_id}/receipt`; read by
 * lib/mcp/task-methods.ts).
 */
import type { CallToolResult, Task as McpTask, ResourceLink } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { TaskStatus } from "../db/schema/enums.js";
import type { Task } from "../db/schema/index.js";
import type { ProofFileSummary } from "../tasks/caller-tasks.js";
import { seesContent, type TaskAccess } from "../tasks/state/task-access.js";
import { awaitsPayment, isTerminal } from "../tasks/state/transitions.js";
import { taskStatusSchema } from "../tasks/state/view-schemas.js";
import { nextPollSeconds, recommendedAction } from "../tasks/task-advice.js";

/** The URI template of a proof file resource; `n` counts from 1 in upload order. */
export const PROOF_URI_TEMPLATE = "task://{task_id}/proof/{n}";

/** The URI of proof file `n` (from 1) of task `taskId`. */
export function proofUri(taskId: string, n: number): string {
  return `task://${encodeURIComponent(taskId)}/proof/${n}`;
}

/** The URI template of a task's USDC receipt (docs/taxes.md "USDC receipts"). */
export const RECEIPT_URI_TEMPLATE = "task://{task_id}/receipt";

/** The URI of task `taskId`'s USDC receipt. */
export function receiptUri(taskId: string): string {
  return `task://${encodeURIComponent(taskId)}/receipt`;
}

/**
 * Our task statuses on the protocol's five: human review and work in progress are `working`;
 * awaiting payment (approved, or a counter-offer) is `input_required` (the input is the
 * payment); a rejected task and a payment window that closed are `failed`, like a failed task.
 */
export const PROTOCOL_STATUS: Record<TaskStatus, McpTask["status"]> = {
  received: "working",
  accepted_pending_payment: "input_required",
  counter_offered: "input_required",
  paid: "working",
  dispatched: "working",
  on_site: "working",
  completed: "completed",
  failed: "failed",
  rejected: "failed",
  payment_expired: "failed",
  cancelled: "cancelled",
};

/**
 * The protocol status of `task`: {@link PROTOCOL_STATUS}, except that a sandbox task awaiting
 * payment is `working`: its simulated payment happens by itself on the next poll, so a client
 * following it (the SDK's `callToolStream`) keeps polling to `completed` instead of stopping at
 * `input_required` with payment instructions it cannot act on.
 */
export function protocolStatus(task: Pick<Task, "status" | "sandbox">): McpTask["status"] {
  const status = PROTOCOL_STATUS[task.status];
  return task.sandbox && status === "input_required" ? "working" : status;
}

/**
 * The MCP task of service task `task` (tasks/get, tasks/list, tasks/cancel, task creation):
 * `ttl` null (results are kept with the task), `pollInterval` in milliseconds from the task's
 * `_polling.next_poll_seconds` while it can change, `statusMessage` the recommended action.
 */
export function protocolTask(task: Task): McpTask {
  const terminal = isTerminal(task.status);
  const statusMessage =
    task.status === "completed"
      ? "Done: call tasks/result for the operator notes and the proof files (resources)."
      : `${task.status}: ${recommendedAction(task)}`;
  return {
    taskId: task.id,
    status: protocolStatus(task),
    ttl: null,
    createdAt: task.createdAt.toISOString(),
    lastUpdatedAt: task.updatedAt.toISOString(),
    ...(terminal ? {} : { pollInterval: nextPollSeconds(task) * 1000 }),
    statusMessage,
  };
}

/** One proof file as a tool result describes it. */
export const proofLinkSchema = z.object({
  uri: z.string().meta({ description: "task://{task_id}/proof/{n}; read it with resources/read." }),
  filename: z.string(),
  mime_type: z.string(),
  size_bytes: z.number().int().meta({ description: "Bytes." }),
  sha256: z.string().meta({ description: "Lowercase hex SHA-256 of the file." }),
  capture: z.record(z.string(), z.unknown()).nullable().meta({
    description:
      "Capture metadata read from the file when it was stored (photos, videos), as proof_files[].capture of the HTTP status: captured_at (ISO 8601), gps {latitude, longitude}, distance_km from the task's place, within_execution_window, flags; null when the file carries none.",
  }),
});

/**
 * The `structuredContent` of a task tool result: the HTTP status response without inline proof
 * bodies, plus links to the proof files, the MCP status and whether the caller owns the task.
 * Members added to the HTTP status view (and its schema, lib/tasks/view-schemas.ts) flow through
 * here unchanged: that is where a task's `receipt` joins the MCP task result.
 */
export const mcpTaskStatusSchema = taskStatusSchema.omit({ proof_files_data: true }).extend({
  mcp_status: z.enum(["working", "input_required", "completed", "failed", "cancelled"]),
  proof_files: z.array(proofLinkSchema).optional().meta({ description: "Completed tasks: the proof files." }),
  owned_by_caller: z.boolean(),
  x402: z
    .object({
      tool: z.literal("pay_task"),
      url: z.string(),
      payment_required: z.record(z.string(), z.unknown()).meta({
        description: "The x402 v2 PaymentRequired: sign one of `accepts` and call pay_task with it in _meta.",
      }),
    })
    .optional()
    .meta({
      description:
        "The owner's task awaiting payment, x402 on: the payment a signature makes (pay_task, or POST to url).",
    }),
});

/** The proof links of `files` of task `taskId`. */
function proofLinks(taskId: string, files: ProofFileSummary[]): z.infer<typeof proofLinkSchema>[] {
  return files.map((f) => ({
    uri: proofUri(taskId, f.index),
    filename: f.filename,
    mime_type: f.mimeType,
    size_bytes: f.sizeBytes,
    sha256: f.sha256,
    capture: f.capture,
  }));
}

/**
 * The proof files attached to task `taskId` so far, as links (upload order), whatever its status:
 * the task card shows those a field person uploaded before completion (docs/mcp.md "In the
 * conversation"). The caller checks that the reader may see the task's content.
 */
export async function attachedProofLinks(taskId: string): Promise<z.infer<typeof proofLinkSchema>[]> {
  const { proofFileSummaries } = await import("../tasks/caller-tasks.js");
  return proofLinks(taskId, await proofFileSummaries(taskId));
}

/**
 * Where an owner's real task awaiting payment can be paid with x402 (issue 28 item 2: a task that
 * is `input_required` points the agent to the payment): the tool, the HTTP URL and the
 * PaymentRequired. Undefined when x402 is off, for sandbox tasks and other statuses. The x402
 * module is imported here, on the first such result, not when MCP starts.
 */
export async function x402Pointer(task: Task): Promise<Record<string, unknown> | undefined> {
  if (!awaitsPayment(task)) return undefined;
  const { taskPaymentRequired, x402Enabled, x402Url } = await import("../payments/x402/protocol.js");
  if (!x402Enabled()) return undefined;
  const required = taskPaymentRequired(task.id, task.paymentUsdcMicro);
  if (required.v2.accepts.length === 0) return undefined;
  return { tool: "pay_task", url: x402Url(task.id), payment_required: required.v2 };
}

/**
 * The tool result of `task` whose status view (built without proof bodies) is `view`: a summary
 * line, one `resource_link` per proof file (with MIME type, size and SHA-256), and the data.
 * `isError` is set when the protocol status is `failed` (tasks/result of a failed task).
 */
export async function taskToolResult(
  task: Task,
  view: Record<string, unknown>,
  access: TaskAccess,
  options: { flagFailure?: boolean } = {},
): Promise<CallToolResult> {
  const owned = seesContent(access);
  const { proofFileSummaries } = await import("../tasks/caller-tasks.js");
  const files = owned && task.status === "completed" ? await proofFileSummaries(task.id) : [];
  const links = proofLinks(task.id, files);
  const { proof_files_data: _omitted, ...rest } = view;
  if (owned && task.status === "completed" && rest._polling) {
    rest._polling = {
      ...(rest._polling as Record<string, unknown>),
      recommended_action:
        "Done: read operator_notes; the proof files are resources (proof_files[].uri, resources/read).",
    };
  }
  const data: Record<string, unknown> = {
    ...rest,
    mcp_status: protocolStatus(task),
    ...(owned && task.status === "completed" ? { proof_files: links } : {}),
    owned_by_caller: owned,
  };
  const x402 = owned ? await x402Pointer(task) : undefined;
  if (x402) data.x402 = x402;
  const action = (view._polling as { recommended_action?: string } | undefined)?.recommended_action;
  const summary =
    owned && task.status === "completed"
      ? `${task.id}: completed with ${files.length} proof file(s), linked below as resources (resources/read).`
      : `${task.id}: ${task.status}. ${action ?? ""}${
          x402
            ? " Or pay with one x402 signature: call pay_task (its PaymentRequired is in structuredContent.x402)."
            : ""
        }`.trim();
  const resourceLinks: ResourceLink[] = links.map((l) => ({
    type: "resource_link",
    uri: l.uri,
    name: l.filename,
    mimeType: l.mime_type,
    size: l.size_bytes,
    _meta: { sha256: l.sha256, ...(l.capture ? { capture: l.capture } : {}) },
  }));
  return {
    content: [{ type: "text", text: summary }, ...resourceLinks],
    structuredContent: data,
    ...(options.flagFailure && protocolStatus(task) === "failed" ? { isError: true } : {}),
  };
}
