/**
 * Opening a dispute (POST /api/task-dispute, MCP dispute_task; issue 27, docs/tasks.md "Recourse: disputes and SLA credits"): the
 * task's owner (lib/tasks/state/task-access.ts) contests a completed task within
 * DISPUTE_WINDOW_HOURS of its completion. The task keeps its status; the dispute, its evidence
 * files (checked as proof files), the `task.disputed` event, the audit row and the operator's
 * e-mail commit in one transaction. One open dispute per task: the task row is locked while the
 * open one is looked for, and a partial unique index backs it. A task is disputed once, and again
 * only after a dispute resolved `redo` (docs/decisions.md 37): a refund or a rejection is final.
 */
import { asc, eq } from "drizzle-orm";
import { getConfig } from "../config.js";
import { eventsCommitted } from "../db/after-events.js";
import { recordAudit } from "../db/audit.js";
import { getDb } from "../db/client.js";
import { disputeFiles, emails, type Task, type TaskDispute, taskDisputes } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { prefixedId } from "../ids.js";
import { disputeResolutionLabel } from "../mail/labels.js";
import { getTaskOrThrow } from "./state/apply-transition.js";
import type { OpenDisputeBody } from "./state/dispute-schemas.js";
import { decodeProofFiles } from "./state/proof-files.js";
import { type TaskAccess, type TaskCredential, taskAccess } from "./state/task-access.js";
import { emitTaskEvent } from "./state/task-events.js";
import { taskLinks } from "./state/task-links.js";

/** What opening a dispute gives back: the dispute, its task and the caller's access to it. */
export interface OpenedDispute {
  dispute: TaskDispute;
  task: Task;
  access: TaskAccess;
}

/** The end of `task`'s dispute window (`completed_at` + DISPUTE_WINDOW_HOURS), or null if never completed. */
export function disputeWindowEnd(task: Pick<Task, "completedAt">, hours = getConfig().DISPUTE_WINDOW_HOURS) {
  return task.completedAt ? new Date(task.completedAt.getTime() + hours * 3600_000) : null;
}

/**
 * Opens a dispute of task `body.task_id` for `credential` at `now`.
 * @throws DomainError NOT_FOUND (unknown task, or not the caller's: a stranger learns nothing),
 *   CONFLICT (not completed, `current_status`; a dispute already open, `dispute_id`; an earlier
 *   dispute resolved otherwise than `redo`, `dispute_id` and `resolution`: docs/decisions.md 37),
 *   VALIDATION_ERROR (the window closed: `dispute_window_ends_at`; evidence files as proof files:
 *   also FIELD_TOO_LONG, PAYLOAD_TOO_LARGE, INVALID_FORMAT)
 */
export async function openDispute(
  body: OpenDisputeBody,
  credential: TaskCredential,
  now = new Date(),
): Promise<OpenedDispute> {
  const found = await getTaskOrThrow(body.task_id);
  const access = await taskAccess(found, credential);
  if (access === "public")
    throw new DomainError("NOT_FOUND", `No task ${body.task_id}`, { field: "task_id" });
  const files = body.evidence_files ? await decodeProofFiles(body.evidence_files, "evidence_files") : [];
  const db = await getDb();
  const result = await db.transaction(async (tx) => {
    const task = await getTaskOrThrow(body.task_id, tx, true);
    if (task.status !== "completed") {
      throw new DomainError(
        "CONFLICT",
        `Only a completed task can be disputed; task ${task.id} is ${task.status}`,
        { extra: { current_status: task.status } },
      );
    }
    const windowEnd = disputeWindowEnd(task)!;
    if (now > windowEnd) {
      throw new DomainError(
        "VALIDATION_ERROR",
        `The dispute window of task ${task.id} closed at ${windowEnd.toISOString()} (${getConfig().DISPUTE_WINDOW_HOURS} h after completion)`,
        { field: "task_id", extra: { dispute_window_ends_at: windowEnd.toISOString() } },
      );
    }
    const earlier = await tx
      .select({ id: taskDisputes.id, status: taskDisputes.status, resolution: taskDisputes.resolution })
      .from(taskDisputes)
      .where(eq(taskDisputes.taskId, task.id))
      .orderBy(asc(taskDisputes.openedAt), asc(taskDisputes.id));
    const open = earlier.find((d) => d.status === "open");
    if (open) {
      throw new DomainError("CONFLICT", `Task ${task.id} already has an open dispute (${open.id})`, {
        extra: { dispute_id: open.id },
      });
    }
    // Once per task, again only after a redo (docs/decisions.md 37): a refund or a rejection settles it.
    const final = earlier.find((d) => d.resolution !== "redo");
    if (final) {
      throw new DomainError(
        "CONFLICT",
        `Task ${task.id} was already disputed (${final.id}, resolved: ${disputeResolutionLabel(final.resolution, "en") ?? "resolved"}); ` +
          "a task can be disputed once, and again only after a dispute resolved by redoing the task",
        { extra: { dispute_id: final.id, resolution: final.resolution } },
      );
    }
    const [dispute] = await tx
      .insert(taskDisputes)
      .values({
        id: prefixedId("dsp"),
        taskId: task.id,
        reason: body.reason,
        details: body.details,
        openedAt: now,
      })
      .returning();
    if (files.length) {
      await tx.insert(disputeFiles).values(
        files.map((f, position) => ({
          id: prefixedId("df"),
          disputeId: dispute!.id,
          position,
          filename: f.filename,
          mimeType: f.mimeType,
          sizeBytes: f.sizeBytes,
          sha256: f.sha256,
          content: f.bytes,
        })),
      );
    }
    const eventId = await emitTaskEvent(
      tx,
      task,
      "task.disputed",
      {
        dispute_id: dispute!.id,
        reason: body.reason,
        evidence_file_count: files.length,
        dispute_window_ends_at: windowEnd.toISOString(),
      },
      now,
    );
    await recordAudit(tx, {
      action: "dispute.open",
      taskId: task.id,
      targetKind: "dispute",
      targetId: dispute!.id,
      details: { reason: body.reason, evidence_files: files.length, event_id: eventId },
    });
    if (!task.sandbox) await tx.insert(emails).values(operatorEmail(task, dispute!, files.length));
    return { dispute: dispute!, task };
  });
  eventsCommitted(); // webhooks, stream, the requester's e-mail; the operator's is queued
  return { ...result, access };
}

/** The operator's e-mail about a dispute opened (OPERATOR_EMAIL, English, no personal data beyond the task's). */
function operatorEmail(task: Task, dispute: TaskDispute, fileCount: number) {
  const config = getConfig();
  return {
    id: prefixedId("email"),
    toAddress: config.OPERATOR_EMAIL,
    subject: `Dispute ${dispute.id} opened on task ${task.id} (${dispute.reason})`,
    textBody:
      `Task ${task.id} (${task.serviceType}) was disputed: ${dispute.reason}, ${fileCount} evidence file(s).\n\n` +
      `${dispute.details}\n\nResolve it with POST /api/dispute-resolve (queue: GET /api/disputes).\n` +
      `Task: ${taskLinks(task.id).self}\n`,
    template: "dispute_operator",
    lang: "en" as const,
    taskId: task.id,
    dedupeKey: `dispute-operator:${dispute.id}:open`,
  };
}
