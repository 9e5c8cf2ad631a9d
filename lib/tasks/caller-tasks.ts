/**
 * Reads for a task's own submitter (MCP `tasks/list`, `list_my_tasks`, proof resources): the
 * tasks one API key submitted, newest first, in keyset pages; and a task's proof files, listed
 * without their bodies or read one at a time; the one task an MCP `access_token` follows.
 *
 * Cursors are opaque to callers: base64url of `<created_at ISO 8601>|<task id>` of the last task
 * of the previous page (ties on created_at broken by id), so a page never repeats or skips a task
 * while new ones are submitted.
 */
import { and, asc, desc, eq, lt, or } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { proofFiles, type Task, tasks } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { sha256Hex } from "../ids.js";
import { MAX_TASK_PAGE } from "./state/schemas.js";

function encodeCursor(task: Pick<Task, "createdAt" | "id">): string {
  return Buffer.from(`${task.createdAt.toISOString()}|${task.id}`, "utf8").toString("base64url");
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const bar = text.indexOf("|");
  const createdAt = new Date(text.slice(0, bar));
  if (bar < 1 || Number.isNaN(createdAt.getTime()) || text.length - bar < 2) {
    throw new DomainError(
      "VALIDATION_ERROR",
      "Invalid cursor: pass nextCursor of the previous page unchanged",
      {
        field: "cursor",
      },
    );
  }
  return { createdAt, id: text.slice(bar + 1) };
}

/**
 * The tasks submitted with API key `keyId`, newest first: `limit` (1..{@link MAX_TASK_PAGE})
 * tasks after `cursor`, and the cursor of the next page when there may be one.
 * @throws DomainError VALIDATION_ERROR (field `cursor`) for a cursor this function did not make
 */
export async function listKeyTasks(
  keyId: string,
  page: { cursor?: string; limit: number },
): Promise<{ tasks: Task[]; nextCursor?: string }> {
  const limit = Math.min(Math.max(Math.trunc(page.limit), 1), MAX_TASK_PAGE);
  const after = page.cursor ? decodeCursor(page.cursor) : undefined;
  const db = await getDb();
  const rows = await db
    .select()
    .from(tasks)
    .where(
      and(
        eq(tasks.apiKeyId, keyId),
        after
          ? or(
              lt(tasks.createdAt, after.createdAt),
              and(eq(tasks.createdAt, after.createdAt), lt(tasks.id, after.id)),
            )
          : undefined,
      ),
    )
    .orderBy(desc(tasks.createdAt), desc(tasks.id))
    .limit(limit + 1);
  const more = rows.length > limit;
  const pageRows = more ? rows.slice(0, limit) : rows;
  const last = pageRows.at(-1);
  return { tasks: pageRows, ...(more && last ? { nextCursor: encodeCursor(last) } : {}) };
}

/** A proof file without its body. `index` counts from 1 in upload order. */
export interface ProofFileSummary {
  index: number;
  filename: string;
  mimeType: string;
  /** Bytes. */
  sizeBytes: number;
  /** Lowercase hex SHA-256 of the body. */
  sha256: string;
  /**
   * Capture metadata read from the file when it was stored (lib/receipts/capture.ts: captured_at,
   * gps {latitude, longitude}, distance_km, flags…), as `proof_files[].capture` of the HTTP status;
   * null when the file carries none.
   */
  capture: Record<string, unknown> | null;
}

/**
 * The order of a task's proof files, the HTTP status view's (lib/tasks/task-view.ts) and the
 * receipt's: upload time, then position within one upload (a completion stores several files in
 * one transaction, with one `created_at`), then id.
 */
const UPLOAD_ORDER = [asc(proofFiles.createdAt), asc(proofFiles.position), asc(proofFiles.id)];

/** The proof files of task `taskId` in upload order, without their bodies (empty when none). */
export async function proofFileSummaries(taskId: string): Promise<ProofFileSummary[]> {
  const db = await getDb();
  const rows = await db
    .select({
      filename: proofFiles.filename,
      mimeType: proofFiles.mimeType,
      sizeBytes: proofFiles.sizeBytes,
      sha256: proofFiles.sha256,
      capture: proofFiles.capture,
    })
    .from(proofFiles)
    .where(eq(proofFiles.taskId, taskId))
    .orderBy(...UPLOAD_ORDER);
  return rows.map((r, i) => ({ index: i + 1, ...r, capture: r.capture ?? null }));
}

/**
 * Proof file number `index` (from 1, upload order) of task `taskId`, with its body.
 * @throws DomainError NOT_FOUND when the task has no such file
 */
export async function readProofFile(
  taskId: string,
  index: number,
): Promise<ProofFileSummary & { content: Uint8Array }> {
  const db = await getDb();
  const [row] =
    Number.isSafeInteger(index) && index >= 1
      ? await db
          .select({
            filename: proofFiles.filename,
            mimeType: proofFiles.mimeType,
            sizeBytes: proofFiles.sizeBytes,
            sha256: proofFiles.sha256,
            capture: proofFiles.capture,
            content: proofFiles.content,
          })
          .from(proofFiles)
          .where(eq(proofFiles.taskId, taskId))
          .orderBy(...UPLOAD_ORDER)
          .limit(1)
          .offset(index - 1)
      : [];
  if (!row) throw new DomainError("NOT_FOUND", `Task ${taskId} has no proof file ${index}`, { field: "uri" });
  return { index, ...row, capture: row.capture ?? null };
}

/** The task whose access token (the `access_token` of a keyless submission) is `accessToken`, if any. */
export async function taskOfAccessToken(accessToken: string): Promise<Task | undefined> {
  const db = await getDb();
  const [task] = await db
    .select()
    .from(tasks)
    .where(eq(tasks.accessTokenHash, sha256Hex(accessToken)))
    .limit(1);
  return task;
}
