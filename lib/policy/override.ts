/** The operator's override of a `review` outcome of the policy screen. */
import type { TaskPolicyRecord } from "../db/schema/index.js";

/**
 * The policy record of a task that an operator approves (or counter-offers) at review: for a task
 * the screen sent to `review`, the record with `override` {at, action, operator_notes}; for any
 * other (allowed, screened before the screen existed, already overridden) undefined: nothing to record.
 */
export function policyOverride(
  policy: TaskPolicyRecord | null,
  action: string,
  operatorNotes: string | null,
  now: Date,
): TaskPolicyRecord | undefined {
  if (policy?.outcome !== "review" || policy.override) return undefined;
  return { ...policy, override: { at: now.toISOString(), action, operator_notes: operatorNotes } };
}
