/**
 * Roles and permissions (issue 26 item 2; docs/staff-and-audit.md): one table, read by the HTTP
 * wrapper (lib/http/permissions.ts), `/api/capabilities` (`operations.roles`) and the tests, like
 * the transition table. Each admin operation descriptor names the permission it needs
 * (`permission` in lib/descriptors/operation.ts); a role may call it when its row holds that
 * permission. An admin API key acts as `owner`.
 */
import { ROLES, type Role } from "./db/schema/enums.js";

export { ROLES, type Role } from "./db/schema/enums.js";

/** Every permission, named after what it allows, with what it allows. */
export const PERMISSIONS = {
  "tasks.read": "Read every task and the operator queue (GET /api/task-list).",
  "tasks.review": "Approve, counter-offer or reject a received task (POST /api/task-review).",
  "tasks.dispatch": "Dispatch a paid task (POST /api/task-complete action dispatch).",
  "tasks.assign":
    "Assign a paid, dispatched or on-site task to a field staff member, or unassign it (POST /api/task-assign).",
  "tasks.execute":
    "Mark on site, complete with proof, or fail a task (POST /api/task-complete); a field staff member's visits and proof uploads (GET and POST /api/field-visit, POST /api/field-proof), on the tasks assigned to them.",
  "payments.read": "Read the USDC transfers the payment checker saw (GET /api/chain-transfers).",
  "payments.record": "Record a payment received out of band (POST /api/task-payment).",
  "refunds.settle": "Settle a refund request (POST /api/task-refund).",
  "disputes.read": "List disputes with their evidence (GET /api/disputes).",
  "disputes.resolve":
    "Resolve a dispute: redo, partial or full refund, or reject (POST /api/dispute-resolve).",
  "billing.deposit": "Record a deposit to a prepaid account (POST /api/account-admin action deposit).",
  "billing.adjust":
    "Record a signed adjustment of a prepaid account (POST /api/account-admin action adjust).",
  "accounts.admin": "Suspend or activate a prepaid account, set its discount (POST /api/account-admin).",
  "privacy.admin": "The incident register and erasure requests (GET and POST /api/privacy-admin).",
  "analytics.read": "Operator analytics and compliance exports (GET /api/analytics).",
  "audit.read": "Read the audit trail (GET /api/audit-log).",
  "keys.manage": "Create admin keys and revoke any key (held today through an admin key's own powers).",
  "staff.manage": "List, invite, change the role of, suspend and reactivate staff (GET and POST /api/staff).",
} as const;

/** A permission (a key of `PERMISSIONS`). */
export type Permission = keyof typeof PERMISSIONS;

/**
 * What each role holds (issue 26: owner everything; reviewer the review queue; dispatcher
 * assignment and dispatch; field the execution of the tasks assigned to them; finance payments,
 * refunds, deposits, adjustments, dispute resolutions; the reviewer also reads disputes).
 */
export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = {
  owner: Object.keys(PERMISSIONS) as Permission[],
  reviewer: ["tasks.read", "tasks.review", "disputes.read"],
  dispatcher: ["tasks.read", "tasks.dispatch", "tasks.assign"],
  field: ["tasks.execute"],
  finance: [
    "tasks.read",
    "payments.read",
    "payments.record",
    "refunds.settle",
    "disputes.read",
    "disputes.resolve",
    "billing.deposit",
    "billing.adjust",
  ],
};

/** True when `role` holds `permission` (`ROLE_PERMISSIONS`); false for no role (a requester). */
export function roleHolds(role: Role | null, permission: Permission): boolean {
  return role !== null && ROLE_PERMISSIONS[role].includes(permission);
}

/** The roles holding `permission`, in `ROLES` order. */
export function rolesHolding(permission: Permission): Role[] {
  return ROLES.filter((role) => ROLE_PERMISSIONS[role].includes(permission));
}
