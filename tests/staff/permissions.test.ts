/**
 * The permission table (issue 26 item 2; lib/permissions.ts): every role × every admin operation
 * (listed from the descriptors, so a new admin operation without a permission fails here), through
 * the real handler wrapper, each role signed in as a real staff member (enrolled with TOTP, bearer
 * session). A role lacking the operation's
 * permission gets 403 FORBIDDEN naming it; a role holding it passes the check (whatever the
 * operation then answers, never that 403).
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Role } from "../../lib/db/schema/enums.js";
import { type Operation, permissionsOf } from "../../lib/descriptors/operation.js";
import { allOperations } from "../../lib/openapi/operations.js";
import { PERMISSIONS, ROLE_PERMISSIONS, ROLES, roleHolds } from "../../lib/permissions.js";
import { useTestDatabase } from "../helpers/db.js";
import { call, type WebHandler } from "../helpers/request.js";
import { createStaff, staffHeaders, type TestStaff } from "../helpers/staff.js";

useTestDatabase();

/** One signed-in staff member per role (real enrolment and sessions). */
const members = new Map<Role, TestStaff>();
beforeAll(async () => {
  for (const role of ROLES) members.set(role, await createStaff(role));
});

const ADMIN_OPERATIONS = allOperations().filter((op) => op.auth === "admin");

/** Bodies that pass validation, per operation and, for a permission chosen by a body field, per value. */
const BODIES: Record<string, (value?: string) => Record<string, unknown>> = {
  reviewTask: () => ({ task_id: "TASK-UNKNOWN", action: "reject", reason: "test" }),
  completeTask: (action) => ({ task_id: "TASK-UNKNOWN", action }),
  recordTaskPayment: () => ({ task_id: "TASK-UNKNOWN" }),
  settleTaskRefund: () => ({ task_id: "TASK-UNKNOWN", outcome: "denied", note: "policy" }),
  accountAdmin: (action) => ({
    action,
    email: "nobody@example.com",
    ...(action === "deposit" || action === "adjust" ? { amount_cad: 10 } : {}),
    ...(action === "adjust" ? { description: "test" } : {}),
    ...(action === "set_discount" ? { discount_percent: 5 } : {}),
  }),
  privacyAdmin: () => ({ action: "process_erasure", account_id: "acct_unknown", reason: "test" }),
  changeStaff: () => ({ action: "suspend", staff_id: "stf_unknown" }),
  assignTask: () => ({ task_id: "TASK-UNKNOWN", staff_id: null }),
  recordFieldVisit: () => ({
    task_id: "TASK-UNKNOWN",
    action: "check_in",
    latitude: 45.5,
    longitude: -73.57,
    accuracy_m: 10,
  }),
  uploadFieldProof: () => ({
    task_id: "TASK-UNKNOWN",
    file: { filename: "a.txt", type: "text/plain", content: "aGk=" },
  }),
};

/** One case: an operation, the body-field value that selects its permission (if any), the permission. */
interface Case {
  op: Operation;
  value: string | undefined;
  permission: string;
}

function cases(): Case[] {
  return ADMIN_OPERATIONS.flatMap((op): Case[] => {
    const rule = op.permission;
    if (rule === undefined) return [];
    if (typeof rule === "string") return [{ op, value: undefined, permission: rule }];
    return Object.entries(rule.by).map(([value, permission]) => ({ op, value, permission }));
  });
}

async function handlerOf(op: Operation): Promise<WebHandler> {
  const module = (await import(`../../api/${op.path.slice("/api/".length)}.ts`)) as Record<
    string,
    WebHandler
  >;
  return module[op.method]!;
}

async function callAs(role: Role, { op, value }: Case) {
  const handler = await handlerOf(op);
  const body = op.body ? (BODIES[op.id]?.(value) ?? {}) : undefined;
  return call(handler, op.path, {
    method: op.method,
    headers: staffHeaders(members.get(role)!),
    ...(body === undefined ? {} : { json: body }),
  });
}

describe("the permission table", () => {
  it("every admin operation declares a permission, and every permission it names exists", () => {
    expect(ADMIN_OPERATIONS.length).toBeGreaterThanOrEqual(11);
    for (const op of ADMIN_OPERATIONS) {
      expect(op.permission, `${op.id} declares no permission`).toBeDefined();
      for (const p of permissionsOf(op.permission)) expect(Object.keys(PERMISSIONS)).toContain(p);
    }
  });

  it("owner holds every permission; every permission an operation needs is held by owner", () => {
    expect([...ROLE_PERMISSIONS.owner].sort()).toEqual(Object.keys(PERMISSIONS).sort());
    expect(ROLES).toEqual(["owner", "reviewer", "dispatcher", "field", "finance"]);
  });

  it("an operation whose permission is chosen by a body field names one for every value of that field", () => {
    for (const op of ADMIN_OPERATIONS) {
      const rule = op.permission;
      if (rule === undefined || typeof rule === "string") continue;
      const shape = (op.body as unknown as { shape: Record<string, { options?: string[] }> }).shape;
      expect(Object.keys(rule.by).sort()).toEqual([...(shape[rule.field]!.options ?? [])].sort());
    }
  });

  const table = ROLES.flatMap((role) => cases().map((c) => [role, c] as const));
  it.each(
    table.map(([role, c]) => [role, `${c.op.id}${c.value ? ` ${c.value}` : ""}`, c.permission, role, c]),
  )("%s × %s (%s)", async (_label, _opLabel, permission, role, c) => {
    const { res, body } = await callAs(role as Role, c as Case);
    if (roleHolds(role as Role, permission as never)) {
      expect(body?.error?.permission, JSON.stringify(body)).toBeUndefined();
      expect(res.status).not.toBe(403);
    } else {
      expect(res.status, JSON.stringify(body)).toBe(403);
      expect(body.error.code).toBe("FORBIDDEN");
      expect(body.error.permission).toBe(permission);
      expect(body.error.role).toBe(role);
      expect(body.error.message).toContain(permission as string);
    }
  });

  it("the matrix holds what the issue gives each role", () => {
    const may = (role: Role, opId: string, value?: string) => {
      const c = cases().find((x) => x.op.id === opId && x.value === value)!;
      return roleHolds(role, c.permission as never);
    };
    expect(may("reviewer", "reviewTask")).toBe(true);
    expect(may("reviewer", "listTasks")).toBe(true);
    expect(may("reviewer", "completeTask", "dispatch")).toBe(false);
    expect(may("dispatcher", "completeTask", "dispatch")).toBe(true);
    expect(may("dispatcher", "reviewTask")).toBe(false);
    expect(may("field", "completeTask", "complete")).toBe(true);
    expect(may("field", "completeTask", "fail")).toBe(true);
    expect(may("field", "completeTask", "dispatch")).toBe(false);
    expect(may("field", "listTasks")).toBe(false);
    expect(may("dispatcher", "assignTask")).toBe(true);
    expect(may("owner", "assignTask")).toBe(true);
    for (const role of ["reviewer", "field", "finance"] as const) expect(may(role, "assignTask")).toBe(false);
    expect(may("field", "recordFieldVisit")).toBe(true);
    expect(may("field", "uploadFieldProof")).toBe(true);
    expect(may("field", "listFieldTasks")).toBe(true);
    expect(may("dispatcher", "recordFieldVisit")).toBe(false);
    expect(may("finance", "recordTaskPayment")).toBe(true);
    expect(may("finance", "settleTaskRefund")).toBe(true);
    expect(may("finance", "accountAdmin", "deposit")).toBe(true);
    expect(may("finance", "accountAdmin", "adjust")).toBe(true);
    expect(may("finance", "accountAdmin", "suspend")).toBe(false);
    expect(may("finance", "reviewTask")).toBe(false);
    // Disputes (issue 27): finance and the owner resolve; the reviewer reads the queue too.
    expect(may("finance", "resolveDispute")).toBe(true);
    expect(may("finance", "listDisputes")).toBe(true);
    expect(may("reviewer", "listDisputes")).toBe(true);
    expect(may("reviewer", "resolveDispute")).toBe(false);
    expect(may("dispatcher", "listDisputes")).toBe(false);
    expect(may("field", "resolveDispute")).toBe(false);
    for (const role of ["reviewer", "dispatcher", "field", "finance"] as const) {
      expect(may(role, "listAuditLog")).toBe(false);
      expect(may(role, "privacyAdmin")).toBe(false);
    }
  });
});
