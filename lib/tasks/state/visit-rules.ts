/**
 * Site-visit rules per service (issue 44 item 1; docs/staff-and-audit.md "Visit rules";
 * docs/decisions.md 45): whether a task of a service must have been visited (a check-in by its
 * assignee, POST /api/field-visit) before it is completed. Data beside the SLA constants, in the
 * state layer because completion (execute-task.ts) enforces it; the catalog
 * (lib/catalog/services.ts) publishes each service's rule in its entry and contract, and
 * /api/capabilities the whole table.
 *
 * - `required`: a field person completes only after a check-in (inside the geofence, or outside it
 *   with a reason: flagged `OUTSIDE_GEOFENCE`); an owner or an admin key completing without any
 *   visit gives `no_visit_reason` (flagged `NO_SITE_VISIT`).
 * - `optional`: a visit is recorded when made (and flagged when outside the fence); completion
 *   without one is normal.
 * - `none`: the work is remote; no visit is expected (a check-in is still accepted and recorded).
 *
 * No database import: the catalog and the capabilities read it without loading the state layer's
 * database code.
 */
import type { ServiceType, SiteVisitRule, TaskStatus } from "../../db/schema/enums.js";
import type { ReceiptVisitRule } from "../../receipts/receipt.js";

/** One service's rule and why (published in the catalog contract). */
export interface VisitRuleDefinition {
  rule: SiteVisitRule;
  /** Why this rule fits the service, one sentence (published). */
  why: string;
}

/** The rule of each service (decisions.md 45 gives the reasons at length). */
export const VISIT_RULES: Readonly<Record<ServiceType, VisitRuleDefinition>> = Object.freeze({
  "SVC-01": {
    rule: "required",
    why: "A site audit documents a place: the evidence sold is that someone stood at the address.",
  },
  "SVC-02": {
    rule: "required",
    why: "The item is inspected where the seller shows it, at the pickup address the task gives.",
  },
  "SVC-03": {
    rule: "optional",
    why: "An auction house may take phone or online bids and show lots elsewhere before the sale; the bid log and the invoice are the evidence.",
  },
  "SVC-04": {
    rule: "required",
    why: "Level-1 IT work is hands on the equipment at the address.",
  },
  "SVC-05": {
    rule: "required",
    why: "The run starts at the pickup address (location_address), where the check-in is made; delivery is proven by its photo and recipient.",
  },
});

/** The rule of `service` (an unknown service: `required`, the strictest). */
export function visitRuleOf(service: string): SiteVisitRule {
  return (VISIT_RULES as Record<string, VisitRuleDefinition | undefined>)[service]?.rule ?? "required";
}

/** What a completion is told about a task's visit, in words a person reads (capabilities). */
export const VISIT_RULE_MEANINGS: Readonly<Record<SiteVisitRule, string>> = Object.freeze({
  required:
    "A field person completes the task only after checking in (inside the geofence, or outside it with a reason, flagged OUTSIDE_GEOFENCE); an owner or admin key completing without any visit must give no_visit_reason (flagged NO_SITE_VISIT).",
  optional:
    "A check-in is recorded when made (flagged OUTSIDE_GEOFENCE when outside the fence); completion without one is normal.",
  none: "The work is done remotely: no visit is expected; a check-in, if made, is recorded.",
});

/** The flags a visit outcome raises (status, receipt, console). */
export type VisitFlag = ReceiptVisitRule["flags"][number];

/**
 * How a task stood against its rule: in the status (owner, admin), the `task.completed` /
 * `task.failed` events and the signed receipt (`visit_rule` claim); the type is the receipt's.
 */
export type VisitRuleView = ReceiptVisitRule;

/**
 * The view of `rule` for a task in `status` with a visit (`withinGeofence`, or null without one)
 * and `noVisitReason`. NO_SITE_VISIT is raised only for a completed task (a failed task may not
 * have reached the place).
 */
export function visitRuleView(
  rule: SiteVisitRule,
  status: TaskStatus | "completed" | "failed",
  visit: { withinGeofence: boolean } | null,
  noVisitReason: string | null,
): VisitRuleView {
  const outcome = !visit ? "no_visit" : visit.withinGeofence ? "inside_geofence" : "outside_geofence";
  const flags: VisitFlag[] = [];
  if (outcome === "outside_geofence") flags.push("OUTSIDE_GEOFENCE");
  if (outcome === "no_visit" && rule === "required" && status === "completed") flags.push("NO_SITE_VISIT");
  return { rule, outcome, flags, ...(noVisitReason ? { no_visit_reason: noVisitReason } : {}) };
}
