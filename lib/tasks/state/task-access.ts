/**
 * Who may see and act on a task: the one rule every path that shows task data or acts on a task
 * calls (HTTP status and cancellation, MCP tools, task methods and resources, the event stream,
 * scores, receipts). docs/security.md "Who can read what" and docs/api-conventions.md "Status response"
 * state it for callers.
 *
 * - `admin`: an API key with the `admin` scope; a staff member whose role reads every task
 *   (owner, reviewer, dispatcher, finance: permission `tasks.read`); a `field` staff member for the
 *   tasks assigned to them only (elsewhere `public`).
 * - `owner`: the key that submitted the task, another key linked to the same client account as
 *   that key (or to the prepaid account the task was charged to), that account's signed-in owner
 *   (client JWT), or the task's `access_token` (keyless submissions; compared by SHA-256 in
 *   constant time).
 * - `public`: anyone else, with or without a key: the public part of the status only.
 *
 * In the state layer (no service imports) so that every layer above reads the same function; the
 * caller is described structurally (lib/keys/credentials.ts `Caller` fits it).
 */
import { timingSafeEqual } from "node:crypto";
import type { Role } from "../../db/schema/enums.js";
import type { Task } from "../../db/schema/index.js";
import { DomainError } from "../../errors.js";
import { sha256Hex } from "../../ids.js";
import { roleHolds } from "../../permissions.js";

/** A verified API key as the rule needs it (a `Caller` of lib/keys/credentials.ts). */
export interface TaskPrincipal {
  keyId: string;
  isAdmin: boolean;
  /** A staff member's role (with `staff` set); an admin key's `owner`. */
  role?: Role | null;
  /** Set for a signed-in staff member (lib/keys/credentials.ts `Caller.staff`). */
  staff?: { id: string } | undefined;
  /** The client account the key is linked to, if any. */
  accountId: string | null;
}

/** What a request presents about a task: a verified key, a signed-in client account, the task's access token. */
export interface TaskCredential {
  caller: TaskPrincipal | null;
  accessToken?: string | undefined;
  /** The client account of a verified client session (JWT), if one was sent. */
  clientAccountId?: string | undefined;
}

/** What a credential may do with a task, weakest first: see the module comment. */
export type TaskAccess = "public" | "owner" | "admin";

/** The task columns the rule reads. */
export type TaskOwnership = Pick<Task, "apiKeyId" | "accessTokenHash" | "accountId"> &
  Partial<Pick<Task, "assignedStaffId">>;

/** Whether `token` hashes (SHA-256 hex) to `hash`, compared in constant time. */
export function tokenMatches(token: string, hash: string): boolean {
  const a = Buffer.from(sha256Hex(token));
  const b = Buffer.from(hash);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The client account key `keyId` is linked to, or null. The database layer is imported here, on
 * the first such read, so the MCP endpoint does not load it at start (cold start,
 * tests/architecture/startup-imports.test.ts).
 */
async function accountOfKey(keyId: string): Promise<string | null> {
  const [{ eq }, { getDb }, { apiKeys }] = await Promise.all([
    import("drizzle-orm"),
    import("../../db/client.js"),
    import("../../db/schema/index.js"),
  ]);
  const db = await getDb();
  const [row] = await db.select({ accountId: apiKeys.accountId }).from(apiKeys).where(eq(apiKeys.id, keyId));
  return row?.accountId ?? null;
}

/**
 * The access `credential` has to `task`. No query for an admin, the submitting key or the
 * access token; one indexed read of the submitting key's account for another account-linked key.
 */
export async function taskAccess(task: TaskOwnership, credential: TaskCredential): Promise<TaskAccess> {
  const { caller, accessToken } = credential;
  if (caller?.staff) {
    if (caller.role && roleHolds(caller.role, "tasks.read")) return "admin";
    return task.assignedStaffId === caller.staff.id ? "admin" : "public";
  }
  if (caller?.isAdmin) return "admin";
  if (caller && task.apiKeyId !== null && task.apiKeyId === caller.keyId) return "owner";
  if (accessToken && task.accessTokenHash !== null && tokenMatches(accessToken, task.accessTokenHash)) {
    return "owner";
  }
  const account = credential.clientAccountId ?? caller?.accountId;
  if (account) {
    if (task.accountId === account) return "owner";
    if (task.apiKeyId !== null && (await accountOfKey(task.apiKeyId)) === account) return "owner";
  }
  return "public";
}

/**
 * The staff member a caller may act only as the assignee of (issue 26 item 4): a staff member
 * whose role does not read every task (`field`: no `tasks.read`) acts on the tasks assigned to them
 * only; null for everyone else (admin keys, owner, dispatcher…), who act on any task.
 */
export function assigneeOnly(
  caller: Pick<TaskPrincipal, "role" | "staff"> | null | undefined,
): string | null {
  if (!caller?.staff) return null;
  return caller.role && roleHolds(caller.role, "tasks.read") ? null : caller.staff.id;
}

/**
 * Refuses a caller restricted to its assignments ({@link assigneeOnly}) on a task not assigned to it.
 * @throws DomainError FORBIDDEN
 */
export function assertAssignee(
  task: Pick<Task, "id" | "assignedStaffId">,
  caller: Pick<TaskPrincipal, "role" | "staff"> | null | undefined,
): void {
  const only = assigneeOnly(caller);
  if (only !== null && task.assignedStaffId !== only) {
    throw new DomainError("FORBIDDEN", `Task ${task.id} is not assigned to you`, {
      field: "task_id",
    });
  }
}

/** Whether `access` sees the task's content (owner or admin). */
export function seesContent(access: TaskAccess): boolean {
  return access !== "public";
}

/**
 * Refuses a presented access token that is not `task`'s: a token belongs to one task, so sending
 * another task's (or a mistyped one) is a client error worth naming rather than a silent public view.
 * @throws DomainError FORBIDDEN
 */
export function rejectForeignToken(task: TaskOwnership, accessToken: string | undefined): void {
  if (accessToken && !(task.accessTokenHash !== null && tokenMatches(accessToken, task.accessTokenHash))) {
    throw new DomainError("FORBIDDEN", "This access_token does not belong to this task", {
      field: "access_token",
    });
  }
}
