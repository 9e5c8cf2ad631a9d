/**
 * Proof from the field, one file per request (POST /api/field-proof, issue 26 item 5;
 * docs/decisions.md "One proof file per request"): a photo taken on site is checked like the
 * proof files of a completion (lib/tasks/state/proof-files.ts: strict base64, type by content,
 * 3 MiB) and attached to the task at once, with its capture metadata (compared with the task's
 * place, dispatch..now and the site visit's check-in). Completion then lists these files first
 * (lib/tasks/state/execute-task.ts), so a crash between an upload and the completion leaves the
 * files attached and the task as it was.
 *
 * Retry-safe twice over: the operation takes an `Idempotency-Key` (the answer is replayed), and a
 * file whose SHA-256 the task already holds is not stored again (the existing one is answered).
 * A `field` staff member uploads only to the tasks assigned to it.
 *
 * A photo taken offline (issue 44 item 5; docs/staff-and-audit.md "Offline") carries the
 * `captured_at` the app recorded: bounded like a check-in's (lib/field/captured-at.ts, 422 on
 * captured_at) and stored as `device_captured_at` beside the upload's own time. One sent after the
 * task was reassigned is refused 409 naming the new assignee (lib/field/reassigned.ts); one sent
 * after the task was cancelled (or finished) gets the status refusal, 409 with `current_status`.
 */
import { and, count, eq } from "drizzle-orm";
import { getConfig } from "../config.js";
import { recordAudit } from "../db/audit.js";
import { getDb } from "../db/client.js";
import type { TaskStatus } from "../db/schema/enums.js";
import { proofFiles } from "../db/schema/index.js";
import { DomainError, isDomainError } from "../errors.js";
import { readCapture } from "../receipts/capture.js";
import { getTaskOrThrow } from "../tasks/state/apply-transition.js";
import { captureContextOf } from "../tasks/state/execute-task.js";
import { type DecodedProofFile, decodeProofFiles, proofFileRows } from "../tasks/state/proof-files.js";
import { readSiteVisit } from "../tasks/state/site-visit.js";
import { assertAssignee, assigneeOnly, type TaskPrincipal } from "../tasks/state/task-access.js";
import { boundedCapturedAt } from "./captured-at.js";
import { type AttachedProof, attachedProof, attachedProofColumns } from "./field-tasks.js";
import { assertNotReassignedAway } from "./reassigned.js";
import {
  FIELD_PROOF_IMAGE_TYPES,
  type FieldProofBody,
  type FieldProofQuery,
  MAX_FIELD_PROOF_FILES,
} from "./schemas.js";

/** Statuses a file may be uploaded in (before completion). */
const UPLOAD_STATUSES: readonly TaskStatus[] = ["paid", "dispatched", "on_site"];

/**
 * Decodes the one file of a request; errors name `file.<member>` (the decoder names items of an
 * array, `file.0.<member>`).
 */
async function decodeOne(input: FieldProofBody["file"]): Promise<DecodedProofFile> {
  try {
    const [file] = await decodeProofFiles([input], "file");
    return file!;
  } catch (error) {
    if (!isDomainError(error)) throw error;
    const rename = (s: string) => s.replace(/\bfile\.0\b/g, "file");
    throw new DomainError(error.code, rename(error.message), {
      ...(error.field ? { field: rename(error.field) } : {}),
      extra: error.extra,
    });
  }
}

/**
 * Attaches `body.file` to task `body.task_id` for `caller` at `now`.
 * @returns the file as attached (the one already there for the same content) and how many the task has
 * @throws DomainError NOT_FOUND, FORBIDDEN (a field staff member on a task not assigned to it), CONFLICT (status; too many files; reassigned since), INVALID_FORMAT / VALIDATION_ERROR / PAYLOAD_TOO_LARGE (the file; captured_at out of bounds)
 */
export async function uploadFieldProof(
  body: FieldProofBody,
  caller: Pick<TaskPrincipal, "role" | "staff"> | null,
  now = new Date(),
): Promise<{ taskId: string; file: AttachedProof; filesCount: number }> {
  const file = await decodeOne(body.file);
  const db = await getDb();
  return db.transaction(async (tx) => {
    const task = await getTaskOrThrow(body.task_id, tx, true);
    const only = assigneeOnly(caller);
    if (only !== null) await assertNotReassignedAway(tx, task, only);
    assertAssignee(task, caller);
    if (!UPLOAD_STATUSES.includes(task.status)) {
      throw new DomainError(
        "CONFLICT",
        `Cannot upload proof to task ${task.id}: its status is ${task.status} (allowed: ${UPLOAD_STATUSES.join(", ")})`,
        { extra: { current_status: task.status } },
      );
    }
    const capturedAt =
      body.captured_at === undefined ? null : boundedCapturedAt(body.captured_at, task, now, getConfig());
    const [{ n }] = (await tx
      .select({ n: count() })
      .from(proofFiles)
      .where(eq(proofFiles.taskId, task.id))) as [{ n: number }];
    const [same] = await tx
      .select(attachedProofColumns)
      .from(proofFiles)
      .where(and(eq(proofFiles.taskId, task.id), eq(proofFiles.sha256, file.sha256)))
      .limit(1);
    if (same) return { taskId: task.id, file: attachedProof(same), filesCount: n };
    if (n >= MAX_FIELD_PROOF_FILES) {
      throw new DomainError(
        "CONFLICT",
        `Task ${task.id} already has ${n} proof files (at most ${MAX_FIELD_PROOF_FILES} before completion)`,
        { extra: { current_status: task.status } },
      );
    }
    const visit = await readSiteVisit(task.id, tx);
    const capture = await readCapture(file.bytes, file.mimeType, captureContextOf(task, now, visit));
    const [row] = proofFileRows(task.id, [file]);
    await tx
      .insert(proofFiles)
      .values({ ...row!, position: n, capture, deviceCapturedAt: capturedAt, createdAt: now });
    await recordAudit(tx, {
      action: "proof.upload",
      taskId: task.id,
      targetKind: "proof_file",
      targetId: row!.id,
      details: {
        sha256: file.sha256,
        size: file.sizeBytes,
        type: file.mimeType,
        ...(capturedAt ? { captured_at: capturedAt.toISOString() } : {}),
      },
    });
    return {
      taskId: task.id,
      file: {
        filename: file.filename,
        type: file.mimeType,
        size: file.sizeBytes,
        sha256: file.sha256,
        capture: capture as Record<string, unknown> | null,
        captured_at: capturedAt?.toISOString() ?? null,
        received_at: now.toISOString(),
      },
      filesCount: n + 1,
    };
  });
}

/**
 * One proof photo of a task, as stored, for the field app's thumbnails after a reload (GET
 * /api/field-proof; issue 44: "an uploaded photo shows as a file name, not a thumbnail").
 * @param query `{task_id, sha256}` (lowercase hex, as the field list gives it)
 * @returns the file's bytes, its MIME type (one of FIELD_PROOF_IMAGE_TYPES) and name
 * @throws DomainError NOT_FOUND (no such task, no file of that hash on it, or a file that is not an
 *   image), FORBIDDEN (a field staff member on a task not assigned to it)
 */
export async function readFieldProof(
  query: FieldProofQuery,
  caller: Pick<TaskPrincipal, "role" | "staff"> | null,
): Promise<{ content: Uint8Array<ArrayBuffer>; mimeType: string; filename: string }> {
  const db = await getDb();
  const task = await getTaskOrThrow(query.task_id);
  assertAssignee(task, caller);
  const [file] = await db
    .select({ content: proofFiles.content, mimeType: proofFiles.mimeType, filename: proofFiles.filename })
    .from(proofFiles)
    .where(and(eq(proofFiles.taskId, task.id), eq(proofFiles.sha256, query.sha256)))
    .limit(1);
  if (!file || !(FIELD_PROOF_IMAGE_TYPES as readonly string[]).includes(file.mimeType)) {
    throw new DomainError(
      "NOT_FOUND",
      file
        ? `Proof file ${query.sha256} of task ${task.id} is not an image (${file.mimeType})`
        : `Task ${task.id} has no proof file ${query.sha256}`,
      { field: "sha256" },
    );
  }
  return { content: Uint8Array.from(file.content), mimeType: file.mimeType, filename: file.filename };
}
