/**
 * The permission check of admin operations (docs/staff-and-audit.md): the caller's role must hold
 * the permission the operation's descriptor names (`permission`), per the one table of
 * lib/permissions.ts. A staff session acts with its staff member's role, an admin key as `owner`
 * (both carried by `Caller.role`).
 */
import type { Actor } from "../db/actor.js";
import type { Role } from "../db/schema/enums.js";
import { roleHolds } from "../permissions.js";
import type { Principal } from "./auth.js";
import { ApiError } from "./errors.js";
import { type Operation, requiredPermission } from "./operation.js";

/** The role a principal acts with: a staff member's, an admin key's `owner`; null for requesters. */
export function roleOf(principal: Principal): Role | null {
  return principal.caller?.role ?? null;
}

/**
 * Who the audit trail says acts in a request with `principal` (lib/db/actor.ts): the signed-in
 * client account when a client JWT is verified, else the staff member (with its role), else the
 * API key (with its role), else
 * `anonymous` (no credential, or a task's access token).
 */
export function actorOf(principal: Principal): Actor {
  if (principal.client) return { kind: "client", id: principal.client.account.id, role: null };
  if (principal.caller?.staff)
    return { kind: "staff", id: principal.caller.staff.id, role: roleOf(principal) };
  if (principal.caller) return { kind: "api_key", id: principal.caller.keyId, role: roleOf(principal) };
  return { kind: "anonymous", id: null, role: null };
}

/**
 * Checks that `role` may call admin `operation`. A permission that depends on the body (`{ field,
 * by }`) is checked once the body is validated (`stage` "body"); a single permission before the
 * inputs are read (`stage` "auth"). Operations other than `auth: "admin"` pass. An admin operation
 * without a permission is refused (fail closed).
 * @throws ApiError FORBIDDEN with `error.permission` (and `error.role`)
 */
export function checkPermission(
  operation: Operation,
  role: Role | null,
  stage: "auth" | "body",
  body?: unknown,
): void {
  if (operation.auth !== "admin") return;
  const rule = operation.permission;
  if (rule === undefined) {
    throw new ApiError("FORBIDDEN", `Operation ${operation.id} declares no permission: refused`);
  }
  if ((typeof rule === "string") !== (stage === "auth")) return;
  const permission = requiredPermission(rule, body);
  if (permission === undefined) {
    throw new ApiError(
      "FORBIDDEN",
      `Operation ${operation.id} names no permission for this ${(rule as { field: string }).field}: refused`,
    );
  }
  if (!roleHolds(role, permission)) {
    throw new ApiError(
      "FORBIDDEN",
      `This operation requires the permission ${permission}, which ${role ? `role ${role}` : "this caller"} does not hold`,
      { extra: { permission, role } },
    );
  }
}
